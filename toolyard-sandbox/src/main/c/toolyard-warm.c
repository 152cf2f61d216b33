/*
 * toolyard-warm: the supervisor inside a warm sandbox (ToolYard's TieredSandbox, warm mode).
 *
 * It is the init of the sandbox's pid namespace, runs as root with only CAP_SETUID, CAP_SETGID,
 * CAP_SETPCAP and CAP_KILL, and is started once per sandbox. For each request the JVM writes on
 * its standard input it starts one command in a fresh session as the sandbox's uid and gid (no
 * supplementary group, no capability in any set, empty bounding set, no new privileges, the
 * per-command limits, the extra seccomp program the JVM sent at start), with /dev/null as its
 * standard input, its output on pipes relayed to the JVM in frames, the write root as its working
 * directory and exactly the environment of the request. When the command's first process exits,
 * every other process of the namespace is killed (as a cold run's pid namespace dies with its
 * init), its output is read to the end, every process is reaped, and what the command left in the
 * world-writable directories and in System V IPC is removed by a child running as the command's
 * uid; only then is the exit frame written. Anything unexpected ends the supervisor, which ends the
 * namespace: the JVM then discards the sandbox.
 *
 * Usage: toolyard-warm UID GID CPU_SECONDS AS_BYTES FSIZE_BYTES NOFILE NPROC WRITE_ROOT WIPE_DIR...
 *        toolyard-warm --exec-once UID GID CPU_SECONDS AS_BYTES FSIZE_BYTES NOFILE NPROC FILTER WRITE_ROOT
 *                      [NAME=VALUE...] -- COMMAND [ARG...]  (cold mode, see exec_once)
 *
 * Protocol, all integers unsigned big-endian (32-bit unless said); every number below is a TY_
 * constant, which WarmProtocol.java mirrors name for name (WarmProtocolTest compares the two):
 *   JVM -> supervisor, once:  len, len bytes of classic BPF (struct sock_filter[], len % 8 == 0)
 *   supervisor -> JVM, once:  'R' 16: the write root's device and inode as bound here (64-bit each)
 *   JVM -> supervisor:        len, then in len bytes: argc, argc x (n, n bytes), envc, envc x (n, n bytes)
 *   supervisor -> JVM:        'S' 0, before the command is forked (without it, the command never started)
 *                             'O' n bytes | 'E' n bytes  (the command's stdout and stderr, in order)
 *                             'X' 12: status, processes left when the command ended, flags
 *                                  (status: the exit code, or 128 + the signal that killed it;
 *                                   flags: TY_FLAG_WIPED something was wiped, TY_FLAG_WIPE_INCOMPLETE
 *                                   not everything could be, TY_FLAG_SOCKETS_LEFT a socket of the
 *                                   command outlived it in the network namespace, TY_FLAG_CHANGED the
 *                                   command changed the write root's or a wiped directory's owner or mode,
 *                                   TY_FLAG_PACKETS_MOVED a packet counter of the network namespace moved
 *                                   while the command ran: it sent or received something, loopback included)
 *   end of the JVM's stream:  every process is killed and the supervisor exits 0.
 *
 * At start, before 'R', every wiped directory is made the sandbox gid's alone (root:GID, 1770: no other
 * uid, even one holding a descriptor of it, can create anything in it), and every mount of the mount
 * table that is not read-only is walked: a directory or regular file outside the write root that the
 * command's uid or gid could write and that lies in no wiped directory ends the supervisor. So each
 * writable place is wiped, or the sandbox does not start. What a wiped directory holds at start (the
 * directories above the roots' mount points) is kept, not wiped: each root-owned directory and file of it
 * loses its group and other write bits, and anything of it the command could still write ends the supervisor.
 * A frame is a tag byte and a length. Written with the JVM, which depends on every detail.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/audit.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/msg.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/sem.h>
#include <sys/shm.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* The protocol, mirrored by WarmProtocol.java. */
#define TY_TAG_READY 'R'
#define TY_TAG_STARTED 'S'
#define TY_TAG_STDOUT 'O'
#define TY_TAG_STDERR 'E'
#define TY_TAG_EXIT 'X'
#define TY_READY_BYTES 16
#define TY_EXIT_BYTES 12
#define TY_FLAG_WIPED 1
#define TY_FLAG_WIPE_INCOMPLETE 2
#define TY_FLAG_SOCKETS_LEFT 4
#define TY_FLAG_CHANGED 8
#define TY_FLAG_PACKETS_MOVED 16
#define TY_MAX_REQUEST 16777216
#define TY_MAX_FILTER 32768
#define TY_MAX_OUTPUT_FRAME 65536
#define TY_CHILD_FAILED 125
#define TY_WIPE_DIR_MODE 01770

#define CHUNK TY_MAX_OUTPUT_FRAME
#define CLEANUP_MILLIS 10000
#define MAX_WALK_ENTRIES 200000
#define MAX_WALK_DEPTH 12

static uid_t uid;
static gid_t gid;
static rlim_t cpu_seconds, as_bytes, fsize_bytes, nofile, nproc;
static const char *write_root;
static char **wipe_dirs;
static int wipe_count;
static struct sock_fprog extra_filter;
static int sig_r = -1, sig_w = -1;

static void die(const char *what) {
    int e = errno;
    dprintf(2, "toolyard-warm: %s%s%s\n", what, e ? ": " : "", e ? strerror(e) : "");
    kill(-1, SIGKILL);
    _exit(1);
}

static void on_child(int sig) {
    (void) sig;
    int saved = errno;
    char c = 0;
    ssize_t ignored = write(sig_w, &c, 1);
    (void) ignored;
    errno = saved;
}

static int read_full(int fd, void *buf, size_t n) {
    size_t got = 0;
    while (got < n) {
        ssize_t r = read(fd, (char *) buf + got, n - got);
        if (r == 0) {
            return got == 0 ? 0 : -1; /* end of stream: clean only between frames */
        }
        if (r < 0) {
            if (errno == EINTR) {
                continue;
            }
            return -1;
        }
        got += (size_t) r;
    }
    return 1;
}

static void write_full(int fd, const void *buf, size_t n) {
    size_t done = 0;
    while (done < n) {
        ssize_t w = write(fd, (const char *) buf + done, n - done);
        if (w < 0) {
            if (errno == EINTR) {
                continue;
            }
            die("the JVM's stream is closed"); /* it is gone: so is everything here */
        }
        done += (size_t) w;
    }
}

static void put32(unsigned char *p, uint32_t v) {
    p[0] = (unsigned char) (v >> 24);
    p[1] = (unsigned char) (v >> 16);
    p[2] = (unsigned char) (v >> 8);
    p[3] = (unsigned char) v;
}

static void put64(unsigned char *p, uint64_t v) {
    put32(p, (uint32_t) (v >> 32));
    put32(p + 4, (uint32_t) v);
}

static uint32_t get32(const unsigned char *p) {
    return ((uint32_t) p[0] << 24) | ((uint32_t) p[1] << 16) | ((uint32_t) p[2] << 8) | (uint32_t) p[3];
}

static void frame(char tag, const void *data, uint32_t n) {
    unsigned char head[5];
    head[0] = (unsigned char) tag;
    put32(head + 1, n);
    write_full(1, head, 5);
    if (n > 0) {
        write_full(1, data, n);
    }
}

static rlim_t parse_limit(const char *s, const char *name) {
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno != 0 || *s == '\0' || *end != '\0' || s[0] == '-') {
        errno = 0;
        dprintf(2, "toolyard-warm: bad %s: %s\n", name, s);
        _exit(2);
    }
    return (rlim_t) v;
}

static long long now_millis(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long) t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* In the child, before exec: a message on its stderr and the launcher's failure status. */
static void child_fail(const char *what) {
    int e = errno;
    dprintf(2, "toolyard-warm: %s: %s\n", what, strerror(e));
    _exit(TY_CHILD_FAILED);
}

static void set_limit(int resource, rlim_t value, const char *name) {
    struct rlimit r = {value, value};
    if (setrlimit(resource, &r) != 0) {
        child_fail(name);
    }
}

/* The command's limits, soft and hard, while still root: no core file, and the five of the command line. */
static void set_command_limits(void) {
    set_limit(RLIMIT_CORE, 0, "RLIMIT_CORE");
    set_limit(RLIMIT_CPU, cpu_seconds, "RLIMIT_CPU");
    set_limit(RLIMIT_AS, as_bytes, "RLIMIT_AS");
    set_limit(RLIMIT_FSIZE, fsize_bytes, "RLIMIT_FSIZE");
    set_limit(RLIMIT_NOFILE, nofile, "RLIMIT_NOFILE");
    set_limit(RLIMIT_NPROC, nproc, "RLIMIT_NPROC");
}

/* Empties this process's capability bounding set: 0 on success. Capabilities are numbered without gaps, so
 * the first EINVAL is past the kernel's last one. The supervisor does it once at start (it never executes
 * anything itself, and what it forks inherits the empty set), so a warm command's child does not pay for 41
 * or more system calls, about 100 us each under gVisor; a cold --exec-once run does it itself. */
static int drop_bounding_set(void) {
    for (int cap = 0; cap <= 63; cap++) {
        if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0) {
            if (errno == EINVAL && cap > CAP_SETPCAP) {
                return 0;
            }
            return -1;
        }
    }
    return 0;
}

/* Whether the bounding set was emptied at start: set by main before the first command, read by its children. */
static int bounding_set_empty;

/* Becomes the command's uid and gid with nothing of root left: the same end state as setpriv's
 * --reuid --regid --clear-groups --bounding-set=-all --inh-caps=-all in a cold run. The id changes are raw
 * system calls: a warm command's child shares the supervisor's memory until its exec (run_one), and glibc's
 * wrappers of them are written for a whole process, not for such a child. */
static void drop_to_sandbox_ids(void) {
    if (!bounding_set_empty && drop_bounding_set() != 0) {
        child_fail("dropping the bounding set");
    }
    if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) != 0 && errno != EINVAL) {
        child_fail("clearing the ambient capabilities");
    }
    if (syscall(SYS_setgroups, 0, NULL) != 0) {
        child_fail("clearing the supplementary groups");
    }
    if (syscall(SYS_setresgid, gid, gid, gid) != 0) {
        child_fail("setting the gid");
    }
    if (syscall(SYS_setresuid, uid, uid, uid) != 0) {
        child_fail("setting the uid");
    }
    struct __user_cap_header_struct head = {_LINUX_CAPABILITY_VERSION_3, 0};
    struct __user_cap_data_struct data[2];
    memset(data, 0, sizeof data);
    if (syscall(SYS_capset, &head, data) != 0) {
        child_fail("clearing the capabilities");
    }
    if (syscall(SYS_setuid, 0) == 0 || getuid() != uid || geteuid() != uid || getgid() != gid || getegid() != gid) {
        errno = EPERM;
        child_fail("the uid change did not hold");
    }
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
        child_fail("setting no_new_privs");
    }
}

/* The handlers first, then the mask: a warm command's child starts with every signal blocked (run_one), and
 * none may reach the supervisor's handler in it. */
static void reset_signals(void) {
    signal(SIGPIPE, SIG_DFL);
    signal(SIGCHLD, SIG_DFL);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
}

/* Closes every descriptor from first up. close_range where the kernel has it; gVisor's refuses it, and
 * there each system call costs about 100 us, so the descriptors open are read from /proc/self/fd rather than
 * 65,536 closed one by one (6 s a command). Without /proc, every descriptor below the open-files limit. */
static void close_from(int first) {
    if (syscall(SYS_close_range, first, ~0u, 0) == 0) {
        return;
    }
    int dfd = open("/proc/self/fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    DIR *d = dfd < 0 ? NULL : fdopendir(dfd);
    if (d != NULL) {
        int open_fds[1024];
        int n = 0, more = 0;
        struct dirent *e;
        while ((e = readdir(d)) != NULL) {
            char *end;
            long fd = strtol(e->d_name, &end, 10);
            if (*end != '\0' || end == e->d_name || fd < first || fd == dfd) {
                continue;
            }
            if (n < (int) (sizeof open_fds / sizeof open_fds[0])) {
                open_fds[n++] = (int) fd;
            } else {
                more = 1;
            }
        }
        closedir(d);
        for (int i = 0; i < n; i++) {
            close(open_fds[i]);
        }
        if (!more) {
            return;
        }
    } else if (dfd >= 0) {
        close(dfd);
    }
    struct rlimit r;
    long max = getrlimit(RLIMIT_NOFILE, &r) == 0 && r.rlim_cur != RLIM_INFINITY && r.rlim_cur < 1048576 ? (long) r.rlim_cur : 65536;
    for (long fd = first; fd < max; fd++) {
        close((int) fd);
    }
}

/* A warm command's child, from clone in run_one: it shares the supervisor's memory until its exec (the
 * supervisor waits meanwhile), so it writes no variable of the supervisor's but environ, which run_one puts
 * back. Its descriptor table is its own copy: every descriptor the supervisor holds from 3 up is close-on-exec
 * (main closed what it inherited, and each of its own is opened so), so the exec closes them; close_range
 * closes them before, where the kernel has it. gVisor's refuses, and there the exec alone does it: no walk of
 * /proc/self/fd, at about 100 us a system call. */
static void run_child(char **argv, char **envp, int out_w, int err_w) {
    reset_signals();
    if (setsid() < 0) {
        child_fail("starting a session");
    }
    int null = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (null < 0 || dup2(null, 0) < 0 || dup2(out_w, 1) < 0 || dup2(err_w, 2) < 0) {
        child_fail("setting up the standard streams");
    }
    (void) syscall(SYS_close_range, 3, ~0u, 0); /* where it fails (gVisor: ENOSYS, or EINVAL), the exec closes them */
    set_command_limits();
    drop_to_sandbox_ids();
    if (extra_filter.len > 0 && prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &extra_filter, 0, 0) != 0) {
        child_fail("loading the warm seccomp program");
    }
    if (chdir(write_root) != 0) {
        child_fail(write_root);
    }
    environ = envp; /* execvp searches the request's PATH; run_one restores the supervisor's environ */
    execvp(argv[0], argv);
    int e = errno;
    dprintf(2, "toolyard-warm: %s: %s\n", argv[0], strerror(e));
    _exit(e == ENOENT ? 127 : 126);
}

struct child_start {
    char **argv;
    char **envp;
    int out_r, err_r, out_w, err_w;
};

static int child_main(void *arg) {
    struct child_start *c = arg;
    close(c->out_r);
    close(c->err_r);
    run_child(c->argv, c->envp, c->out_w, c->err_w);
    return TY_CHILD_FAILED; /* run_child does not return */
}

/* The stack of a warm command's child until its exec; one child at a time. */
static char child_stack[256 * 1024] __attribute__((aligned(16)));

/* What each wipe directory held before the first command: the mount points of the roots and the
 * directories above them, root's, which the wipe leaves alone. */
#define MAX_BASELINE 256
static char *baseline[MAX_BASELINE];
static int baseline_dir[MAX_BASELINE];
static int baseline_count;

static int in_baseline(int dir, const char *name) {
    for (int i = 0; i < baseline_count; i++) {
        if (baseline_dir[i] == dir && strcmp(baseline[i], name) == 0) {
            return 1;
        }
    }
    return 0;
}

static void record_baseline(void) {
    for (int i = 0; i < wipe_count; i++) {
        DIR *d = opendir(wipe_dirs[i]);
        if (d == NULL) {
            continue;
        }
        struct dirent *e;
        while ((e = readdir(d)) != NULL) {
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) {
                continue;
            }
            if (baseline_count == MAX_BASELINE) {
                errno = 0;
                die("too many entries in a world-writable directory at start");
            }
            baseline_dir[baseline_count] = i;
            baseline[baseline_count] = strdup(e->d_name);
            if (baseline[baseline_count] == NULL) {
                die("strdup");
            }
            baseline_count++;
        }
        closedir(d);
    }
}

/* Removes one entry of the directory fd and everything below it. Runs as the command's uid with
 * nothing else of that uid alive, so the tree holds still; never leaves the file system it is on. */
static int wipe_entry(int dirfd, const char *name, dev_t dev, int depth) {
    struct stat st;
    if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
        return errno == ENOENT;
    }
    if (st.st_uid != uid || st.st_dev != dev) {
        return 0; /* not the command's, or a mount: nothing a command can make, so the sandbox is spoiled */
    }
    if (!S_ISDIR(st.st_mode)) {
        return unlinkat(dirfd, name, 0) == 0;
    }
    if (depth >= 256) {
        return 0;
    }
    fchmodat(dirfd, name, 0700, 0);
    int sub = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (sub < 0) {
        return 0;
    }
    DIR *d = fdopendir(sub);
    if (d == NULL) {
        close(sub);
        return 0;
    }
    int ok = 1;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0 && !wipe_entry(sub, e->d_name, dev, depth + 1)) {
            ok = 0;
        }
    }
    closedir(d);
    return ok && unlinkat(dirfd, name, AT_REMOVEDIR) == 0;
}

static int wipe_dir(int index) {
    int fd = open(wipe_dirs[index], O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        return errno == ENOENT;
    }
    struct stat st;
    DIR *d = fstat(fd, &st) == 0 ? fdopendir(fd) : NULL;
    if (d == NULL) {
        close(fd);
        return 0;
    }
    int ok = 1;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0 && !in_baseline(index, e->d_name)
                && !wipe_entry(fd, e->d_name, st.st_dev, 0)) {
            ok = 0;
        }
    }
    closedir(d);
    return ok;
}

/* Every System V IPC object of the sandbox's uid, removed: the IPC namespace outlives commands. */
static int remove_ipc(void) {
    static const char *tables[] = {"/proc/sysvipc/shm", "/proc/sysvipc/sem", "/proc/sysvipc/msg"};
    int ok = 1;
    for (int t = 0; t < 3; t++) {
        FILE *f = fopen(tables[t], "re");
        if (f == NULL) {
            continue;
        }
        char line[512];
        if (fgets(line, sizeof line, f) == NULL) { /* the header */
            fclose(f);
            continue;
        }
        while (fgets(line, sizeof line, f) != NULL) {
            long key, id;
            if (sscanf(line, "%ld %ld", &key, &id) != 2) {
                ok = 0;
                continue;
            }
            int r = t == 0 ? shmctl((int) id, IPC_RMID, NULL)
                    : t == 1 ? semctl((int) id, 0, IPC_RMID)
                    : msgctl((int) id, IPC_RMID, NULL);
            if (r != 0) {
                ok = 0;
            }
        }
        fclose(f);
    }
    return ok;
}

static int ipc_present(void) {
    static const char *tables[] = {"/proc/sysvipc/shm", "/proc/sysvipc/sem", "/proc/sysvipc/msg"};
    for (int t = 0; t < 3; t++) {
        FILE *f = fopen(tables[t], "re");
        if (f == NULL) {
            continue;
        }
        char line[512];
        int lines = 0;
        while (fgets(line, sizeof line, f) != NULL && lines < 2) {
            lines++;
        }
        fclose(f);
        if (lines > 1) {
            return 1;
        }
    }
    return 0;
}

static int dir_has_entries(int index) {
    DIR *d = opendir(wipe_dirs[index]);
    if (d == NULL) {
        return errno != ENOENT; /* unreadable counts as not known to be empty */
    }
    struct dirent *e;
    int any = 0;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0 && !in_baseline(index, e->d_name)) {
            any = 1;
            break;
        }
    }
    closedir(d);
    return any;
}

static int leftovers_present(void) {
    for (int i = 0; i < wipe_count; i++) {
        if (dir_has_entries(i)) {
            return 1;
        }
    }
    return ipc_present();
}

/* The number of processes in the namespace other than this one. */
static int other_processes(void) {
    DIR *d = opendir("/proc");
    if (d == NULL) {
        die("reading /proc");
    }
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] >= '1' && e->d_name[0] <= '9' && strcmp(e->d_name, "1") != 0) {
            n++;
        }
    }
    closedir(d);
    return n;
}

static void drain_signal_pipe(void) {
    char buf[64];
    while (read(sig_r, buf, sizeof buf) > 0) {
    }
}

/* Kills and reaps every other process of the namespace, waiting on the signal pipe. */
static void kill_and_reap_all(long long deadline) {
    kill(-1, SIGKILL);
    for (;;) {
        int status;
        pid_t p = waitpid(-1, &status, WNOHANG);
        if (p > 0) {
            continue;
        }
        if (p < 0 && errno == ECHILD) {
            return;
        }
        if (p < 0 && errno != EINTR) {
            die("waitpid");
        }
        long long left = deadline - now_millis();
        if (left <= 0) {
            errno = 0;
            die("processes were still alive after being killed");
        }
        kill(-1, SIGKILL);
        struct pollfd pf = {sig_r, POLLIN, 0};
        poll(&pf, 1, (int) (left < 50 ? left : 50));
        drain_signal_pipe();
    }
}

static int encode_status(int status) {
    if (WIFEXITED(status)) {
        return WEXITSTATUS(status);
    }
    if (WIFSIGNALED(status)) {
        return 128 + WTERMSIG(status);
    }
    return 128 + SIGKILL;
}

/* Runs the wipe child, as the command's uid; returns the flags of the exit frame. */
static uint32_t wipe(long long deadline) {
    if (!leftovers_present()) {
        return 0;
    }
    pid_t p = fork();
    if (p < 0) {
        die("fork");
    }
    if (p == 0) {
        reset_signals();
        close_from(3);
        int null = open("/dev/null", O_RDWR | O_CLOEXEC);
        if (null >= 0) {
            dup2(null, 0);
            dup2(null, 1);
        }
        drop_to_sandbox_ids();
        int ok = remove_ipc();
        for (int i = 0; i < wipe_count; i++) {
            if (!wipe_dir(i)) {
                ok = 0;
            }
        }
        _exit(ok ? 0 : 1);
    }
    int status = 0;
    for (;;) {
        pid_t r = waitpid(p, &status, WNOHANG);
        if (r == p) {
            break;
        }
        if (r < 0 && errno != EINTR) {
            die("waitpid");
        }
        long long left = deadline - now_millis();
        if (left <= 0) {
            kill(p, SIGKILL);
            errno = 0;
            die("the wipe did not end in time");
        }
        struct pollfd pf = {sig_r, POLLIN, 0};
        poll(&pf, 1, (int) (left < 50 ? left : 50));
        drain_signal_pipe();
    }
    uint32_t flags = TY_FLAG_WIPED;
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || leftovers_present()) {
        flags |= TY_FLAG_WIPE_INCOMPLETE;
    }
    return flags;
}


/* Makes each wiped directory root's and the sandbox gid's, mode 1770: the command writes in it through
 * its gid and cannot change its mode (it is not the owner), and no other uid can create, open or list
 * anything in it, even through a descriptor of it passed from the sandbox. Root without CAP_CHOWN may
 * give its own file to a group it is in: the effective gid (so the fsgid) counts. */
static void own_wipe_dirs(void) {
    for (int i = 0; i < wipe_count; i++) {
        struct stat st;
        if (lstat(wipe_dirs[i], &st) != 0) {
            if (errno == ENOENT) {
                continue;
            }
            die(wipe_dirs[i]);
        }
        if (!S_ISDIR(st.st_mode) || st.st_uid != 0) {
            errno = 0;
            die("a wiped directory that is not root's directory");
        }
        /* The effective gid, not the fsgid: setfsgid is not implemented by gVisor's kernel (ENOSYS), while
         * setresgid is everywhere, and the fsgid follows the effective gid. Only the effective gid moves (the
         * real and saved stay 0, so it comes back); nothing else runs in this process meanwhile. */
        if (setresgid((gid_t) -1, gid, (gid_t) -1) != 0) {
            die("taking the sandbox gid to give it the wiped directories");
        }
        int r = lchown(wipe_dirs[i], (uid_t) -1, gid);
        int e = errno;
        if (setresgid((gid_t) -1, 0, (gid_t) -1) != 0 || getegid() != 0) {
            die("giving the sandbox gid back");
        }
        errno = e;
        if (r != 0 || chmod(wipe_dirs[i], TY_WIPE_DIR_MODE) != 0) {
            die(wipe_dirs[i]);
        }
    }
}

/* Whether each wiped directory is still root's and the gid's, mode 1770 (or still absent). */
static int wipe_dirs_intact(void) {
    for (int i = 0; i < wipe_count; i++) {
        struct stat st;
        if (lstat(wipe_dirs[i], &st) != 0) {
            continue; /* absent from the start: record_baseline found nothing, own_wipe_dirs skipped it */
        }
        if (!S_ISDIR(st.st_mode) || st.st_uid != 0 || st.st_gid != gid || (st.st_mode & 07777) != TY_WIPE_DIR_MODE) {
            return 0;
        }
    }
    return 1;
}

static int same_root(const struct stat *before) {
    struct stat now;
    return stat(write_root, &now) == 0 && now.st_dev == before->st_dev && now.st_ino == before->st_ino
            && now.st_uid == before->st_uid && now.st_gid == before->st_gid && now.st_mode == before->st_mode;
}

/* Whether any socket exists in the network namespace: a command's socket (a listener, a bound port, a
 * connection in TIME_WAIT) outlives it only if it left one, or passed one out of the sandbox. */
/* The value after " name " on the line of sockstat text starting with label ("TCP:"), or -1 when there is none. */
static long sockstat_value(const char *text, const char *label, const char *name) {
    size_t label_len = strlen(label), name_len = strlen(name);
    for (const char *line = text; *line != '\0';) {
        const char *end = strchr(line, '\n');
        size_t len = end == NULL ? strlen(line) : (size_t) (end - line);
        if (len > label_len && strncmp(line, label, label_len) == 0) {
            for (const char *at = line + label_len; at + name_len + 2 <= line + len; at++) {
                if (at[0] == ' ' && strncmp(at + 1, name, name_len) == 0 && at[1 + name_len] == ' ') {
                    char *after;
                    long v = strtol(at + 2 + name_len, &after, 10);
                    return after == at + 2 + name_len || v < 0 ? -1 : v;
                }
            }
            return -1;
        }
        line = end == NULL ? line + len : end + 1;
    }
    return -1;
}

/* Reads a whole small file into buf as text: 1, or 0 when it cannot be read whole. */
static int read_small(const char *path, char *buf, size_t size) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        return 0;
    }
    size_t at = 0;
    ssize_t n = -1;
    while (at + 1 < size && (n = read(fd, buf + at, size - 1 - at)) > 0) {
        at += (size_t) n;
    }
    close(fd);
    buf[at] = '\0';
    return n == 0 && at + 1 < size;
}

/* Which socket tables this /proc has, read at start: the mount does not change while the supervisor lives,
 * and under gVisor, where half of them are missing, each failed open is a system call of about 100 us. */
static const char *socket_tables[] = {"/proc/net/tcp", "/proc/net/tcp6", "/proc/net/udp", "/proc/net/udp6",
        "/proc/net/udplite", "/proc/net/udplite6", "/proc/net/raw", "/proc/net/raw6", "/proc/net/unix",
        "/proc/net/packet", "/proc/net/icmp", "/proc/net/icmp6"};
#define SOCKET_TABLES (sizeof socket_tables / sizeof socket_tables[0])
static int socket_table_present[SOCKET_TABLES];
static int sockstat_present;

static void find_socket_tables(void) {
    for (size_t t = 0; t < SOCKET_TABLES; t++) {
        socket_table_present[t] = access(socket_tables[t], F_OK) == 0 || errno != ENOENT;
    }
    sockstat_present = access("/proc/net/sockstat", F_OK) == 0;
}

/* Whether Linux's per-namespace socket counts say that the namespace holds no TCP socket of any state:
 * TCP "inuse" counts every hashed TCP socket (listening, connected, closing, orphaned), "tw" those in
 * TIME_WAIT (IPv4 and IPv6 together), TCP6 "inuse" the IPv6 ones. /proc/net/tcp and tcp6 walk the host's
 * whole established hash table on each read, whatever the namespace holds (262,144 buckets on a 24 GiB
 * machine: 13 ms a command for the two files, the most of a warm command's cost there), so they are read
 * only when a count is not 0 or cannot be read. gVisor has no sockstat: there both are always read. */
static int no_tcp_socket_counted(void) {
    if (!sockstat_present) {
        return 0;
    }
    char text[2048];
    if (!read_small("/proc/net/sockstat", text, sizeof text) || sockstat_value(text, "TCP:", "inuse") != 0
            || sockstat_value(text, "TCP:", "tw") != 0) {
        return 0;
    }
    if (!socket_table_present[1]) {
        return 1; /* no IPv6 here: no tcp6 table to read */
    }
    return read_small("/proc/net/sockstat6", text, sizeof text) && sockstat_value(text, "TCP6:", "inuse") == 0;
}

static int sockets_present(void) {
    char buf[512];
    int skip_tcp = no_tcp_socket_counted();
    for (size_t t = 0; t < SOCKET_TABLES; t++) {
        if (!socket_table_present[t] || (skip_tcp && t < 2)) {
            continue;
        }
        int fd = open(socket_tables[t], O_RDONLY | O_CLOEXEC);
        if (fd < 0) {
            if (errno == ENOENT) {
                continue;
            }
            return 1;
        }
        int lines = 0;
        ssize_t n;
        while (lines < 2 && (n = read(fd, buf, sizeof buf)) > 0) {
            for (ssize_t i = 0; i < n; i++) {
                if (buf[i] == '\n') {
                    lines++;
                }
            }
        }
        close(fd);
        if (lines > 1) {
            return 1;
        }
    }
    return 0;
}

/* The network namespace's packet counters, all of them as text: a command that sent or received any
 * packet (loopback included) moved one. gVisor's /proc/net lists no connection in TIME_WAIT, so a port a
 * command used is unseen by sockets_present there; its /proc/net/snmp and /proc/net/dev do move. */
#define COUNTERS_BYTES 65536
static char counters_before[COUNTERS_BYTES], counters_after[COUNTERS_BYTES];

/* Reads every counter file there is into buf; returns the length, or -1 when one cannot be read whole. */
static ssize_t read_counters(char *buf) {
    static const char *files[] = {"/proc/net/snmp", "/proc/net/snmp6", "/proc/net/dev"};
    size_t at = 0;
    int found = 0;
    for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
        int fd = open(files[f], O_RDONLY | O_CLOEXEC);
        if (fd < 0) {
            if (errno == ENOENT) {
                continue;
            }
            return -1;
        }
        found++;
        ssize_t n;
        while ((n = read(fd, buf + at, COUNTERS_BYTES - at)) > 0) {
            at += (size_t) n;
        }
        close(fd);
        if (n < 0 || at == COUNTERS_BYTES) {
            return -1;
        }
    }
    return found > 0 ? (ssize_t) at : -1;
}

/* Whether the counters read now differ from those read into counters_before, of length before. */
static int packets_moved(ssize_t before) {
    ssize_t after = read_counters(counters_after);
    return before < 0 || after != before || memcmp(counters_before, counters_after, (size_t) after) != 0;
}

/* The mount table, read once at start. */
#define MAX_MOUNTS 512
static char *mount_points[MAX_MOUNTS];
static int mount_writable[MAX_MOUNTS];
static int mount_is_proc[MAX_MOUNTS];
static int mount_count;
static long walked;

/* Decodes mountinfo's octal escapes (\040 for a space) in place. */
static void unescape(char *s) {
    char *out = s;
    for (char *in = s; *in; in++) {
        if (in[0] == '\\' && in[1] >= '0' && in[1] <= '3' && in[2] >= '0' && in[2] <= '7' && in[3] >= '0' && in[3] <= '7') {
            *out++ = (char) (((in[1] - '0') << 6) | ((in[2] - '0') << 3) | (in[3] - '0'));
            in += 3;
        } else {
            *out++ = *in;
        }
    }
    *out = '\0';
}

static int has_option(const char *list, const char *opt) {
    size_t n = strlen(opt);
    for (const char *p = list; p && *p;) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t) (comma - p) : strlen(p);
        if (len == n && strncmp(p, opt, n) == 0) {
            return 1;
        }
        p = comma ? comma + 1 : NULL;
    }
    return 0;
}

static void read_mounts(void) {
    FILE *f = fopen("/proc/self/mountinfo", "re");
    if (f == NULL) {
        die("reading /proc/self/mountinfo");
    }
    char line[8192];
    while (fgets(line, sizeof line, f) != NULL) {
        char *field[64];
        int n = 0;
        for (char *tok = strtok(line, " \n"); tok && n < 64; tok = strtok(NULL, " \n")) {
            field[n++] = tok;
        }
        int sep = -1;
        for (int i = 6; i < n; i++) {
            if (strcmp(field[i], "-") == 0) {
                sep = i;
                break;
            }
        }
        if (n < 6 || sep < 0 || sep + 3 > n || mount_count == MAX_MOUNTS) {
            errno = 0;
            die("an unreadable mount table");
        }
        unescape(field[4]);
        mount_points[mount_count] = strdup(field[4]);
        if (mount_points[mount_count] == NULL) {
            die("strdup");
        }
        mount_writable[mount_count] = !has_option(field[5], "ro") && !has_option(field[sep + 3], "ro");
        mount_is_proc[mount_count] = strcmp(field[sep + 1], "proc") == 0;
        mount_count++;
    }
    fclose(f);
}

static int is_mount_point(const char *path) {
    for (int i = 0; i < mount_count; i++) {
        if (strcmp(mount_points[i], path) == 0) {
            return 1;
        }
    }
    return 0;
}

static int at_or_under(const char *path, const char *dir) {
    size_t n = strlen(dir);
    if (n == 1 && dir[0] == '/') {
        return 1;
    }
    return strncmp(path, dir, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

static int in_wipe_dir(const char *path) {
    for (int i = 0; i < wipe_count; i++) {
        if (at_or_under(path, wipe_dirs[i])) {
            return 1;
        }
    }
    return 0;
}

/* Whether the command (uid, gid, no other group) could change what is at st: create in a directory, write a file. */
static int writable_by_command(const struct stat *st) {
    mode_t m = st->st_mode;
    mode_t bits = st->st_uid == uid ? (m >> 6) & 7 : st->st_gid == gid ? (m >> 3) & 7 : m & 7;
    if (S_ISDIR(m)) {
        return (bits & 3) == 3;
    }
    return S_ISREG(m) && (bits & 2) != 0;
}

static int traversable_by_command(const struct stat *st) {
    mode_t m = st->st_mode;
    mode_t bits = st->st_uid == uid ? (m >> 6) & 7 : st->st_gid == gid ? (m >> 3) & 7 : m & 7;
    return (bits & 1) != 0;
}

static void walk_writable(const char *path, dev_t dev, int proc, int depth) {
    struct stat st;
    if (lstat(path, &st) != 0 || st.st_dev != dev) {
        return;
    }
    if (++walked > MAX_WALK_ENTRIES) {
        errno = 0;
        die("too many entries on the writable mounts to prove the wipe covers them");
    }
    if (in_wipe_dir(path)) {
        return;
    }
    /* A file of proc is a kernel interface, not storage: what a write to one does ends with the process or
     * the descriptor (a pressure trigger), or needs root. Its directories are what could hold something. */
    if (writable_by_command(&st) && (!proc || S_ISDIR(st.st_mode))) {
        dprintf(2, "toolyard-warm: %s is writable by the command but neither wiped nor masked\n", path);
        errno = 0;
        die("a writable place outside the write root is not wiped");
    }
    if (!S_ISDIR(st.st_mode) || !traversable_by_command(&st) || depth >= MAX_WALK_DEPTH) {
        return;
    }
    DIR *d = opendir(path);
    if (d == NULL) {
        dprintf(2, "toolyard-warm: cannot read %s, which the command can enter\n", path);
        die("a directory on a writable mount cannot be checked");
    }
    struct dirent *e;
    char child[4096];
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) {
            continue;
        }
        if (proc && depth == 0 && ((e->d_name[0] >= '0' && e->d_name[0] <= '9') || strcmp(e->d_name, "self") == 0
                || strcmp(e->d_name, "thread-self") == 0)) {
            continue; /* processes: each entry dies with its process */
        }
        int n = snprintf(child, sizeof child, "%s%s%s", path, strcmp(path, "/") == 0 ? "" : "/", e->d_name);
        if (n < 0 || (size_t) n >= sizeof child) {
            errno = 0;
            die("a path too long on a writable mount");
        }
        if (is_mount_point(child) || at_or_under(child, write_root)) {
            continue; /* walked as a mount of its own, or the workspace */
        }
        walk_writable(child, dev, proc, depth + 1);
    }
    closedir(d);
}

/* Every writable mount but the write root and what lies under it, walked: see the comment at the top. */
static void check_writable_places(void) {
    read_mounts();
    for (int i = 0; i < mount_count; i++) {
        const char *p = mount_points[i];
        if (!mount_writable[i] || at_or_under(p, write_root)) {
            continue;
        }
        struct stat st;
        if (lstat(p, &st) != 0) {
            continue; /* hidden by a later mount over a parent */
        }
        walk_writable(p, st.st_dev, mount_is_proc[i], 0);
    }
}

/* Drops group and other write from a root-owned kept entry and everything kept below it, then ends the
 * supervisor if the command could still write any of it: a kept directory is never wiped (runsc makes
 * those above the roots' mount points in its /tmp 0777, where a command's file reached the next one). */
static void seal_entry(const char *path, dev_t dev, int depth) {
    struct stat st;
    if (lstat(path, &st) != 0) {
        die(path);
    }
    if (st.st_dev != dev || is_mount_point(path) || at_or_under(path, write_root) || S_ISLNK(st.st_mode)) {
        return; /* a mount of its own (walked as one, or a root the JVM bound), the workspace, or a link */
    }
    if (st.st_uid == 0 && (st.st_mode & 022) != 0 && (S_ISDIR(st.st_mode) || S_ISREG(st.st_mode))) {
        if (chmod(path, st.st_mode & 07755) != 0 || lstat(path, &st) != 0) {
            die(path);
        }
    }
    if (writable_by_command(&st)) {
        dprintf(2, "toolyard-warm: %s is kept in a wiped directory and stays writable by the command\n", path);
        errno = 0;
        die("a kept place in a wiped directory is writable by the command");
    }
    if (!S_ISDIR(st.st_mode) || depth >= MAX_WALK_DEPTH) {
        return;
    }
    DIR *d = opendir(path);
    if (d == NULL) {
        die(path);
    }
    struct dirent *e;
    char child[4096];
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) {
            continue;
        }
        int n = snprintf(child, sizeof child, "%s/%s", path, e->d_name);
        if (n < 0 || (size_t) n >= sizeof child) {
            errno = 0;
            die("a path too long in a wiped directory");
        }
        if (++walked > MAX_WALK_ENTRIES) {
            errno = 0;
            die("too many entries kept in the wiped directories");
        }
        seal_entry(child, dev, depth + 1);
    }
    closedir(d);
}

/* Seals what each wiped directory held at start (its baseline): see seal_entry. */
static void seal_kept(void) {
    for (int i = 0; i < baseline_count; i++) {
        const char *dir = wipe_dirs[baseline_dir[i]];
        struct stat st;
        if (lstat(dir, &st) != 0) {
            die(dir);
        }
        char path[4096];
        int n = snprintf(path, sizeof path, "%s%s%s", dir, strcmp(dir, "/") == 0 ? "" : "/", baseline[i]);
        if (n < 0 || (size_t) n >= sizeof path) {
            errno = 0;
            die("a path too long in a wiped directory");
        }
        seal_entry(path, st.st_dev, 0);
    }
}

/* Parses one request; returns 0 at a clean end of the JVM's stream. */
static int read_request(unsigned char **buf, char **strings_out, char ***lists_out, char ***argv, char ***envp) {
    unsigned char head[4];
    int r = read_full(0, head, 4);
    if (r == 0) {
        return 0;
    }
    if (r < 0) {
        die("reading a request");
    }
    uint32_t len = get32(head);
    if (len < 8 || len > TY_MAX_REQUEST) {
        errno = 0;
        die("a request of a bad length");
    }
    *buf = malloc(len + 1);
    if (*buf == NULL) {
        die("malloc");
    }
    if (read_full(0, *buf, len) != 1) {
        die("reading a request");
    }
    /* Strings are copied out with a NUL each: at most len strings of at most len bytes in all. */
    char *strings = malloc((size_t) len * 2 + 2);
    char **lists = calloc((size_t) len + 4, sizeof(char *));
    if (strings == NULL || lists == NULL) {
        die("malloc");
    }
    *strings_out = strings;
    *lists_out = lists;
    uint32_t at = 0;
    char *s = strings;
    size_t slot = 0;
    for (int list = 0; list < 2; list++) {
        if (len - at < 4) {
            errno = 0;
            die("a truncated request");
        }
        uint32_t count = get32(*buf + at);
        at += 4;
        if (count > len || (list == 0 && count == 0)) {
            errno = 0;
            die("a request with a bad count");
        }
        if (list == 0) {
            *argv = lists + slot;
        } else {
            *envp = lists + slot;
        }
        for (uint32_t i = 0; i < count; i++) {
            if (len - at < 4) {
                errno = 0;
                die("a truncated request");
            }
            uint32_t n = get32(*buf + at);
            at += 4;
            if (n > len - at || memchr(*buf + at, 0, n) != NULL) {
                errno = 0;
                die("a request with a bad string");
            }
            memcpy(s, *buf + at, n);
            s[n] = '\0';
            lists[slot++] = s;
            s += n + 1;
            at += n;
        }
        lists[slot++] = NULL;
    }
    if (at != len) {
        errno = 0;
        die("a request with trailing bytes");
    }
    return 1;
}

static void run_one(char **argv, char **envp) {
    int out[2], err[2];
    struct stat root_before;
    if (stat(write_root, &root_before) != 0) {
        die("the write root");
    }
    ssize_t counters = read_counters(counters_before);
    /* Before anything of the command exists: a supervisor that ends before this frame never started it. */
    frame(TY_TAG_STARTED, NULL, 0);
    if (pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0) {
        die("pipe2");
    }
    /* clone, as posix_spawn does, not fork: the child borrows this address space until its exec instead of
     * copying it, which under gVisor is a new address space and every page table entry of this one. The
     * supervisor is suspended until the exec (CLONE_VFORK), with every signal blocked around the clone so that
     * no handler of its runs in the child. */
    struct child_start start = {argv, envp, out[0], err[0], out[1], err[1]};
    sigset_t all, before;
    sigfillset(&all);
    sigprocmask(SIG_SETMASK, &all, &before);
    char **supervisor_environ = environ;
    pid_t child = clone(child_main, child_stack + sizeof child_stack, CLONE_VM | CLONE_VFORK | SIGCHLD, &start);
    int clone_errno = errno;
    environ = supervisor_environ;
    sigprocmask(SIG_SETMASK, &before, NULL);
    if (child < 0) {
        errno = clone_errno;
        die("clone");
    }
    close(out[1]);
    close(err[1]);
    int open_streams = 2;
    int fds[2] = {out[0], err[0]};
    char tags[2] = {TY_TAG_STDOUT, TY_TAG_STDERR};
    int exited = 0, status = 0, left = 0;
    long long drain_deadline = 0;
    static unsigned char chunk[CHUNK];
    while (open_streams > 0 || !exited) {
        struct pollfd pf[4];
        int n = 0;
        int slot[2] = {-1, -1};
        for (int i = 0; i < 2; i++) {
            if (fds[i] >= 0) {
                slot[i] = n;
                pf[n].fd = fds[i];
                pf[n].events = POLLIN;
                pf[n].revents = 0;
                n++;
            }
        }
        int sig_slot = n;
        pf[n].fd = sig_r;
        pf[n].events = POLLIN;
        pf[n].revents = 0;
        n++;
        int in_slot = n;
        pf[n].fd = 0;
        pf[n].events = POLLIN;
        pf[n].revents = 0;
        n++;
        int wait_millis = -1;
        if (exited) {
            long long remaining = drain_deadline - now_millis();
            if (remaining <= 0) {
                errno = 0;
                die("the command's output stayed open after everything was killed");
            }
            wait_millis = (int) (remaining < 50 ? remaining : 50);
            kill(-1, SIGKILL);
        }
        if (poll(pf, (nfds_t) n, wait_millis) < 0) {
            if (errno == EINTR) {
                continue;
            }
            die("poll");
        }
        for (int i = 0; i < 2; i++) {
            if (slot[i] >= 0 && (pf[slot[i]].revents & (POLLIN | POLLHUP | POLLERR))) {
                ssize_t r = read(fds[i], chunk, CHUNK);
                if (r > 0) {
                    frame(tags[i], chunk, (uint32_t) r);
                } else if (r == 0 || (errno != EINTR && errno != EAGAIN)) {
                    close(fds[i]);
                    fds[i] = -1;
                    open_streams--;
                }
            }
        }
        if (pf[in_slot].revents & (POLLIN | POLLHUP | POLLERR)) {
            /* The JVM writes nothing while a command runs: this is its end, or a broken peer. */
            errno = 0;
            die("the JVM's stream ended while a command ran");
        }
        if (pf[sig_slot].revents & POLLIN) {
            drain_signal_pipe();
        }
        if (!exited) {
            int st;
            pid_t p;
            while ((p = waitpid(-1, &st, WNOHANG)) > 0) {
                if (p == child) {
                    exited = 1;
                    status = st;
                }
            }
            if (exited) {
                /* A cold run's namespace dies with its init: so does everything this command left. */
                left = other_processes();
                kill(-1, SIGKILL);
                drain_deadline = now_millis() + CLEANUP_MILLIS;
            }
        }
    }
    long long deadline = now_millis() + CLEANUP_MILLIS;
    kill_and_reap_all(deadline);
    uint32_t flags = wipe(deadline);
    if (sockets_present()) {
        flags |= TY_FLAG_SOCKETS_LEFT;
    }
    if (packets_moved(counters)) {
        flags |= TY_FLAG_PACKETS_MOVED;
    }
    if (!same_root(&root_before) || !wipe_dirs_intact()) {
        flags |= TY_FLAG_CHANGED;
    }
    unsigned char x[TY_EXIT_BYTES];
    put32(x, (uint32_t) encode_status(status));
    put32(x + 4, (uint32_t) left);
    put32(x + 8, flags);
    frame(TY_TAG_EXIT, x, TY_EXIT_BYTES);
}

/* UID GID CPU_SECONDS AS_BYTES FSIZE_BYTES NOFILE NPROC, in a[0..6]: the same in both modes. */
static void parse_ids_and_limits(char **a) {
    uid = (uid_t) parse_limit(a[0], "uid");
    gid = (gid_t) parse_limit(a[1], "gid");
    cpu_seconds = parse_limit(a[2], "cpu seconds");
    as_bytes = parse_limit(a[3], "address space");
    fsize_bytes = parse_limit(a[4], "file size");
    nofile = parse_limit(a[5], "open files");
    nproc = parse_limit(a[6], "process count");
}

/* Whether uid, gid and write_root may be used: 1, or a message and 0. */
static int ids_and_write_root_allowed(void) {
    if (uid == 0 || gid == 0 || write_root[0] != '/') {
        dprintf(2, "toolyard-warm: the command must not run as root, and the write root must be absolute\n");
        return 0;
    }
    return 1;
}

/* A hex digit's value, or -1. */
static int hex_value(char c) {
    if (c >= '0' && c <= '9') {
        return c - '0';
    }
    if (c >= 'a' && c <= 'f') {
        return c - 'a' + 10;
    }
    return -1;
}

/*
 * FILTER of --exec-once: "-" for none, else the classic BPF program (struct sock_filter[], as the JVM's
 * file of it holds it) in lower-case hex, a whole number of instructions. Decoded into extra_filter;
 * 0 on success.
 */
static int parse_filter(const char *hex) {
    if (strcmp(hex, "-") == 0) {
        return 0;
    }
    size_t n = strlen(hex);
    if (n == 0 || n % 16 != 0 || n / 2 > TY_MAX_FILTER) {
        return -1;
    }
    unsigned char *prog = malloc(n / 2);
    if (prog == NULL) {
        return -1;
    }
    for (size_t i = 0; i < n / 2; i++) {
        int hi = hex_value(hex[2 * i]), lo = hex_value(hex[2 * i + 1]);
        if (hi < 0 || lo < 0) {
            free(prog);
            return -1;
        }
        prog[i] = (unsigned char) (hi << 4 | lo);
    }
    extra_filter.len = (unsigned short) (n / 16);
    extra_filter.filter = (struct sock_filter *) prog;
    return 0;
}

/*
 * Cold mode, toolyard-warm --exec-once UID GID CPU_SECONDS AS_BYTES FSIZE_BYTES NOFILE NPROC FILTER
 * WRITE_ROOT [NAME=VALUE...] -- COMMAND [ARG...]: the first program inside a cold bubblewrap run when the
 * JVM is root, and the only one between the JVM's bubblewrap and the command. It does what three did
 * before: the launcher's limits and seccomp descriptor (dash), "setpriv --reuid=UID --regid=GID
 * --clear-groups --bounding-set=-all --inh-caps=-all --pdeathsig=KILL --" and "env -i -C WRITE_ROOT --
 * NAME=VALUE... COMMAND". It sets the limits as each warm command gets them (RLIMIT_CORE 0 and the five
 * given, soft and hard, while still root), becomes UID and GID as each warm command does
 * (drop_to_sandbox_ids: no group, no capability in any set, an empty bounding set, no_new_privs), sets
 * the parent-death signal KILL again after the uid change cleared it, enters WRITE_ROOT as that uid, and
 * loads FILTER (decoded before anything else) last before it replaces itself with COMMAND with exactly the
 * NAME=VALUE environment (PATH from it, as env's execvp). Before the command: a message and status 125,
 * as the launcher's and env's; a command that cannot be run: 127 when it is missing, 126 otherwise, as
 * env's. Not the warm command loop: no frame, no fork, nothing of the supervisor's state but the ids,
 * limits and filter.
 */
static int exec_once(int argc, char **argv) {
    int sep = -1;
    for (int i = 9; i < argc; i++) {
        if (strcmp(argv[i], "--") == 0) {
            sep = i;
            break;
        }
    }
    if (argc < 11 || sep < 0 || sep + 1 >= argc) {
        dprintf(2, "usage: toolyard-warm --exec-once UID GID CPU_SECONDS AS_BYTES FSIZE_BYTES NOFILE NPROC FILTER WRITE_ROOT "
                   "[NAME=VALUE...] -- COMMAND [ARG...]\n");
        return 2;
    }
    parse_ids_and_limits(argv);
    write_root = argv[8];
    if (!ids_and_write_root_allowed()) {
        return 2;
    }
    if (parse_filter(argv[7]) != 0) {
        dprintf(2, "toolyard-warm: not a seccomp program in hex, of whole instructions and at most %d bytes\n", TY_MAX_FILTER);
        return 2;
    }
    for (int i = 9; i < sep; i++) {
        if (argv[i][0] == '=' || strchr(argv[i], '=') == NULL) {
            dprintf(2, "toolyard-warm: not NAME=VALUE: %s\n", argv[i]);
            return 2;
        }
    }
    argv[sep] = NULL; /* ends the environment; argv's own NULL ends the command */
    char **envp = argv + 9;
    char **command = argv + sep + 1;
    set_command_limits();
    drop_to_sandbox_ids();
    if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) != 0) {
        child_fail("setting the parent-death signal");
    }
    if (chdir(write_root) != 0) {
        child_fail(write_root);
    }
    environ = envp;
    if (extra_filter.len > 0 && prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &extra_filter, 0, 0) != 0) {
        child_fail("loading the seccomp program");
    }
    execvp(command[0], command);
    int e = errno;
    dprintf(2, "toolyard-warm: %s: %s\n", command[0], strerror(e));
    return e == ENOENT ? 127 : 126;
}

int main(int argc, char **argv) {
    if (argc >= 2 && strcmp(argv[1], "--exec-once") == 0) {
        return exec_once(argc - 2, argv + 2);
    }
    if (argc < 9) {
        dprintf(2, "usage: toolyard-warm UID GID CPU_SECONDS AS_BYTES FSIZE_BYTES NOFILE NPROC WRITE_ROOT WIPE_DIR...\n");
        return 2;
    }
    parse_ids_and_limits(argv + 1);
    write_root = argv[8];
    wipe_dirs = argv + 9;
    wipe_count = argc - 9;
    if (!ids_and_write_root_allowed()) {
        return 2;
    }
    if (getpid() != 1 || geteuid() != 0) {
        dprintf(2, "toolyard-warm: must be the init of its pid namespace, as root (pid %d, euid %d)\n",
                (int) getpid(), (int) geteuid());
        return 2;
    }
    /* Nothing it inherited from 3 up is the supervisor's, and what it opens is close-on-exec: so every
     * descriptor of it from 3 up is, as run_child relies on. */
    close_from(3);
    /* Its children inherit an empty bounding set; it never executes anything itself. */
    if (drop_bounding_set() != 0 || prctl(PR_CAPBSET_READ, CAP_SETUID, 0, 0, 0) != 0) {
        die("emptying the capability bounding set");
    }
    bounding_set_empty = 1;
    int p[2];
    if (pipe2(p, O_CLOEXEC | O_NONBLOCK) != 0) {
        die("pipe2");
    }
    sig_r = p[0];
    sig_w = p[1];
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_child;
    sa.sa_flags = SA_RESTART | SA_NOCLDSTOP;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGCHLD, &sa, NULL) != 0) {
        die("sigaction");
    }
    signal(SIGPIPE, SIG_IGN);

    unsigned char head[4];
    if (read_full(0, head, 4) != 1) {
        die("reading the seccomp program");
    }
    uint32_t flen = get32(head);
    if (flen % 8 != 0 || flen > TY_MAX_FILTER) {
        errno = 0;
        die("a seccomp program of a bad length");
    }
    if (flen > 0) {
        struct sock_filter *prog = malloc(flen);
        if (prog == NULL || read_full(0, prog, flen) != 1) {
            die("reading the seccomp program");
        }
        extra_filter.len = (unsigned short) (flen / 8);
        extra_filter.filter = prog;
    }
    find_socket_tables();
    record_baseline();
    own_wipe_dirs();
    check_writable_places();
    seal_kept();
    if (read_counters(counters_before) < 0) {
        errno = 0;
        die("the network namespace's packet counters cannot be read");
    }
    if (sockets_present()) {
        errno = 0;
        die("a socket exists in the network namespace before the first command");
    }
    if (ipc_present()) {
        errno = 0;
        die("System V IPC objects exist before the first command");
    }
    unsigned char ready[TY_READY_BYTES];
    struct stat wr;
    if (stat(write_root, &wr) != 0) {
        die("the write root");
    }
    put64(ready, (uint64_t) wr.st_dev);
    put64(ready + 8, (uint64_t) wr.st_ino);
    frame(TY_TAG_READY, ready, TY_READY_BYTES);
    for (;;) {
        unsigned char *buf = NULL;
        char *strings = NULL;
        char **lists = NULL, **cargv = NULL, **cenvp = NULL;
        if (!read_request(&buf, &strings, &lists, &cargv, &cenvp)) {
            kill_and_reap_all(now_millis() + CLEANUP_MILLIS);
            return 0;
        }
        run_one(cargv, cenvp);
        free(buf);
        free(strings);
        free(lists);
    }
}
