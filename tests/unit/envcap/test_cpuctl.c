/*
 * Tests of CPU-constrained mode against a fake sysfs tree built in a
 * temporary directory (the real machine is only asked cpuctl_check, which
 * changes nothing).
 */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include "netab_assert.h"

#include "envcap/cpuctl.h"

struct tree {
    char dir[256], sys[300], state[300];
};

static void put(const struct tree *t, const char *rel, const char *value)
{
    char path[1024], cmd[1200];
    snprintf(path, sizeof(path), "%s/%s", t->dir, rel);
    snprintf(cmd, sizeof(cmd), "mkdir -p \"$(dirname '%s')\"", path);
    assert_int_equal(system(cmd), 0);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(value, f);
    fclose(f);
}

static char *get(const struct tree *t, const char *rel)
{
    static char buf[256];
    char path[1024];
    snprintf(path, sizeof(path), "%s/%s", t->dir, rel);
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    size_t n = fread(buf, 1, sizeof(buf) - 1, f);
    fclose(f);
    buf[n] = '\0';
    buf[strcspn(buf, "\n")] = '\0';
    return buf;
}

/* Four CPUs, 800-4200 MHz, scaling_max_freq 3500 MHz; with_freq=0 is a VM without cpufreq. */
static int setup_tree(void **state)
{
    struct tree *t = calloc(1, sizeof(*t));
    snprintf(t->dir, sizeof(t->dir), "/tmp/netab-cpuctl-XXXXXX");
    if (!mkdtemp(t->dir))
        return -1;
    snprintf(t->sys, sizeof(t->sys), "%s/sys", t->dir);
    snprintf(t->state, sizeof(t->state), "%s/cpuctl.state", t->dir);
    put(t, "sys/devices/system/cpu/online", "0-3\n");
    for (int c = 0; c < 4; c++) {
        char rel[128];
        if (c > 0) {
            snprintf(rel, sizeof(rel), "sys/devices/system/cpu/cpu%d/online", c);
            put(t, rel, "1\n");
        }
        snprintf(rel, sizeof(rel), "sys/devices/system/cpu/cpu%d/cpufreq/scaling_max_freq", c);
        put(t, rel, "3500000\n");
        snprintf(rel, sizeof(rel), "sys/devices/system/cpu/cpu%d/cpufreq/cpuinfo_max_freq", c);
        put(t, rel, "4200000\n");
        snprintf(rel, sizeof(rel), "sys/devices/system/cpu/cpu%d/cpufreq/cpuinfo_min_freq", c);
        put(t, rel, "800000\n");
    }
    *state = t;
    return 0;
}

static int teardown_tree(void **state)
{
    struct tree *t = *state;
    char cmd[400];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", t->dir);
    int rc = system(cmd);
    free(t);
    return rc == 0 ? 0 : -1;
}

static void assert_original(const struct tree *t)
{
    assert_string_equal(get(t, "sys/devices/system/cpu/cpu0/cpufreq/scaling_max_freq"), "3500000");
    assert_string_equal(get(t, "sys/devices/system/cpu/cpu1/cpufreq/scaling_max_freq"), "3500000");
    for (int c = 1; c < 4; c++) {
        char rel[64];
        snprintf(rel, sizeof(rel), "sys/devices/system/cpu/cpu%d/online", c);
        assert_string_equal(get(t, rel), "1");
    }
    assert_int_equal(access(t->state, F_OK), -1);
}

static void assert_applied(const struct tree *t)
{
    assert_string_equal(get(t, "sys/devices/system/cpu/cpu0/cpufreq/scaling_max_freq"), "2000000");
    assert_string_equal(get(t, "sys/devices/system/cpu/cpu1/cpufreq/scaling_max_freq"), "2000000");
    assert_string_equal(get(t, "sys/devices/system/cpu/cpu2/cpufreq/scaling_max_freq"), "3500000");
    assert_string_equal(get(t, "sys/devices/system/cpu/cpu1/online"), "1");
    assert_string_equal(get(t, "sys/devices/system/cpu/cpu2/online"), "0");
    assert_string_equal(get(t, "sys/devices/system/cpu/cpu3/online"), "0");
    assert_int_equal(access(t->state, F_OK), 0);
}

static void apply_and_restore(void **state)
{
    struct tree *t = *state;
    static struct cpuctl_saved saved;
    char err[NB_ERRLEN] = "";
    assert_int_equal(cpuctl_saved_init(&saved, t->sys, t->state, err, sizeof(err)), 0);
    assert_int_equal(cpuctl_check_at(t->sys, 2, 2000, err, sizeof(err)), 0);
    int rc = cpuctl_apply(&saved, 2, 2000, err, sizeof(err));
    if (rc)
        fail_msg("%s", err);
    assert_applied(t);
    assert_int_equal(saved.n, 4);
    assert_int_equal(cpuctl_restore(&saved), 0);
    assert_original(t);
    /* A second restore (normal path after the signal path) changes nothing. */
    assert_int_equal(cpuctl_restore(&saved), 0);
    assert_original(t);
}

static void restore_after_crash(void **state)
{
    struct tree *t = *state;
    static struct cpuctl_saved saved;
    char err[NB_ERRLEN] = "";
    assert_int_equal(cpuctl_saved_init(&saved, t->sys, t->state, err, sizeof(err)), 0);
    assert_int_equal(cpuctl_apply(&saved, 2, 2000, err, sizeof(err)), 0);
    /* The process "dies": its memory is gone, only the state file remains. */
    memset(&saved, 0xa5, sizeof(saved));
    assert_applied(t);
    assert_int_equal(cpuctl_restore_from_file(t->state), 0);
    assert_original(t);
    /* No state file: nothing to do. */
    assert_int_equal(cpuctl_restore_from_file(t->state), 0);
    /* A file that is not a state file is refused and left alone. */
    put(t, "cpuctl.state", "something else\n");
    assert_int_equal(cpuctl_restore_from_file(t->state), -EINVAL);
    unlink(t->state);
}

/*
 * Applies the settings in a child that recorded them in state, kills it with
 * SIGKILL (no handler runs), and checks that the state file at exactly that
 * path puts everything back.
 */
static void kill9_then_restore(const struct tree *t, const char *state)
{
    int ready[2];
    assert_int_equal(pipe(ready), 0);
    pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
        static struct cpuctl_saved saved;
        char err[NB_ERRLEN];
        close(ready[0]);
        if (cpuctl_saved_init(&saved, t->sys, state, err, sizeof(err)) ||
            cpuctl_apply(&saved, 2, 2000, err, sizeof(err)))
            _exit(3);
        if (write(ready[1], "k", 1) != 1)
            _exit(4);
        pause();
        _exit(5);
    }
    close(ready[1]);
    char c;
    assert_int_equal(read(ready[0], &c, 1), 1);
    close(ready[0]);
    assert_int_equal(kill(pid, SIGKILL), 0);
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFSIGNALED(status));
    assert_int_equal(WTERMSIG(status), SIGKILL);
    assert_string_equal(get(t, "sys/devices/system/cpu/cpu3/online"), "0");
    /* The record is where the next start looks for it: the whole path, not a prefix. */
    assert_int_equal(access(state, F_OK), 0);
    assert_int_equal(cpuctl_restore_from_file(state), 0);
    assert_string_equal(get(t, "sys/devices/system/cpu/cpu0/cpufreq/scaling_max_freq"), "3500000");
    for (int cpu = 1; cpu < 4; cpu++) {
        char rel[64];
        snprintf(rel, sizeof(rel), "sys/devices/system/cpu/cpu%d/online", cpu);
        assert_string_equal(get(t, rel), "1");
    }
    assert_int_equal(access(state, F_OK), -1);
}

static void restore_after_kill9(void **state)
{
    struct tree *t = *state;
    kill9_then_restore(t, t->state);
}

/*
 * A path of len bytes under t->dir (directories made as needed, components
 * of at most 200 bytes) with ".cpuctl" appended, as the campaign derives
 * the state path from its database path. Caller frees it.
 */
static char *long_state_path(const struct tree *t, size_t len)
{
    char *db = malloc(len + 1);
    assert_non_null(db);
    size_t n = (size_t)snprintf(db, len + 1, "%s", t->dir);
    while (n < len) {
        size_t left = len - n - 1; /* bytes after the next '/' */
        size_t comp = left > 200 ? 200 : left;
        if (left > 200 && left - 200 < 2)
            comp = left - 2; /* leave room for a last component of at least one byte */
        db[n++] = '/';
        memset(db + n, 'd', comp);
        n += comp;
        db[n] = '\0';
        if (n < len && mkdir(db, 0755) != 0)
            ASSERT_EQ(errno, EEXIST);
    }
    assert_int_equal(strlen(db), len);
    char *state = malloc(len + sizeof(".cpuctl"));
    assert_non_null(state);
    snprintf(state, len + sizeof(".cpuctl"), "%s.cpuctl", db);
    free(db);
    return state;
}

/* A 185-byte database path once cut its state path: after kill -9 CPUs stayed offline. */
static void long_state_path_185(void **state)
{
    struct tree *t = *state;
    char *path = long_state_path(t, 185);
    kill9_then_restore(t, path);
    free(path);
}

static void long_state_path_4000(void **state)
{
    struct tree *t = *state;
    char *path = long_state_path(t, 4000);
    kill9_then_restore(t, path);
    free(path);
}

/* A path that cannot fit is refused before anything changes; it is never cut. */
static void too_long_state_path_is_refused(void **state)
{
    struct tree *t = *state;
    static struct cpuctl_saved saved;
    char err[NB_ERRLEN] = "";
    size_t len = CPUCTL_STATE_PATH_MAX;
    char *path = malloc(len + 1);
    assert_non_null(path);
    memset(path, 'p', len);
    path[0] = '/';
    path[len] = '\0';
    assert_int_equal(cpuctl_saved_init(&saved, t->sys, path, err, sizeof(err)), -ENAMETOOLONG);
    assert_non_null(strstr(err, "too long"));
    assert_non_null(strstr(err, "/ppp"));
    /* saved is empty and persists nothing, so using it anyway changes no file. */
    assert_string_equal(saved.state_path, "");
    assert_int_equal(saved.n, 0);
    /* The longest path that fits, with its ".tmp", is taken whole. */
    path[len - 1 - strlen(".tmp")] = '\0';
    assert_int_equal(cpuctl_saved_init(&saved, t->sys, path, err, sizeof(err)), 0);
    assert_string_equal(saved.state_path, path);
    free(path);
    assert_original(t);
}

/* Restoring with nothing recorded leaves an earlier process's state file alone. */
static void empty_restore_keeps_foreign_state(void **state)
{
    struct tree *t = *state;
    static struct cpuctl_saved saved;
    char err[NB_ERRLEN] = "";
    put(t, "cpuctl.state", "netab-cpuctl-state 1\n");
    assert_int_equal(cpuctl_saved_init(&saved, t->sys, t->state, err, sizeof(err)), 0);
    assert_int_equal(cpuctl_restore(&saved), 0);
    assert_int_equal(access(t->state, F_OK), 0);
    unlink(t->state);
}

static void failure_midway_rolls_back(void **state)
{
    struct tree *t = *state;
    static struct cpuctl_saved saved;
    char err[NB_ERRLEN] = "", path[600];
    /* cpu2/online becomes a directory: the check passes, the write fails. */
    snprintf(path, sizeof(path), "%s/sys/devices/system/cpu/cpu2/online", t->dir);
    assert_int_equal(unlink(path), 0);
    assert_int_equal(mkdir(path, 0755), 0);
    assert_int_equal(cpuctl_saved_init(&saved, t->sys, t->state, err, sizeof(err)), 0);
    ASSERT_LT(cpuctl_apply(&saved, 1, 2000, err, sizeof(err)), 0);
    assert_non_null(strstr(err, "cpu2/online"));
    assert_string_equal(get(t, "sys/devices/system/cpu/cpu0/cpufreq/scaling_max_freq"), "3500000");
    assert_string_equal(get(t, "sys/devices/system/cpu/cpu3/online"), "1");
    assert_int_equal(access(t->state, F_OK), -1);
    assert_int_equal(saved.n, 0);
}

static void refusals(void **state)
{
    struct tree *t = *state;
    char err[NB_ERRLEN] = "", rel[512];

    assert_int_equal(cpuctl_check_at(t->sys, 0, 0, err, sizeof(err)), 0);
    assert_int_equal(cpuctl_check_at(t->sys, 5, 0, err, sizeof(err)), -EINVAL);
    assert_non_null(strstr(err, "more CPUs than the 4 online"));
    assert_int_equal(cpuctl_check_at(t->sys, 0, 5000, err, sizeof(err)), -ERANGE);
    assert_non_null(strstr(err, "above CPU 0's highest frequency (4200 MHz)"));
    assert_int_equal(cpuctl_check_at(t->sys, 0, 500, err, sizeof(err)), -ERANGE);

    /* A VM: no cpufreq at all. */
    for (int c = 0; c < 4; c++) {
        snprintf(rel, sizeof(rel), "rm -rf '%s/sys/devices/system/cpu/cpu%d/cpufreq'", t->dir, c);
        assert_int_equal(system(rel), 0);
    }
    assert_int_equal(cpuctl_check_at(t->sys, 2, 2000, err, sizeof(err)), -ENOTSUP);
    assert_non_null(strstr(err, "no cpufreq control"));
    assert_non_null(strstr(err, "refuses"));
    /* cpuctl_apply refuses too, and changes nothing. */
    static struct cpuctl_saved saved;
    assert_int_equal(cpuctl_saved_init(&saved, t->sys, t->state, err, sizeof(err)), 0);
    assert_int_equal(cpuctl_apply(&saved, 2, 2000, err, sizeof(err)), -ENOTSUP);
    assert_string_equal(get(t, "sys/devices/system/cpu/cpu3/online"), "1");
    assert_int_equal(access(t->state, F_OK), -1);

    /* No hotplug control for CPU 3. */
    snprintf(rel, sizeof(rel), "%s/sys/devices/system/cpu/cpu3/online", t->dir);
    assert_int_equal(unlink(rel), 0);
    assert_int_equal(cpuctl_check_at(t->sys, 2, 0, err, sizeof(err)), -ENOTSUP);
    assert_non_null(strstr(err, "cannot take CPU 3 offline"));
    assert_non_null(strstr(err, "leave cpus unset"));
}

/* On this machine the answer depends on the hardware; it must be 0 or a clear message. */
static void check_this_machine(void **state)
{
    (void)state;
    const int cases[][2] = {{1, 0}, {0, 1000}, {1, 1000}};
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char err[NB_ERRLEN] = "";
        int rc = cpuctl_check(cases[i][0], cases[i][1], err, sizeof(err));
        if (rc) {
            ASSERT_LT(rc, 0);
            ASSERT_GT(strlen(err), 20);
        }
        print_message("cpuctl_check(cpus=%d, max_freq_mhz=%d) = %d %s\n", cases[i][0], cases[i][1],
                      rc, err);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(apply_and_restore, setup_tree, teardown_tree),
        cmocka_unit_test_setup_teardown(restore_after_crash, setup_tree, teardown_tree),
        cmocka_unit_test_setup_teardown(restore_after_kill9, setup_tree, teardown_tree),
        cmocka_unit_test_setup_teardown(long_state_path_185, setup_tree, teardown_tree),
        cmocka_unit_test_setup_teardown(long_state_path_4000, setup_tree, teardown_tree),
        cmocka_unit_test_setup_teardown(too_long_state_path_is_refused, setup_tree, teardown_tree),
        cmocka_unit_test_setup_teardown(empty_restore_keeps_foreign_state, setup_tree,
                                        teardown_tree),
        cmocka_unit_test_setup_teardown(failure_midway_rolls_back, setup_tree, teardown_tree),
        cmocka_unit_test_setup_teardown(refusals, setup_tree, teardown_tree),
        cmocka_unit_test(check_this_machine),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
