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
 *
 * Protocol, all integers unsigned 32-bit big-endian:
 *   JVM -> supervisor, once:  len, len bytes of classic BPF (struct sock_filter[], len % 8 == 0)
 *   supervisor -> JVM, once:  'R' 0
 *   JVM -> supervisor:        len, then in len bytes: argc, argc x (n, n bytes), envc, envc x (n, n bytes)
 *   supervisor -> JVM:        'S' 0, before the command is forked (without it, the command never started)
 *                             'O' n bytes | 'E' n bytes  (the command's stdout and stderr, in order)
 *                             'X' 12: status, processes left when the command ended, flags
 *                                  (status: the exit code, or 128 + the signal that killed it;
 *                                   flags: bit 0 something was wiped, bit 1 not everything could be)
 *   end of the JVM's stream:  every process is killed and the supervisor exits 0.
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

#define MAX_REQUEST (16u << 20)
#define MAX_FILTER (4096u * 8u)
#define CHUNK 65536
#define CLEANUP_MILLIS 10000
#define CHILD_FAILED 125

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
    _exit(CHILD_FAILED);
}

static void set_limit(int resource, rlim_t value, const char *name) {
    struct rlimit r = {value, value};
    if (setrlimit(resource, &r) != 0) {
        child_fail(name);
    }
}

/* Becomes the command's uid and gid with nothing of root left: the same end state as setpriv's
 * --reuid --regid --clear-groups --bounding-set=-all --inh-caps=-all in a cold run. */
static void drop_to_sandbox_ids(void) {
    for (int cap = 0; cap <= 63; cap++) {
        if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0 && errno != EINVAL) {
            child_fail("dropping the bounding set");
        }
    }
    if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) != 0 && errno != EINVAL) {
        child_fail("clearing the ambient capabilities");
    }
    if (setgroups(0, NULL) != 0) {
        child_fail("clearing the supplementary groups");
    }
    if (setresgid(gid, gid, gid) != 0) {
        child_fail("setting the gid");
    }
    if (setresuid(uid, uid, uid) != 0) {
        child_fail("setting the uid");
    }
    struct __user_cap_header_struct head = {_LINUX_CAPABILITY_VERSION_3, 0};
    struct __user_cap_data_struct data[2];
    memset(data, 0, sizeof data);
    if (syscall(SYS_capset, &head, data) != 0) {
        child_fail("clearing the capabilities");
    }
    if (setuid(0) == 0 || getuid() != uid || geteuid() != uid || getgid() != gid || getegid() != gid) {
        errno = EPERM;
        child_fail("the uid change did not hold");
    }
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
        child_fail("setting no_new_privs");
    }
}

static void reset_signals(void) {
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    signal(SIGPIPE, SIG_DFL);
    signal(SIGCHLD, SIG_DFL);
}

static void close_from(int first) {
    if (syscall(SYS_close_range, first, ~0u, 0) == 0) {
        return;
    }
    for (int fd = first; fd < 65536; fd++) {
        close(fd);
    }
}

static void run_child(char **argv, char **envp, int out_w, int err_w) {
    reset_signals();
    if (setsid() < 0) {
        child_fail("starting a session");
    }
    int null = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (null < 0 || dup2(null, 0) < 0 || dup2(out_w, 1) < 0 || dup2(err_w, 2) < 0) {
        child_fail("setting up the standard streams");
    }
    close_from(3);
    set_limit(RLIMIT_CORE, 0, "RLIMIT_CORE");
    set_limit(RLIMIT_CPU, cpu_seconds, "RLIMIT_CPU");
    set_limit(RLIMIT_AS, as_bytes, "RLIMIT_AS");
    set_limit(RLIMIT_FSIZE, fsize_bytes, "RLIMIT_FSIZE");
    set_limit(RLIMIT_NOFILE, nofile, "RLIMIT_NOFILE");
    set_limit(RLIMIT_NPROC, nproc, "RLIMIT_NPROC");
    drop_to_sandbox_ids();
    if (extra_filter.len > 0 && prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &extra_filter, 0, 0) != 0) {
        child_fail("loading the warm seccomp program");
    }
    if (chdir(write_root) != 0) {
        child_fail(write_root);
    }
    environ = envp;
    execvp(argv[0], argv);
    int e = errno;
    dprintf(2, "toolyard-warm: %s: %s\n", argv[0], strerror(e));
    _exit(e == ENOENT ? 127 : 126);
}

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
    uint32_t flags = 1;
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || leftovers_present()) {
        flags |= 2;
    }
    return flags;
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
    if (len < 8 || len > MAX_REQUEST) {
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
    /* Before anything of the command exists: a supervisor that ends before this frame never started it. */
    frame('S', NULL, 0);
    if (pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0) {
        die("pipe2");
    }
    pid_t child = fork();
    if (child < 0) {
        die("fork");
    }
    if (child == 0) {
        close(out[0]);
        close(err[0]);
        run_child(argv, envp, out[1], err[1]);
    }
    close(out[1]);
    close(err[1]);
    int open_streams = 2;
    int fds[2] = {out[0], err[0]};
    char tags[2] = {'O', 'E'};
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
    unsigned char x[12];
    put32(x, (uint32_t) encode_status(status));
    put32(x + 4, (uint32_t) left);
    put32(x + 8, flags);
    frame('X', x, 12);
}

int main(int argc, char **argv) {
    if (argc < 9) {
        dprintf(2, "usage: toolyard-warm UID GID CPU_SECONDS AS_BYTES FSIZE_BYTES NOFILE NPROC WRITE_ROOT WIPE_DIR...\n");
        return 2;
    }
    uid = (uid_t) parse_limit(argv[1], "uid");
    gid = (gid_t) parse_limit(argv[2], "gid");
    cpu_seconds = parse_limit(argv[3], "cpu seconds");
    as_bytes = parse_limit(argv[4], "address space");
    fsize_bytes = parse_limit(argv[5], "file size");
    nofile = parse_limit(argv[6], "open files");
    nproc = parse_limit(argv[7], "process count");
    write_root = argv[8];
    wipe_dirs = argv + 9;
    wipe_count = argc - 9;
    if (uid == 0 || gid == 0 || write_root[0] != '/') {
        dprintf(2, "toolyard-warm: the command must not run as root, and the write root must be absolute\n");
        return 2;
    }
    if (getpid() != 1 || geteuid() != 0) {
        dprintf(2, "toolyard-warm: must be the init of its pid namespace, as root (pid %d, euid %d)\n",
                (int) getpid(), (int) geteuid());
        return 2;
    }
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
    if (flen % 8 != 0 || flen > MAX_FILTER) {
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
    record_baseline();
    if (ipc_present()) {
        errno = 0;
        die("System V IPC objects exist before the first command");
    }
    frame('R', NULL, 0);
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
