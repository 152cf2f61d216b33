package dev.toolyard;

import dev.toolyard.spi.PathDecision;
import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Whatever candidate a model sends, containment either refuses it or admits a path whose real location
 * lies inside the workspace. Runs its seed corpus (UTF-8 files under src/test/resources) in every build; fuzz longer on demand with
 * {@code JAZZER_FUZZ=1 mvn -pl toolyard-core test -Dtest=ContainmentFuzzTest}.
 */
class ContainmentFuzzTest {
    private static final Layout LAYOUT = Layout.create();
    private static final PathContainment CONTAINMENT = new PathContainment();

    @FuzzTest(maxDuration = "10s")
    void everyAdmittedPathLiesInsideTheWorkspace(byte[] data) throws IOException {
        String candidate = new String(data, java.nio.charset.StandardCharsets.UTF_8);
        check(candidate);
        check(LAYOUT.work + "/" + candidate);
    }

    private static void check(String candidate) throws IOException {
        PathDecision read = CONTAINMENT.resolveRead(candidate, LAYOUT.paths);
        if (read.isInside()) {
            Path real = realOfDeepestExisting(read.path());
            assertThat(real.startsWith(LAYOUT.realWork) || real.startsWith(LAYOUT.realDocs))
                    .as("read %s admitted as %s", candidate, read.path()).isTrue();
        }
        PathDecision write = CONTAINMENT.resolveWrite(candidate, LAYOUT.paths);
        if (write.isInside()) {
            Path real = realOfDeepestExisting(write.path());
            assertThat(real.startsWith(LAYOUT.realWork)).as("write %s admitted as %s", candidate, write.path()).isTrue();
            assertThat(write.path().startsWith(LAYOUT.realWork)).isTrue();
        }
    }

    /** The real path of the deepest existing ancestor, as the kernel would resolve it now. */
    private static Path realOfDeepestExisting(Path p) throws IOException {
        Path cursor = p;
        while (cursor != null && !Files.exists(cursor)) {
            cursor = cursor.getParent();
        }
        return cursor == null ? Path.of("/") : cursor.toRealPath();
    }

    /** A workspace with links inside, links out, loops and a sibling whose name shares a prefix. */
    private record Layout(Path work, Path realWork, Path realDocs, SandboxPaths paths) {
        static Layout create() {
            try {
                Path tmp = Files.createTempDirectory("toolyard-fuzz");
                Path work = Files.createDirectories(tmp.resolve("work"));
                Path docs = Files.createDirectories(tmp.resolve("docs"));
                Path outside = Files.createDirectories(tmp.resolve("work-outside"));
                Files.createDirectories(work.resolve("sub/deeper"));
                Files.writeString(work.resolve("notes.md"), "n");
                Files.writeString(outside.resolve("secret"), "s");
                Files.createSymbolicLink(work.resolve("out"), outside);
                Files.createSymbolicLink(work.resolve("rel-out"), Path.of("../work-outside/secret"));
                Files.createSymbolicLink(work.resolve("in"), Path.of("sub"));
                Files.createSymbolicLink(work.resolve("docs-link"), docs);
                Files.createSymbolicLink(work.resolve("loop"), Path.of("loop"));
                Files.createSymbolicLink(work.resolve("sub/up"), Path.of("../.."));
                return new Layout(work, work.toRealPath(), docs.toRealPath(), SandboxPaths.of(work, docs));
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        }
    }
}
