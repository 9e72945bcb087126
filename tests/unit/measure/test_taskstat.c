/*
 * Unit tests for measure/taskstat: the parsers on fixed texts (a command
 * name with spaces and parentheses included), and live figures of real
 * threads checked against independent sources: the thread's CPU clock,
 * sleeps that must each switch context, and pages that must each fault.
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "netab_assert.h"

#include "measure/taskstat.h"

static void test_parsers(void **state)
{
    (void)state;
    uint64_t a = 0, b = 0;
    assert_int_equal(taskstat_parse_schedstat("117002 140738 2\n", &a), 0);
    assert_int_equal(a, 117002);
    assert_int_equal(taskstat_parse_schedstat("", &a), -EINVAL);

    const char *status = "Name:\tx\nvoluntary_ctxt_switches:\t12\nnonvoluntary_ctxt_switches:\t7\n";
    assert_int_equal(taskstat_parse_status(status, &a, &b), 0);
    assert_int_equal(a, 12);
    assert_int_equal(b, 7);
    assert_int_equal(taskstat_parse_status("Name:\tx\n", &a, &b), -EINVAL);

    /* A name holding ") (" must not shift the fields: minflt is field 10, majflt 12. */
    const char *stat = "11316 (a) (b c) R 11311 11311 1276 0 -1 4194304 100 5 3 0 0 0\n";
    assert_int_equal(taskstat_parse_stat(stat, &a, &b), 0);
    assert_int_equal(a, 100);
    assert_int_equal(b, 3);
    assert_int_equal(taskstat_parse_stat("11316 (x R 1", &a, &b), -EINVAL);

    const char *sched = "cat (1, #threads: 1)\n---\nse.exec_start   :  1.5\n"
                        "se.nr_migrations                             :                   41\n";
    assert_int_equal(taskstat_parse_sched(sched, &a), 0);
    assert_int_equal(a, 41);
    assert_int_equal(taskstat_parse_sched("se.exec_start : 1\n", &a), -EINVAL);
}

static void test_delta(void **state)
{
    (void)state;
    struct taskstat acc = {1, 1, 1, 1, 1, 1, true};
    struct taskstat a = {10, 5, 5, 5, 5, 5, true}, b = {30, 6, 9, 4, 5, 7, true};
    taskstat_add_delta(&acc, &a, &b);
    assert_int_equal(acc.cpu_ns, 21);
    assert_int_equal(acc.vcsw, 2);
    assert_int_equal(acc.ivcsw, 5);
    assert_int_equal(acc.minflt, 1); /* went back: counts 0 */
    assert_int_equal(acc.majflt, 1);
    assert_int_equal(acc.migrations, 3);
}

static uint64_t thread_cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The CPU time /proc reports lies between two readings of the thread's own CPU clock. */
static void test_self_cpu_time(void **state)
{
    (void)state;
    volatile uint64_t x = 0;
    uint64_t t0 = thread_cpu_ns();
    while (thread_cpu_ns() - t0 < 30000000u) /* 30 ms of CPU time, however long that takes */
        x++;
    struct taskstat t;
    uint64_t before = thread_cpu_ns();
    assert_int_equal(taskstat_self(&t), 0);
    uint64_t after = thread_cpu_ns();
    assert_in_range(t.cpu_ns, before - before / 100, after);
    ASSERT_GE(t.cpu_ns, 30000000u);
}

/* Every sleep is a voluntary switch; every first touch of a fresh page a minor fault. */
static void test_self_switches_and_faults(void **state)
{
    (void)state;
    struct taskstat a, b;
    assert_int_equal(taskstat_self(&a), 0);
    for (int i = 0; i < 20; i++)
        usleep(1000);
    size_t pages = 200, psz = (size_t)sysconf(_SC_PAGESIZE);
    char *m = mmap(NULL, pages * psz, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    assert_ptr_not_equal(m, MAP_FAILED);
    for (size_t i = 0; i < pages; i++)
        m[i * psz] = 1;
    assert_int_equal(taskstat_self(&b), 0);
    munmap(m, pages * psz);
    assert_in_range(b.vcsw - a.vcsw, 20, 1000);
    assert_in_range(b.minflt - a.minflt, pages, pages * 4);
}

static int pipefd[2];

static void *blocked(void *arg)
{
    *(int *)arg = (int)taskstat_gettid();
    char c;
    (void)!read(pipefd[0], &c, 1);
    return NULL;
}

/* Another live thread is readable by its id; an id that is no thread of ours is an error. */
static void test_other_thread(void **state)
{
    (void)state;
    assert_int_equal(pipe(pipefd), 0);
    volatile int tid = 0;
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, blocked, (void *)&tid), 0);
    while (!tid)
        usleep(1000);
    struct taskstat t;
    int rc;
    while ((rc = taskstat_thread(tid, &t)) == 0 && t.vcsw == 0)
        usleep(1000); /* until it has blocked in read() at least once */
    assert_int_equal(rc, 0);
    ASSERT_GE(t.vcsw, 1u);
    assert_int_equal(write(pipefd[1], "x", 1), 1);
    pthread_join(th, NULL);
    /* join returns as the thread exits; its /proc files may outlive that by a moment. */
    for (int i = 0; i < 5000 && (rc = taskstat_thread(tid, &t)) == 0; i++)
        usleep(1000);
    assert_int_equal(rc, -ENOENT);
    assert_int_equal(t.cpu_ns, 0);
    close(pipefd[0]);
    close(pipefd[1]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parsers),       cmocka_unit_test(test_delta),
        cmocka_unit_test(test_self_cpu_time), cmocka_unit_test(test_self_switches_and_faults),
        cmocka_unit_test(test_other_thread),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
