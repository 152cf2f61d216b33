package dev.toolyard.sandbox.internal;

import dev.toolyard.sandbox.ResourceLimits;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * How the limits and the environment reach a command.
 *
 * <ul>
 *   <li>Bubblewrap rung, unless {@code toolyard-warm --exec-once} does it (below): a launcher,
 *       {@code dash -c '<fixed script>'}, applies every limit to itself with the shell's own
 *       {@code ulimit} (no extra program), opens the seccomp program on descriptor 9 for bubblewrap's
 *       {@code --seccomp 9}, and replaces itself with the rest of the command line. Limits and
 *       descriptors are inherited across {@code exec}, so bubblewrap and everything it starts run under
 *       them. Everything variable is a positional argument of the script, never part of its text.</li>
 *   <li>Container rung: {@code prlimit} inside the container.</li>
 *   <li>Both: {@code env -i} with exactly the allowlisted environment, last before the command
 *       (bubblewrap sets {@code PWD} after any clearing it offers, and engines add variables of their
 *       own); on the bubblewrap rung run as root, {@code toolyard-warm --exec-once} in place of the
 *       launcher, {@code setpriv} and {@code env} when the jar carries it ({@link #execOnce}): it sets the
 *       same limits and loads the same seccomp program itself, so the JVM's bubblewrap runs it and it runs
 *       the command, one exec in all.</li>
 * </ul>
 *
 * Stateless.
 */
final class Limits {
    /** Open files per process: enough for any tool, few enough to bound kernel memory. */
    static final int OPEN_FILES = 1024;
    /** The descriptor the launcher opens the seccomp program on. */
    static final int SECCOMP_FD = 9;
    /** What the launcher is called in {@code ps}: its {@code $0}. */
    static final String LAUNCHER_NAME = "toolyard-launch";
    /** Exit status of a launcher that could not apply a limit; the command never ran. */
    static final int LAUNCHER_FAILED = 125;
    /**
     * The launcher. dash's {@code ulimit} units: {@code -t} seconds, {@code -v} KiB, {@code -f}
     * 512-byte blocks, {@code -n} descriptors, {@code -p} processes; each sets the soft and the hard
     * limit. A failed redirection ends a non-interactive shell, so a missing program never runs the
     * command unfiltered.
     */
    static final String LAUNCHER = "ulimit -t \"$1\" && ulimit -v \"$2\" && ulimit -f \"$3\" && ulimit -n \"$4\" "
            + "&& ulimit -p \"$5\" && ulimit -c 0 || exit " + LAUNCHER_FAILED + "\n"
            + "[ \"$6\" = - ] || exec " + SECCOMP_FD + "<\"$6\"\n"
            + "shift 6\n"
            + "exec \"$@\"\n";

    /**
     * The launcher of a warm sandbox: descriptors and core files only, and the seccomp program. The
     * supervisor's own CPU time accrues across commands and it must not meet a command's limits, so it
     * keeps this process's (it sets each command's before the command starts).
     */
    static final String WARM_LAUNCHER = "ulimit -n \"$1\" && ulimit -c 0 || exit " + LAUNCHER_FAILED + "\n"
            + "[ \"$2\" = - ] || exec " + SECCOMP_FD + "<\"$2\"\n"
            + "shift 2\n"
            + "exec \"$@\"\n";

    private Limits() {}

    /**
     * @param shell dash, whose {@code ulimit} units the script relies on
     * @param nproc the {@code RLIMIT_NPROC} to set (it binds for a non-root uid only)
     * @param seccompProgram the filter to open on descriptor 9; empty for none
     * @return the launcher, ready for the rest of the command line
     */
    static List<String> launcher(Path shell, ResourceLimits limits, long nproc, Optional<Path> seccompProgram) {
        List<String> a = new ArrayList<>(10);
        a.add(shell.toString());
        a.add("-c");
        a.add(LAUNCHER);
        a.add(LAUNCHER_NAME);
        a.add(Long.toString(limits.cpuSeconds()));
        a.add(Long.toString(Math.max(1, limits.memoryBytes() / 1024)));
        a.add(Long.toString(fileSizeBlocks(limits)));
        a.add(Integer.toString(OPEN_FILES));
        a.add(Long.toString(nproc));
        a.add(seccompProgram.map(Path::toString).orElse("-"));
        return a;
    }

    /**
     * The launcher of a warm sandbox: {@link #WARM_LAUNCHER}, no limit but descriptors and core files
     * on the supervisor itself.
     *
     * @param seccompProgram the filter to open on descriptor 9; empty for none
     * @return the launcher, ready for the rest of the command line
     */
    static List<String> warmLauncher(Path shell, Optional<Path> seccompProgram) {
        List<String> a = new ArrayList<>(10);
        a.add(shell.toString());
        a.add("-c");
        a.add(WARM_LAUNCHER);
        a.add(LAUNCHER_NAME);
        a.add(Integer.toString(OPEN_FILES));
        a.add(seccompProgram.map(Path::toString).orElse("-"));
        return a;
    }

    /**
     * The arguments of {@code toolyard-warm}: each command's uid and gid and the very limits a cold
     * run's launcher or {@code prlimit} would set, its working directory, and the world-writable
     * directories wiped after it.
     *
     * @param roundedAsTheLauncher whether to round as dash's {@code ulimit} does (the bubblewrap rung:
     *     the address space to whole KiB and the file size to whole 512-byte blocks) or to pass the
     *     bytes as {@code prlimit} does (the container rung)
     * @param nproc the {@code RLIMIT_NPROC} of each command
     * @return {@code UID GID CPU_SECONDS AS_BYTES FSIZE_BYTES NOFILE NPROC WRITE_ROOT WIPE_DIR...}
     */
    static List<String> warmSupervisorArguments(SandboxIds.Pair ids, ResourceLimits limits, boolean roundedAsTheLauncher,
            long nproc, Path writeRoot, List<String> wiped) {
        List<String> a = new ArrayList<>(8 + wiped.size());
        a.add(Integer.toUnsignedString(ids.uid()));
        a.add(Integer.toUnsignedString(ids.gid()));
        a.add(Long.toString(limits.cpuSeconds()));
        a.add(Long.toString(roundedAsTheLauncher ? Math.max(1, limits.memoryBytes() / 1024) * 1024 : limits.memoryBytes()));
        a.add(Long.toString(roundedAsTheLauncher ? fileSizeBlocks(limits) * 512 : limits.fileSizeBytes()));
        a.add(Integer.toString(OPEN_FILES));
        a.add(Long.toString(nproc));
        a.add(writeRoot.toString());
        a.addAll(wiped);
        return a;
    }

    /** @return the file size limit in the 512-byte blocks of dash's {@code ulimit -f}, rounded down, at least one */
    static long fileSizeBlocks(ResourceLimits limits) {
        return Math.max(1, limits.fileSizeBytes() / 512);
    }

    /** @return {@code env -i -- NAME=VALUE...}, in name order, ready for the command */
    static List<String> environment(Path envTool, Map<String, String> env) {
        return environment(envTool, Optional.empty(), env);
    }

    /**
     * @param chdir the working directory {@code env} changes to before it runs the command ({@code -C}),
     *     as the command's uid; empty to keep the current one
     * @return {@code env -i [-C DIR] -- NAME=VALUE...}, in name order, ready for the command
     */
    static List<String> environment(Path envTool, Optional<Path> chdir, Map<String, String> env) {
        List<String> a = new ArrayList<>(5 + env.size());
        a.add(envTool.toString());
        a.add("-i");
        if (chdir.isPresent()) {
            a.add("-C");
            a.add(chdir.get().toString());
        }
        a.add("--");
        for (Map.Entry<String, String> e : new TreeMap<>(env).entrySet()) {
            a.add(e.getKey() + "=" + e.getValue());
        }
        return a;
    }

    /**
     * The arguments of {@code toolyard-warm --exec-once}, the cold run's one program between the JVM's
     * bubblewrap and the command when this process is root, in place of the launcher, {@code setpriv}
     * and {@link #environment}: the uid and gid to switch to, the very limits the launcher would set
     * (rounded as dash's {@code ulimit} rounds them), the seccomp program in hex, the working directory
     * it enters as the uid, and exactly the environment.
     *
     * @param nproc the {@code RLIMIT_NPROC} of the command
     * @param seccompHex the classic BPF program, as bubblewrap's {@code --seccomp} reads it, in hex
     *     ({@link #hex}); empty for none
     * @param env the command's whole environment; names are POSIX names, so none is {@code --}
     * @return {@code --exec-once UID GID CPU_SECONDS AS_BYTES FSIZE_BYTES NOFILE NPROC FILTER WRITE_ROOT
     *     NAME=VALUE... --}, the environment in name order, ready for the command
     */
    static List<String> execOnce(SandboxIds.Pair ids, ResourceLimits limits, long nproc, Optional<String> seccompHex,
            Path writeRoot, Map<String, String> env) {
        List<String> a = new ArrayList<>(11 + env.size());
        a.add("--exec-once");
        List<String> idsAndLimits = warmSupervisorArguments(ids, limits, true, nproc, writeRoot, List.of());
        a.addAll(idsAndLimits.subList(0, idsAndLimits.size() - 1)); // UID GID and the five limits, as the warm supervisor's
        a.add(seccompHex.orElse("-"));
        a.add(writeRoot.toString());
        for (Map.Entry<String, String> e : new TreeMap<>(env).entrySet()) {
            a.add(e.getKey() + "=" + e.getValue());
        }
        a.add("--");
        return a;
    }

    /** @return {@code bytes} in lower-case hex, two digits a byte */
    static String hex(byte[] bytes) {
        return HexFormat.of().formatHex(bytes);
    }

    /**
     * @param env the command's whole environment; names are POSIX names, so none is taken for an option
     * @param nproc the {@code RLIMIT_NPROC} to set (effective for a non-root uid only)
     * @return {@code env -i -- NAME=VALUE... prlimit ... --}, ready for the command
     */
    static List<String> inside(Path envTool, Path prlimit, Map<String, String> env, ResourceLimits limits, long nproc) {
        List<String> a = environment(envTool, env);
        a.addAll(prlimit(prlimit, limits, nproc));
        return a;
    }

    /**
     * @param nproc the {@code RLIMIT_NPROC} to set (effective for a non-root uid only)
     * @return {@code prlimit} with every limit, ending in {@code --}, ready for the command
     */
    static List<String> prlimit(Path prlimit, ResourceLimits limits, long nproc) {
        List<String> a = new ArrayList<>(9);
        a.add(prlimit.toString());
        a.add("--cpu=" + limits.cpuSeconds());
        a.add("--as=" + limits.memoryBytes());
        a.add("--fsize=" + limits.fileSizeBytes());
        a.add("--nofile=" + OPEN_FILES);
        a.add("--nproc=" + nproc);
        a.add("--core=0");
        a.add("--");
        return a;
    }
}
