package dev.toolyard.langchain4j;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 24, item 7: the adapter works on the module path with nothing added by hand. A small application
 * module ({@code src/test/resources/modular}) is compiled against this module and its runtime
 * dependencies, then run in its own JVM with {@code --module-path} and {@code -m} only: no class path,
 * no {@code --add-modules}. Before this module had a descriptor, that JVM died with
 * {@code NoClassDefFoundError: com/fasterxml/jackson/core/JsonProcessingException}, because nothing
 * required LangChain4j's Jackson 2, and an automatic module cannot.
 */
class ModulePathTest {
    @TempDir
    Path dir;

    @Test
    void aModularApplicationRunsAnAiServiceTurnThroughTheAdapterWithNoModuleAddedByHand() throws Exception {
        List<String> modulePath = new ArrayList<>();
        modulePath.add(Path.of("target", "classes").toAbsolutePath().toString());
        String runtime = Files.readString(Path.of("target", "runtime-module-path.txt")).strip();
        for (String entry : runtime.split(File.pathSeparator)) {
            if (!entry.isBlank()) {
                modulePath.add(entry);
            }
        }
        Path src = dir.resolve("src");
        Files.createDirectories(src.resolve("launcher"));
        copy("/modular/module-info.java.txt", src.resolve("module-info.java"));
        copy("/modular/launcher/Main.java.txt", src.resolve("launcher/Main.java"));
        Path out = dir.resolve("out");
        Path bin = Path.of(System.getProperty("java.home"), "bin");
        String javacOutput = run(bin.resolve("javac").toString(), "-d", out.toString(),
                "--module-path", String.join(File.pathSeparator, modulePath),
                src.resolve("module-info.java").toString(), src.resolve("launcher/Main.java").toString());
        assertThat(lastExit).as("the application module compiles against the adapter's module: " + javacOutput)
                .isZero();

        modulePath.add(out.toString());
        String output = run(bin.resolve("java").toString(), "--module-path",
                String.join(File.pathSeparator, modulePath), "-m", "launcher/launcher.Main");

        assertThat(output).doesNotContain("NoClassDefFoundError").doesNotContain("Exception");
        assertThat(lastExit).as(output).isZero();
        assertThat(output).contains("c1=hello module")
                .contains("c2=Tool 'invented' - unknown_tool: no tool of that name is registered")
                .contains("record c1 OK null")
                .contains("record c2 REFUSED UNKNOWN_TOOL")
                .contains("module dev.toolyard.langchain4j named=true");
    }

    private int lastExit = -1;

    private String run(String... command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        p.getOutputStream().close();
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).as(String.join(" ", command)).isTrue();
        lastExit = p.exitValue();
        return output;
    }

    private static void copy(String resource, Path to) {
        try (InputStream in = ModulePathTest.class.getResourceAsStream(resource)) {
            assertThat(in).as(resource).isNotNull();
            Files.copy(in, to);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
