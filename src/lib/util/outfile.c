/*
 * Files written whole under a temporary name and renamed into place (see
 * the header for why).
 */
#include "util/outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

/* What a file of mode m is, in words, for the message that refuses it. */
static const char *kind_of(mode_t m)
{
    if (S_ISDIR(m))
        return "a directory";
    if (S_ISCHR(m))
        return "a character device";
    if (S_ISBLK(m))
        return "a block device";
    if (S_ISFIFO(m))
        return "a FIFO";
    if (S_ISSOCK(m))
        return "a socket";
    return "not a regular file";
}

/* Whether the symbolic link path is one of /proc's: /dev/stdout, /dev/fd/N, /proc/self/fd/N. */
static bool proc_link(const char *path)
{
    char text[16], dir[PATH_MAX], *real;
    ssize_t n = readlink(path, text, sizeof(text) - 1);
    if (n > 0 && (text[n] = '\0', !strncmp(text, "/proc/", 6)))
        return true;
    const char *slash = strrchr(path, '/');
    if (!slash || (size_t)(slash - path) >= sizeof(dir))
        return false;
    snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path + 1), path);
    bool in_proc = (real = realpath(dir, NULL)) && !strncmp(real, "/proc/", 6);
    free(real);
    return in_proc;
}

/*
 * What to do with path: *stream 0, write a new file and rename it over path
 * (nothing there, a regular file: its permission bits into *mode, else
 * *mode = 0; a symbolic link to a regular file or to nothing, replaced);
 * *stream O_WRONLY (or with O_APPEND) to write straight into it: a FIFO, a
 * socket or a character device named as such, a FIFO, socket or terminal
 * behind a link, or a regular file behind one of /proc's links (a shell's
 * redirection of /dev/stdout: appended, as to the shell's descriptor).
 * Anything else, a directory or a block device, is refused with a sentence.
 */
static int check_target(const char *path, mode_t *mode, int *stream, char *err, size_t errlen)
{
    struct stat sb;
    *mode = 0;
    *stream = 0;
    if (!*path)
        return err_set(err, errlen, EINVAL, "cannot write a file with an empty name");
    if (lstat(path, &sb))
        return errno == ENOENT
                   ? 0
                   : err_set(err, errlen, errno, "cannot write %s: %s", path, strerror(errno));
    bool link = S_ISLNK(sb.st_mode);
    if (link && stat(path, &sb))
        return 0; /* a dangling link: replaced */
    bool pipe = S_ISFIFO(sb.st_mode) || S_ISSOCK(sb.st_mode);
    if (S_ISREG(sb.st_mode) && link && proc_link(path))
        *stream = O_WRONLY | O_APPEND;
    else if (S_ISREG(sb.st_mode))
        *mode = link ? 0 : sb.st_mode & 0777;
    else if (pipe || (S_ISCHR(sb.st_mode) && !link))
        *stream = O_WRONLY;
    else if (S_ISCHR(sb.st_mode) && link)
        *stream = O_WRONLY; /* a terminal only: checked once open */
    else
        return err_set(err, errlen, S_ISDIR(sb.st_mode) ? EISDIR : EINVAL,
                       "cannot write %s: it is %s%s, and netab writes only regular files or "
                       "streams",
                       path, link ? "a symbolic link to " : "", kind_of(sb.st_mode));
    return 0;
}

/* Opens the stream path (check_target()); a device behind a link must be a terminal. */
static int open_stream(const char *path, int flags, char *err, size_t errlen)
{
    struct stat sb;
    bool link = !lstat(path, &sb) && S_ISLNK(sb.st_mode);
    int fd = open(path, flags | O_NOCTTY | O_CLOEXEC);
    if (fd < 0)
        return err_set(err, errlen, errno, "cannot write %s: %s", path, strerror(errno));
    if (link && !fstat(fd, &sb) && S_ISCHR(sb.st_mode) && !isatty(fd)) {
        close(fd);
        return err_set(err, errlen, EINVAL,
                       "cannot write %s: it is a symbolic link to a character device that is no "
                       "terminal, and netab writes only regular files or streams",
                       path);
    }
    return fd;
}

/* Creates a new temporary file beside path (O_EXCL, no link followed): its fd, name into *tmp. */
static int make_temp(const char *path, mode_t mode, char **tmp)
{
    const char *slash = strrchr(path, '/');
    int dirlen = slash ? (int)(slash - path + 1) : 0;
    const char *base = slash ? slash + 1 : path;
    size_t cap = strlen(path) + 40;
    *tmp = malloc(cap);
    if (!*tmp)
        return -ENOMEM;
    for (int tries = 0; tries < 100; tries++) {
        uint32_t r = 0;
        if (getrandom(&r, sizeof(r), 0) != (ssize_t)sizeof(r))
            r = (uint32_t)getpid() * 2654435761u + (uint32_t)tries;
        /* A short base keeps the name within NAME_MAX; the dot hides it from ls. */
        snprintf(*tmp, cap, "%.*s.%.64s.%08x.tmp", dirlen, path, base, r);
        int fd =
            open(*tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode ? mode : 0666);
        if (fd >= 0) {
            /* The umask applies to a new file; a replaced one keeps its bits. */
            if (mode && fchmod(fd, mode)) {
                int e = -errno;
                close(fd);
                unlink(*tmp);
                return e;
            }
            return fd;
        }
        if (errno != EEXIST)
            break;
    }
    int e = errno == EEXIST ? -EEXIST : -errno;
    free(*tmp);
    *tmp = NULL;
    return e;
}

int outfile_open(struct outfile *o, const char *path, char *err, size_t errlen)
{
    mode_t mode;
    int stream, fd;
    *o = (struct outfile){0};
    int e = check_target(path, &mode, &stream, err, errlen);
    if (e)
        return e;
    if (stream) {
        fd = open_stream(path, stream, err, errlen);
        if (fd < 0)
            return fd;
    } else if ((fd = make_temp(path, mode, &o->tmp)) < 0) {
        return err_set(err, errlen, fd, "cannot write %s: %s", path, strerror(-fd));
    }
    o->f = fdopen(fd, "wb");
    o->path = strdup(path);
    if (!o->f || !o->path) {
        if (!o->f)
            close(fd);
        outfile_abort(o);
        return err_set(err, errlen, ENOMEM, "cannot write %s: out of memory", path);
    }
    return 0;
}

void outfile_abort(struct outfile *o)
{
    if (o->f)
        fclose(o->f);
    if (o->tmp)
        unlink(o->tmp);
    free(o->tmp);
    free(o->path);
    *o = (struct outfile){0};
}

int outfile_commit(struct outfile *o, char *err, size_t errlen)
{
    int e = 0;
    errno = 0;
    /* A full disk may show only here: at the last buffer, the sync or the close. */
    if (ferror(o->f) || fflush(o->f) || (o->tmp && fsync(fileno(o->f))))
        e = errno ? -errno : -EIO;
    if (fclose(o->f) && !e)
        e = -errno;
    o->f = NULL;
    if (!e && o->tmp && rename(o->tmp, o->path))
        e = -errno;
    if (e) {
        err_set(err, errlen, e, "cannot write %s: %s", o->path, strerror(-e));
        outfile_abort(o);
        return e;
    }
    free(o->tmp);
    free(o->path);
    *o = (struct outfile){0};
    return 0;
}

int outfile_write(const char *path, const void *data, size_t len, char *err, size_t errlen)
{
    struct outfile o;
    int e = outfile_open(&o, path, err, errlen);
    if (e)
        return e;
    if (len && fwrite(data, 1, len, o.f) != len) {
        e = errno ? -errno : -EIO;
        err_set(err, errlen, e, "cannot write %s: %s", path, strerror(-e));
        outfile_abort(&o);
        return e;
    }
    return outfile_commit(&o, err, errlen);
}

FILE *outfile_append(const char *path, char *err, size_t errlen)
{
    struct stat st;
    bool link = !lstat(path, &st) && S_ISLNK(st.st_mode);
    bool stream = link && !stat(path, &st) && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode) &&
                  !S_ISBLK(st.st_mode);
    if (link && !stream && strncmp(path, "/dev/", 5)) {
        err_set(err, errlen, ELOOP,
                "cannot append to %s: it is a symbolic link to a file (a log is never written "
                "through one; name the file itself)",
                path);
        return NULL;
    }
    int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | (link ? 0 : O_NOFOLLOW), 0644);
    if (fd >= 0 && !fstat(fd, &st) && (S_ISDIR(st.st_mode) || S_ISBLK(st.st_mode))) {
        close(fd);
        fd = -1;
        errno = S_ISDIR(st.st_mode) ? EISDIR : ENOTSUP;
    }
    FILE *f = fd >= 0 ? fdopen(fd, "a") : NULL;
    if (!f) {
        err_set(err, errlen, errno, "cannot append to %s: %s", path, strerror(errno));
        if (fd >= 0)
            close(fd);
    }
    return f;
}
