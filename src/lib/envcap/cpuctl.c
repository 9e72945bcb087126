/*
 * CPU-constrained mode: CPU hotplug and cpufreq scaling_max_freq, each change
 * recorded before it is made so that it can always be undone (see cpuctl.h
 * and docs/environment.md).
 */
#include "envcap/cpuctl.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "envcap/envcap.h"
#include "envcap/fsread.h"
#include "util/outfile.h"

#define NBITS 8192
#define STATE_MAGIC "netab-cpuctl-state 1"

int cpuctl_saved_init(struct cpuctl_saved *saved, const char *sysfs_root, const char *state_path,
                      char *err, size_t errlen)
{
    memset(saved, 0, sizeof(*saved));
    const char *sys = sysfs_root ? sysfs_root : "/sys";
    const char *state = state_path ? state_path : "";
    if (strlen(sys) >= sizeof(saved->sysfs_root))
        return err_set(err, errlen, ENAMETOOLONG, "the sysfs root is longer than %zu bytes: %s",
                       sizeof(saved->sysfs_root) - 1, sys);
    /* The bound of the days persist() wrote "<state>.tmp", kept: messages name it. */
    if (strlen(state) + strlen(".tmp") >= sizeof(saved->state_path))
        return err_set(err, errlen, ENAMETOOLONG,
                       "the CPU state file path is too long (%zu bytes, at most %zu; choose a "
                       "shorter path for the results store): %s",
                       strlen(state), sizeof(saved->state_path) - 1 - strlen(".tmp"), state);
    memcpy(saved->sysfs_root, sys, strlen(sys) + 1);
    memcpy(saved->state_path, state, strlen(state) + 1);
    return 0;
}

static int isset(const unsigned char *bits, int i)
{
    return (bits[i / 8] >> (i % 8)) & 1;
}

/* The online CPUs under sys into bits; their count, or a negative errno with err filled. */
static int online_cpus(const char *sys, unsigned char *bits, char *err, size_t errlen)
{
    char buf[1024];
    int n = fs_read(sys, "devices/system/cpu/online", buf, sizeof(buf));
    if (n < 0)
        return err_set(err, errlen, n, "cannot read %s/devices/system/cpu/online: %s", sys,
                       strerror(-n));
    n = fs_parse_cpulist(buf, bits, NBITS);
    if (n <= 0)
        return err_set(err, errlen, EINVAL, "cannot parse the online CPU list \"%s\"", buf);
    return n;
}

/* Marks in keep the first cpus online CPUs. */
static void first_n(const unsigned char *online, int cpus, unsigned char *keep)
{
    memset(keep, 0, NBITS / 8);
    for (int c = 0, k = 0; c < NBITS && k < cpus; c++)
        if (isset(online, c)) {
            keep[c / 8] |= (unsigned char)(1u << (c % 8));
            k++;
        }
}

/*
 * Is root/rel there and writable? If not, err gets "<what>: <path> does not
 * exist; <hint>" (or "is not writable"), which names the file and the way out.
 */
static int check_writable(const char *sys, const char *rel, const char *what, const char *hint,
                          char *err, size_t errlen)
{
    char path[PATH_MAX];
    snprintf(path, sizeof(path), "%s/%s", sys, rel);
    if (access(path, F_OK) < 0)
        return err_set(err, errlen, ENOTSUP, "%s: %s does not exist; %s", what, path, hint);
    if (access(path, W_OK) < 0)
        return err_set(err, errlen, errno == EROFS ? EROFS : EACCES,
                       "%s: %s is not writable (%s); run as root with /sys writable", what, path,
                       strerror(errno));
    return 0;
}

int cpuctl_check_at(const char *sysfs_root, int cpus, int max_freq_mhz, char *err, size_t errlen)
{
    const char *sys = sysfs_root ? sysfs_root : "/sys";
    unsigned char online[NBITS / 8], keep[NBITS / 8];
    char rel[128], buf[64];
    int e;

    if (cpus < 0 || max_freq_mhz < 0)
        return err_set(err, errlen, EINVAL, "cpus and max_freq_mhz must not be negative");
    if (cpus == 0 && max_freq_mhz == 0)
        return 0;
    int n = online_cpus(sys, online, err, errlen);
    if (n < 0)
        return n;
    if (cpus > n)
        return err_set(err, errlen, EINVAL, "cpus: %d asks for more CPUs than the %d online", cpus,
                       n);
    first_n(online, cpus ? cpus : n, keep);
    for (int c = 0; cpus && c < NBITS; c++) {
        if (!isset(online, c) || isset(keep, c))
            continue;
        char what[64];
        snprintf(what, sizeof(what), "cannot take CPU %d offline for cpus: %d", c, cpus);
        snprintf(rel, sizeof(rel), "devices/system/cpu/cpu%d/online", c);
        if ((e = check_writable(sys, rel, what,
                                "no CPU hotplug for it here; leave cpus unset on this machine", err,
                                errlen)))
            return e;
    }
    for (int c = 0; max_freq_mhz && c < NBITS; c++) {
        if (!isset(keep, c))
            continue;
        char what[64];
        snprintf(what, sizeof(what), "cannot cap CPU %d at %d MHz", c, max_freq_mhz);
        snprintf(rel, sizeof(rel), "devices/system/cpu/cpu%d/cpufreq/scaling_max_freq", c);
        if ((e = check_writable(sys, rel, what,
                                "no cpufreq control (usual in VMs: the host sets the clock), so "
                                "netab refuses rather than measure at an unknown speed",
                                err, errlen)))
            return e;
        long long khz = (long long)max_freq_mhz * 1000;
        snprintf(rel, sizeof(rel), "devices/system/cpu/cpu%d/cpufreq/cpuinfo_min_freq", c);
        if (fs_read(sys, rel, buf, sizeof(buf)) > 0 && khz < atoll(buf))
            return err_set(err, errlen, ERANGE,
                           "max_freq_mhz: %d is below CPU %d's lowest frequency (%lld MHz)",
                           max_freq_mhz, c, atoll(buf) / 1000);
        snprintf(rel, sizeof(rel), "devices/system/cpu/cpu%d/cpufreq/cpuinfo_max_freq", c);
        if (fs_read(sys, rel, buf, sizeof(buf)) > 0 && khz > atoll(buf))
            return err_set(err, errlen, ERANGE,
                           "max_freq_mhz: %d is above CPU %d's highest frequency (%lld MHz)",
                           max_freq_mhz, c, atoll(buf) / 1000);
    }
    return 0;
}

int cpuctl_check(int cpus, int max_freq_mhz, char *err, size_t errlen)
{
    return cpuctl_check_at(NULL, cpus, max_freq_mhz, err, errlen);
}

/* Writes all of s to fd; async-signal-safe. */
static int write_all(int fd, const char *s, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, s, n);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return -errno;
        }
        s += w;
        n -= (size_t)w;
    }
    return 0;
}

/* Rewrites the state file whole (util/outfile: temporary file, fsync, rename) with every entry. */
static int persist(const struct cpuctl_saved *saved)
{
    if (!saved->state_path[0])
        return 0;
    struct outfile o;
    int err = outfile_open(&o, saved->state_path, NULL, 0);
    if (err)
        return err;
    fprintf(o.f, "%s\n", STATE_MAGIC);
    for (int i = 0; i < saved->n; i++)
        fprintf(o.f, "%s\t%s\n", saved->entries[i].path, saved->entries[i].value);
    return outfile_commit(&o, NULL, 0);
}

/*
 * Records root/rel's current value, persists the record, and only then
 * writes value into it.
 */
static int set_file(struct cpuctl_saved *saved, const char *root, const char *rel,
                    const char *value, char *err, size_t errlen)
{
    if (saved->n >= CPUCTL_MAX_SAVED)
        return err_set(err, errlen, ENOSPC, "too many settings to save (%d)", CPUCTL_MAX_SAVED);
    struct cpuctl_entry *e = &saved->entries[saved->n];
    int r = snprintf(e->path, sizeof(e->path), "%s/%s", root, rel);
    if (r < 0 || (size_t)r >= sizeof(e->path))
        return err_set(err, errlen, ENAMETOOLONG, "path too long: %s/%s", root, rel);
    r = e->path[0] == '/' ? fs_read("", e->path + 1, e->value, sizeof(e->value))
                          : fs_read(".", e->path, e->value, sizeof(e->value));
    if (r < 0)
        return err_set(err, errlen, r, "cannot read %s: %s", e->path, strerror(-r));
    if (strpbrk(e->value, "\t\n"))
        fs_squash_spaces(e->value);
    saved->n++;
    r = persist(saved);
    if (r)
        return err_set(err, errlen, r, "cannot save the state file %s: %s", saved->state_path,
                       strerror(-r));
    r = fs_write(root, rel, value);
    if (r)
        return err_set(err, errlen, r, "cannot write \"%s\" to %s: %s", value, e->path,
                       strerror(-r));
    return 0;
}

static void block_signals(sigset_t *old)
{
    sigset_t s;
    sigemptyset(&s);
    sigaddset(&s, SIGINT);
    sigaddset(&s, SIGTERM);
    sigaddset(&s, SIGHUP);
    pthread_sigmask(SIG_BLOCK, &s, old);
}

int cpuctl_apply(struct cpuctl_saved *saved, int cpus, int max_freq_mhz, char *err, size_t errlen)
{
    const char *sys = saved->sysfs_root;
    unsigned char online[NBITS / 8], keep[NBITS / 8];
    char rel[128], val[32];
    sigset_t old;
    int e = cpuctl_check_at(sys, cpus, max_freq_mhz, err, errlen);

    if (e || (cpus == 0 && max_freq_mhz == 0))
        return e;
    int n = online_cpus(sys, online, err, errlen);
    if (n < 0)
        return n;
    first_n(online, cpus ? cpus : n, keep);
    block_signals(&old);
    /* Caps first, then hotplug, so that restoring (newest first) brings CPUs back before freq. */
    for (int c = 0; max_freq_mhz && c < NBITS && !e; c++) {
        if (!isset(keep, c))
            continue;
        snprintf(rel, sizeof(rel), "devices/system/cpu/cpu%d/cpufreq/scaling_max_freq", c);
        snprintf(val, sizeof(val), "%lld", (long long)max_freq_mhz * 1000);
        e = set_file(saved, sys, rel, val, err, errlen);
    }
    for (int c = NBITS - 1; cpus && c >= 0 && !e; c--) {
        if (!isset(online, c) || isset(keep, c))
            continue;
        snprintf(rel, sizeof(rel), "devices/system/cpu/cpu%d/online", c);
        e = set_file(saved, sys, rel, "0", err, errlen);
    }
    if (e)
        cpuctl_restore(saved);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return e;
}

/* Writes value into path; async-signal-safe. */
static int put(const char *path, const char *value)
{
    int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    int e = write_all(fd, value, strlen(value));
    if (close(fd) < 0 && !e)
        e = -errno;
    return e;
}

int cpuctl_restore(struct cpuctl_saved *saved)
{
    int first = 0;
    /*
     * Only a record this saved wrote is removed: with nothing recorded the
     * state file at that path (if any) belongs to an earlier process and
     * still lists settings to put back.
     */
    int recorded = saved->n > 0;
    for (int i = saved->n - 1; i >= 0; i--) {
        int e = put(saved->entries[i].path, saved->entries[i].value);
        if (e && !first)
            first = e;
        saved->n = i;
    }
    if (recorded && saved->state_path[0] && !first)
        unlink(saved->state_path);
    return first;
}

int cpuctl_restore_from_file(const char *path)
{
    FILE *f = fopen(path, "re");
    char line[CPUCTL_PATH_MAX + CPUCTL_VALUE_MAX + 4];
    struct cpuctl_saved *s;
    int e = 0;

    if (!f)
        return errno == ENOENT ? 0 : -errno;
    s = calloc(1, sizeof(*s));
    if (!s) {
        fclose(f);
        return -ENOMEM;
    }
    if (!fgets(line, sizeof(line), f) || strncmp(line, STATE_MAGIC, strlen(STATE_MAGIC))) {
        e = -EINVAL;
        goto out;
    }
    while (fgets(line, sizeof(line), f) && s->n < CPUCTL_MAX_SAVED) {
        line[strcspn(line, "\n")] = '\0';
        char *tab = strchr(line, '\t');
        if (!tab || line[0] != '/') {
            e = -EINVAL;
            goto out;
        }
        *tab = '\0';
        size_t lp = strlen(line), lv = strlen(tab + 1);
        if (lp >= CPUCTL_PATH_MAX || lv >= CPUCTL_VALUE_MAX) {
            e = -EINVAL;
            goto out;
        }
        memcpy(s->entries[s->n].path, line, lp + 1);
        memcpy(s->entries[s->n].value, tab + 1, lv + 1);
        s->n++;
    }
    /* The state file stays until every value is back, so a failed restore can be retried. */
    e = cpuctl_restore(s);
    if (!e)
        unlink(path);
out:
    fclose(f);
    free(s);
    return e;
}
