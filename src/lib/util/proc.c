#include "util/proc.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "util/clock.h"

extern char **environ;

#define KILL_GRACE_NS 2000000000ULL

/* Appends data to the stdout buffer, up to PROC_OUT_CAP. Returns 0 or -ENOMEM. */
static int out_append(struct proc_result *r, size_t *cap, const char *data, size_t n)
{
    if (r->out_len + n > PROC_OUT_CAP) {
        r->out_truncated = true;
        n = PROC_OUT_CAP - r->out_len;
    }
    if (r->out_len + n + 1 > *cap) {
        size_t c = *cap ? *cap : 4096;
        while (c < r->out_len + n + 1)
            c *= 2;
        char *p = realloc(r->out, c);
        if (!p)
            return -ENOMEM;
        r->out = p;
        *cap = c;
    }
    memcpy(r->out + r->out_len, data, n);
    r->out_len += n;
    r->out[r->out_len] = '\0';
    return 0;
}

/* Where a sanitizer report starts in data, or NULL (memmem: stderr is not NUL-terminated). */
static const char *sanitizer_mark(const char *data, size_t n)
{
    static const char *const marks[] = {"ERROR: AddressSanitizer", "ERROR: LeakSanitizer",
                                        "runtime error:", "UndefinedBehaviorSanitizer"};
    const char *first = NULL;
    for (size_t i = 0; i < sizeof(marks) / sizeof(marks[0]); i++) {
        const char *m = memmem(data, n, marks[i], strlen(marks[i]));
        if (m && (!first || m < first))
            first = m;
    }
    return first;
}

/*
 * A sanitizer build's report in a child's stderr must not vanish with the
 * rest of what is not kept: from the first report on, the child's stderr is
 * passed on to ours, where whoever ran netab (a test, a user) sees it. A
 * child of a release build never writes such a report.
 */
static void write_all(const char *data, size_t n)
{
    while (n) {
        ssize_t w = write(STDERR_FILENO, data, n);
        if (w <= 0)
            return;
        data += w;
        n -= (size_t)w;
    }
}

static void pass_on_reports(struct proc_result *r, const char *data, size_t n)
{
    if (!r->sanitizer_report) {
        const char *m = sanitizer_mark(data, n);
        if (!m) {
            /* A marker that the previous read cut in two: the tail's end joined with data. */
            char join[64];
            size_t have = strlen(r->err_tail), t = have < 31 ? have : 31, k = n < 32 ? n : 32;
            memcpy(join, r->err_tail + have - t, t);
            memcpy(join + t, data, k);
            const char *j = sanitizer_mark(join, t + k);
            if (!j || j >= join + t)
                return;
            while (j > join && j[-1] != '\n')
                j--;
            r->sanitizer_report = true;
            write_all(j, (size_t)(join + t - j));
            write_all(data, n);
            return;
        }
        /* The line the report starts on, so "==123==ERROR: ..." stays whole. */
        while (m > data && m[-1] != '\n')
            m--;
        n -= (size_t)(m - data);
        data = m;
        r->sanitizer_report = true;
    }
    write_all(data, n);
}

/* Keeps the last PROC_ERR_TAIL - 1 bytes of stderr. */
static void tail_append(struct proc_result *r, const char *data, size_t n)
{
    pass_on_reports(r, data, n);
    size_t have = strlen(r->err_tail), room = PROC_ERR_TAIL - 1;
    if (n >= room) {
        memcpy(r->err_tail, data + n - room, room);
        r->err_tail[room] = '\0';
        return;
    }
    if (have + n > room) {
        size_t drop = have + n - room;
        memmove(r->err_tail, r->err_tail + drop, have - drop + 1);
        have -= drop;
    }
    memcpy(r->err_tail + have, data, n);
    r->err_tail[have + n] = '\0';
}

/* Reads what is available on fd; sets *open = false at EOF. Returns 0 or -ENOMEM. */
static int drain(int fd, bool is_out, bool *open, struct proc_result *r, size_t *cap)
{
    char buf[8192];
    for (;;) {
        ssize_t n = read(fd, buf, sizeof(buf));
        if (n > 0) {
            if (is_out) {
                int rc = out_append(r, cap, buf, (size_t)n);
                if (rc)
                    return rc;
            } else {
                tail_append(r, buf, (size_t)n);
            }
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK))
            *open = false;
        return 0;
    }
}

/* Kills the child's process group: SIGTERM, then SIGKILL after a grace period. Reaps it. */
static void kill_and_reap(pid_t pid, int *status)
{
    kill(-pid, SIGTERM);
    uint64_t until = clock_now_ns() + KILL_GRACE_NS;
    while (clock_now_ns() < until) {
        if (waitpid(pid, status, WNOHANG) == pid) {
            kill(-pid, SIGKILL); /* whatever the group leader left behind */
            return;
        }
        struct timespec ts = {0, 10000000};
        nanosleep(&ts, NULL);
    }
    kill(-pid, SIGKILL);
    while (waitpid(pid, status, 0) < 0 && errno == EINTR)
        ;
}

/*
 * environ with extra ("NAME=value" strings) added, an extra entry replacing
 * an inherited one of the same name, so a child sees exactly what its
 * caller asked for while this process's own environment stays untouched
 * (setenv() in a library would leak into every later child). Only the
 * pointer array is new (free() it); NULL on ENOMEM.
 */
static char **env_extend(char *const extra[])
{
    size_t ne = 0, nx = 0;
    while (environ[ne])
        ne++;
    while (extra[nx])
        nx++;
    char **env = calloc(ne + nx + 1, sizeof(char *));
    if (!env)
        return NULL;
    size_t k = 0;
    for (size_t i = 0; i < ne; i++) {
        const char *eq = strchr(environ[i], '=');
        size_t len = eq ? (size_t)(eq - environ[i]) + 1 : strlen(environ[i]);
        bool replaced = false;
        for (size_t j = 0; j < nx && !replaced; j++)
            replaced = !strncmp(environ[i], extra[j], len);
        if (!replaced)
            env[k++] = environ[i];
    }
    for (size_t j = 0; j < nx; j++)
        env[k++] = extra[j];
    return env;
}

static int spawn(char *const argv[], char *const extra_env[], pid_t *pid, int *out_fd, int *err_fd,
                 char *err, size_t errlen)
{
    int po[2] = {-1, -1}, pe[2] = {-1, -1};
    if (pipe2(po, O_CLOEXEC) || pipe2(pe, O_CLOEXEC)) {
        int e = errno;
        for (int i = 0; i < 2; i++) {
            if (po[i] >= 0)
                close(po[i]);
            if (pe[i] >= 0)
                close(pe[i]);
        }
        return err_set(err, errlen, e, "cannot create a pipe: %s", strerror(e));
    }
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t attr;
    posix_spawn_file_actions_init(&fa);
    posix_spawnattr_init(&attr);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, po[1], 1);
    posix_spawn_file_actions_adddup2(&fa, pe[1], 2);
    /* Its own process group, so that a timeout kills the whole tree of a shell command. */
    sigset_t def;
    sigemptyset(&def);
    sigaddset(&def, SIGINT);
    sigaddset(&def, SIGTERM);
    sigaddset(&def, SIGPIPE);
    posix_spawnattr_setsigdefault(&attr, &def);
    posix_spawnattr_setpgroup(&attr, 0);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF);
    char **env = extra_env ? env_extend(extra_env) : environ;
    int rc = env ? posix_spawn(pid, argv[0], &fa, &attr, argv, env) : ENOMEM;
    if (env != environ)
        free(env);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&attr);
    close(po[1]);
    close(pe[1]);
    if (rc) {
        close(po[0]);
        close(pe[0]);
        return err_set(err, errlen, rc, "cannot start %s: %s", argv[0], strerror(rc));
    }
    fcntl(po[0], F_SETFL, O_NONBLOCK);
    fcntl(pe[0], F_SETFL, O_NONBLOCK);
    *out_fd = po[0];
    *err_fd = pe[0];
    return 0;
}

/*
 * Waits until the child exits (its pidfd), output arrives on an open pipe
 * (read into r), a signal comes (unmasked: the mask during the wait) or the
 * deadline passes. Returns 0, or -ENOMEM when the output cannot be kept.
 */
static int wait_events(int pidfd, const int fds[2], bool open[2], uint64_t deadline,
                       const sigset_t *unmasked, struct proc_result *r, size_t *cap)
{
    struct pollfd p[3] = {{.fd = pidfd, .events = POLLIN}};
    nfds_t np = 1;
    for (int i = 0; i < 2; i++)
        if (open[i])
            p[np++] = (struct pollfd){.fd = fds[i], .events = POLLIN};
    uint64_t now = clock_now_ns(), left = deadline > now ? deadline - now : 0;
    struct timespec until = {(time_t)(left / 1000000000u), (long)(left % 1000000000u)};
    int n = ppoll(p, np, &until, unmasked);
    for (nfds_t k = 1; n > 0 && k < np; k++)
        if (p[k].revents) {
            int i = p[k].fd == fds[0] ? 0 : 1;
            if (drain(fds[i], i == 0, &open[i], r, cap))
                return -ENOMEM;
        }
    return 0;
}

int proc_run(char *const argv[], double timeout_s, const volatile sig_atomic_t *stop,
             struct proc_result *r, char *err, size_t errlen)
{
    return proc_run_env(argv, NULL, timeout_s, stop, r, err, errlen);
}

int proc_run_env(char *const argv[], char *const extra_env[], double timeout_s,
                 const volatile sig_atomic_t *stop, struct proc_result *r, char *err, size_t errlen)
{
    memset(r, 0, sizeof(*r));
    pid_t pid;
    int fds[2] = {-1, -1};
    uint64_t start = clock_now_ns();
    uint64_t deadline = start + (uint64_t)(timeout_s * 1e9);
    int rc = spawn(argv, extra_env, &pid, &fds[0], &fds[1], err, errlen);
    if (rc)
        return rc;
    /* The child's exit is an event too (a pidfd is readable once it exited): no polling. */
    int pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
    if (pidfd < 0) {
        int e = errno;
        kill_and_reap(pid, &r->status);
        close(fds[0]);
        close(fds[1]);
        return err_set(err, errlen, e, "cannot watch %s for its exit (pidfd_open: %s)", argv[0],
                       strerror(e));
    }
    bool open[2] = {true, true}, exited = false;
    size_t cap = 0;
    sigset_t caught, unmasked;
    sigemptyset(&caught);
    sigaddset(&caught, SIGINT);
    sigaddset(&caught, SIGTERM);
    sigaddset(&caught, SIGHUP);
    /*
     * The signals that set *stop stay blocked but during the wait, which
     * unblocks them: one that comes between the check and the wait ends the
     * wait at once instead of being seen only at the deadline. (One taken by
     * another thread of the process is seen at the child's end or deadline.)
     */
    pthread_sigmask(SIG_BLOCK, &caught, &unmasked);
    for (;;) {
        if (stop && *stop) {
            r->interrupted = true;
            break;
        }
        if (clock_now_ns() >= deadline) {
            r->timed_out = true;
            break;
        }
        if (!exited && waitpid(pid, &r->status, WNOHANG) == pid)
            exited = true;
        if (exited) {
            /*
             * A background grandchild may hold the pipes open forever: once the
             * child itself is gone, take what is there and stop listening.
             */
            for (int i = 0; i < 2; i++)
                if (open[i] && drain(fds[i], i == 0, &open[i], r, &cap))
                    goto nomem;
            break;
        }
        if (wait_events(pidfd, fds, open, deadline, &unmasked, r, &cap))
            goto nomem;
    }
    pthread_sigmask(SIG_SETMASK, &unmasked, NULL);
    close(pidfd);
    if (!exited)
        kill_and_reap(pid, &r->status);
    close(fds[0]);
    close(fds[1]);
    r->seconds = (double)(clock_now_ns() - start) / 1e9;
    if (!r->out && !(r->out = calloc(1, 1)))
        return err_set(err, errlen, ENOMEM, "out of memory");
    return 0;
nomem:
    pthread_sigmask(SIG_SETMASK, &unmasked, NULL);
    close(pidfd);
    kill_and_reap(pid, &r->status);
    close(fds[0]);
    close(fds[1]);
    return err_set(err, errlen, ENOMEM, "out of memory reading the output of %s", argv[0]);
}

int proc_run_shell(const char *cmd, double timeout_s, const volatile sig_atomic_t *stop,
                   struct proc_result *r, char *err, size_t errlen)
{
    return proc_run_shell_env(cmd, NULL, timeout_s, stop, r, err, errlen);
}

int proc_run_shell_env(const char *cmd, char *const extra_env[], double timeout_s,
                       const volatile sig_atomic_t *stop, struct proc_result *r, char *err,
                       size_t errlen)
{
    char *argv[] = {"/bin/sh", "-c", (char *)cmd, NULL};
    return proc_run_env(argv, extra_env, timeout_s, stop, r, err, errlen);
}

/* The last non-empty line of s, trimmed, into buf. */
static void last_line(const char *s, char *buf, size_t len)
{
    size_t end = strlen(s);
    while (end && (s[end - 1] == '\n' || s[end - 1] == '\r' || s[end - 1] == ' '))
        end--;
    size_t begin = end;
    while (begin && s[begin - 1] != '\n')
        begin--;
    snprintf(buf, len, "%.*s", (int)(end - begin), s + begin);
}

void proc_describe_failure(const struct proc_result *r, double timeout_s, char *buf, size_t len)
{
    char line[PROC_ERR_TAIL];
    last_line(r->err_tail, line, sizeof(line));
    if (r->interrupted)
        snprintf(buf, len, "interrupted");
    else if (r->timed_out)
        snprintf(buf, len, "timed out after %g s and was killed", timeout_s);
    else if (WIFSIGNALED(r->status))
        snprintf(buf, len, "killed by signal %d (%s)%s%s", WTERMSIG(r->status),
                 strsignal(WTERMSIG(r->status)), *line ? ": " : "", line);
    else if (WIFEXITED(r->status) && WEXITSTATUS(r->status))
        snprintf(buf, len, "exit status %d%s%s", WEXITSTATUS(r->status), *line ? ": " : "", line);
    else
        snprintf(buf, len, "%s", "");
}

void proc_result_free(struct proc_result *r)
{
    free(r->out);
    r->out = NULL;
    r->out_len = 0;
}
