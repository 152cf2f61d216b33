package dev.toolyard.builtins;

import dev.toolyard.testing.Skip;
import java.io.File;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * What some tests need from the host (mkfifo, chattr, setpriv, prlimit) and how they skip without it:
 * loudly, with the missing thing named, and never in CI ({@code CI=true}), where a skip is a failure
 * because {@code .ci/setup-builtins-files.sh} installs all of it. Public for the tests of the
 * internal package.
 */
public final class HostTools {
    private HostTools() {}

    /** Skips the test loudly, or fails it in CI, unless {@code condition}: the test kit's {@link Skip}. */
    public static void require(boolean condition, String missing) {
        Skip.unless(condition, missing + " (.ci/setup-builtins-files.sh installs it)");
    }

    /** @return the executable's path, if it is on the PATH */
    public static Optional<Path> which(String name) {
        String path = System.getenv("PATH");
        for (String dir : (path == null ? "/usr/sbin:/usr/bin:/sbin:/bin" : path).split(File.pathSeparator)) {
            Path candidate = Path.of(dir, name);
            if (Files.isExecutable(candidate)) {
                return Optional.of(candidate);
            }
        }
        return Optional.empty();
    }

    /** Runs a command to completion; @return its exit code */
    public static int run(List<String> command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .start();
        if (!p.waitFor(30, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IOException("timed out: " + command);
        }
        return p.exitValue();
    }

    /** Creates a FIFO, or skips loudly when mkfifo is missing. */
    public static Path mkfifo(Path fifo) throws IOException, InterruptedException {
        Optional<Path> mkfifo = which("mkfifo");
        require(mkfifo.isPresent(), "mkfifo (coreutils) is not installed");
        List<String> cmd = new ArrayList<>(List.of(mkfifo.get().toString(), fifo.toString()));
        if (run(cmd) != 0) {
            throw new IOException("mkfifo failed for " + fifo);
        }
        return fifo;
    }

    /**
     * Whether this process ignores file modes (root with CAP_DAC_OVERRIDE, as on these machines): a
     * mode-000 file is opened anyway.
     */
    public static boolean bypassesFileModes(Path scratch) throws IOException {
        Path probe = Files.createTempFile(scratch, "mode-probe", ".txt");
        Files.setPosixFilePermissions(probe, PosixFilePermissions.fromString("---------"));
        try {
            FileChannel.open(probe, StandardOpenOption.READ).close();
            return true;
        } catch (AccessDeniedException e) {
            return false;
        } finally {
            Files.delete(probe);
        }
    }

    /**
     * The launcher prefix under which a child process honours file modes: nothing when this process
     * already does; otherwise setpriv dropping CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH from the
     * bounding set, so the child runs as root without the power to ignore modes.
     */
    public static List<String> honouringFileModes(Path scratch) throws IOException {
        if (!bypassesFileModes(scratch)) {
            return List.of();
        }
        Optional<Path> setpriv = which("setpriv");
        require(setpriv.isPresent(), "setpriv (util-linux) is not installed; this process ignores file modes"
                + " (root), so the permission tests need it to run a child without CAP_DAC_OVERRIDE");
        List<String> prefix = List.of(setpriv.get().toString(),
                "--bounding-set", "-dac_override,-dac_read_search", "--");
        List<String> probe = new ArrayList<>(prefix);
        probe.add(which("true").orElse(Path.of("/bin/true")).toString());
        try {
            require(run(probe) == 0, "setpriv cannot drop capabilities here (it needs CAP_SETPCAP)");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while probing setpriv", e);
        }
        return prefix;
    }

    /**
     * Sets or clears the immutable attribute, which even root cannot write through; skips loudly when
     * chattr is missing or the file system or this process cannot set it.
     */
    public static void immutable(Path path, boolean on) throws IOException, InterruptedException {
        Optional<Path> chattr = which("chattr");
        require(chattr.isPresent(), "chattr (e2fsprogs) is not installed");
        int exit = run(List.of(chattr.get().toString(), on ? "+i" : "-i", path.toString()));
        if (on) {
            require(exit == 0, "chattr +i failed here (needs CAP_LINUX_IMMUTABLE and ext4, xfs or btrfs)");
        } else if (exit != 0) {
            throw new IOException("chattr -i failed for " + path);
        }
    }
}
