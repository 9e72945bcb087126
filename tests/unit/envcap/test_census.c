/*
 * The competing-process census (env_capture_run): a fake /proc built in a
 * temporary directory holds the run's server in another network namespace
 * (it listens on 0.0.0.0:5301 and 198.18.0.2 is local there), that
 * server's child, an unrelated netab server on another port, an iperf3
 * listening on the run's port where the run's address is not local, and
 * a netab listening on the run's port through a socket it does not own.
 * Only the server and its child are of the test; the others are named as
 * competitors with their command lines. Then the warnings name them.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include "netab_assert.h"

#include "envcap/envcap.h"

static char root[256];

static void put(const char *rel, const char *text, size_t len)
{
    char path[512];
    snprintf(path, sizeof(path), "%s/%s", root, rel);
    /* Make every directory on the way. */
    for (char *p = path + strlen(root) + 1; (p = strchr(p, '/')); p++) {
        *p = '\0';
        if (mkdir(path, 0755) != 0)
            ASSERT_EQ(errno, EEXIST);
        *p = '/';
    }
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    assert_int_equal(fwrite(text, 1, len, f), len);
    fclose(f);
}

#define PUT(rel, lit) put(rel, lit, sizeof(lit) - 1)

/* A process: comm, parent, command line (NUL-separated literal) and its socket inodes. */
static void proc(long pid, const char *comm, long ppid, const char *cmd, size_t cmdlen,
                 const unsigned long *inodes, size_t n)
{
    char rel[512], text[256];
    snprintf(rel, sizeof(rel), "%ld/comm", pid);
    snprintf(text, sizeof(text), "%s\n", comm);
    put(rel, text, strlen(text));
    snprintf(rel, sizeof(rel), "%ld/stat", pid);
    snprintf(text, sizeof(text), "%ld (%s) S %ld 1 1 0 -1\n", pid, comm, ppid);
    put(rel, text, strlen(text));
    snprintf(rel, sizeof(rel), "%ld/cmdline", pid);
    put(rel, cmd, cmdlen);
    snprintf(rel, sizeof(rel), "%s/%ld/fd", root, pid);
    if (mkdir(rel, 0755) != 0)
        ASSERT_EQ(errno, EEXIST);
    for (size_t i = 0; i < n; i++) {
        char link[512], target[64];
        snprintf(link, sizeof(link), "%s/%ld/fd/%zu", root, pid, i + 3);
        snprintf(target, sizeof(target), "socket:[%lu]", inodes[i]);
        assert_int_equal(symlink(target, link), 0);
    }
}

#define PROC(pid, comm, ppid, cmd, inodes, n) proc(pid, comm, ppid, cmd, sizeof(cmd) - 1, inodes, n)

/* The header of /proc/net/tcp and one LISTEN line per (address:port, inode). */
#define TCP_HEAD                                                                                   \
    "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout "  \
    "inode\n"
#define TCP_LISTEN(addr_port, inode)                                                               \
    "   0: " addr_port                                                                             \
    " 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 " inode               \
    " 1 0000000000000000 100 0 0 10 0\n"

/* 198.18.0.2 is local in the server's namespace; 198.18.0.1 in the other one. */
#define FIB(addr) "Main:\n  +-- 0.0.0.0/0 3 0 5\n     |-- " addr "\n        /32 host LOCAL\n"

static void build_tree(void)
{
    static const unsigned long srv[] = {1001}, other[] = {2002}, perf[] = {3003};
    /* The run's server, in the namespace where 198.18.0.2 is local; 5301 = 0x14B5. */
    PROC(100, "netab", 1, "netab\0server\0-p\0005301\0", srv, 1);
    PUT("100/net/tcp", TCP_HEAD TCP_LISTEN("00000000:14B5", "1001"));
    PUT("100/net/fib_trie", FIB("198.18.0.2"));
    /* A child of the server (its descendants are of the test too). */
    PROC(101, "netab", 100, "netab\0server\0", NULL, 0);
    /* Another user's server on port 5299 (0x14B3), in the same namespace. */
    PROC(200, "netab", 1, "netab\0server\0-p\0005299\0", other, 1);
    PUT("200/net/tcp", TCP_HEAD TCP_LISTEN("00000000:14B3", "2002"));
    PUT("200/net/fib_trie", FIB("198.18.0.2"));
    /* iperf3 on the run's port, but in a namespace where 198.18.0.2 is not local. */
    PROC(300, "iperf3", 1, "iperf3\0-s\0-p\0005301\0", perf, 1);
    PUT("300/net/tcp", TCP_HEAD TCP_LISTEN("00000000:14B5", "3003"));
    PUT("300/net/fib_trie", FIB("198.18.0.1"));
    /* A netab that sees the server's listening socket in its namespace but does not own it. */
    PROC(400, "netab", 1, "netab\0run\0-c\000198.18.0.2\0", NULL, 0);
    PUT("400/net/tcp", TCP_HEAD TCP_LISTEN("00000000:14B5", "1001"));
    PUT("400/net/fib_trie", FIB("198.18.0.2"));
}

static json_t *pids(const json_t *list)
{
    json_t *out = json_array(), *p;
    size_t i;
    json_array_foreach(list, i, p) json_array_append(out, json_object_get(p, "pid"));
    return out;
}

static void assert_pids(const json_t *list, const char *want)
{
    json_t *got = pids(list);
    char *g = json_dumps(got, JSON_COMPACT);
    if (strcmp(g, want))
        fail_msg("pids %s, want %s", g, want);
    free(g);
    json_decref(got);
}

static void server_in_other_namespace_is_ours(void **state)
{
    (void)state;
    char proc_root[300];
    snprintf(proc_root, sizeof(proc_root), "%s", root);
    struct env_run_peer peer = {.addr = "198.18.0.2", .port = 5301};
    json_t *env = env_capture_run(NULL, "/nonexistent-netab-sys", proc_root, &peer);
    assert_non_null(env);
    assert_pids(json_object_get(env, "noise_processes"), "[200,300,400]");
    assert_pids(json_object_get(env, "test_processes"), "[100,101]");
    json_t *first = json_array_get(json_object_get(env, "noise_processes"), 0);
    assert_string_equal(json_string_value(json_object_get(first, "cmdline")),
                        "netab server -p 5299");
    json_t *w = env_warnings(env);
    const char *w0 = json_string_value(json_array_get(w, 0));
    assert_non_null(w0);
    assert_string_equal(w0, "another benchmark process is running: netab (netab server -p 5299) "
                            "(pid 200)");
    json_decref(w);

    /* Two runs' summary names each competitor once, with its command line and count. */
    const json_t *envs[] = {env, env};
    w = env_warnings_summary(envs, 2);
    const char *s = json_string_value(json_array_get(w, json_array_size(w) - 1));
    assert_string_equal(s, "competing benchmark processes in 2 of 2 runs: netab (netab server -p "
                           "5299) x2, iperf3 (iperf3 -s -p 5301) x2, netab (netab run -c "
                           "198.18.0.2) x2");
    json_decref(w);
    json_decref(env);

    /* Without a peer (an in-process server), every one of them competes. */
    env = env_capture_run(NULL, "/nonexistent-netab-sys", proc_root, NULL);
    assert_pids(json_object_get(env, "noise_processes"), "[100,101,200,300,400]");
    json_decref(env);
    /* A run to another port: the server on 5301 is not its server. */
    peer.port = 5302;
    env = env_capture_run(NULL, "/nonexistent-netab-sys", proc_root, &peer);
    assert_pids(json_object_get(env, "noise_processes"), "[100,101,200,300,400]");
    json_decref(env);
}

/*
 * The campaign's controller (the nearest netab-like ancestor of this
 * process) and what it started beside this run (a netab server of its own,
 * that server's child) are the campaign's; a netab above the controller is
 * an ancestor only (of the test, as every ancestor), its other children
 * compete. Runs last: it adds to the
 * tree the other test reads.
 */
static void controller_children_are_ours(void **state)
{
    (void)state;
    long self = (long)getpid();
    char rel[64], text[128];
    /* Beyond any pid_max (2^22), so that none is this process's pid. */
    PROC(5000700, "netab", 1, "netab\0shell\0", NULL, 0);
    PROC(5000701, "netab", 5000700, "netab\0server\0-p\0006000\0", NULL, 0);
    PROC(5000500, "netab", 5000700, "netab\0experiment\0run\0x.yaml\0", NULL, 0);
    PROC(5000510, "bash", 5000500, "bash\0hook.sh\0", NULL, 0);
    PROC(5000501, "netab", 5000500, "netab\0server\0-p\0006001\0", NULL, 0);
    PROC(5000502, "netab", 5000501, "netab\0server\0", NULL, 0);
    /* This process, under the controller as a run is (here through a hook's shell). */
    snprintf(rel, sizeof(rel), "%ld/comm", self);
    PUT(rel, "netab\n");
    snprintf(rel, sizeof(rel), "%ld/stat", self);
    snprintf(text, sizeof(text), "%ld (netab) S 5000510 1 1 0 -1\n", self);
    put(rel, text, strlen(text));
    snprintf(rel, sizeof(rel), "%ld/cmdline", self);
    PUT(rel, "netab\0run\0");
    json_t *env = env_capture_run(NULL, "/nonexistent-netab-sys", root, NULL);
    assert_non_null(env);
    assert_pids(json_object_get(env, "noise_processes"), "[100,101,200,300,400,5000701]");
    char want[128];
    snprintf(want, sizeof(want), "[%ld,5000500,5000501,5000502,5000700]", self);
    assert_pids(json_object_get(env, "test_processes"), want);
    json_decref(env);
}

static int setup(void **state)
{
    (void)state;
    snprintf(root, sizeof(root), "%s/netab-census-XXXXXX", getenv("TMPDIR") ?: "/tmp");
    if (!mkdtemp(root))
        return -1;
    build_tree();
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[400];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
    return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(server_in_other_namespace_is_ours),
        cmocka_unit_test(controller_children_are_ours),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
