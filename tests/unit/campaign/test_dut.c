/*
 * Unit tests of the DUT's ssh plumbing (campaign/dut.h): the quoting that
 * carries hooks and their NETAB_* variables through ssh unchanged, and the
 * argument vector of each ssh call. The quoting is checked the only way that
 * counts: a real /bin/sh must read back exactly what went in.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include <cmocka.h>
#include "netab_assert.h"

#include "campaign/dut.h"
#include "util/proc.h"

/* Runs cmd with /bin/sh -c (as sshd hands the remote command to the login shell); its stdout. */
static char *sh_out(const char *cmd)
{
    struct proc_result r;
    char err[NB_ERRLEN];
    assert_int_equal(proc_run_shell(cmd, 10, NULL, &r, err, sizeof(err)), 0);
    assert_true(WIFEXITED(r.status));
    ASSERT_EQ(WEXITSTATUS(r.status), 0);
    char *out = r.out;
    r.out = NULL;
    proc_result_free(&r);
    return out;
}

static const char *const tricky[] = {
    "",      "plain", "it's",   "'",       "''",  "a b\tc", "$HOME `id` $(id)", "\"q\" \\ \\\\",
    "*?[x]", "a\nb",  "; rm x", "-n -e x", "\\'", "~root",  "!event",
};

static void test_quote_exact(void **state)
{
    (void)state;
    char *q = dut_quote("it's");
    assert_string_equal(q, "'it'\\''s'");
    free(q);
    q = dut_quote("");
    assert_string_equal(q, "''");
    free(q);
}

static void test_quote_round_trip(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(tricky) / sizeof(tricky[0]); i++) {
        char *q = dut_quote(tricky[i]), cmd[512];
        assert_non_null(q);
        snprintf(cmd, sizeof(cmd), "printf '%%s' %s", q);
        char *out = sh_out(cmd);
        assert_string_equal(out, tricky[i]);
        free(out);
        free(q);
    }
}

/* The remote command sees each variable exactly, whatever it holds, and the command unchanged. */
static void test_remote_command_env(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(tricky) / sizeof(tricky[0]); i++) {
        char var[256];
        snprintf(var, sizeof(var), "NETAB_VARIANT=%s", tricky[i]);
        char *env[] = {var, "NETAB_NEXT_VARIANT=b", NULL};
        char *remote =
            dut_remote_command("printf '%s|%s' \"$NETAB_VARIANT\" \"$NETAB_NEXT_VARIANT\"", env);
        assert_non_null(remote);
        ASSERT_STARTS_WITH(remote, "env ");
        char *out = sh_out(remote), want[300];
        snprintf(want, sizeof(want), "%s|b", tricky[i]);
        assert_string_equal(out, want);
        free(out);
        free(remote);
    }
    char *remote = dut_remote_command("echo 'x' \"$y\"", NULL);
    assert_string_equal(remote, "env /bin/sh -c 'echo '\\''x'\\'' \"$y\"'");
    free(remote);
}

static size_t count(char **argv)
{
    size_t n = 0;
    while (argv[n])
        n++;
    return n;
}

static ssize_t find(char **argv, const char *s)
{
    for (size_t i = 0; argv[i]; i++)
        if (!strcmp(argv[i], s))
            return (ssize_t)i;
    return -1;
}

static void test_ssh_argv(void **state)
{
    (void)state;
    struct exp_dut cfg = {.ssh = "root@198.18.0.2", .boot_timeout = 600};
    char *opts[] = {"-i", "/k ey", "-o", "ConnectTimeout=3", NULL};
    struct dut d = {.cfg = &cfg, .opts = opts};
    snprintf(d.ssh, sizeof(d.ssh), "/usr/bin/ssh");
    snprintf(d.ctl_dir, sizeof(d.ctl_dir), "/tmp/netab-ssh-abc");
    char **a;
    assert_int_equal(dut_ssh_argv(&d, "env /bin/sh -c 'true'", &a), 0);
    size_t n = count(a);
    assert_string_equal(a[0], "/usr/bin/ssh");
    /* The user's options come first: ssh keeps the first value of an option. */
    assert_string_equal(a[1], "-i");
    assert_string_equal(a[2], "/k ey");
    ASSERT_LT(find(a, "ConnectTimeout=3"), find(a, "ConnectTimeout=10"));
    ASSERT_GT(find(a, "BatchMode=yes"), 0);
    ASSERT_GT(find(a, "ControlMaster=auto"), 0);
    ASSERT_GT(find(a, "ControlPath=/tmp/netab-ssh-abc/%C"), 0);
    ASSERT_GT(find(a, "ServerAliveInterval=5"), 0);
    /* Nothing after "--" is an option: the destination, then the one remote string. */
    assert_string_equal(a[n - 3], "--");
    assert_string_equal(a[n - 2], "root@198.18.0.2");
    assert_string_equal(a[n - 1], "env /bin/sh -c 'true'");
    assert_int_equal(find(a, "-O"), -1);
    exp_argv_free(a);

    /* NULL: the master's exit, with no remote command. */
    assert_int_equal(dut_ssh_argv(&d, NULL, &a), 0);
    n = count(a);
    assert_string_equal(a[n - 1], "root@198.18.0.2");
    assert_string_equal(a[n - 2], "--");
    assert_string_equal(a[n - 3], "exit");
    assert_string_equal(a[n - 4], "-O");
    exp_argv_free(a);

    /* Without a control directory there is no shared connection. */
    d.ctl_dir[0] = '\0';
    d.opts = NULL;
    assert_int_equal(dut_ssh_argv(&d, "true", &a), 0);
    assert_int_equal(find(a, "ControlMaster=auto"), -1);
    assert_string_equal(a[1], "-o");
    exp_argv_free(a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_quote_exact),
        cmocka_unit_test(test_quote_round_trip),
        cmocka_unit_test(test_remote_command_env),
        cmocka_unit_test(test_ssh_argv),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
