package dev.toolyard.sandbox.internal;

import dev.toolyard.sandbox.ResourceLimits;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The command line of a run on the container rung. The image is a skeleton: the host's runtime
 * ({@code /usr}, the {@code /etc} list of {@link HostLayout}) is bound over it read-only, so both rungs
 * run the same binaries. Never pulls, no network, read-only root file system, no capabilities, no new
 * privileges, the run's own uid and gid when this process is root, the write root {@code nosuid} and
 * {@code nodev}, ToolYard's seccomp profile, a private cgroup namespace, memory and pids limits from the engine, the other limits
 * from {@code prlimit} inside, and the environment replaced by the allowlist with {@code env -i}
 * (engines add variables of their own otherwise). The container is named so that it can be removed
 * when a run is stopped: signalling the client does not stop the container. A cold run's client is
 * started by {@code setpriv --pdeathsig=KILL} where the host has it, and a {@link #watchdog} removes the
 * container if the JVM dies. Stateless.
 */
public final class ContainerCommand {
    /** Extra seconds for the engine's own timeout, a backstop behind the supervisor's. */
    static final long ENGINE_TIMEOUT_GRACE_SECONDS = 10;
    /** Docker's client only ever talks to the local daemon, whatever its environment or contexts say. */
    static final String DOCKER_HOST = "unix:///var/run/docker.sock";

    private ContainerCommand() {}

    /** A container engine. */
    public enum Engine {
        PODMAN("podman"),
        DOCKER("docker");

        private final String command;

        Engine(String command) {
            this.command = command;
        }

        /** @return the executable's name, also the rung's name in reports */
        public String command() {
            return command;
        }
    }

    /**
     * The tools a container run uses, all absolute host paths. {@code env} and {@code prlimit} run
     * inside the container, from the bound {@code /usr}; {@code shell} and {@code setpriv} on the host.
     *
     * @param runtime the OCI runtime podman is told to use; empty for the engine's default
     * @param userSpaceKernel whether {@code runtime} is gVisor's {@code runsc}: it is given
     *     {@link #GVISOR_RUNTIME_FLAGS}, and the pids limit leaves room for its own host threads
     * @param shell a POSIX shell, the interpreter of each cold run's {@link #watchdog}
     * @param setpriv util-linux {@code setpriv}, which gives a cold run's client the parent-death signal
     *     {@code KILL}; empty where the host has none (the watchdog still removes the container)
     */
    public record Tools(Engine engine, Path client, Optional<Path> runtime, boolean userSpaceKernel, Path env, Path prlimit,
            Path shell, Optional<Path> setpriv) {
        /** Tools of a container rung whose runtime shares the host kernel. */
        public Tools(Engine engine, Path client, Optional<Path> runtime, Path env, Path prlimit, Path shell,
                Optional<Path> setpriv) {
            this(engine, client, runtime, false, env, prlimit, shell, setpriv);
        }
    }

    /**
     * Every flag {@code runsc} is given (each as {@code --runtime-flag F}), the one place they are
     * named: it refuses to run with its own network on in the host's network namespace
     * ({@code network=none}), and it silently drops the seccomp profile unless told to apply it
     * ({@code oci-seccomp}). A run with network adds {@link #GVISOR_NETWORK_RUNTIME_FLAG}.
     */
    public static final List<String> GVISOR_RUNTIME_FLAGS = List.of("network=none", "oci-seccomp");

    /**
     * The flag {@code runsc} is given only for a run with network ({@link BindSet#network()}): the relay
     * connects to the proxy's bound unix socket, which gVisor refuses ("operation not permitted") unless
     * host sockets may be opened. {@code open} is the narrowest value that allows it: connecting to a
     * host socket a bind exposes, never creating one ({@code create}, {@code all}).
     */
    public static final String GVISOR_NETWORK_RUNTIME_FLAG = "host-uds=open";

    /**
     * Host threads gVisor's runtime may use per process of the command, on top of
     * {@link #GVISOR_PIDS_BASE}: with the ptrace platform each task of the sandbox has host threads
     * of its own, and they all count in the container's pids cgroup (60 processes needed between 512
     * and 1,024 here). The configured process count still binds, through {@code RLIMIT_NPROC} inside.
     */
    static final int GVISOR_PIDS_PER_PROCESS = 32;
    /** Host threads gVisor's runtime uses before the command starts anything. */
    static final int GVISOR_PIDS_BASE = 512;

    /**
     * The {@code RLIMIT_NPROC} a warm supervisor gives each command. gVisor's kernel counts a task against
     * the uid it was created with and does not move it when the task changes uid (Linux does): the
     * command's first process, forked by the root supervisor before it becomes the sandbox uid, is never
     * counted there, so the limit is one lower on gVisor and the command still holds {@code processCount}
     * processes at most, as a cold run's (whose first process starts as the uid) does. Measured by the
     * warm fork-loop tests: 16 processes got through a limit of 16 before.
     */
    static long warmProcessLimit(Tools tools, int processCount) {
        return tools.userSpaceKernel() ? Math.max(0, processCount - 1) : processCount;
    }

    /** @return the pids cgroup limit of a container running {@code processCount} processes on {@code tools} */
    static int pidsLimit(Tools tools, int processCount) {
        return tools.userSpaceKernel() ? GVISOR_PIDS_BASE + GVISOR_PIDS_PER_PROCESS * processCount : processCount;
    }

    /** The status engines exit with for a failure of their own (podman: 125, 126, 127); a command killed by a signal exits above it. */
    static final int ENGINE_FAILED = 125;
    /** What the JVM writes to a watchdog once its container is gone. */
    static final byte[] WATCHDOG_DONE = "done\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    /** What the watchdog is called in {@code ps}: its {@code $0}. */
    static final String WATCHDOG_NAME = "toolyard-watchdog";
    /**
     * The watchdog: reads one line of its standard input, a pipe from the JVM. {@code done} ends it. An end
     * of file (the JVM died, and with it the only writer) kills and removes the container, then looks
     * again each second and removes it again, so a container the dying client was still creating is
     * removed too; it stops once the container is gone on a pass after the second, or after 30 passes.
     * Each call of the client is bounded by coreutils' {@code timeout} where the host has it, so an engine
     * that hangs cannot keep the watchdog forever. {@code $1} is the container's name, the rest the
     * engine's client and its global options.
     */
    static final String WATCHDOG = "read -r line\n"
            + "[ \"$line\" = done ] && exit 0\n"
            + "name=$1\n"
            + "shift\n"
            + "t=\n"
            + "command -v timeout >/dev/null 2>&1 && t='timeout -s KILL 30'\n"
            + "i=0\n"
            + "while [ $i -lt 30 ]; do\n"
            + "  $t \"$@\" kill \"$name\" >/dev/null 2>&1\n"
            + "  $t \"$@\" rm -f \"$name\" >/dev/null 2>&1\n"
            + "  if [ $i -ge 2 ] && ! $t \"$@\" container inspect \"$name\" >/dev/null 2>&1; then exit 0; fi\n"
            + "  i=$((i + 1))\n"
            + "  sleep 1\n"
            + "done\n"
            + "exit 1\n";

    /** @return the command line of the watchdog of container {@code name}; see {@link #WATCHDOG} */
    public static List<String> watchdog(Tools tools, String name) {
        List<String> a = new ArrayList<>(8);
        a.add(tools.shell().toString());
        a.add("-c");
        a.add(WATCHDOG);
        a.add(WATCHDOG_NAME);
        a.add(name);
        a.add(tools.client().toString());
        if (tools.engine() == Engine.DOCKER) {
            a.add("--host");
            a.add(DOCKER_HOST);
        }
        return a;
    }

    /**
     * What the container's command runs as and with.
     *
     * @param runAs the uid and gid the command runs as ({@code --user}: supplementary groups only
     *     that gid); empty for the image's default (this process is not root)
     * @param seccompProfile the seccomp profile the engine loads instead of its default; empty for
     *     the engine's default
     */
    public record Run(Optional<SandboxIds.Pair> runAs, Optional<Path> seccompProfile) {}

    /** @return the command line that starts the container named {@code name} and runs {@code command} in it */
    public static List<String> run(Tools tools, String image, String name, HostLayout layout, ResourceLimits limits,
            BindSet binds, Map<String, String> env, List<String> command, Duration timeout, Run run) {
        List<String> a = new ArrayList<>(64 + command.size());
        if (tools.setpriv().isPresent()) {
            // The client dies with the thread that started it, so a dying JVM's client cannot go on to
            // create the container after the watchdog removed it; root may signal it (it is root's).
            a.add(tools.setpriv().get().toString());
            a.add("--pdeathsig=KILL");
            a.add("--");
        }
        container(a, tools, image, name, layout, limits, binds, run, Optional.of(timeout), Optional.empty());
        a.addAll(Limits.inside(tools.env(), tools.prlimit(), env, limits, limits.processCount()));
        a.addAll(command);
        return a;
    }

    /** Where a warm container's supervisor is bound, read-only. */
    public static final String WARM_SUPERVISOR = BwrapCommand.WARM_SUPERVISOR;
    /**
     * The world-writable directories of a container, wiped between commands: {@code --read-only} mounts
     * the first two as tmpfs, and the engine mounts {@code /dev/shm} and the IPC namespace's POSIX
     * message queue file system at {@code /dev/mqueue} (a queue created there with {@code open(2)} is a
     * file of it). The supervisor proves at start from the mount table that nothing else is writable.
     */
    static final List<String> WARM_WIPED = List.of("/tmp", "/var/tmp", "/dev/shm", "/dev/mqueue");
    /**
     * The world-writable directories of a gVisor container: {@link #WARM_WIPED}, and {@code /run}, which
     * runsc mounts as a tmpfs of mode 1777 (runc's is root's, 0755); gVisor has no {@code /dev/mqueue}.
     */
    static final List<String> WARM_WIPED_ON_GVISOR = List.of("/tmp", "/var/tmp", "/dev/shm", "/dev/mqueue", "/run");

    /**
     * The command line of a warm container (this process is root): the same container as {@link #run},
     * kept attached on its standard input ({@code -i}), with the supervisor ({@code toolyard-warm},
     * bound read-only at {@value #WARM_SUPERVISOR}) as its init, root with {@code CAP_SETUID},
     * {@code CAP_SETGID}, {@code CAP_SETPCAP} and {@code CAP_KILL} only; each command runs as the
     * lease's uid and gid with the limits {@code prlimit} sets on a cold run. The pids limit has room
     * for the supervisor and its wipe. No engine timeout: the supervisor ends the container when the
     * JVM's end of its standard input closes, even while a command runs.
     *
     * @param supervisor the supervisor's host path
     * @return the command line
     */
    public static List<String> warmRun(Tools tools, String image, String name, HostLayout layout, ResourceLimits limits,
            BindSet binds, Run run, Path supervisor) {
        SandboxIds.Pair ids = run.runAs().orElseThrow(() -> new IllegalArgumentException(
                "a warm container runs its commands as a sandbox uid, so this process must be root"));
        List<String> a = new ArrayList<>(72);
        container(a, tools, image, name, layout, limits, binds, run, Optional.empty(), Optional.of(supervisor));
        a.add(WARM_SUPERVISOR);
        a.addAll(Limits.warmSupervisorArguments(ids, limits, false, warmProcessLimit(tools, limits.processCount()),
                binds.writeRoot(), tools.userSpaceKernel() ? WARM_WIPED_ON_GVISOR : WARM_WIPED));
        return a;
    }

    /** Everything from the client to the image: the container itself. */
    private static void container(List<String> a, Tools tools, String image, String name, HostLayout layout,
            ResourceLimits limits, BindSet binds, Run run, Optional<Duration> timeout, Optional<Path> supervisor) {
        boolean warm = supervisor.isPresent();
        a.add(tools.client().toString());
        if (tools.engine() == Engine.DOCKER) {
            a.add("--host");
            a.add(DOCKER_HOST);
        }
        a.add("run");
        a.add("--rm");
        if (warm) {
            a.add("-i");
        }
        a.add("--name");
        a.add(name);
        if (tools.engine() == Engine.PODMAN && tools.runtime().isPresent()) {
            a.add("--runtime");
            a.add(tools.runtime().get().toString());
            if (tools.userSpaceKernel()) {
                for (String flag : GVISOR_RUNTIME_FLAGS) {
                    a.add("--runtime-flag");
                    a.add(flag);
                }
                if (binds.network().isPresent()) {
                    a.add("--runtime-flag");
                    a.add(GVISOR_NETWORK_RUNTIME_FLAG);
                }
            }
        }
        a.add("--pull=never");
        a.add("--network=none");
        a.add("--read-only");
        a.add("--cap-drop=ALL");
        if (warm) {
            a.add("--cap-add=SETUID,SETGID,SETPCAP,KILL");
        }
        a.add("--security-opt");
        a.add("no-new-privileges");
        if (run.seccompProfile().isPresent()) {
            a.add("--security-opt");
            a.add("seccomp=" + run.seccompProfile().get());
        }
        if (warm) {
            a.add("--user");
            a.add("0:0");
        } else if (run.runAs().isPresent()) {
            a.add("--user");
            a.add(Integer.toUnsignedString(run.runAs().get().uid()) + ":" + Integer.toUnsignedString(run.runAs().get().gid()));
        }
        a.add("--cgroupns=private");
        a.add("--ipc=private");
        a.add("--memory");
        a.add(Long.toString(limits.memoryBytes()));
        a.add("--memory-swap");
        a.add(Long.toString(limits.memoryBytes()));
        a.add("--pids-limit");
        a.add(Integer.toString(pidsLimit(tools, limits.processCount()) + (warm ? 2 : 0)));
        // The engine's own defaults for these exceed what a host without CAP_SYS_RESOURCE may grant;
        // prlimit (or the warm supervisor) lowers them further inside.
        a.add("--ulimit");
        a.add("nofile=" + Limits.OPEN_FILES + ":" + Limits.OPEN_FILES);
        a.add("--ulimit");
        a.add("nproc=1024:1024");
        a.add("--ulimit");
        a.add("core=0:0");
        if (tools.engine() == Engine.PODMAN) {
            a.add("--http-proxy=false");
            // The command's output goes straight to our pipes: capped as it is read, never logged.
            a.add("--log-driver=passthrough");
            if (timeout.isPresent()) {
                a.add("--timeout");
                a.add(Long.toString(engineTimeoutSeconds(timeout.get())));
            }
        }
        mount(a, layout.usr(), true);
        for (HostLayout.TopLevel t : layout.topLevel()) {
            if (t.linkTarget().isEmpty()) {
                mount(a, t.path(), true);
            }
        }
        for (Path e : layout.etc()) {
            mount(a, e, true);
        }
        a.add("--mount");
        // Docker's --mount has no such options (its binds are not nosuid); podman's has.
        a.add("type=bind,source=" + binds.writeRoot() + ",destination=" + binds.writeRoot()
                + (tools.engine() == Engine.PODMAN ? ",nosuid,nodev" : ""));
        for (Path r : binds.readRoots()) {
            mount(a, r, true);
        }
        if (warm) {
            a.add("--mount");
            a.add("type=bind,source=" + supervisor.get() + ",destination=" + WARM_SUPERVISOR + ",readonly");
        }
        if (binds.network().isPresent()) {
            // The relay and the proxy's socket directory (private paths of this process, no comma in them).
            a.add("--mount");
            a.add("type=bind,source=" + binds.network().get().relay() + ",destination=" + BindSet.RELAY + ",readonly");
            a.add("--mount");
            a.add("type=bind,source=" + binds.network().get().socketDirectory() + ",destination=" + BindSet.NETWORK_DIR
                    + ",readonly");
        }
        a.add("--workdir");
        a.add(binds.writeRoot().toString());
        a.add(image);
    }

    /** @return the command line that removes the container {@code name} at once, killing what runs in it */
    public static List<String> remove(Tools tools, String name) {
        List<String> a = new ArrayList<>();
        a.add(tools.client().toString());
        if (tools.engine() == Engine.DOCKER) {
            a.add("--host");
            a.add(DOCKER_HOST);
            a.add("rm");
            a.add("-f");
        } else {
            a.add("rm");
            a.add("-f");
            a.add("-t");
            a.add("0");
        }
        a.add(name);
        return a;
    }

    /** @return the environment of the engine's client: a fixed search path and home, nothing else of ours */
    public static Map<String, String> clientEnvironment(String home, Optional<String> xdgRuntimeDir) {
        Map<String, String> env = new TreeMap<>();
        env.put("PATH", Which.FALLBACK_PATH);
        env.put("HOME", home);
        xdgRuntimeDir.ifPresent(dir -> env.put("XDG_RUNTIME_DIR", dir));
        return env;
    }

    static long engineTimeoutSeconds(Duration timeout) {
        long seconds = timeout.getSeconds() + (timeout.getNano() > 0 ? 1 : 0);
        long max = 0xFFFF_FFFFL - ENGINE_TIMEOUT_GRACE_SECONDS;
        return Math.min(seconds, max) + ENGINE_TIMEOUT_GRACE_SECONDS;
    }

    private static void mount(List<String> a, Path p, boolean readOnly) {
        a.add("--mount");
        a.add("type=bind,source=" + p + ",destination=" + p + (readOnly ? ",readonly" : ""));
    }
}
