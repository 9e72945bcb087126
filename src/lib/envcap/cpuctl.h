/*
 * CPU-constrained mode: run a campaign on N CPUs and/or at a capped CPU
 * frequency, and put the machine back the way it was afterwards, on error,
 * on SIGINT/SIGTERM (the caller's handler calls cpuctl_restore), and
 * (through a state file) after a crash or kill -9. See docs/environment.md.
 *
 * N CPUs means hotplug (cpuctl_apply): write 0 to cpuK/online for every
 * online CPU but the first N, so the whole machine has N CPUs.
 * max_freq_mhz writes cpufreq scaling_max_freq on the CPUs that stay online.
 *
 * Every setting changed is first recorded (path and original value) in the
 * caller's struct cpuctl_saved and in its state file, so restoring is only
 * ever "write these values back, newest first".
 */
#ifndef NETAB_ENVCAP_CPUCTL_H
#define NETAB_ENVCAP_CPUCTL_H

#include <limits.h>
#include <stddef.h>

#include "util/err.h"

#define CPUCTL_MAX_SAVED 256
#define CPUCTL_PATH_MAX 192
#define CPUCTL_VALUE_MAX 128
/* The state file's path, and its ".tmp" sibling, fit whole or are refused. */
#define CPUCTL_STATE_PATH_MAX PATH_MAX

struct cpuctl_entry {
    char path[CPUCTL_PATH_MAX];   /* absolute path of the file written */
    char value[CPUCTL_VALUE_MAX]; /* its contents before netab wrote it */
};

/*
 * Saved state. Fill it with cpuctl_saved_init(); it holds no pointers into
 * the heap so that a signal handler can restore from it.
 */
struct cpuctl_saved {
    char sysfs_root[CPUCTL_PATH_MAX];
    char state_path[CPUCTL_STATE_PATH_MAX]; /* "" = do not persist */
    volatile int n;                         /* entries[0..n) are valid */
    struct cpuctl_entry entries[CPUCTL_MAX_SAVED];
};

/*
 * Prepares saved for cpuctl_apply(). sysfs_root defaults to "/sys" when
 * NULL; state_path is the file the saved state is persisted to (NULL: not
 * persisted; a campaign should always give one, e.g. next to its results
 * store). A path is kept whole or refused, never cut: a truncated state
 * path would record the settings in a file that nobody looks for after a
 * crash. Returns 0, or -ENAMETOOLONG with a sentence naming the path in err;
 * saved is then empty and persists nothing.
 */
NB_MUST_CHECK int cpuctl_saved_init(struct cpuctl_saved *saved, const char *sysfs_root,
                                    const char *state_path, char *err, size_t errlen);

/*
 * Can this machine run with only cpus CPUs online (0: leave as is) and
 * scaling_max_freq capped at max_freq_mhz (0: leave as is)? Checks that the
 * hotplug and cpufreq files exist and are writable and the values are in
 * range. Returns 0, or a negative errno with a full sentence in err saying
 * what is missing and what to do instead. Changes nothing.
 */
int cpuctl_check(int cpus, int max_freq_mhz, char *err, size_t errlen) NB_MUST_CHECK;

/* cpuctl_check() against another sysfs root (tests). */
int cpuctl_check_at(const char *sysfs_root, int cpus, int max_freq_mhz, char *err,
                    size_t errlen) NB_MUST_CHECK;

/*
 * Checks (as cpuctl_check) and then applies: caps the frequency of the CPUs
 * that stay online, then takes the others offline. Each original value is
 * recorded in saved and in its state file before the file is written. On
 * failure everything already changed is restored and a negative errno is
 * returned with err filled. SIGINT/SIGTERM are blocked while it runs.
 */
int cpuctl_apply(struct cpuctl_saved *saved, int cpus, int max_freq_mhz, char *err,
                 size_t errlen) NB_MUST_CHECK;

/*
 * Writes every recorded value back, newest first, removes the state file
 * (only if saved recorded something, and every value went back) and empties
 * saved, so calling it twice is harmless. Async-signal-safe
 * (open/write/close/unlink only). Returns 0, or the first negative errno met
 * (it still tries every entry).
 */
int cpuctl_restore(struct cpuctl_saved *saved);

/*
 * Restores the settings recorded in a state file left by a process that did
 * not get to restore them (crash, kill -9, power loss before... the state is
 * fsynced), then removes the file. A missing file is not an error. Returns 0
 * or a negative errno.
 */
int cpuctl_restore_from_file(const char *path) NB_MUST_CHECK;

#endif
