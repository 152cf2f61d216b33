package dev.toolyard.sandbox.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class WhichTest {
    @TempDir
    Path tmp;

    private Path file(Path dir, String name, String perms) throws Exception {
        Files.createDirectories(dir);
        Path p = Files.writeString(dir.resolve(name), "#!/bin/sh\n");
        Files.setPosixFilePermissions(p, PosixFilePermissions.fromString(perms));
        return p;
    }

    @Test
    void findsTheFirstExecutableOnTheSearchPath() throws Exception {
        Path a = tmp.resolve("a");
        Path b = tmp.resolve("b");
        file(a, "tool", "rw-r--r--");
        Path wanted = file(b, "tool", "rwxr-xr-x");
        file(tmp.resolve("c"), "tool", "rwxr-xr-x");

        assertThat(Which.of(a + ":" + b + ":" + tmp.resolve("c")).apply("tool")).contains(wanted);
    }

    @Test
    void neverSearchesRelativeOrEmptyEntriesSoTheWorkingDirectoryIsNotConsulted() throws Exception {
        file(tmp.resolve("rel"), "tool", "rwxr-xr-x");

        assertThat(Which.of(":.:rel").apply("tool")).isEmpty();
    }

    @Test
    void aNameWithASlashOrNothingInItFindsNothing() throws Exception {
        Path dir = tmp.resolve("d");
        file(dir, "tool", "rwxr-xr-x");
        Which which = Which.of(dir.toString());

        assertThat(which.apply("../d/tool")).isEmpty();
        assertThat(which.apply("")).isEmpty();
        assertThat(which.apply(null)).isEmpty();
        assertThat(which.apply("missing")).isEmpty();
    }

    @Test
    void aDirectoryIsNotAnExecutable() throws Exception {
        Files.createDirectories(tmp.resolve("d").resolve("tool"));

        assertThat(Which.of(tmp.resolve("d").toString()).apply("tool")).isEmpty();
    }

    @Test
    void theProcessPathFindsTheShell() {
        assertThat(Which.processPath().apply("sh")).isPresent();
    }
}
