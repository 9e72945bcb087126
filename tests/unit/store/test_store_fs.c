/*
 * The store on a file system that goes read-only or fills up: a clear error,
 * and nothing recorded before is lost. Mounts its own small tmpfs in a mount
 * namespace of its own: as root directly, otherwise in a user namespace; it
 * skips (77) only when not root and user namespaces are not allowed. Every
 * mount is removed in teardown, which cmocka runs also when a test fails,
 * and the namespace takes any left behind with it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include "netab_assert.h"
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>

#include "helpers.h"

struct ctx {
    char dir[256];
    char path[512];
    bool mounted;
};

static int mount_tmpfs(void **state, const char *opts)
{
    struct ctx *c = calloc(1, sizeof(*c));
    snprintf(c->dir, sizeof(c->dir), "/tmp/netab-storefs-XXXXXX");
    if (!mkdtemp(c->dir))
        return -1;
    *state = c;
    if (mount("tmpfs", c->dir, "tmpfs", MS_NOSUID | MS_NODEV, opts)) {
        fprintf(stderr, "mount tmpfs on %s: %s\n", c->dir, strerror(errno));
        return -1;
    }
    c->mounted = true;
    snprintf(c->path, sizeof(c->path), "%s/results.db", c->dir);
    return 0;
}

static int setup_small(void **state)
{
    return mount_tmpfs(state, "size=256k,mode=0700");
}

static int setup_normal(void **state)
{
    return mount_tmpfs(state, "size=4m,mode=0700");
}

static int teardown(void **state)
{
    struct ctx *c = *state;
    if (!c)
        return 0;
    if (c->mounted && umount2(c->dir, 0) && umount2(c->dir, MNT_DETACH))
        fprintf(stderr, "umount %s: %s\n", c->dir, strerror(errno));
    rmdir(c->dir);
    free(c);
    return 0;
}

static struct store *open_ok(const char *path)
{
    struct store *s = NULL;
    char err[512] = "";
    int e = store_open(path, STORE_OPEN_CREATE, &s, err, sizeof(err));
    if (e)
        fprintf(stderr, "store_open: %s\n", err);
    assert_int_equal(e, 0);
    return s;
}

static int64_t record_fixture(struct store *s, const char *name)
{
    char *doc = fixture(name);
    int64_t id = 0;
    char err[512] = "";
    int e = store_record_result(s, "netab run", doc, 0, &id, err, sizeof(err));
    if (e)
        fprintf(stderr, "%s\n", err);
    assert_int_equal(e, 0);
    free(doc);
    return id;
}

/* The run is there, finished, with its document, as a fresh reader sees it. */
static void assert_run_readable(const char *path, int64_t id)
{
    struct store *s;
    char err[512] = "";
    int e = store_open(path, 0, &s, err, sizeof(err));
    if (e)
        fprintf(stderr, "reopen: %s\n", err);
    assert_int_equal(e, 0);
    struct store_run r;
    e = store_run_get(s, id, &r, err, sizeof(err));
    if (e)
        fprintf(stderr, "get: %s\n", err);
    assert_int_equal(e, 0);
    assert_int_equal(r.status, STORE_RUN_OK);
    assert_non_null(r.result_json);
    ASSERT_GT(r.receiver_bps, 0);
    store_run_free(&r);
    store_close(s);
}

static void test_readonly_filesystem(void **state)
{
    struct ctx *c = *state;
    struct store *s = open_ok(c->path);
    int64_t first = record_fixture(s, "tcp_stream.json");
    store_close(s);
    assert_int_equal(mount(NULL, c->dir, NULL, MS_REMOUNT | MS_RDONLY, NULL), 0);

    char err[512] = "";
    char *doc = fixture("udp_stream.json");
    int e = store_record_single(c->path, "netab run -u", doc, 0, err, sizeof(err));
    fprintf(stderr, "expected error: %s\n", err);
    assert_int_equal(e, -EROFS);
    assert_non_null(strstr(err, "read-only"));
    free(doc);
    assert_run_readable(c->path, first);
    assert_int_equal(mount(NULL, c->dir, NULL, MS_REMOUNT, NULL), 0);
    assert_run_readable(c->path, first);
}

static void test_full_disk(void **state)
{
    struct ctx *c = *state;
    struct store *s = open_ok(c->path);
    int64_t first = record_fixture(s, "tcp_stream.json");

    /* An environment snapshot far larger than the 256 KiB file system. */
    size_t big = 1024 * 1024;
    char *env = malloc(big + 16);
    memset(env, 'x', big + 16);
    memcpy(env, "{\"pad\":\"", 8);
    strcpy(env + big, "\"}");
    char err[512] = "";
    int64_t id = 0;
    int e = store_run_begin(s, 0, 0, NULL, NULL, NULL, env, &id, err, sizeof(err));
    fprintf(stderr, "expected error: %s\n", err);
    assert_int_equal(e, -ENOSPC);
    assert_non_null(strstr(err, "full"));
    free(env);
    /* The failed transaction left no trace and the store still answers. */
    struct store_run *runs;
    size_t n;
    assert_int_equal(store_run_list(s, STORE_ALL_RUNS, false, &runs, &n, err, sizeof(err)), 0);
    assert_int_equal(n, 1);
    store_run_list_free(runs, n);
    store_close(s);
    assert_run_readable(c->path, first);
    assert_int_equal(raw_int(c->path, "SELECT count(*) FROM pragma_integrity_check "
                                      "WHERE integrity_check = 'ok'"),
                     1);
}

/* Writes text to the /proc file path; 0 or -1 with errno. */
static int write_proc(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    int rc = fputs(text, f) < 0 ? -1 : 0;
    if (fclose(f))
        rc = -1;
    return rc;
}

/*
 * Gives the test a mount namespace of its own, where it may mount tmpfs:
 * as root a new mount namespace (its mounts vanish with the process, even
 * after a crash); otherwise a user namespace mapping the caller to root in
 * it, where mounting a tmpfs is allowed too. Returns 0, or -1 with errno.
 */
static int own_mount_namespace(void)
{
    if (geteuid() != 0) {
        char map[64];
        uid_t uid = geteuid();
        gid_t gid = getegid();
        if (unshare(CLONE_NEWUSER | CLONE_NEWNS))
            return -1;
        snprintf(map, sizeof(map), "0 %u 1\n", (unsigned)uid);
        if (write_proc("/proc/self/setgroups", "deny") || write_proc("/proc/self/uid_map", map))
            return -1;
        snprintf(map, sizeof(map), "0 %u 1\n", (unsigned)gid);
        if (write_proc("/proc/self/gid_map", map))
            return -1;
    } else if (unshare(CLONE_NEWNS)) {
        return -1;
    }
    /* Mounts made here must not propagate back to the host's namespace. */
    return mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL);
}

int main(void)
{
    /*
     * As root (CI) this test always runs: a failure to mount is a failure,
     * never a skip. Elsewhere it runs in a user namespace and skips (77) only
     * where the system allows no unprivileged user namespaces.
     */
    bool root = geteuid() == 0;
    if (own_mount_namespace()) {
        printf("%s: cannot make a mount namespace: %s\n", root ? "FAIL" : "SKIP", strerror(errno));
        return root ? 1 : 77;
    }
    char probe[] = "/tmp/netab-storefs-probe-XXXXXX";
    if (!mkdtemp(probe)) {
        printf("FAIL: mkdtemp %s: %s\n", probe, strerror(errno));
        return 1;
    }
    int rc = mount("tmpfs", probe, "tmpfs", 0, "size=64k");
    int e = errno;
    if (!rc)
        umount2(probe, 0);
    rmdir(probe);
    if (rc) {
        printf("%s: cannot mount a tmpfs: %s\n", root ? "FAIL" : "SKIP", strerror(e));
        return root ? 1 : 77;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_readonly_filesystem, setup_normal, teardown),
        cmocka_unit_test_setup_teardown(test_full_disk, setup_small, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
