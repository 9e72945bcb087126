/*
 * Files written whole under a temporary name and renamed into place (see
 * the header for why).
 */
#include "util/outfile.h"

#include <errno.h>
#include <fcntl.h>
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

/*
 * Whether path may be replaced: nothing there, a regular file (its
 * permission bits into *mode, else *mode = 0) or a symbolic link to a
 * regular file or to nothing. Returns 0 or a negative errno with a sentence.
 */
static int check_target(const char *path, mode_t *mode, char *err, size_t errlen)
{
    struct stat sb;
    *mode = 0;
    if (!*path)
        return err_set(err, errlen, EINVAL, "cannot write a file with an empty name");
    if (lstat(path, &sb)) {
        if (errno == ENOENT)
            return 0;
        return err_set(err, errlen, errno, "cannot write %s: %s", path, strerror(errno));
    }
    if (S_ISREG(sb.st_mode)) {
        *mode = sb.st_mode & 0777;
        return 0;
    }
    if (!S_ISLNK(sb.st_mode))
        return err_set(err, errlen, S_ISDIR(sb.st_mode) ? EISDIR : EINVAL,
                       "cannot write %s: it is %s, and netab writes only regular files", path,
                       kind_of(sb.st_mode));
    /* A link is replaced, never followed; but one to a device names a mistake. */
    if (stat(path, &sb) || S_ISREG(sb.st_mode))
        return 0;
    return err_set(err, errlen, S_ISDIR(sb.st_mode) ? EISDIR : EINVAL,
                   "cannot write %s: it is a symbolic link to %s, and netab writes only regular "
                   "files",
                   path, kind_of(sb.st_mode));
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
    *o = (struct outfile){0};
    int e = check_target(path, &mode, err, errlen);
    if (e)
        return e;
    int fd = make_temp(path, mode, &o->tmp);
    if (fd < 0)
        return err_set(err, errlen, fd, "cannot write %s: %s", path, strerror(-fd));
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
    if (ferror(o->f) || fflush(o->f) || fsync(fileno(o->f)))
        e = errno ? -errno : -EIO;
    if (fclose(o->f) && !e)
        e = -errno;
    o->f = NULL;
    if (!e && rename(o->tmp, o->path))
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
