package dev.toolyard.sandbox.internal;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Locale;
import java.util.Optional;

/**
 * The warm supervisor, {@code toolyard-warm}: a static executable built from
 * {@code src/main/c/toolyard-warm.c} when this module is built, for the build host's architecture,
 * and carried in the jar. It needs nothing the rungs do not already need. The cold bubblewrap line as root
 * runs it too, as {@code toolyard-warm --exec-once}, in place of {@code setpriv} and {@code env -i}. Stateless.
 */
public final class WarmBinary {
    private WarmBinary() {}

    /** @return the resource name for this JVM's operating system and architecture */
    static String resource() {
        return resource("toolyard-warm");
    }

    private static String resource(String program) {
        String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
        String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
        return "warm/" + (os.contains("linux") ? "linux" : os.replace(' ', '-')) + "-" + arch + "/" + program;
    }

    /**
     * The command network's relay, {@code toolyard-relay} (src/main/c/toolyard-relay.c), built and carried
     * the same way.
     *
     * @return why this jar carries no relay for this platform; empty when it carries one
     */
    public static Optional<String> relayMissing() {
        return WarmBinary.class.getResource(resource("toolyard-relay")) != null ? Optional.empty()
                : Optional.of("this build of toolyard-sandbox carries no command network relay for "
                        + System.getProperty("os.name") + "/" + System.getProperty("os.arch") + " (it is compiled, with"
                        + " gcc and the static C library, for the architecture the module was built on)");
    }

    /**
     * Writes the relay into {@code dir} (this process's own, {@code 0700}), {@code 0755}.
     *
     * @return its path; empty, with why, when this jar carries none for this platform
     * @throws IOException if it cannot be written
     */
    public static Result installRelay(Path dir) throws IOException {
        Optional<String> missing = relayMissing();
        if (missing.isPresent()) {
            return new Result(Optional.empty(), missing.get());
        }
        return new Result(Optional.of(install(dir, resource("toolyard-relay"), "toolyard-relay")), "");
    }

    /** @return why this jar carries no supervisor for this platform; empty when it carries one */
    public static Optional<String> missing() {
        return WarmBinary.class.getResource(resource()) != null ? Optional.empty() : Optional.of(whyNot());
    }

    /** @return why this jar carries no {@code toolyard-warm}, for the cold bubblewrap line's report */
    static String helperMissing() {
        return "this build of toolyard-sandbox carries no toolyard-warm for " + System.getProperty("os.name") + "/"
                + System.getProperty("os.arch") + " (it is compiled, with gcc, for the architecture the module was built on)";
    }

    private static String whyNot() {
        return "this build of toolyard-sandbox carries no warm supervisor for " + System.getProperty("os.name") + "/"
                + System.getProperty("os.arch") + " (it is compiled, with gcc, for the architecture the module was built on); "
                + "runs are cold";
    }

    /**
     * Writes the supervisor into {@code dir} (this process's own, {@code 0700}), {@code 0755}.
     *
     * @return its path; empty, with why, when this jar carries none for this platform
     * @throws IOException if it cannot be written
     */
    public static Result install(Path dir) throws IOException {
        String name = resource();
        try (InputStream in = WarmBinary.class.getResourceAsStream(name)) {
            if (in == null) {
                return new Result(Optional.empty(), whyNot());
            }
            return new Result(Optional.of(install(dir, name, "toolyard-warm")), "");
        }
    }

    private static Path install(Path dir, String name, String program) throws IOException {
        try (InputStream in = WarmBinary.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IOException("the resource " + name + " vanished");
            }
            Path target = dir.resolve(program);
            Path tmp = Files.createTempFile(dir, program + "-", ".tmp",
                    PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
            try {
                Files.copy(in, tmp, StandardCopyOption.REPLACE_EXISTING);
                Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rwxr-xr-x"));
                Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } finally {
                Files.deleteIfExists(tmp);
            }
            return target;
        }
    }

    /**
     * @param path the installed supervisor; empty when there is none
     * @param whyNot why there is none; empty when there is one
     */
    public record Result(Optional<Path> path, String whyNot) {}
}
