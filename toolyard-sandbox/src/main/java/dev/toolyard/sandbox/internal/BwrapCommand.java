package dev.toolyard.sandbox.internal;

import dev.toolyard.sandbox.ResourceLimits;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The command line of a run on the bubblewrap rung:
 * {@code bwrap … -- /toolyard-warm --exec-once … -- command} when this process is root and the jar
 * carries {@code toolyard-warm} ({@link WarmBinary}): it sets the limits and loads the seccomp program
 * itself, so bubblewrap is the JVM's child and the command its first program's. Else
 * {@code dash -c <launcher> … bwrap … -- [setpriv …] env -i … -- command}: the launcher (see
 * {@link Limits}) applies the limits and opens the seccomp program on the descriptor bubblewrap's
 * {@code --seccomp} reads, then becomes bubblewrap. Every bubblewrap flag is there because a sandbox
 * was seen to escape without it.
 *
 * <p><b>When this process is root</b>, bubblewrap runs as root without a user namespace, so that it
 * can bind a workspace whose parents only root may enter (a {@code 0700} temporary directory, say),
 * and the command runs as the run's own unprivileged uid and gid: bubblewrap keeps only
 * {@code CAP_SETUID}, {@code CAP_SETGID} and {@code CAP_SETPCAP} for its first program inside, which
 * switches to that uid and gid, clears the supplementary groups, empties the bounding and inheritable
 * capability sets and sets the parent-death signal {@code KILL} again after the uid change cleared it
 * (the command then dies with bubblewrap's init); the command then has no capability at all and no new
 * privileges. That program is {@code toolyard-warm --exec-once} (bound read-only at
 * {@value #WARM_SUPERVISOR}), which then enters the write root and runs the command with exactly the
 * allowlisted environment: one exec. Without it, {@code setpriv} does the switch and {@code env -i -C}
 * the rest: two. {@code /tmp}
 * and {@code /dev/shm} are world-writable with the sticky bit, as on a host. Kernel files in
 * {@code /proc} that only root may write need no read-only bind for a uid that is not root; files
 * others may read or write (such as {@code /proc/keys}) are still masked, and {@code /proc/sys} is
 * still read-only.
 *
 * <p><b>When it is not</b>, bubblewrap runs unprivileged in a user namespace of its own, with user
 * namespaces disabled inside, and the command keeps this process's uid.
 *
 * <p>On both: every other namespace unshared (pid, net, ipc, uts, cgroup), every capability of the
 * command dropped, a new session (no terminal injection), killed with its parent. The pid namespace's
 * init is bubblewrap's own (root, like the bubblewrap outside), which waits for the command and exits
 * with its status; when the init exits the kernel kills everything else in the namespace. It must be
 * bubblewrap's: {@code --die-with-parent} kills the outer bubblewrap when the JVM's thread dies, and the
 * outer bubblewrap's own parent-death signal then reaches the init only because the kernel checks it as
 * a signal from that bubblewrap (root, with no capability left), which may signal a root process but
 * not one of a sandbox uid. With the command as init ({@code --as-pid-1}), a killed JVM left it and
 * its tree running, reparented to the host's init. {@code /usr} read-only with {@code /bin},
 * {@code /lib}... as links into it (or read-only binds where the host has directories), the named
 * {@code /etc} entries read-only (from one directory when the sandbox has a snapshot of them); a
 * private {@code /proc}, {@code /dev} and {@code /tmp}, the last mounted <em>before</em> the roots
 * so a root under {@code /tmp} is not hidden by it; the write root read-write, {@code nosuid} and
 * {@code nodev} (bubblewrap binds everything so), the read roots read-only, at their own paths;
 * bubblewrap's environment cleared; the seccomp program loaded last before the command (by bubblewrap
 * from the launcher's descriptor, or by {@code toolyard-warm --exec-once} just before its exec); {@code /}
 * remounted read-only; {@code env -i -C <write root>} (or {@code toolyard-warm --exec-once}) last,
 * with exactly the allowlisted environment (bubblewrap sets {@code PWD} after any clearing) and the write
 * root as working directory. Stateless.
 */
public final class BwrapCommand {
    private BwrapCommand() {}

    /**
     * The programs a bubblewrap run uses, all absolute host paths. {@code setpriv} and {@code env} run
     * inside, from the bound {@code /usr}; {@code setpriv} only when this process is root, and neither
     * when {@code coldHelper} is there.
     *
     * @param shell dash, the launcher's interpreter
     * @param coldHelper {@code toolyard-warm}, run as {@code --exec-once} in place of {@code setpriv} and
     *     {@code env} when this process is root; empty for those two
     */
    public record Tools(Path shell, Path bwrap, Path env, Optional<Path> setpriv, Optional<Path> coldHelper) {
        /** Tools without the cold helper: {@code setpriv} and {@code env} inside. */
        public Tools(Path shell, Path bwrap, Path env, Optional<Path> setpriv) {
            this(shell, bwrap, env, setpriv, Optional.empty());
        }
    }

    /**
     * What the command is run as and with.
     *
     * @param runAs the uid and gid to switch to inside (this process is root); empty to keep this
     *     process's uid (it is not root)
     * @param etcSnapshot a directory holding copies of the {@link HostLayout#etc()} entries, bound
     *     at {@code /etc} in one mount; empty to bind each entry from the host
     * @param seccompProgram the classic BPF program bubblewrap loads; empty for none
     */
    public record Run(Optional<SandboxIds.Pair> runAs, Optional<Path> etcSnapshot, Optional<Path> seccompProgram) {}

    /**
     * @param nproc the {@code RLIMIT_NPROC} the launcher sets
     * @return the command line, ending in {@code command}
     */
    public static List<String> argv(Tools tools, HostLayout layout, ResourceLimits limits, BindSet binds,
            Map<String, String> env, List<String> command, Run run, long nproc) {
        boolean root = run.runAs().isPresent();
        boolean oneExec = helperSetsTheLimits(tools, root);
        if (root && !oneExec && tools.setpriv().isEmpty()) {
            throw new IllegalArgumentException("switching to the sandbox uid needs setpriv");
        }
        List<String> a = new ArrayList<>(96 + env.size() + command.size());
        if (oneExec) {
            // No launcher: toolyard-warm sets the limits and loads the seccomp program itself.
            sandbox(a, tools, layout, binds, run, ROOT_CAPS, tools.coldHelper(), false, false);
            a.add(WARM_SUPERVISOR);
            a.addAll(Limits.execOnce(run.runAs().get(), limits, nproc,
                    run.seccompProgram().map(BwrapCommand::programHex), binds.writeRoot(), env));
            a.addAll(command);
            return a;
        }
        a.addAll(Limits.launcher(tools.shell(), limits, nproc, run.seccompProgram()));
        sandbox(a, tools, layout, binds, run, root ? ROOT_CAPS : List.of(), Optional.empty(), false, true);
        if (root) {
            SandboxIds.Pair ids = run.runAs().get();
            a.add(tools.setpriv().get().toString());
            a.add("--reuid=" + Integer.toUnsignedString(ids.uid()));
            a.add("--regid=" + Integer.toUnsignedString(ids.gid()));
            a.add("--clear-groups");
            a.add("--bounding-set=-all");
            a.add("--inh-caps=-all");
            a.add("--pdeathsig=KILL");
            a.add("--");
        }
        // The working directory is entered by env, as the command's uid: bubblewrap, root without
        // CAP_DAC_OVERRIDE by then, cannot enter a write root that is the sandbox uid's and 0700.
        a.addAll(Limits.environment(tools.env(), Optional.of(binds.writeRoot()), env));
        a.addAll(command);
        return a;
    }

    /**
     * The programs read so far, in hex, by file. Each file is written once, {@code 0600} in a private
     * directory with a random name, and never changed while it exists ({@link SandboxFiles}). Reading and
     * encoding it for each run cost about 0.1 ms of a cold run here, run after run: cold runs are rarely
     * many enough for the JIT to compile that code.
     */
    private static final Map<Path, String> PROGRAM_HEX = new ConcurrentHashMap<>();

    /** @return the classic BPF program at {@code file}, in lower-case hex, read once */
    static String programHex(Path file) {
        return PROGRAM_HEX.computeIfAbsent(file, f -> Limits.hex(program(f)));
    }

    /**
     * @return the classic BPF program at {@code file} (a whole number of 8-byte instructions)
     */
    private static byte[] program(Path file) {
        byte[] b;
        try {
            b = Files.readAllBytes(file);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the seccomp program " + file, e);
        }
        if (b.length == 0 || b.length % 8 != 0) {
            throw new IllegalStateException("the seccomp program " + file + " is " + b.length + " bytes, not whole instructions");
        }
        return b;
    }

    /**
     * @param root whether this process is root (commands run as a lent uid)
     * @return whether a cold run's line is bubblewrap and {@code toolyard-warm --exec-once}, which sets the
     *     limits and loads the seccomp program, rather than the launcher's
     */
    static boolean helperSetsTheLimits(Tools tools, boolean root) {
        return root && tools.coldHelper().isPresent();
    }

    /** Where a warm sandbox's supervisor is bound, read-only, inside. */
    public static final String WARM_SUPERVISOR = "/toolyard-warm";
    /**
     * The world-writable directories of a bubblewrap sandbox, which a warm supervisor wipes between
     * commands; it proves at start from the mount table that nothing else is writable.
     */
    static final List<String> WARM_WIPED = List.of("/tmp", "/dev/shm");
    private static final List<String> ROOT_CAPS = List.of("CAP_SETUID", "CAP_SETGID", "CAP_SETPCAP");
    private static final List<String> WARM_CAPS = List.of("CAP_SETUID", "CAP_SETGID", "CAP_SETPCAP", "CAP_KILL");

    /**
     * The command line of a warm sandbox on this rung (this process is root): the same sandbox as
     * {@link #argv}, with the supervisor ({@code toolyard-warm}, bound read-only at
     * {@value #WARM_SUPERVISOR}) in place of {@code setpriv … env … command}, as the pid namespace's
     * init, root with {@code CAP_SETUID}, {@code CAP_SETGID}, {@code CAP_SETPCAP} and {@code CAP_KILL}
     * only. It runs each command as the lease's uid and gid with the limits the launcher would set
     * (the launcher sets none on the supervisor itself, whose CPU time accrues across commands).
     *
     * @param supervisor the supervisor's host path
     * @return the command line
     */
    public static List<String> warmArgv(Tools tools, HostLayout layout, ResourceLimits limits, BindSet binds, Run run,
            Path supervisor) {
        SandboxIds.Pair ids = run.runAs().orElseThrow(() -> new IllegalArgumentException(
                "a warm sandbox runs its commands as a sandbox uid, so this process must be root"));
        List<String> a = new ArrayList<>(96);
        a.addAll(Limits.warmLauncher(tools.shell(), run.seccompProgram()));
        sandbox(a, tools, layout, binds, run, WARM_CAPS, Optional.of(supervisor), true, true);
        a.add(WARM_SUPERVISOR);
        a.addAll(Limits.warmSupervisorArguments(ids, limits, true, limits.processCount(), binds.writeRoot(), WARM_WIPED));
        return a;
    }

    /**
     * Everything from {@code bwrap} to {@code --}: the sandbox itself.
     *
     * @param supervisor {@code toolyard-warm}'s host path, to bind at {@value #WARM_SUPERVISOR}; empty for none
     * @param supervisorIsInit whether it is the pid namespace's init (a warm sandbox) rather than bubblewrap's own
     * @param seccompDescriptor whether bubblewrap loads the seccomp program from the launcher's descriptor
     *     (false: the first program inside loads it)
     */
    private static void sandbox(List<String> a, Tools tools, HostLayout layout, BindSet binds, Run run, List<String> caps,
            Optional<Path> supervisor, boolean supervisorIsInit, boolean seccompDescriptor) {
        boolean root = run.runAs().isPresent();
        a.add(tools.bwrap().toString());
        if (root) {
            a.add("--unshare-ipc");
            a.add("--unshare-pid");
            a.add("--unshare-net");
            a.add("--unshare-uts");
            a.add("--unshare-cgroup-try");
            a.add("--cap-drop");
            a.add("ALL");
            for (String cap : caps) {
                a.add("--cap-add");
                a.add(cap);
            }
        } else {
            a.add("--unshare-all");
            a.add("--unshare-user");
            a.add("--disable-userns");
            a.add("--cap-drop");
            a.add("ALL");
        }
        a.add("--die-with-parent");
        a.add("--new-session");
        if (supervisorIsInit) {
            // The supervisor is root like bubblewrap, so bubblewrap's parent-death signal reaches it.
            a.add("--as-pid-1");
        }
        bind(a, "--ro-bind", layout.usr());
        for (HostLayout.TopLevel t : layout.topLevel()) {
            if (t.linkTarget().isPresent()) {
                a.add("--symlink");
                a.add(t.linkTarget().get().toString());
                a.add(t.path().toString());
            } else {
                bind(a, "--ro-bind", t.path());
            }
        }
        if (run.etcSnapshot().isPresent()) {
            a.add("--ro-bind");
            a.add(run.etcSnapshot().get().toString());
            a.add("/etc");
        } else {
            for (Path e : layout.etc()) {
                bind(a, "--ro-bind", e);
            }
        }
        a.add("--proc");
        a.add("/proc");
        for (Path p : root ? layout.procReadOnlyForUnprivileged() : layout.procReadOnly()) {
            bind(a, "--ro-bind", p);
        }
        for (Path p : root ? layout.procMaskedForUnprivileged() : layout.procMasked()) {
            a.add("--ro-bind");
            a.add("/dev/null");
            a.add(p.toString());
        }
        a.add("--dev");
        a.add("/dev");
        if (root) {
            a.add("--chmod");
            a.add("1777");
            a.add("/dev/shm");
        }
        a.add("--perms");
        a.add("1777");
        a.add("--tmpfs");
        a.add("/tmp");
        Set<Path> made = new HashSet<>();
        if (root) {
            parents(a, binds.writeRoot(), made);
        }
        bind(a, "--bind", binds.writeRoot());
        for (Path r : binds.readRoots()) {
            if (root) {
                parents(a, r, made);
            }
            bind(a, "--ro-bind", r);
        }
        if (supervisor.isPresent()) {
            a.add("--ro-bind");
            a.add(supervisor.get().toString());
            a.add(WARM_SUPERVISOR);
        }
        if (binds.network().isPresent()) {
            // The relay and the proxy's socket: read-only (a connect() needs no writable mount), the
            // directory root's and 0711, the socket 0666.
            a.add("--ro-bind");
            a.add(binds.network().get().relay().toString());
            a.add(BindSet.RELAY);
            a.add("--ro-bind");
            a.add(binds.network().get().socketDirectory().toString());
            a.add(BindSet.NETWORK_DIR);
        }
        a.add("--clearenv");
        if (seccompDescriptor && run.seccompProgram().isPresent()) {
            a.add("--seccomp");
            a.add(Integer.toString(Limits.SECCOMP_FD));
        }
        a.add("--remount-ro");
        a.add("/");
        a.add("--");
    }

    /**
     * Creates the directories above a bind's destination {@code 0755} first: bubblewrap run by root
     * would make them {@code 0700}, which the command's uid could not pass through.
     */
    private static void parents(List<String> a, Path dest, Set<Path> made) {
        Path p = dest.getParent();
        List<Path> chain = new ArrayList<>();
        while (p != null && p.getParent() != null) {
            chain.add(0, p);
            p = p.getParent();
        }
        for (Path dir : chain) {
            if (made.add(dir)) {
                a.add("--perms");
                a.add("0755");
                a.add("--dir");
                a.add(dir.toString());
            }
        }
    }

    private static void bind(List<String> a, String flag, Path p) {
        a.add(flag);
        a.add(p.toString());
        a.add(p.toString());
    }
}
