/*
 * Unit tests for the helpers the commands share (cli/cli_common.h): the
 * signal policy each command installs and restores, and the progress bar.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>
#include "netab_assert.h"

#include "capture.h"
#include "cli/cli_common.h"

static volatile sig_atomic_t caught, last;

static void count(int sig)
{
    caught++;
    last = sig;
}

static void (*handler_of(int sig))(int)
{
    struct sigaction sa;
    sigaction(sig, NULL, &sa);
    return sa.sa_handler;
}

/* Every listed signal, each time it comes, reaches the handler; restore puts the old ones back. */
static void test_signals(void **state)
{
    (void)state;
    signal(SIGUSR1, SIG_IGN);
    signal(SIGUSR2, SIG_DFL);
    struct cli_signals s;
    cli_signals_catch(&s, count, (const int[]){SIGUSR1, SIGUSR2, 0});
    caught = 0;
    raise(SIGUSR1);
    raise(SIGUSR1); /* a second signal is handled like the first */
    raise(SIGUSR2);
    ASSERT_EQ(caught, 3);
    ASSERT_EQ(last, SIGUSR2);
    cli_signals_restore(&s);
    assert_ptr_equal(handler_of(SIGUSR1), SIG_IGN);
    assert_ptr_equal(handler_of(SIGUSR2), SIG_DFL);
    /* At most CLI_SIGNALS_MAX signals are taken from the list; the rest are left alone. */
    cli_signals_catch(&s, count, (const int[]){SIGUSR1, SIGHUP, SIGALRM, SIGWINCH, SIGUSR2, 0});
    assert_ptr_equal(handler_of(SIGWINCH), count);
    assert_ptr_equal(handler_of(SIGUSR2), SIG_DFL);
    cli_signals_restore(&s);
    assert_ptr_equal(handler_of(SIGWINCH), SIG_DFL);
    signal(SIGUSR1, SIG_DFL);
}

/* Off a terminal the bar is not drawn; on one it is, and clearing it wipes the line once. */
static void test_progress(void **state)
{
    (void)state;
    struct cli_progress p = {.tty = false};
    struct capture c;
    capture_begin(&c, 2);
    cli_progress_bar(&p, 1, 3, '.', "0:10", "last: x");
    cli_progress_clear(&p);
    char *text = capture_end(&c);
    assert_string_equal(text, "");
    free(text);
    assert_false(p.shown);
    p.tty = true;
    capture_begin(&c, 2);
    cli_progress_bar(&p, 1, 3, '.', "0:10", "last: x");
    assert_true(p.shown);
    cli_progress_clear(&p);
    cli_progress_clear(&p);
    text = capture_end(&c);
    assert_string_equal(text, "\r\033[K[##########....................] 1/3  ETA 0:10  last: x"
                              "\r\033[K");
    free(text);
    assert_false(p.shown);
}

/* The ID operand of runs show, experiment status and resume: said the same way when bad. */
static void test_parse_id(void **state)
{
    (void)state;
    int64_t id = 0;
    struct capture c;
    capture_begin(&c, 2);
    assert_true(cli_parse_id("runs", "show", "run", "42", &id));
    assert_false(cli_parse_id("runs", "show", "run", NULL, &id));
    assert_false(cli_parse_id("experiment", "status", "experiment", "0", &id));
    char *text = capture_end(&c);
    ASSERT_EQ(id, 42);
    assert_string_equal(text, "netab runs: show: which run? (an ID from 'netab runs list')\n"
                              "(see 'netab runs --help')\n"
                              "netab experiment: status: '0' is out of range (expected an "
                              "integer from 1 to 9223372036854775807)\n"
                              "(see 'netab experiment --help')\n");
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_signals),
        cmocka_unit_test(test_progress),
        cmocka_unit_test(test_parse_id),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
