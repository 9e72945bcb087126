#include "util/io.h"

#include <errno.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "util/clock.h"

static int wait_fd(int fd, short events, uint64_t deadline_ns)
{
    for (;;) {
        struct pollfd p = {.fd = fd, .events = events};
        int ms = clock_ms_until(deadline_ns);
        if (ms == 0)
            return -ETIMEDOUT;
        int r = poll(&p, 1, ms);
        if (r > 0)
            return 0;
        if (r == 0)
            return -ETIMEDOUT;
        if (errno != EINTR)
            return -errno;
    }
}

int io_read_full(int fd, void *buf, size_t len, uint64_t deadline_ns, size_t *got)
{
    size_t done = 0;
    int err = 0;
    while (done < len) {
        err = wait_fd(fd, POLLIN, deadline_ns);
        if (err)
            break;
        ssize_t n = recv(fd, (char *)buf + done, len - done, MSG_DONTWAIT);
        if (n > 0) {
            done += (size_t)n;
            continue;
        }
        if (n == 0) {
            err = -ECONNRESET;
            break;
        }
        if (errno == EINTR || errno == EAGAIN)
            continue;
        err = -errno;
        break;
    }
    if (got)
        *got = done;
    return err;
}

int io_write_full(int fd, const void *buf, size_t len, uint64_t deadline_ns)
{
    size_t done = 0;
    while (done < len) {
        int err = wait_fd(fd, POLLOUT, deadline_ns);
        if (err)
            return err;
        ssize_t n = send(fd, (const char *)buf + done, len - done, MSG_DONTWAIT | MSG_NOSIGNAL);
        if (n >= 0) {
            done += (size_t)n;
            continue;
        }
        if (errno == EINTR || errno == EAGAIN)
            continue;
        return -errno;
    }
    return 0;
}
