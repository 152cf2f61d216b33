package dev.toolyard.sandbox;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolyard.IsolationTier;
import dev.toolyard.SandboxPaths;
import dev.toolyard.spi.SubprocessResult;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * What a warm sandbox shares with nothing else, on each rung, each test an attack that once got
 * through (issue 22 §2): another sandbox holding descriptors of this one's {@code /tmp},
 * {@code /dev/shm} and {@code /proc}; a writable place outside the write root that the wipe missed
 * (POSIX message queues); a workspace path reused for another directory; sockets and ports left in
 * the network namespace; a command that takes from the supervisor what it needs; and
 * {@link TieredSandbox#close()} after sandboxes were discarded.
 */
@Tag("isolation")
class WarmSharesNothingTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(30);
    private static final Map<String, String> PATH = Map.of("PATH", "/usr/bin:/bin");
    private final List<TieredSandbox> opened = new ArrayList<>();

    @TempDir
    Path tmp;

    @AfterEach
    void closeEverySandbox() {
        opened.forEach(TieredSandbox::close);
    }

    private TieredSandbox open(IsolationTier tier, boolean warm) {
        TieredSandbox s = Hosts.builder(tier, Hosts.ROOMY).warm(warm).build();
        opened.add(s);
        Hosts.require(s.isolationTier() == tier, "the " + tier.wireName() + " rung is not available on this host "
                + "(run .ci/setup-sandbox.sh as root to install it):\n" + s.report().describe());
        if (warm) {
            assertThat(s.report().warmMode()).startsWith("on, ");
        }
        return s;
    }

    private Path workspace(String name) throws IOException {
        return Files.createDirectories(tmp.resolve(name)).toRealPath();
    }

    private static SubprocessResult sh(TieredSandbox s, Path work, String script) {
        return sh(s, work, script, PATH);
    }

    private static SubprocessResult sh(TieredSandbox s, Path work, String script, Map<String, String> env) {
        return s.runIsolated(List.of("/bin/sh", "-c", script), SandboxPaths.of(work), TIMEOUT, env);
    }

    private static SubprocessResult python(TieredSandbox s, Path work, String program, Map<String, String> env) {
        return python(s, SandboxPaths.of(work), program, env);
    }

    private static SubprocessResult python(TieredSandbox s, SandboxPaths paths, String program, Map<String, String> env) {
        return s.runIsolated(List.of("/usr/bin/python3", "-c", program), paths, TIMEOUT, env);
    }

    /**
     * Sends descriptors of {@code /tmp}, {@code /dev/shm} and {@code /proc} over {@code sock} in the
     * directory {@code $RENDEZVOUS} (the other run's write root, a read root here: a unix socket on a
     * read-only bind is still connectable).
     */
    private static final String SEND_DESCRIPTORS = String.join("\n",
            "import os, socket, array, time",
            "d = os.environ['RENDEZVOUS']",
            "fds = [os.open(p, os.O_RDONLY | os.O_DIRECTORY) for p in ('/tmp', '/dev/shm', '/proc')]",
            "for i in range(200):",
            "    if os.path.exists(os.path.join(d, 'ready')): break",
            "    time.sleep(0.05)",
            "s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)",
            "s.connect(os.path.join(d, 'sock'))",
            "s.sendmsg([b'x'], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array('i', fds))])",
            "s.recv(1)",
            "print('sent', os.getuid())");

    /**
     * Receives the three descriptors, then for a few seconds tries, through them, everything that
     * once reached the next command: files planted in its {@code /tmp} and {@code /dev/shm}, its
     * environment read and its memory opened for writing from {@code /proc}. Prints what worked.
     */
    private static final String USE_DESCRIPTORS = String.join("\n",
            "import os, socket, array, time",
            "srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)",
            "srv.bind('sock'); os.chmod('sock', 0o777); srv.listen(1); open('ready', 'w').close()",
            "c, _ = srv.accept()",
            "msg, anc, _, _ = c.recvmsg(1, socket.CMSG_SPACE(3 * array.array('i').itemsize))",
            "fds = array.array('i'); fds.frombytes(anc[0][2])",
            "tmpfd, shmfd, procfd = fds[0], fds[1], fds[2]",
            "c.send(b'k')",
            "got = set()",
            "end = time.time() + 6",
            "while time.time() < end:",
            "    for name, fd in (('tmp', tmpfd), ('shm', shmfd)):",
            "        try:",
            "            os.close(os.open('planted', os.O_CREAT | os.O_WRONLY, 0o666, dir_fd=fd)); got.add('planted-' + name)",
            "        except OSError: pass",
            "    try: pids = [p for p in os.listdir(procfd) if p.isdigit() and p != '1']",
            "    except OSError: pids = []",
            "    for p in pids:",
            "        try:",
            "            fd = os.open(p + '/environ', os.O_RDONLY, dir_fd=procfd)",
            "            data = os.read(fd, 65536); os.close(fd)",
            "            if b'SECRET=' in data: got.add('environ')",
            "        except OSError: pass",
            "        try:",
            "            fd = os.open(p + '/mem', os.O_RDWR, dir_fd=procfd); os.close(fd); got.add('mem')",
            "        except OSError: pass",
            "    time.sleep(0.02)",
            "print('uid', os.getuid())",
            "print('reached', ' '.join(sorted(got)) or 'nothing')");

    /**
     * Sandbox A's command passes descriptors of its {@code /tmp}, {@code /dev/shm} and {@code /proc}
     * to a command in sandbox B (a cold run beside it, whose write root A reads, and which outlives
     * A's command: runs of one workspace no longer overlap under different uids); A's next command
     * then runs with a secret in its environment. B must reach none of it: the warm sandbox holds a
     * uid no other run holds (so {@code /proc} refuses B), and its world-writable places are the
     * sandbox uid's alone (so B cannot plant files in them).
     */
    @ParameterizedTest(name = "{0}")
    @EnumSource(value = IsolationTier.class, names = {"GVISOR", "CONTAINER", "BWRAP"})
    void aRunHoldingDescriptorsOfAWarmSandboxsTmpShmAndProcCannotReachItsNextCommand(IsolationTier tier)
            throws Exception {
        TieredSandbox warm = open(tier, true);
        TieredSandbox cold = open(tier, false);
        Path work = workspace("work");
        // Runs of one workspace, or of nested ones, never overlap under different uids; a run beside
        // it reaches the warm sandbox through a directory the warm sandbox reads.
        Path rendezvous = workspace("rendezvous");
        SandboxPaths paths = SandboxPaths.of(work, rendezvous);
        Map<String, String> env = Map.of("PATH", "/usr/bin:/bin", "RENDEZVOUS", rendezvous.toString());
        assertThat(python(warm, paths, "print('ok')", env).exitCode()).isZero();

        CompletableFuture<SubprocessResult> b = CompletableFuture.supplyAsync(
                () -> python(cold, rendezvous, USE_DESCRIPTORS, PATH));
        SubprocessResult a = python(warm, paths, SEND_DESCRIPTORS, env);
        if (tier == IsolationTier.GVISOR) {
            // Two gVisor sandboxes cannot even meet: a unix socket another sandbox made in a bound directory
            // is not connectable from this one (runsc opens no host socket without host-uds).
            assertThat(a.stdout()).as(a.stderr()).doesNotContain("sent");
            assertThat(a.stderr()).containsAnyOf("ConnectionRefusedError", "PermissionError", "FileNotFoundError", "OSError");
        } else {
            assertThat(a.stdout()).as(a.stderr()).startsWith("sent");
        }
        // Globs, not ls: they read the directory and stat nothing (gVisor refuses coreutils' statx flags).
        SubprocessResult next = warm.runIsolated(List.of("/bin/sh", "-c",
                "sleep 3; for d in /tmp /dev/shm; do echo $d/* $d/.[!.]*; done; id -u"), paths,
                TIMEOUT, Map.of("PATH", "/usr/bin:/bin", "SECRET", "the-next-command's"));
        SubprocessResult other = b.get(60, TimeUnit.SECONDS);

        if (tier != IsolationTier.GVISOR) {
            assertThat(other.stdout()).as(other.stderr()).contains("reached nothing");
        } else {
            assertThat(other.stdout()).as(other.stderr()).doesNotContain("planted", "environ", "mem");
        }
        assertThat(next.exitCode()).as(next.stderr()).isZero();
        assertThat(next.stdout()).contains("/tmp/").doesNotContain("planted");
        if (tier == IsolationTier.GVISOR) {
            return;
        }
        String uidA = a.stdout().strip().split(" ")[1];
        String uidB = other.stdout().lines().filter(l -> l.startsWith("uid ")).findFirst().orElseThrow().substring(4);
        assertThat(uidB).as("a run beside a warm sandbox of its workspace has a uid of its own").isNotEqualTo(uidA);
    }

    /**
     * Lists, from the mount table inside the sandbox, every place outside the write root the
     * command's uid can write (a directory or a regular file on a mount that is not read-only),
     * writes a marker in each, and checks that the next command finds none of them. A place that is
     * neither wiped nor masked (podman's {@code /dev/mqueue} once) fails it.
     */
    private static final String MARK_EVERY_WRITABLE_PLACE = String.join("\n",
            "import os, sys",
            "wr = os.getcwd()",
            "mounts = []",
            "for line in open('/proc/self/mountinfo'):",
            "    f = line.split(' ')",
            "    sep = f.index('-')",
            "    mounts.append((f[4].replace('\\\\040', ' '), f[5].split(','), f[sep + 1]))",
            "points = set(m[0] for m in mounts)",
            "places = []",
            "def walk(p, dev, depth):",
            "    try: st = os.lstat(p)",
            "    except OSError: return",
            "    if st.st_dev != dev: return",
            "    import stat",
            "    if stat.S_ISREG(st.st_mode) and os.access(p, os.W_OK): places.append(p); return",
            "    if not stat.S_ISDIR(st.st_mode): return",
            "    if os.access(p, os.W_OK | os.X_OK): places.append(p)",
            "    if depth > 6: return",
            "    try: names = os.listdir(p)",
            "    except OSError: return",
            "    for n in names:",
            "        q = os.path.join(p, n)",
            "        if q in points: continue",
            "        if p == '/proc' and (n.isdigit() or n in ('self', 'thread-self')): continue",
            "        walk(q, dev, depth + 1)",
            "for point, opts, fstype in mounts:",
            "    if 'ro' in opts: continue",
            "    if point == wr or point.startswith(wr + '/'): continue",
            "    try: dev = os.lstat(point).st_dev",
            "    except OSError: continue",
            "    walk(point, dev, 0)",
            "for p in places:",
            "    try:",
            "        if os.path.isdir(p): os.close(os.open(os.path.join(p, 'toolyard-marker'), os.O_CREAT | os.O_RDWR, 0o600))",
            "        else:",
            "            with open(p, 'a') as f: f.write('toolyard-marker')",
            "        print('marked', p)",
            "    except OSError as e: print('unmarked', p, e)");

    private static final String FIND_MARKERS = String.join("\n",
            "import os, sys",
            "for p in sys.argv[1:]:",
            "    if os.path.isdir(p):",
            "        if os.path.exists(os.path.join(p, 'toolyard-marker')): print('left', p)",
            "    else:",
            "        try:",
            "            if 'toolyard-marker' in open(p, errors='replace').read(): print('left', p)",
            "        except OSError: pass",
            "print('checked', len(sys.argv) - 1)");

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = IsolationTier.class, names = {"GVISOR", "CONTAINER", "BWRAP"})
    void everyPlaceOutsideTheWriteRootTheMountTableLetsACommandWriteIsGoneForTheNextCommand(IsolationTier tier)
            throws Exception {
        TieredSandbox s = open(tier, true);
        Path work = workspace("work");
        SubprocessResult marked = python(s, work, MARK_EVERY_WRITABLE_PLACE, PATH);
        List<String> places = marked.stdout().lines().filter(l -> l.startsWith("marked ")).map(l -> l.substring(7)).toList();
        assertThat(places).as(marked.stdout() + marked.stderr()).contains("/tmp", "/dev/shm");
        List<String> argv = new ArrayList<>(List.of("/usr/bin/python3", "-c", FIND_MARKERS));
        argv.addAll(places);
        SubprocessResult found = s.runIsolated(argv, SandboxPaths.of(work), TIMEOUT, PATH);

        assertThat(found.stdout()).as(found.stderr()).contains("checked " + places.size()).doesNotContain("left ");
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = IsolationTier.class, names = {"GVISOR", "CONTAINER", "BWRAP"})
    void aPosixMessageQueueCreatedWithOpenDoesNotReachTheNextCommand(IsolationTier tier) throws Exception {
        TieredSandbox s = open(tier, true);
        Path work = workspace("work");
        SubprocessResult first = sh(s, work, "if [ -d /dev/mqueue ]; then echo x > /dev/mqueue/toolyard-q 2>&1; "
                + "ls /dev/mqueue; else echo no-mqueue; fi");
        SubprocessResult second = sh(s, work, "ls -A /dev/mqueue 2>/dev/null; echo end");

        assertThat(first.exitCode()).isZero();
        assertThat(second.stdout()).as(first.stdout()).doesNotContain("toolyard-q").endsWith("end\n");
    }

    /**
     * The application renames a workspace away and creates another at its path: the next command
     * must see the new directory, and write into it, never into the renamed one.
     */
    @ParameterizedTest(name = "{0}")
    @EnumSource(value = IsolationTier.class, names = {"GVISOR", "CONTAINER", "BWRAP"})
    void aWorkspacePathReusedForAnotherDirectoryIsANewWorkspace(IsolationTier tier) throws Exception {
        TieredSandbox s = open(tier, true);
        Path work = workspace("work");
        Files.writeString(work.resolve("old-tenant.txt"), "old\n");
        assertThat(sh(s, work, "cat old-tenant.txt").stdout()).isEqualTo("old\n");
        Path away = Files.move(work, tmp.resolve("away"));
        Files.createDirectory(work);
        Files.writeString(work.resolve("new-tenant.txt"), "new\n");

        SubprocessResult r = sh(s, work, "ls; echo mine > written");

        assertThat(r.stdout()).contains("new-tenant.txt").doesNotContain("old-tenant.txt");
        assertThat(work.resolve("written")).exists();
        assertThat(away.resolve("written")).doesNotExist();
    }

    private static final String LEAVE_SOCKETS = String.join("\n",
            "import socket",
            "l = socket.socket(); l.bind(('127.0.0.1', 4711)); l.listen(1)",
            "c = socket.socket(); c.connect(('127.0.0.1', 4711))",
            "a, _ = l.accept(); a.send(b'x'); c.recv(1)",
            "a.close()", // the side that closes first keeps TIME_WAIT
            "c.close()",
            "u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); u.bind(('127.0.0.1', 4712))",
            "x = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM); x.bind('\\0toolyard-abstract'); x.listen(1)",
            "print(open('/proc/net/tcp').read().count('\\n') - 1)");

    private static final String FIND_SOCKETS = String.join("\n",
            "import socket",
            "n = 0",
            "for t in ('tcp', 'tcp6', 'udp', 'udp6', 'raw', 'raw6', 'unix'):",
            "    try: n += len(open('/proc/net/' + t).read().splitlines()) - 1",
            "    except OSError: pass",
            "print('sockets', n)",
            "l = socket.socket(); l.bind(('127.0.0.1', 4711)); l.listen(1); print('bound')",
            "x = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM); x.bind('\\0toolyard-abstract'); print('abstract free')");

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = IsolationTier.class, names = {"GVISOR", "CONTAINER", "BWRAP"})
    void noSocketAndNoBoundPortOfACommandIsLeftInTheNetworkNamespaceOfTheNext(IsolationTier tier) throws Exception {
        TieredSandbox s = open(tier, true);
        Path work = workspace("work");
        SubprocessResult first = python(s, work, LEAVE_SOCKETS, PATH);
        assertThat(first.exitCode()).as(first.stderr()).isZero();
        SubprocessResult second = python(s, work, FIND_SOCKETS, PATH);

        assertThat(second.stdout()).as(second.stderr()).contains("sockets 0\n", "bound\n", "abstract free\n");
    }

    /** Prints the namespace's TCP counts of /proc/net/sockstat and sockstat6 (inuse, tw, inuse6) at each step. */
    private static final String COUNT_TCP = String.join("\n",
            "import socket",
            "def show(step):",
            "    try:",
            "        v4 = next(l.split() for l in open('/proc/net/sockstat') if l.startswith('TCP:'))",
            "        v6 = next(l.split() for l in open('/proc/net/sockstat6') if l.startswith('TCP6:'))",
            "    except OSError:",
            "        print(step, 'absent'); return",
            "    print(step, v4[v4.index('inuse') + 1], v4[v4.index('tw') + 1], v6[v6.index('inuse') + 1])",
            "show('empty')",
            "l = socket.socket(); l.bind(('127.0.0.1', 4731)); l.listen(1); show('listener')",
            "c = socket.socket(); c.connect(('127.0.0.1', 4731)); a, _ = l.accept(); show('connected')",
            "a.close(); c.close(); l.close(); show('closed')",
            "try:",
            "    l6 = socket.socket(socket.AF_INET6); l6.bind(('::1', 4732)); l6.listen(1); show('ipv6')",
            "except OSError:",
            "    print('ipv6 unavailable')");

    /**
     * What the supervisor's socket check reads before the TCP tables (toolyard-warm.c's
     * {@code no_tcp_socket_counted}: each read of {@code /proc/net/tcp} walks the host's whole hash table,
     * so the tables are read only when a count is not 0): in the network namespace a warm command runs in,
     * the counts are the namespace's own and see each TCP socket the command holds, in {@code TIME_WAIT}
     * too. gVisor has no {@code sockstat}, so there the supervisor always reads the tables.
     */
    @ParameterizedTest(name = "{0}")
    @EnumSource(value = IsolationTier.class, names = {"GVISOR", "CONTAINER", "BWRAP"})
    void theTcpCountsTheSupervisorReadsFirstSeeEveryTcpSocketOfTheNamespace(IsolationTier tier) throws Exception {
        TieredSandbox s = open(tier, true);
        SubprocessResult r = python(s, workspace("work"), COUNT_TCP, PATH);
        assertThat(r.exitCode()).as(r.stderr()).isZero();
        List<String> lines = r.stdout().lines().toList();
        if (tier == IsolationTier.GVISOR) {
            assertThat(lines).startsWith("empty absent", "listener absent");
            return;
        }
        assertThat(lines.get(0)).as("a fresh namespace").isEqualTo("empty 0 0 0");
        assertThat(count(lines, "listener", 0)).as("a listener").isGreaterThanOrEqualTo(1);
        assertThat(count(lines, "connected", 0)).as("the listener and both ends of a connection").isGreaterThanOrEqualTo(3);
        assertThat(count(lines, "closed", 1)).as("the end that closed first, in TIME_WAIT").isGreaterThanOrEqualTo(1);
        if (!lines.contains("ipv6 unavailable")) {
            assertThat(count(lines, "ipv6", 2)).as("an IPv6 listener").isGreaterThanOrEqualTo(1);
        }
    }

    private static int count(List<String> lines, String step, int field) {
        String line = lines.stream().filter(l -> l.startsWith(step + " ")).findFirst().orElseThrow();
        return Integer.parseInt(line.split(" ")[1 + field]);
    }

    /** Binds a TCP listener and a UDP port, then closes both: no packet is sent or received. */
    private static final String HOLD_PORTS_ONLY = String.join("\n",
            "import socket",
            "l = socket.socket(); l.bind(('127.0.0.1', 4721)); l.listen(1)",
            "u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); u.bind(('127.0.0.1', 4722))",
            "l.close(); u.close()",
            "print('held')");

    /** Binds both ports again (free, or this fails), then talks to itself: the side closing first keeps TIME_WAIT. */
    private static final String BIND_THEN_TALK = String.join("\n",
            "import socket",
            "l = socket.socket(); l.bind(('127.0.0.1', 4721)); l.listen(1)",
            "u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); u.bind(('127.0.0.1', 4722)); u.close()",
            "print('bound')",
            "c = socket.socket(); c.connect(('127.0.0.1', 4721))",
            "a, _ = l.accept(); a.send(b'x'); c.recv(1)",
            "a.close(); c.close(); l.close()",
            "print('talked')");

    /** One UDP datagram to a loopback port nobody holds: a packet, and no socket left anywhere. */
    private static final String ONE_DATAGRAM = String.join("\n",
            "import socket",
            "u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); u.sendto(b'x', ('127.0.0.1', 9)); u.close()",
            "print('sent')");

    /**
     * A command that sent or received any packet, loopback included, spends its sandbox: a port it used
     * may still be taken in {@code TIME_WAIT}, which gVisor's {@code /proc/net} does not list, so the
     * supervisor compares the network namespace's packet counters before and after each command. A
     * command that only bound ports and closed them moved no counter and left no socket: its sandbox
     * answers the next command, and the ports are free there.
     */
    @ParameterizedTest(name = "{0}")
    @EnumSource(value = IsolationTier.class, names = {"GVISOR", "CONTAINER", "BWRAP"})
    void aCommandThatSentAnyPacketSpendsItsSandboxAndOneThatOnlyHeldPortsLeavesThemFree(IsolationTier tier)
            throws Exception {
        TieredSandbox s = open(tier, true);
        Path work = workspace("work");
        SubprocessResult held = python(s, work, HOLD_PORTS_ONLY, PATH);
        assertThat(held.stdout()).as(held.stderr()).isEqualTo("held\n");
        assertThat(s.warmCounts()[3]).as("a command that only held ports spends nothing").isZero();

        SubprocessResult talked = python(s, work, BIND_THEN_TALK, PATH);
        assertThat(talked.stdout()).as(talked.stderr()).isEqualTo("bound\ntalked\n");
        assertThat(s.warmCounts()[2]).as("the ports held before were free in the same sandbox").isEqualTo(1);
        assertThat(s.warmCounts()[3]).as("a command that sent packets spent its sandbox").isEqualTo(1);

        SubprocessResult again = python(s, work, BIND_THEN_TALK, PATH);
        assertThat(again.stdout()).as(again.stderr()).isEqualTo("bound\ntalked\n");
        assertThat(s.warmCounts()[2]).as("a fresh sandbox, whose ports are free").isEqualTo(2);

        SubprocessResult datagram = python(s, work, ONE_DATAGRAM, PATH);
        assertThat(datagram.stdout()).as(datagram.stderr()).isEqualTo("sent\n");
        assertThat(s.warmCounts()[3]).as("one datagram, which left no socket, spent its sandbox too").isEqualTo(3);
        assertThat(s.warmRunsServed()).isEqualTo(4);
    }

    /** The directories a warm supervisor wipes on some rung (ContainerCommand's and BwrapCommand's lists). */
    private static final List<String> WIPED = List.of("/tmp", "/var/tmp", "/dev/shm", "/dev/mqueue", "/run");

    /**
     * Walks from the write root up to {@code /}: each directory above it is either one of the wiped
     * directories, or one the command can neither write nor create a file in. runsc makes the directories
     * above the roots' mount points in {@code /tmp} 0777; the wipe keeps them (they hold the mount points),
     * so the supervisor drops their group and other write at start, and does not start if any stays writable.
     */
    private static final String WRITABLE_ABOVE_THE_WRITE_ROOT = String.join("\n",
            "import os",
            "wiped = ('" + String.join("', '", WIPED) + "')",
            "p = os.getcwd()",
            "n = 0",
            "while p != '/':",
            "    p = os.path.dirname(p)",
            "    if p in wiped: continue",
            "    n += 1",
            "    if os.access(p, os.W_OK) or os.stat(p).st_mode & 0o022: print('writable', p, oct(os.stat(p).st_mode))",
            "    try:",
            "        os.close(os.open(os.path.join(p, 'toolyard-probe'), os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))",
            "        print('created', p)",
            "    except OSError: pass",
            "print('checked', n)");

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = IsolationTier.class, names = {"GVISOR", "CONTAINER", "BWRAP"})
    void noDirectoryAboveTheWriteRootIsWritableByTheCommand(IsolationTier tier) throws Exception {
        TieredSandbox s = open(tier, true);
        Path work = workspace("work");
        long above = 0; // the write root's parents, / included, but the wiped ones
        for (Path p = work.getParent(); p != null; p = p.getParent()) {
            above += WIPED.contains(p.toString()) ? 0 : 1;
        }

        SubprocessResult r = python(s, work, WRITABLE_ABOVE_THE_WRITE_ROOT, PATH);

        assertThat(r.stdout()).as(r.stderr()).isEqualTo("checked " + above + "\n");
        assertThat(s.warmRunsServed()).isEqualTo(1);
    }

    /**
     * A command takes away what the supervisor needs ({@code chmod 000} on the write root): the next
     * command ends as a cold run on the same rung would, never with the launcher's 125 of a broken
     * sandbox, and a sandbox the command changed is not used again.
     */
    @ParameterizedTest(name = "{0}")
    @EnumSource(value = IsolationTier.class, names = {"GVISOR", "CONTAINER", "BWRAP"})
    void aCommandThatTakesTheWriteRootFromItsUidLeavesTheNextCommandAsAColdRunWouldFindIt(IsolationTier tier)
            throws Exception {
        TieredSandbox warm = open(tier, true);
        TieredSandbox cold = open(tier, false);
        Path w = workspace("warm");
        Path c = workspace("cold");
        for (Path p : List.of(w, c)) {
            TieredSandbox s = p.equals(w) ? warm : cold;
            assertThat(sh(s, p, "echo > f").exitCode()).isZero();
            assertThat(sh(s, p, "chmod 000 .").exitCode()).isZero();
        }
        SubprocessResult coldNext = sh(cold, c, "echo next");
        SubprocessResult warmNext = sh(warm, w, "echo next");

        assertThat(warmNext.exitCode()).as(warmNext.stderr()).isEqualTo(coldNext.exitCode());
        assertThat(warmNext.stdout()).isEqualTo(coldNext.stdout());
        assertThat(warm.warmCounts()[3]).as("the sandbox whose write root was taken away is discarded").isGreaterThanOrEqualTo(1);
        int mode = (Integer) Files.getAttribute(w, "unix:mode", LinkOption.NOFOLLOW_LINKS);
        assertThat(mode & 0777).isZero();
    }

    /**
     * Sandboxes are discarded (each command leaves a process behind) in several workspaces and the
     * sandbox is closed at once: {@code close()} must still end each of them, leaving no process and
     * no container, and no warm sandbox counted alive.
     */
    @ParameterizedTest(name = "{0}")
    @EnumSource(value = IsolationTier.class, names = {"GVISOR", "CONTAINER", "BWRAP"})
    void closeRightAfterDiscardsLeavesNoProcessNoContainerAndNoSandboxAlive(IsolationTier tier) throws Exception {
        TieredSandbox s = open(tier, true);
        String token = "66" + Math.abs(UUID.randomUUID().getMostSignificantBits() % 1_000_000);
        List<Path> works = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            Path work = workspace("w" + i);
            works.add(work);
            sh(s, work, "(exec sleep " + token + ") & echo left");
        }
        s.close();

        assertThat(s.warmCounts()[0]).as("warm sandboxes alive after close()").isZero();
        for (Path work : works) {
            assertThat(Hosts.processesMentioning(work.toString())).as("processes of " + work + " after close()").isEmpty();
        }
        assertThat(Hosts.processesMentioning("sleep\0" + token)).isEmpty();
    }
}
