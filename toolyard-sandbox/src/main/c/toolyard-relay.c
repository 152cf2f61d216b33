/*
 * toolyard-relay: the sandbox half of network for sandboxed commands (ToolYard's TieredSandbox,
 * runIsolated with a ProxyRoute).
 *
 * Usage: toolyard-relay PORT SOCKET -- COMMAND [ARG...]
 *
 * It listens on 127.0.0.1:PORT in the sandbox's own network namespace (which has loopback only), and
 * only then forks and execs COMMAND, so the command never finds the proxy's port closed: there is no
 * first-request race. Each connection accepted is forwarded, bytes untouched both ways, to the unix
 * socket SOCKET, where the host's proxy listens (bound in from a private host directory). It runs as
 * the command's uid, without privilege, as the command's parent: when the command exits the relay
 * exits with its status (the exit code, or 128 + the signal), and the sandbox's end kills whatever is
 * left. It writes nothing but its own errors, on standard error, prefixed "toolyard-relay:". Exit 125
 * means the relay itself could not start (the command did not run); 127 that COMMAND could not be
 * executed.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_PAIRS 256
#define BUF 65536

struct half {
    char buf[BUF];
    size_t len;   /* bytes waiting to be written */
    int eof;      /* the reading side ended */
    int shut;     /* the writing side was shut down after eof */
};

struct pair {
    int fd[2];        /* 0: the command's TCP connection, 1: the unix socket to the proxy */
    struct half h[2]; /* h[0]: read from fd[0], written to fd[1]; h[1] the other way */
};

static struct pair *pairs[MAX_PAIRS];

static void fail(const char *what) {
    dprintf(2, "toolyard-relay: %s: %s\n", what, strerror(errno));
    _exit(125);
}

static void close_pair(int i) {
    close(pairs[i]->fd[0]);
    close(pairs[i]->fd[1]);
    free(pairs[i]);
    pairs[i] = NULL;
}

static void accept_one(int listener, const struct sockaddr_un *proxy) {
    int c = accept4(listener, NULL, NULL, SOCK_CLOEXEC);
    if (c < 0) {
        return;
    }
    int slot = -1;
    for (int i = 0; i < MAX_PAIRS; i++) {
        if (pairs[i] == NULL) {
            slot = i;
            break;
        }
    }
    int u = slot < 0 ? -1 : socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (u < 0 || connect(u, (const struct sockaddr *) proxy, sizeof(*proxy)) != 0) {
        if (u >= 0) {
            close(u);
        }
        close(c);
        return;
    }
    int one = 1;
    setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    fcntl(c, F_SETFL, O_NONBLOCK);
    fcntl(u, F_SETFL, O_NONBLOCK);
    struct pair *p = calloc(1, sizeof(*p));
    if (p == NULL) {
        close(u);
        close(c);
        return;
    }
    p->fd[0] = c;
    p->fd[1] = u;
    pairs[slot] = p;
}

/* Moves what it can for one direction; returns -1 when the pair should close. */
static int pump(struct pair *p, int dir, short rev_in, short rev_out) {
    struct half *h = &p->h[dir];
    int in = p->fd[dir], out = p->fd[1 - dir];
    if (!h->eof && h->len < BUF && (rev_in & (POLLIN | POLLHUP | POLLERR))) {
        ssize_t n = read(in, h->buf + h->len, BUF - h->len);
        if (n > 0) {
            h->len += (size_t) n;
        } else if (n == 0) {
            h->eof = 1;
        } else if (errno != EAGAIN && errno != EINTR) {
            return -1;
        }
    }
    if (h->len > 0 && (rev_out & POLLOUT || rev_in)) {
        ssize_t n = write(out, h->buf, h->len);
        if (n > 0) {
            memmove(h->buf, h->buf + n, h->len - (size_t) n);
            h->len -= (size_t) n;
        } else if (n < 0 && errno != EAGAIN && errno != EINTR) {
            return -1;
        }
    }
    if (h->eof && h->len == 0 && !h->shut) {
        shutdown(out, SHUT_WR);
        h->shut = 1;
    }
    return 0;
}

int main(int argc, char **argv) {
    if (argc < 5 || strcmp(argv[3], "--") != 0) {
        dprintf(2, "toolyard-relay: usage: toolyard-relay PORT SOCKET -- COMMAND [ARG...]\n");
        return 125;
    }
    char *end;
    long port = strtol(argv[1], &end, 10);
    if (*end != '\0' || port < 1 || port > 65535) {
        dprintf(2, "toolyard-relay: PORT must be 1-65535\n");
        return 125;
    }
    struct sockaddr_un proxy;
    memset(&proxy, 0, sizeof(proxy));
    proxy.sun_family = AF_UNIX;
    if (strlen(argv[2]) >= sizeof(proxy.sun_path)) {
        dprintf(2, "toolyard-relay: SOCKET is too long\n");
        return 125;
    }
    strcpy(proxy.sun_path, argv[2]);

    int listener = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (listener < 0) {
        fail("socket");
    }
    int one = 1;
    setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    struct sockaddr_in addr;
    memset(&addr, 0, sizeof(addr));
    addr.sin_family = AF_INET;
    addr.sin_port = htons((uint16_t) port);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (bind(listener, (struct sockaddr *) &addr, sizeof(addr)) != 0) {
        fail("bind 127.0.0.1");
    }
    if (listen(listener, 128) != 0) {
        fail("listen");
    }
    fcntl(listener, F_SETFL, O_NONBLOCK);

    sigset_t chld, old;
    sigemptyset(&chld);
    sigaddset(&chld, SIGCHLD);
    if (sigprocmask(SIG_BLOCK, &chld, &old) != 0) {
        fail("sigprocmask");
    }
    int sfd = signalfd(-1, &chld, SFD_CLOEXEC | SFD_NONBLOCK);
    if (sfd < 0) {
        fail("signalfd");
    }
    signal(SIGPIPE, SIG_IGN);

    /* Listening already: whatever the command connects to from its first instruction on is there. */
    pid_t child = fork();
    if (child < 0) {
        fail("fork");
    }
    if (child == 0) {
        signal(SIGPIPE, SIG_DFL);
        sigprocmask(SIG_SETMASK, &old, NULL);
        execvp(argv[4], argv + 4);
        int e = errno;
        dprintf(2, "toolyard-relay: %s: %s\n", argv[4], strerror(e));
        _exit(e == ENOENT ? 127 : 126);
    }

    struct pollfd fds[2 + 2 * MAX_PAIRS];
    int index[2 + 2 * MAX_PAIRS];
    for (;;) {
        int n = 0;
        fds[n].fd = sfd;
        fds[n].events = POLLIN;
        index[n++] = -1;
        fds[n].fd = listener;
        fds[n].events = POLLIN;
        index[n++] = -1;
        for (int i = 0; i < MAX_PAIRS; i++) {
            struct pair *p = pairs[i];
            if (p == NULL) {
                continue;
            }
            for (int s = 0; s < 2; s++) {
                struct half *in = &p->h[s];      /* read from fd[s] */
                struct half *out = &p->h[1 - s]; /* written to fd[s] */
                fds[n].fd = p->fd[s];
                fds[n].events = (short) ((!in->eof && in->len < BUF ? POLLIN : 0) | (out->len > 0 ? POLLOUT : 0));
                index[n++] = i;
            }
        }
        if (poll(fds, (nfds_t) n, -1) < 0) {
            if (errno == EINTR) {
                continue;
            }
            fail("poll");
        }
        if (fds[0].revents & POLLIN) {
            struct signalfd_siginfo si;
            while (read(sfd, &si, sizeof(si)) == sizeof(si)) {
            }
            int status;
            pid_t r;
            while ((r = waitpid(-1, &status, WNOHANG)) > 0) {
                if (r == child) {
                    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
                }
            }
        }
        if (fds[1].revents & POLLIN) {
            accept_one(listener, &proxy);
        }
        for (int k = 2; k < n; k += 2) {
            int i = index[k];
            struct pair *p = pairs[i];
            if (p == NULL) {
                continue;
            }
            short r0 = fds[k].revents, r1 = fds[k + 1].revents;
            /* A side that hung up whole, with nothing left to read from it or to send it, ends the pair. */
            int dead = ((r0 & POLLHUP) && p->h[0].eof && p->h[1].len == 0)
                    || ((r1 & POLLHUP) && p->h[1].eof && p->h[0].len == 0) || ((r0 | r1) & POLLERR);
            if (dead || pump(p, 0, r0, r1) < 0 || pump(p, 1, r1, r0) < 0
                    || (p->h[0].shut && p->h[1].shut)) {
                close_pair(i);
            }
        }
    }
}
