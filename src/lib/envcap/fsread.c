/* Small file readers shared by the envcap and cpuctl modules. */
#include "envcap/fsread.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int join(const char *root, const char *rel, char *out, size_t len)
{
    int n = snprintf(out, len, "%s/%s", root, rel);
    return (n < 0 || (size_t)n >= len) ? -ENAMETOOLONG : 0;
}

int fs_read(const char *root, const char *rel, char *buf, size_t len)
{
    char path[PATH_MAX];
    int err = join(root, rel, path, sizeof(path));
    if (err)
        return err;
    if (len == 0)
        return -EINVAL;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    size_t got = 0;
    while (got < len - 1) {
        ssize_t r = read(fd, buf + got, len - 1 - got);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            err = -errno;
            close(fd);
            return err;
        }
        if (r == 0)
            break;
        got += (size_t)r;
    }
    close(fd);
    while (got > 0 && isspace((unsigned char)buf[got - 1]))
        got--;
    buf[got] = '\0';
    return (int)got;
}

json_t *fs_json_str(const char *root, const char *rel)
{
    char buf[4096];
    if (fs_read(root, rel, buf, sizeof(buf)) < 0)
        return json_null();
    return json_string(buf);
}

json_t *fs_json_int(const char *root, const char *rel)
{
    char buf[64], *end;
    if (fs_read(root, rel, buf, sizeof(buf)) <= 0)
        return json_null();
    errno = 0;
    long long v = strtoll(buf, &end, 10);
    if (errno || *end)
        return json_null();
    return json_integer(v);
}

int fs_write(const char *root, const char *rel, const char *s)
{
    char path[PATH_MAX];
    int err = join(root, rel, path, sizeof(path));
    if (err)
        return err;
    int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    size_t n = strlen(s);
    ssize_t w = write(fd, s, n);
    err = w < 0 ? -errno : (size_t)w != n ? -EIO : 0;
    if (close(fd) < 0 && !err)
        err = -errno;
    return err;
}

int fs_parse_cpulist(const char *s, unsigned char *bits, int max)
{
    int count = 0;
    memset(bits, 0, ((size_t)max + 7) / 8);
    while (*s) {
        char *end;
        long a = strtol(s, &end, 10), b;
        if (end == s || a < 0 || a >= max)
            return -EINVAL;
        b = a;
        s = end;
        if (*s == '-') {
            b = strtol(s + 1, &end, 10);
            if (end == s + 1 || b < a || b >= max)
                return -EINVAL;
            s = end;
        }
        for (long i = a; i <= b; i++) {
            if (!(bits[i / 8] & (1u << (i % 8))))
                count++;
            bits[i / 8] |= (unsigned char)(1u << (i % 8));
        }
        if (*s == ',')
            s++;
        else if (*s)
            return -EINVAL;
    }
    return count;
}

void fs_format_cpulist(const unsigned char *bits, int max, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < max; i++) {
        if (!(bits[i / 8] & (1u << (i % 8))))
            continue;
        int j = i;
        while (j + 1 < max && (bits[(j + 1) / 8] & (1u << ((j + 1) % 8))))
            j++;
        int n = j > i ? snprintf(buf + used, len - used, "%s%d-%d", used ? "," : "", i, j)
                      : snprintf(buf + used, len - used, "%s%d", used ? "," : "", i);
        if (n < 0 || (size_t)n >= len - used)
            return;
        used += (size_t)n;
        i = j;
    }
}

void fs_squash_spaces(char *s)
{
    char *w = s;
    int space = 0;
    for (char *r = s; *r; r++) {
        if (isspace((unsigned char)*r)) {
            space = 1;
            continue;
        }
        if (space && w != s)
            *w++ = ' ';
        space = 0;
        *w++ = *r;
    }
    *w = '\0';
}
