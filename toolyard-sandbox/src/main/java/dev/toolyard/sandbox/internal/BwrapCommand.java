package dev.toolyard.sandbox.internal;

import dev.toolyard.sandbox.ResourceLimits;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The command line of a run on the bubblewrap rung. Every flag is there because a root-run sandbox
 * was seen to escape without it: bubblewrap run by root keeps root's powers unless told otherwise.
 *
 * <ul>
 *   <li>all namespaces unshared (user, pid, net, ipc, uts, cgroup), user namespaces disabled inside,
 *       every capability dropped, a new session (no terminal injection), killed with its parent;</li>
 *   <li>the command is the pid namespace's init ({@code --as-pid-1}), as in a container: bubblewrap
 *       then waits for it itself, whereas its own init would be left, when bubblewrap exits first, to
 *       the host's init to reap (a zombie still charged to the run's cgroup);</li>
 *   <li>{@code /usr} read-only, {@code /bin}, {@code /lib}... as links into it (or read-only binds
 *       where the host has directories), a named list of {@code /etc} entries read-only;</li>
 *   <li>a private {@code /proc} with {@code /proc/sys} and the other kernel interfaces bound
 *       read-only over it (uid 0 inside could otherwise write kernel settings) and the sensitive
 *       files masked; a private {@code /dev}; a private {@code /tmp}, mounted <em>before</em> the
 *       roots so a root under {@code /tmp} is not hidden by it;</li>
 *   <li>the write root read-write and the read roots read-only, at their own paths, the write root
 *       as the working directory; bubblewrap's environment cleared;</li>
 *   <li>{@code /} remounted read-only last; inside, {@code env -i} sets exactly the allowlisted
 *       environment and {@code prlimit} applies the limits.</li>
 * </ul>
 *
 * With a pids cgroup, {@code cgexec} places bubblewrap in it before it starts. Stateless.
 */
public final class BwrapCommand {
    private BwrapCommand() {}

    /**
     * The tools a bubblewrap run uses, all absolute host paths; {@code env} and {@code prlimit} run
     * inside, from the bound {@code /usr}. {@code cgexec} only with a cgroup.
     */
    public record Tools(Path bwrap, Path env, Path prlimit, Optional<Path> cgexec) {}

    /**
     * @param cgroup the pids cgroup to start in, as {@code cgexec -g} takes it; empty for none
     * @param nproc the {@code RLIMIT_NPROC} for {@code prlimit}
     * @return the command line, ending in {@code command}
     */
    public static List<String> argv(Tools tools, HostLayout layout, ResourceLimits limits, BindSet binds,
            Map<String, String> env, List<String> command, Optional<String> cgroup, long nproc) {
        List<String> a = new ArrayList<>(96 + command.size());
        if (cgroup.isPresent()) {
            a.add(tools.cgexec().orElseThrow(() -> new IllegalStateException("a cgroup needs cgexec")).toString());
            a.add("-g");
            a.add(cgroup.get());
        }
        a.add(tools.bwrap().toString());
        a.add("--unshare-all");
        a.add("--unshare-user");
        a.add("--disable-userns");
        a.add("--cap-drop");
        a.add("ALL");
        a.add("--die-with-parent");
        a.add("--new-session");
        a.add("--as-pid-1");
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
        for (Path e : layout.etc()) {
            bind(a, "--ro-bind", e);
        }
        a.add("--proc");
        a.add("/proc");
        for (Path p : layout.procReadOnly()) {
            bind(a, "--ro-bind", p);
        }
        for (Path p : layout.procMasked()) {
            a.add("--ro-bind");
            a.add("/dev/null");
            a.add(p.toString());
        }
        a.add("--dev");
        a.add("/dev");
        a.add("--tmpfs");
        a.add("/tmp");
        bind(a, "--bind", binds.writeRoot());
        for (Path r : binds.readRoots()) {
            bind(a, "--ro-bind", r);
        }
        a.add("--chdir");
        a.add(binds.writeRoot().toString());
        a.add("--clearenv");
        a.add("--remount-ro");
        a.add("/");
        a.add("--");
        a.addAll(Limits.inside(tools.env(), tools.prlimit(), env, limits, nproc));
        a.addAll(command);
        return a;
    }

    private static void bind(List<String> a, String flag, Path p) {
        a.add(flag);
        a.add(p.toString());
        a.add(p.toString());
    }
}
