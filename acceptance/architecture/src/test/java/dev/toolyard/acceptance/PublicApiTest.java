package dev.toolyard.acceptance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import dev.toolyard.PlantedUnlistedPublicType;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.module.ModuleDescriptor;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The public surface is a list someone wrote on purpose: every public top-level type in a package a
 * ToolYard module exports (read from the modules' own {@code module-info.class}, so a new export counts
 * too) must be listed in {@code docs/public-api.md} with a line on why it is public, and every listed
 * type must still exist. A new public type nobody listed fails the build; so does a stale line.
 */
class PublicApiTest {
    /** A row of the list: {@code | `dev.toolyard.ToolExecutor` | why |}. */
    private static final Pattern ROW = Pattern.compile("^\\| `(dev\\.toolyard\\.[\\w.]+)` \\|(.*)\\|\\s*$");

    private static final JavaClasses PRODUCTION = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("dev.toolyard");

    @Test
    void everyPublicTypeOfAnExportedPackageIsListedWithAReasonAndEveryListedTypeExists() {
        Set<String> exported = exportedPackages();
        assertThat(exported).as("the modules' exported packages, read from their module-info")
                .contains("dev.toolyard", "dev.toolyard.spi", "dev.toolyard.builtins", "dev.toolyard.sandbox")
                .noneMatch(p -> p.contains(".internal"));
        check(PRODUCTION, exported, listed());
    }

    @Test
    void aPublicTypeNobodyListedFailsTheCheckNamingIt() {
        JavaClasses planted = new ClassFileImporter().importClasses(PlantedUnlistedPublicType.class);
        assertThatThrownBy(() -> check(planted, Set.of("dev.toolyard"), Set.of()))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("dev.toolyard.PlantedUnlistedPublicType")
                .hasMessageContaining("not listed");
    }

    @Test
    void aListedTypeThatNoLongerExistsFailsTheCheckNamingIt() {
        JavaClasses planted = new ClassFileImporter().importClasses(PlantedUnlistedPublicType.class);
        assertThatThrownBy(() -> check(planted, Set.of("dev.toolyard"),
                        Set.of("dev.toolyard.PlantedUnlistedPublicType", "dev.toolyard.NoSuchType")))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("dev.toolyard.NoSuchType")
                .hasMessageContaining("no longer exist");
    }

    /**
     * @param classes the classes to judge
     * @param exported the exported packages
     * @param listed the fully qualified names the list names
     * @throws AssertionError naming every public top-level type of an exported package that is not listed,
     *     and every listed type that does not exist (or is no longer public, top-level and exported)
     */
    static void check(JavaClasses classes, Set<String> exported, Set<String> listed) {
        Set<String> actual = classes.stream()
                .filter(c -> c.getModifiers().contains(JavaModifier.PUBLIC))
                .filter(JavaClass::isTopLevelClass)
                .filter(c -> exported.contains(c.getPackageName()))
                .map(JavaClass::getName)
                .collect(Collectors.toCollection(TreeSet::new));
        Set<String> unlisted = new TreeSet<>(actual);
        unlisted.removeAll(listed);
        Set<String> gone = new TreeSet<>(listed);
        gone.removeAll(actual);
        StringBuilder problems = new StringBuilder();
        if (!unlisted.isEmpty()) {
            problems.append("public types of exported packages not listed in docs/public-api.md (list each with why "
                    + "it is public, or make it package-private): ").append(unlisted).append('\n');
        }
        if (!gone.isEmpty()) {
            problems.append("types listed in docs/public-api.md that no longer exist as public top-level types of an "
                    + "exported package: ").append(gone).append('\n');
        }
        if (problems.length() > 0) {
            throw new AssertionError(problems.toString());
        }
    }

    /** @return every package a ToolYard module exports to everyone, from the module descriptors on the class path */
    static Set<String> exportedPackages() {
        Set<String> packages = new TreeSet<>();
        try {
            for (URL url : Collections.list(PublicApiTest.class.getClassLoader().getResources("module-info.class"))) {
                try (InputStream in = url.openStream()) {
                    ModuleDescriptor d = ModuleDescriptor.read(in);
                    if (!d.name().startsWith("dev.toolyard.")) {
                        continue;
                    }
                    for (ModuleDescriptor.Exports e : d.exports()) {
                        assertThat(e.isQualified()).as(d.name() + " exports " + e.source() + " to "
                                + e.targets() + ": no module exports anything to some modules only").isFalse();
                        packages.add(e.source());
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return packages;
    }

    /** @return the fully qualified names listed in docs/public-api.md, each with a non-empty reason */
    static Set<String> listed() {
        Path list = Path.of(System.getProperty("toolyard.root", "../..")).resolve("docs/public-api.md");
        List<String> lines;
        try {
            lines = Files.readAllLines(list);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + list.toAbsolutePath(), e);
        }
        Set<String> names = new TreeSet<>();
        for (String line : lines) {
            Matcher m = ROW.matcher(line);
            if (m.matches()) {
                assertThat(m.group(2).strip()).as("the reason " + m.group(1) + " is public").isNotBlank();
                assertThat(names.add(m.group(1))).as(m.group(1) + " is listed once").isTrue();
            }
        }
        assertThat(names).as("types listed in " + list.toAbsolutePath()).isNotEmpty();
        return names;
    }
}
