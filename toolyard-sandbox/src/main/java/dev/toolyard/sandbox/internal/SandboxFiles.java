package dev.toolyard.sandbox.internal;

import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Comparator;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * The files one sandbox gives its runs, written once when it probes, in a directory of its own that
 * only this process's user may enter ({@code 0700}), removed when the JVM exits:
 *
 * <ul>
 *   <li>{@code etc/}: a copy of the {@link HostLayout#etc()} entries, bound at {@code /etc} in one
 *       mount instead of one mount per entry (each mount costs bubblewrap about 0.1 ms). A change
 *       to those host files after the probe is not seen by the sandbox's runs;</li>
 *   <li>the seccomp program for bubblewrap and the profile for the container engine, each
 *       {@code 0600}, read by the launcher and the engine, which run as this process's user.</li>
 * </ul>
 *
 * Immutable once written. Thread-safe.
 */
public final class SandboxFiles {
    private final Path dir;
    private final Path etc;
    private final Optional<Path> seccompProgram;
    private final Optional<Path> seccompProfile;
    private final Optional<Path> gvisorSeccompProfile;

    private SandboxFiles(Path dir, Path etc, Optional<Path> seccompProgram, Optional<Path> seccompProfile,
            Optional<Path> gvisorSeccompProfile) {
        this.dir = dir;
        this.etc = etc;
        this.seccompProgram = seccompProgram;
        this.seccompProfile = seccompProfile;
        this.gvisorSeccompProfile = gvisorSeccompProfile;
    }

    /**
     * As {@link #write(HostLayout, Optional, Optional, Optional)} with no profile of gVisor's own:
     * the gVisor rung then loads none.
     */
    public static SandboxFiles write(HostLayout layout, Optional<byte[]> program, Optional<String> profile) throws IOException {
        return write(layout, program, profile, Optional.empty());
    }

    /**
     * @param program the seccomp program for bubblewrap; empty for none
     * @param profile the OCI seccomp profile (JSON) for the container engine; empty for none
     * @param gvisorProfile the profile for gVisor's {@code runsc} ({@link SeccompFilter#forGvisor()}); empty for none
     * @return the files, written
     * @throws IOException if they cannot be written
     */
    public static SandboxFiles write(HostLayout layout, Optional<byte[]> program, Optional<String> profile,
            Optional<String> gvisorProfile) throws IOException {
        Path dir = Files.createTempDirectory("toolyard-sandbox-", PosixFilePermissions.asFileAttribute(
                PosixFilePermissions.fromString("rwx------")));
        try {
            Path etc = Files.createDirectory(dir.resolve("etc"));
            Files.setPosixFilePermissions(etc, PosixFilePermissions.fromString("rwxr-xr-x"));
            for (Path entry : layout.etc()) {
                copy(entry, etc.resolve(entry.getFileName().toString()));
            }
            Optional<Path> bpf = Optional.empty();
            if (program.isPresent()) {
                bpf = Optional.of(privateFile(dir.resolve("seccomp.bpf"), program.get()));
            }
            Optional<Path> json = Optional.empty();
            if (profile.isPresent()) {
                json = Optional.of(privateFile(dir.resolve("seccomp.json"), profile.get().getBytes(java.nio.charset.StandardCharsets.UTF_8)));
            }
            Optional<Path> gvisorJson = Optional.empty();
            if (gvisorProfile.isPresent()) {
                gvisorJson = Optional.of(privateFile(dir.resolve("seccomp-gvisor.json"),
                        gvisorProfile.get().getBytes(java.nio.charset.StandardCharsets.UTF_8)));
            }
            SandboxFiles files = new SandboxFiles(dir, etc, bpf, json, gvisorJson);
            Runtime.getRuntime().addShutdownHook(new Thread(files::delete, "toolyard-sandbox-files-cleanup"));
            return files;
        } catch (IOException | RuntimeException e) {
            deleteTree(dir);
            throw e;
        }
    }

    /** @return the directory bound at {@code /etc} */
    public Path etcSnapshot() {
        return etc;
    }

    /** @return the seccomp program bubblewrap loads; empty when there is none */
    public Optional<Path> seccompProgram() {
        return seccompProgram;
    }

    /** @return the seccomp profile the container engine loads; empty when there is none */
    public Optional<Path> seccompProfile() {
        return seccompProfile;
    }

    /** @return the seccomp profile gVisor's {@code runsc} loads; empty when there is none */
    public Optional<Path> gvisorSeccompProfile() {
        return gvisorSeccompProfile;
    }

    /** @return the private directory */
    public Path directory() {
        return dir;
    }

    private static Path privateFile(Path p, byte[] content) throws IOException {
        Files.createFile(p, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        Files.write(p, content, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING);
        return p;
    }

    /** Copies a file, a link or a directory tree as it is; links stay links, nothing is followed. */
    private static void copy(Path from, Path to) throws IOException {
        if (!Files.isDirectory(from, LinkOption.NOFOLLOW_LINKS)) {
            Files.copy(from, to, LinkOption.NOFOLLOW_LINKS);
            readable(to);
            return;
        }
        Files.walkFileTree(from, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path d, BasicFileAttributes attrs) throws IOException {
                Path target = to.resolve(from.relativize(d).toString());
                Files.createDirectories(target);
                Files.setPosixFilePermissions(target, PosixFilePermissions.fromString("rwxr-xr-x"));
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path f, BasicFileAttributes attrs) throws IOException {
                Path target = to.resolve(from.relativize(f).toString());
                Files.copy(f, target, LinkOption.NOFOLLOW_LINKS, StandardCopyOption.REPLACE_EXISTING);
                readable(target);
                return FileVisitResult.CONTINUE;
            }
        });
    }

    private static void readable(Path p) throws IOException {
        if (!Files.isSymbolicLink(p)) {
            Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rw-r--r--"));
        }
    }

    void delete() {
        deleteTree(dir);
    }

    private static void deleteTree(Path dir) {
        try (Stream<Path> walk = Files.walk(dir)) {
            walk.sorted(Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.deleteIfExists(p);
                } catch (IOException e) {
                    // left in the temporary directory
                }
            });
        } catch (IOException e) {
            // as above
        }
    }
}
