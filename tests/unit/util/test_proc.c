/*
 * Unit tests of util/proc: a sanitizer report in a child's stderr reaches
 * our stderr whole (the line it starts on and everything after it), while a
 * child without one leaves our stderr alone.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "../cli/capture.h"
#include "../netab_assert.h"
#include "util/proc.h"

static char *run_captured(const char *cmd, struct proc_result *r)
{
    char err[NB_ERRLEN];
    struct capture c;
    capture_begin(&c, 2);
    int rc = proc_run_shell(cmd, 10, NULL, r, err, sizeof(err));
    char *text = capture_end(&c);
    assert_int_equal(rc, 0);
    return text;
}

static void test_report_is_passed_on(void **state)
{
    (void)state;
    struct proc_result r;
    /* Several writes, as a sanitizer and the program around it would make them. */
    char *text = run_captured("echo before >&2; printf '==42==ERROR: Address' >&2; sleep 0.2; "
                              "echo 'Sanitizer: heap-buffer-overflow' >&2; echo after >&2; exit 1",
                              &r);
    /* A marker that two reads cut in two is found once the second arrives. */
    assert_true(r.sanitizer_report);
    assert_non_null(strstr(text, "==42==ERROR: AddressSanitizer: heap-buffer-overflow\nafter"));
    assert_null(strstr(text, "before"));
    free(text);
    proc_result_free(&r);

    text = run_captured("echo before >&2; echo '==42==ERROR: AddressSanitizer: heap-buffer-"
                        "overflow' >&2; echo '    #0 0x1 in f' >&2; exit 1",
                        &r);
    assert_true(r.sanitizer_report);
    assert_non_null(strstr(text, "==42==ERROR: AddressSanitizer: heap-buffer-overflow"));
    assert_non_null(strstr(text, "#0 0x1 in f"));
    assert_null(strstr(text, "before"));
    /* The tail still holds everything, as before. */
    assert_non_null(strstr(r.err_tail, "before"));
    free(text);
    proc_result_free(&r);

    text = run_captured("echo 'x.c:3:5: runtime error: signed integer overflow' >&2", &r);
    assert_true(r.sanitizer_report);
    assert_non_null(strstr(text, "x.c:3:5: runtime error: signed integer overflow"));
    free(text);
    proc_result_free(&r);
}

static void test_plain_stderr_stays(void **state)
{
    (void)state;
    struct proc_result r;
    char *text = run_captured("echo 'netab run: error: connection refused' >&2; exit 1", &r);
    assert_false(r.sanitizer_report);
    assert_string_equal(text, "");
    assert_non_null(strstr(r.err_tail, "connection refused"));
    free(text);
    proc_result_free(&r);
}

/* proc_run_env(): extra variables reach the child, replace inherited ones, and stay out of ours. */
static void test_extra_env(void **state)
{
    (void)state;
    setenv("NETAB_TEST_INHERITED", "old", 1);
    char *extra[] = {"NETAB_TEST_INHERITED=new", "NETAB_TEST_ADDED=a b '$x'", NULL};
    struct proc_result r;
    char err[NB_ERRLEN];
    assert_int_equal(proc_run_shell_env("printf '%s|%s|%s' \"$NETAB_TEST_INHERITED\" "
                                        "\"$NETAB_TEST_ADDED\" \"$(env | grep -c "
                                        "'^NETAB_TEST_INHERITED=')\"",
                                        extra, 10, NULL, &r, err, sizeof(err)),
                     0);
    assert_string_equal(r.out, "new|a b '$x'|1");
    proc_result_free(&r);
    assert_string_equal(getenv("NETAB_TEST_INHERITED"), "old");
    assert_null(getenv("NETAB_TEST_ADDED"));
    unsetenv("NETAB_TEST_INHERITED");
}

/*
 * The waits are events (the child's pidfd, its pipes, a caught signal) and
 * the deadline: a child that exits while a background grandchild keeps its
 * pipes open is seen as exited with its own status, not as timed out.
 */
static void test_exit_beside_open_pipes(void **state)
{
    (void)state;
    struct proc_result r;
    char err[NB_ERRLEN];
    assert_int_equal(
        proc_run_shell("sleep 30 & echo started; exit 7", 60, NULL, &r, err, sizeof(err)), 0);
    assert_false(r.timed_out);
    assert_false(r.interrupted);
    assert_true(WIFEXITED(r.status));
    assert_int_equal(WEXITSTATUS(r.status), 7);
    assert_non_null(strstr(r.out, "started"));
    proc_result_free(&r);
}

/* A child that outlives its time limit is killed and said to have timed out. */
static void test_deadline(void **state)
{
    (void)state;
    struct proc_result r;
    char err[NB_ERRLEN];
    assert_int_equal(proc_run_shell("exec sleep 30", 0.2, NULL, &r, err, sizeof(err)), 0);
    assert_true(r.timed_out);
    assert_true(WIFSIGNALED(r.status));
    proc_result_free(&r);
}

static volatile sig_atomic_t stop_flag;

static void on_alarm(int sig)
{
    (void)sig;
    stop_flag = 1;
}

/* A signal whose handler sets *stop ends the wait: the child is killed, the run interrupted. */
static void test_stop_signal(void **state)
{
    (void)state;
    struct sigaction sa = {.sa_handler = on_alarm}, old;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGTERM, &sa, &old);
    stop_flag = 0;
    pid_t killer = fork();
    ASSERT_GE(killer, 0);
    if (killer == 0) {
        usleep(200000);
        kill(getppid(), SIGTERM);
        _exit(0);
    }
    struct proc_result r;
    char err[NB_ERRLEN];
    assert_int_equal(proc_run_shell("exec sleep 30", 60, &stop_flag, &r, err, sizeof(err)), 0);
    int st;
    assert_int_equal(waitpid(killer, &st, 0), killer);
    sigaction(SIGTERM, &old, NULL);
    assert_true(r.interrupted);
    assert_false(r.timed_out);
    assert_true(WIFSIGNALED(r.status));
    proc_result_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_report_is_passed_on),
        cmocka_unit_test(test_plain_stderr_stays),
        cmocka_unit_test(test_extra_env),
        cmocka_unit_test(test_exit_beside_open_pipes),
        cmocka_unit_test(test_deadline),
        cmocka_unit_test(test_stop_signal),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
