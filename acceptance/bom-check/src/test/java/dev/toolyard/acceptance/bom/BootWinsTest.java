package dev.toolyard.acceptance.bom;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * toolyard-bom never overrides what Spring Boot manages. boot-app (Boot 4.1.1's parent, toolyard-bom
 * imported) and boot-app-without-bom (the same dependencies, versions written out) each wrote the runtime
 * dependencies Maven resolved for them; a version may differ between the two only for an artifact Boot
 * does not manage. And the BOM itself manages nothing Boot manages, whatever Maven's import order does.
 */
class BootWinsTest {
    private static Map<String, String> resolved(String property) throws Exception {
        Path file = Path.of(System.getProperty(property));
        assertThat(file).as("written by maven-dependency-plugin:list in the application's build").exists();
        Map<String, String> versions = new TreeMap<>();
        for (String line : Files.readAllLines(file)) {
            String coordinates = line.strip().split(" ")[0];
            String[] parts = coordinates.split(":");
            if (parts.length < 4 || line.isBlank() || !line.startsWith("   ")) {
                continue; // the header line, blank lines
            }
            String key = parts.length == 5 ? parts[0] + ":" + parts[1] + ":" + parts[3] : parts[0] + ":" + parts[1];
            versions.put(key, parts[parts.length - 1]);
        }
        assertThat(versions).as("dependencies in " + file).isNotEmpty();
        return versions;
    }

    private static Document xml(String property) throws Exception {
        return DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(Path.of(System.getProperty(property)).toFile());
    }

    private static List<Element> managed(Document pom) {
        List<Element> out = new ArrayList<>();
        Element management = (Element) pom.getDocumentElement().getElementsByTagName("dependencyManagement").item(0);
        NodeList dependencies = management.getElementsByTagName("dependency");
        for (int i = 0; i < dependencies.getLength(); i++) {
            out.add((Element) dependencies.item(i));
        }
        return out;
    }

    private static String text(Element e, String tag) {
        NodeList found = e.getElementsByTagName(tag);
        return found.getLength() == 0 ? "" : found.item(0).getTextContent().strip();
    }

    /**
     * What spring-boot-dependencies 4.1.1 manages: its own entries and those of every BOM it imports, read
     * from the local repository, where resolving boot-app put them.
     */
    static final class BootManaged {
        final Set<String> artifacts = new LinkedHashSet<>();
        final Set<String> imports = new LinkedHashSet<>();
        final Map<String, String> properties = new TreeMap<>();

        BootManaged() throws Exception {
            Path bootPom = Path.of(System.getProperty("bootDependencies"));
            Document pom = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(bootPom.toFile());
            properties.putAll(properties(pom));
            // .../org/springframework/boot/spring-boot-dependencies/4.1.1/x.pom: five levels below the repository
            read(pom, properties, bootPom.getParent().getParent().getParent().getParent().getParent().getParent(), 0);
        }

        private static Map<String, String> properties(Document pom) {
            Map<String, String> out = new TreeMap<>();
            NodeList all = pom.getDocumentElement().getElementsByTagName("properties");
            if (all.getLength() > 0) {
                NodeList children = all.item(0).getChildNodes();
                for (int i = 0; i < children.getLength(); i++) {
                    if (children.item(i) instanceof Element p) {
                        out.put(p.getTagName(), p.getTextContent().strip());
                    }
                }
            }
            Element root = pom.getDocumentElement();
            for (String field : List.of("groupId", "version")) {
                NodeList own = root.getChildNodes();
                for (int i = 0; i < own.getLength(); i++) {
                    if (own.item(i) instanceof Element e && e.getTagName().equals(field)) {
                        out.put("project." + field, e.getTextContent().strip());
                    }
                }
            }
            if (!out.containsKey("project.groupId")) { // inherited from the parent
                out.put("project.groupId", text((Element) root.getElementsByTagName("parent").item(0), "groupId"));
            }
            return out;
        }

        private static String resolve(String value, Map<String, String> properties) {
            String out = value;
            for (int i = 0; i < 5 && out.contains("${"); i++) {
                int start = out.indexOf("${");
                int end = out.indexOf('}', start);
                out = out.substring(0, start) + properties.getOrDefault(out.substring(start + 2, end), "?")
                        + out.substring(end + 1);
            }
            return out;
        }

        private void read(Document pom, Map<String, String> props, Path repository, int depth) throws Exception {
            for (Element d : managed(pom)) {
                String group = resolve(text(d, "groupId"), props);
                String artifact = resolve(text(d, "artifactId"), props);
                if (!"import".equals(text(d, "scope"))) {
                    artifacts.add(group + ":" + artifact);
                    continue;
                }
                imports.add(group + ":" + artifact);
                String version = resolve(text(d, "version"), props);
                Path imported = repository.resolve(group.replace('.', '/')).resolve(artifact).resolve(version)
                        .resolve(artifact + "-" + version + ".pom");
                assertThat(imported).as("a BOM Boot imports, resolved with boot-app").exists();
                assertThat(depth).as("BOM imports nest at most this deep").isLessThan(4);
                Document nested = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(imported.toFile());
                read(nested, properties(nested), repository, depth + 1);
            }
        }

        boolean manages(String key) {
            String[] parts = key.split(":");
            return artifacts.contains(parts[0] + ":" + parts[1]) || imports.contains(parts[0] + ":" + parts[1]);
        }
    }

    @Test
    void withTheBomEveryArtifactBootManagesResolvesAsWithoutIt() throws Exception {
        Map<String, String> with = resolved("withBom");
        Map<String, String> without = resolved("withoutBom");
        BootManaged boot = new BootManaged();

        assertThat(with.keySet()).as("the same artifacts with and without the BOM")
                .containsExactlyInAnyOrderElementsOf(without.keySet());
        List<String> overridden = new ArrayList<>();
        for (Map.Entry<String, String> e : with.entrySet()) {
            String before = without.get(e.getKey());
            if (!e.getValue().equals(before) && boot.manages(e.getKey())) {
                overridden.add(e.getKey() + " " + before + " -> " + e.getValue());
            }
        }
        assertThat(overridden).as("versions Boot manages that toolyard-bom changed").isEmpty();
        // The case of issue 24, spelled out: Boot's Jackson 3, not ToolYard's.
        assertThat(with.get("tools.jackson.core:jackson-databind")).isEqualTo(boot.properties.get("jackson-bom.version"));
        assertThat(with.get("tools.jackson.core:jackson-core")).isEqualTo(boot.properties.get("jackson-bom.version"));
        assertThat(with.get("org.xerial:sqlite-jdbc")).isEqualTo(boot.properties.get("sqlite-jdbc.version"));
    }

    @Test
    void theBomManagesNothingBootManages() throws Exception {
        BootManaged boot = new BootManaged();
        List<String> both = new ArrayList<>();
        for (Element d : managed(xml("toolyardBom"))) {
            String key = text(d, "groupId") + ":" + text(d, "artifactId");
            if (boot.manages(key)) {
                both.add(key);
            }
        }
        assertThat(both).as("toolyard-bom entries that Spring Boot 4.1.1 manages too").isEmpty();
    }
}
