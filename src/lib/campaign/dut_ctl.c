#include "campaign/dut_ctl.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* sun_path holds 108 bytes; ssh's %C is 40 hex digits after the directory and a slash. */
#define SOCKET_NAME_MAX 108
#define CONTROL_NAME_LEN 41
/* How long dut_ctl_close() waits for an exiting master to remove its socket, and how often it
 * looks. */
#define CTL_EXIT_WAIT_MS 3000
#define CTL_EXIT_POLL_MS 20

/* The directory's path under base into d->ctl_dir; false if it is too long for ssh. */
static bool ctl_path(struct dut *d, const char *base, int64_t experiment_id)
{
    /* The master first listens on its socket's name plus '.' and 16 random characters. */
    const size_t listen_suffix = 17;
    int n = snprintf(d->ctl_dir, sizeof(d->ctl_dir), "%s/netab-ssh-%lld-%u%s", base,
                     (long long)experiment_id, (unsigned)d->port, d->tag);
    return n > 0 && (size_t)n < sizeof(d->ctl_dir) &&
           (size_t)n + CONTROL_NAME_LEN + listen_suffix < SOCKET_NAME_MAX;
}

int dut_ctl_open(struct dut *d, int64_t experiment_id, bool *existed, char *err, size_t errlen)
{
    *existed = false;
    const char *tmp = getenv("TMPDIR");
    if (!tmp || tmp[0] != '/' || !ctl_path(d, tmp, experiment_id))
        if (!ctl_path(d, "/tmp", experiment_id)) {
            d->ctl_dir[0] = '\0';
            return err_set(err, errlen, ENAMETOOLONG,
                           "dut: experiment %lld: no room for ssh's ControlPath name",
                           (long long)experiment_id);
        }
    if (!mkdir(d->ctl_dir, 0700))
        return 0;
    int e = errno;
    struct stat st;
    if (e == EEXIST && !lstat(d->ctl_dir, &st) && S_ISDIR(st.st_mode) && st.st_uid == geteuid() &&
        !(st.st_mode & 077)) {
        *existed = true;
        return 0;
    }
    char path[sizeof(d->ctl_dir)];
    snprintf(path, sizeof(path), "%s", d->ctl_dir);
    d->ctl_dir[0] = '\0';
    if (e == EEXIST)
        return err_set(err, errlen, EPERM,
                       "dut: %s exists but is not this user's private directory (a link, "
                       "another owner or open to others): remove it; it would hold ssh's shared "
                       "connection",
                       path);
    return err_set(err, errlen, e, "dut: cannot create %s for ssh's shared connection: %s", path,
                   strerror(e));
}

void dut_ctl_exit(struct dut *d)
{
    if (!*d->ctl_dir || !d->cfg)
        return;
    char **argv = NULL, e[NB_ERRLEN];
    struct proc_result r;
    if (!dut_ssh_argv(d, NULL, &argv) && !proc_run(argv, DUT_SSH_CALL_S, NULL, &r, e, sizeof(e)))
        proc_result_free(&r);
    exp_argv_free(argv);
}

/* Removes the sockets left in dir (a master that did not exit in time); other entries stay. */
static void unlink_sockets(const char *dir)
{
    DIR *dp = opendir(dir);
    if (!dp)
        return;
    for (struct dirent *e; (e = readdir(dp));) {
        char path[PATH_MAX];
        struct stat st;
        if (snprintf(path, sizeof(path), "%s/%s", dir, e->d_name) < (int)sizeof(path) &&
            !lstat(path, &st) && S_ISSOCK(st.st_mode))
            (void)unlink(path);
    }
    closedir(dp);
}

void dut_ctl_close(struct dut *d)
{
    if (!*d->ctl_dir)
        return;
    dut_ctl_exit(d);
    /* "ssh -O exit" returns once the master has the request; the master removes its socket as
     * it exits, a moment later. Wait for that (at most CTL_EXIT_WAIT_MS), then remove what is
     * left: a socket nobody will answer on. */
    const struct timespec tick = {0, CTL_EXIT_POLL_MS * 1000000L};
    for (int waited = 0; rmdir(d->ctl_dir) && errno == ENOTEMPTY && waited < CTL_EXIT_WAIT_MS;
         waited += CTL_EXIT_POLL_MS)
        nanosleep(&tick, NULL);
    if (!access(d->ctl_dir, F_OK)) {
        unlink_sockets(d->ctl_dir);
        (void)rmdir(d->ctl_dir);
    }
    d->ctl_dir[0] = '\0';
}
