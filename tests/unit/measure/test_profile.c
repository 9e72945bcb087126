/*
 * Unit tests for the sampled profile: the raw counts (profile_agg), the
 * symboliser on a kallsyms fixture and on this very test binary's own
 * functions through its maps and ELF symbols, the checker of a peer's
 * profile, and a live profile of a busy loop on CPU 0 that must name it.
 */
#include <errno.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "netab_assert.h"

#include "measure/profile.h"
#include "measure/profile_agg.h"
#include "measure/profile_priv.h"
#include "measure/profile_sym.h"

static void test_agg(void **state)
{
    (void)state;
    struct pagg a = {0};
    for (int i = 0; i < 5; i++)
        assert_int_equal(pagg_add(&a, 0x1000, 0x2000, 42), 0);
    assert_int_equal(pagg_add(&a, 0x1000, 0x2000, 43), 0);        /* another process */
    assert_int_equal(pagg_add(&a, 0xffffffff81000000, 7, 42), 0); /* kernel: pid dropped */
    assert_int_equal(pagg_add(&a, 0xffffffff81000000, 7, 99), 0);
    assert_int_equal(a.samples, 8);
    assert_int_equal(a.used, 3);
    uint32_t seen[3] = {0};
    for (size_t i = 0; i < a.cap; i++) {
        const struct pagg_entry *e = &a.slots[i];
        if (!e->count)
            continue;
        if (e->ip == 0x1000)
            seen[e->pid == 42 ? 0 : 1] = e->count;
        else
            seen[2] = e->pid == 0 ? e->count : 1000;
    }
    assert_int_equal(seen[0], 5);
    assert_int_equal(seen[1], 1);
    assert_int_equal(seen[2], 2);
    pagg_free(&a);
}

/* Past PAGG_MAX_ENTRIES distinct triples, new ones are unattributed; old ones still count. */
static void test_agg_bound(void **state)
{
    (void)state;
    struct pagg a = {0};
    for (uint64_t i = 0; i < PAGG_MAX_ENTRIES + 10; i++)
        pagg_add(&a, 0x1000 + i, 0, 1);
    assert_int_equal(a.used, PAGG_MAX_ENTRIES);
    assert_int_equal(a.unattributed, 10);
    assert_int_equal(pagg_add(&a, 0x1000, 0, 1), 0);
    assert_int_equal(a.samples, PAGG_MAX_ENTRIES + 11);
    pagg_free(&a);
}

/* A group's counts beside the samples: summed per triple, kept through the table's growth. */
static void test_agg_vals(void **state)
{
    (void)state;
    struct pagg a = {.nval = 2};
    const uint64_t v[2] = {10, 3};
    for (uint64_t i = 0; i < 5000; i++) /* several growths */
        assert_int_equal(pagg_add_vals(&a, 0x1000 + i % 2000, 0, 1, v), 0);
    uint64_t sum[2] = {0};
    for (size_t i = 0; i < a.cap; i++)
        if (a.slots[i].count) {
            const uint64_t *c = pagg_vals(&a, i);
            if (a.slots[i].ip == 0x1000)
                ASSERT_EQ(c[0], 30); /* 3 samples */
            sum[0] += c[0];
            sum[1] += c[1];
        }
    ASSERT_EQ(sum[0], 50000);
    ASSERT_EQ(sum[1], 15000);
    assert_int_equal(pagg_add(&a, 0x1000, 0, 1), 0); /* no counts: adds none */
    pagg_free(&a);
}

/* Each stream's counts grow from its own previous sample; the first takes all it counted. */
static void test_group_take(void **state)
{
    (void)state;
    struct profile p = {0};
    p.grp.nev = 2;
    uint64_t d[PROFILE_MAX_EVENTS];
    const uint64_t s1[] = {7, 2, 100, 40}, s2[] = {9, 2, 50, 5}, s3[] = {7, 2, 130, 41};
    ASSERT_EQ(profile_group_take(&p, s1, 4, d), 4);
    ASSERT_EQ(d[0], 100);
    ASSERT_EQ(d[1], 40);
    ASSERT_EQ(profile_group_take(&p, s2, 4, d), 4); /* another stream */
    ASSERT_EQ(d[0], 50);
    ASSERT_EQ(profile_group_take(&p, s3, 4, d), 4);
    ASSERT_EQ(d[0], 30);
    ASSERT_EQ(d[1], 1);
    ASSERT_EQ(p.grp.sampled[0], 180);
    ASSERT_EQ(p.grp.sampled[1], 46);
    const uint64_t bad[] = {7, 3, 1, 2, 3}; /* not this group's number of events */
    ASSERT_EQ(profile_group_take(&p, bad, 5, d), 0);
    ASSERT_EQ(profile_group_take(&p, s1, 3, d), 0); /* cut short */
    profile_group_free(&p);
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void test_kernel_symbols(void **state)
{
    (void)state;
    char path[] = "/tmp/netab-kallsyms-XXXXXX";
    int fd = mkstemp(path);
    ASSERT_GE(fd, 0);
    close(fd);
    write_file(path, "ffffffff81000000 T _stext\nffffffff81000100 t foo\n"
                     "ffffffff81000200 T bar\t[veth]\nffffffff81000300 D some_data\n");
    struct psym s;
    psym_init(&s);
    s.kallsyms = path;
    const char *sym, *mod;
    psym_lookup(&s, 0xffffffff81000150, 0, &sym, &mod);
    assert_string_equal(sym, "foo");
    assert_string_equal(mod, "[kernel]");
    psym_lookup(&s, 0xffffffff81000100, 0, &sym, &mod);
    assert_string_equal(sym, "foo");
    psym_lookup(&s, 0xffffffff80000000, 0, &sym, &mod);
    assert_string_equal(sym, "[unknown]");
    psym_free(&s);
    /* What kptr_restrict shows the unprivileged: every address 0. Nothing is named. */
    write_file(path, "0000000000000000 T _stext\n0000000000000000 t foo\n");
    psym_init(&s);
    s.kallsyms = path;
    psym_lookup(&s, 0xffffffff81000150, 0, &sym, &mod);
    assert_string_equal(sym, "[unknown]");
    psym_free(&s);
    unlink(path);
}

__attribute__((noinline)) int netab_test_marker_function(int x);
__attribute__((noinline)) int netab_test_marker_function(int x)
{
    return x * 3 + 1;
}

/* This binary's own function, named through /proc/self/maps and its ELF symbols. */
static void test_user_symbols(void **state)
{
    (void)state;
    assert_int_equal(netab_test_marker_function(1), 4);
    struct psym s;
    psym_init(&s);
    const char *sym, *mod;
    uint64_t ip = (uint64_t)(uintptr_t)&netab_test_marker_function + 4;
    psym_lookup(&s, ip, (uint32_t)getpid(), &sym, &mod);
    assert_string_equal(sym, "netab_test_marker_function");
    assert_string_equal(mod, "test_profile");
    psym_free(&s);
    /* Maps given as text: an address outside every executable mapping is unknown. */
    psym_init(&s);
    s.proc_root = "/nonexistent";
    assert_int_equal(psym_add_maps(&s, 7,
                                   "1000-2000 r-xp 00000000 00:00 0 [vdso]\n"
                                   "3000-4000 rw-p 00000000 00:00 0 /data\nnot a line\n"),
                     0);
    psym_lookup(&s, 0x1800, 7, &sym, &mod);
    assert_string_equal(mod, "[vdso]");
    assert_string_equal(sym, "[unknown]");
    psym_lookup(&s, 0x3800, 7, &sym, &mod);
    assert_string_equal(mod, "[unknown]");
    psym_free(&s);
}

/* The mapping of /proc/self/maps that holds addr: its start, end, offset and path. */
static void own_mapping(uint64_t addr, uint64_t *lo, uint64_t *hi, uint64_t *off, char *path)
{
    FILE *f = fopen("/proc/self/maps", "r");
    assert_non_null(f);
    char line[1024];
    bool found = false;
    while (!found && fgets(line, sizeof(line), f)) {
        unsigned long long a, b, o;
        if (sscanf(line, "%llx-%llx %*s %llx %*s %*s %1023s", &a, &b, &o, path) == 4 && addr >= a &&
            addr < b) {
            *lo = a, *hi = b, *off = o;
            found = true;
        }
    }
    fclose(f);
    assert_true(found);
}

/*
 * Processes known only from the records (no /proc to read): an exited
 * process's mapping names its function; a child it forked has its
 * mappings until it execs; after exec only its name is left; a file whose
 * inode is not the mapped one and that changed since names nothing.
 */
static void test_records(void **state)
{
    (void)state;
    uint64_t ip = (uint64_t)(uintptr_t)&netab_test_marker_function + 4, lo = 0, hi = 0, off = 0;
    char path[1024];
    own_mapping(ip, &lo, &hi, &off, path);
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    struct psym s;
    psym_init(&s);
    s.proc_root = "/nonexistent";
    s.since = 1;
    const char *sym, *mod;
    assert_int_equal(psym_add_mmap(&s, 42, lo, hi - lo, off, path, (uint64_t)st.st_ino), 0);
    assert_int_equal(psym_add_mmap(&s, 42, lo, hi - lo, off, path, (uint64_t)st.st_ino), 0);
    assert_int_equal(s.nmaps, 1); /* the same record from another event: kept once */
    psym_comm(&s, 42, "tester", false);
    psym_exit(&s, 42);
    psym_lookup(&s, ip, 42, &sym, &mod);
    assert_string_equal(sym, "netab_test_marker_function");
    assert_string_equal(mod, "test_profile");
    psym_fork(&s, 43, 42);
    psym_lookup(&s, ip, 43, &sym, &mod);
    assert_string_equal(sym, "netab_test_marker_function");
    psym_comm(&s, 43, "other", true);
    psym_lookup(&s, ip, 43, &sym, &mod);
    assert_string_equal(sym, "[unknown]");
    assert_string_equal(mod, "other");
    /* A name returned stays valid while further processes are learnt (ASan would see it). */
    for (uint32_t pid = 1000; pid < 1300; pid++)
        psym_comm(&s, pid, "many", false);
    assert_string_equal(mod, "other");
    assert_int_equal(psym_add_mmap(&s, 44, lo, hi - lo, off, path, (uint64_t)st.st_ino + 1), 0);
    psym_lookup(&s, ip, 44, &sym, &mod);
    assert_string_equal(sym, "[unknown]");
    assert_string_equal(mod, "test_profile");
    psym_free(&s);
}

/* --profile's lists: known events, each once, at most PROFILE_MAX_EVENTS, no empty member. */
static void test_event_list(void **state)
{
    (void)state;
    enum profile_event e[PROFILE_MAX_EVENTS];
    assert_int_equal(profile_events_from_list("cycles,instructions,L1-icache-load-misses", e), 3);
    assert_int_equal(e[0], PROFILE_CYCLES);
    assert_int_equal(e[2], PROFILE_L1I_MISSES);
    assert_int_equal(profile_events_from_list("cpu-clock", e), 1);
    assert_int_equal(profile_events_from_list("cycles,cycles", e), -EINVAL);
    assert_int_equal(profile_events_from_list("cycles,", e), -EINVAL);
    assert_int_equal(profile_events_from_list("", e), -EINVAL);
    assert_int_equal(profile_events_from_list("cycles,bogus", e), -EINVAL);
    assert_int_equal(profile_events_from_list("cpu-clock,cycles,instructions,"
                                              "L1-icache-load-misses,iTLB-load-misses",
                                              e),
                     -EINVAL);
}

static const char *valid_doc =
    "{\"event\": \"cpu-clock\", \"frequency\": 999, \"cpus\": [0, 1], \"seconds\": 2.0,"
    " \"monotonic_start\": 1234.5,"
    " \"samples\": 3996, \"expected_samples\": 3996.0, \"lost\": 0, \"unattributed\": 0,"
    " \"distinct_functions\": 1, \"functions\": [{\"symbol\": \"_copy_to_iter\","
    " \"module\": \"[kernel]\", \"samples\": 400, \"share_pct\": 10.01,"
    " \"callers\": [{\"symbol\": \"tcp_recvmsg_locked\", \"samples\": 390}]}]}";

static int check_text(const char *text)
{
    json_t *j = json_loads(text, 0, NULL);
    assert_non_null(j);
    char err[NB_ERRLEN] = "";
    int rc = profile_check(j, err, sizeof(err));
    if (rc)
        assert_string_equal(err, "peer's profile is malformed");
    json_decref(j);
    return rc;
}

static void test_check(void **state)
{
    (void)state;
    assert_int_equal(check_text(valid_doc), 0);
    assert_int_equal(check_text("{\"event\": \"cpu-clock\", \"frequency\": 999, \"cpus\": [0],"
                                " \"why\": \"perf_event_paranoid=2\"}"),
                     0);
    /* Each of these is one change away from the valid document. */
    const char *bad[][2] = {
        {"\"share_pct\": 10.01", "\"share_pct\": 100.5"},
        {"\"samples\": 3996,", "\"samples\": -1,"},
        {"\"event\": \"cpu-clock\"", "\"event\": \"bogus\""},
        {"\"lost\": 0,", "\"lost\": 0, \"extra\": 1,"},
        {"\"cpus\": [0, 1]", "\"cpus\": [0, 99999]"},
        {"\"frequency\": 999", "\"frequency\": 999.5"},
        {"\"samples\": 390}", "\"samples\": 390, \"x\": 1}"},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        char doc[2048];
        const char *at = strstr(valid_doc, bad[i][0]);
        assert_non_null(at);
        snprintf(doc, sizeof(doc), "%.*s%s%s", (int)(at - valid_doc), valid_doc, bad[i][1],
                 at + strlen(bad[i][0]));
        assert_int_equal(check_text(doc), -EPROTO);
    }
}

/* The scope and its figures: optional (a peer before scopes sends none), but whole. */
static void test_check_scope(void **state)
{
    (void)state;
    const char *scope = "\"lost\": 0, \"scope\": \"test\", \"idle_samples\": 5, \"idle_pct\": 1.5,"
                        " \"kernel_work_samples\": 3, \"other_samples\": 9, \"note\": null,";
    const char *cases[][2] = {
        {scope, NULL},
        {"\"lost\": 0, \"scope\": \"system\", \"idle_samples\": 5, \"idle_pct\": null,"
         " \"kernel_work_samples\": 0, \"other_samples\": 0, \"note\": \"no idle share\",",
         NULL},
        {"\"lost\": 0, \"scope\": \"host\", \"idle_samples\": 5, \"idle_pct\": 1.5,"
         " \"kernel_work_samples\": 3, \"other_samples\": 9, \"note\": null,",
         "bad"},
        {"\"lost\": 0, \"scope\": \"test\", \"idle_samples\": 5, \"idle_pct\": 1.5,"
         " \"other_samples\": 9, \"note\": null,",
         "bad"},
        {"\"lost\": 0, \"idle_samples\": 5,", "bad"},
        {"\"lost\": 0, \"scope\": \"test\", \"idle_samples\": 5, \"idle_pct\": 101,"
         " \"kernel_work_samples\": 3, \"other_samples\": 9, \"note\": null,",
         "bad"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char doc[2048];
        const char *at = strstr(valid_doc, "\"lost\": 0,");
        assert_non_null(at);
        snprintf(doc, sizeof(doc), "%.*s%s%s", (int)(at - valid_doc), valid_doc, cases[i][0],
                 at + strlen("\"lost\": 0,"));
        assert_int_equal(check_text(doc), cases[i][1] ? -EPROTO : 0);
    }
    assert_int_equal(check_text("{\"event\": \"cpu-clock\", \"frequency\": 999, \"cpus\": [0],"
                                " \"scope\": \"test\", \"why\": \"perf_event_paranoid=2\"}"),
                     0);
    assert_int_equal(check_text("{\"event\": \"cpu-clock\", \"frequency\": 999, \"cpus\": [0],"
                                " \"scope\": \"test\", \"note\": null, \"why\": \"x\"}"),
                     -EPROTO);
}

/* A group: optional, whole, its functions' figures as many as its events. */
static void test_check_group(void **state)
{
    (void)state;
    const char *group = "\"lost\": 0, \"group\": {\"events\": [\"cpu-clock\", \"task-clock\"],"
                        " \"counted\": [10, 9], \"sampled\": [9, 9], \"attributed\": [5, 5]},";
    const char *fn = "\"share_pct\": 10.01,";
    const char *cases[][3] = {
        {group,
         "\"share_pct\": 10.01, \"counts\": [4, 4], \"shares_pct\": [80, 80],"
         " \"ipc\": null, \"l1i_mpki\": 3.5,",
         NULL},
        {group, fn, "bad"}, /* functions without their figures */
        {"\"lost\": 0,",
         "\"share_pct\": 10.01, \"counts\": [4, 4], \"shares_pct\": [80, 80],"
         " \"ipc\": null, \"l1i_mpki\": null,",
         "bad"}, /* figures without a group */
        {group,
         "\"share_pct\": 10.01, \"counts\": [4], \"shares_pct\": [80, 80],"
         " \"ipc\": null, \"l1i_mpki\": null,",
         "bad"},
        {"\"lost\": 0, \"group\": {\"events\": [\"cpu-clock\", \"bogus\"], \"counted\": [1, 1],"
         " \"sampled\": [1, 1], \"attributed\": [1, 1]},",
         fn, "bad"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char a[2048], doc[2048];
        const char *at = strstr(valid_doc, "\"lost\": 0,");
        snprintf(a, sizeof(a), "%.*s%s%s", (int)(at - valid_doc), valid_doc, cases[i][0],
                 at + strlen("\"lost\": 0,"));
        at = strstr(a, fn);
        snprintf(doc, sizeof(doc), "%.*s%s%s", (int)(at - a), a, cases[i][1], at + strlen(fn));
        assert_int_equal(check_text(doc), cases[i][2] ? -EPROTO : 0);
    }
}

/* valid_doc with a "full" member made from text; profile_check()'s result. */
static int check_full(const char *full_text)
{
    json_t *j = json_loads(valid_doc, 0, NULL);
    json_t *full = json_loads(full_text, 0, NULL);
    assert_non_null(j);
    assert_non_null(full);
    json_object_set_new(j, "full", full);
    char err[NB_ERRLEN] = "";
    int rc = profile_check(j, err, sizeof(err));
    json_decref(j);
    return rc;
}

/* The full list: optional, exactly its three members, counts by module and symbol, bounded. */
static void test_check_full(void **state)
{
    (void)state;
    const char *ok = "{\"functions\": {\"[kernel]\": {\"_copy_to_iter\": 400, \"x\": 1},"
                     " \"netab\": {\"main\": 3}}, \"omitted_functions\": 0,"
                     " \"omitted_samples\": 0}";
    assert_int_equal(check_full(ok), 0);
    const char *bad[] = {
        "{\"functions\": {\"[kernel]\": {\"f\": -1}}, \"omitted_functions\": 0,"
        " \"omitted_samples\": 0}",
        "{\"functions\": {\"[kernel]\": {\"f\": 1.5}}, \"omitted_functions\": 0,"
        " \"omitted_samples\": 0}",
        "{\"functions\": {\"[kernel]\": [1]}, \"omitted_functions\": 0, \"omitted_samples\": 0}",
        "{\"functions\": {}, \"omitted_functions\": 0}",
        "{\"functions\": {}, \"omitted_functions\": 0, \"omitted_samples\": 0, \"x\": 0}",
        "{\"functions\": {}, \"omitted_functions\": -2, \"omitted_samples\": 0}",
        "[]",
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        assert_int_equal(check_full(bad[i]), -EPROTO);
    /* More rows than a sender's byte budget can hold (each costs at least 24 bytes). */
    json_t *many = json_object(), *mod = json_object();
    char name[32];
    for (int i = 0; i <= PROFILE_FULL_BYTES / 24; i++) {
        snprintf(name, sizeof(name), "f%d", i);
        json_object_set_new(mod, name, json_integer(1));
    }
    json_object_set_new(many, "k", mod);
    json_t *doc = json_pack("{s:o, s:i, s:i}", "functions", many, "omitted_functions", 0,
                            "omitted_samples", 0);
    char *text = json_dumps(doc, 0);
    json_decref(doc);
    assert_non_null(text);
    assert_int_equal(check_full(text), -EPROTO);
    free(text);
}

/*
 * The full list's bound: 20,000 functions of 14-character names (38 bytes
 * each against the budget) with falling counts. It lists the first ones
 * while they fit, counts the rest as omitted (no omitted function has more
 * samples than a listed one), and its counts add up to the input's.
 */
static void test_full_bound(void **state)
{
    (void)state;
    enum { N = 20000 };
    static char names[N][16];
    static struct profile_fn fns[N];
    uint64_t total = 0;
    for (int i = 0; i < N; i++) {
        snprintf(names[i], sizeof(names[i]), "function_%05d", i);
        fns[i] = (struct profile_fn){
            .symbol = names[i], .module = i % 2 ? "[kernel]" : "prog", .self = (uint64_t)(N - i)};
        total += fns[i].self;
    }
    json_t *full = profile_full_json(fns, N);
    assert_non_null(full);
    json_t *mods = json_object_get(full, "functions");
    size_t rows = 0, bytes = 0;
    json_int_t listed = 0, least = INT64_MAX;
    const char *mod, *sym;
    json_t *m, *n;
    json_object_foreach(mods, mod, m)
    {
        bytes += strlen(mod) + 24;
        json_object_foreach(m, sym, n)
        {
            rows++;
            bytes += strlen(sym) + 24;
            listed += json_integer_value(n);
            if (json_integer_value(n) < least)
                least = json_integer_value(n);
        }
    }
    json_int_t omitted = json_integer_value(json_object_get(full, "omitted_functions"));
    ASSERT_LE(bytes, PROFILE_FULL_BYTES);
    ASSERT_GT(bytes + 38, PROFILE_FULL_BYTES); /* the next row would not have fitted */
    ASSERT_EQ(rows + (size_t)omitted, N);
    ASSERT_EQ((uint64_t)(listed + json_integer_value(json_object_get(full, "omitted_samples"))),
              total);
    ASSERT_EQ(least, N - (json_int_t)rows + 1); /* the listed ones are the busiest */
    json_decref(full);
}

__attribute__((noinline)) uint64_t netab_test_spin(uint64_t n);
__attribute__((noinline)) uint64_t netab_test_spin(uint64_t n)
{
    volatile uint64_t x = 0;
    for (uint64_t i = 0; i < n; i++)
        x += i * i;
    return x;
}

static uint64_t thread_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/*
 * A busy loop on CPU 0 for 300 ms of CPU time: as root it must be in the
 * profile's top functions, in either scope (in the test's, as one of this
 * process's threads).
 */
static void live(enum profile_scope scope)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(0, &set);
    assert_int_equal(sched_setaffinity(0, sizeof(set), &set), 0);
    int cpu = 0;
    enum profile_event ev = PROFILE_CPU_CLOCK;
    struct profile *p = profile_open(&ev, 1, 999, scope, &cpu, 1);
    assert_non_null(p);
    profile_enable(p);
    uint64_t t0 = thread_ms();
    while (thread_ms() - t0 < 300)
        netab_test_spin(100000);
    profile_disable(p);
    json_t *j = profile_json(p, PROFILE_TOP);
    char err[NB_ERRLEN];
    assert_int_equal(profile_check(j, err, sizeof(err)), 0);
    const char *why = json_string_value(json_object_get(j, "why"));
    if (geteuid() != 0) {
        /* Unprivileged, system-wide sampling needs perf_event_paranoid <= 0. */
        if (why)
            assert_non_null(strstr(why, "perf_event_paranoid"));
    }
    if (!why) {
        /*
         * 300 ms of this thread's CPU time on CPU 0 sampled at 999 Hz: about
         * 300 samples in the loop, however busy CPU 0 is with other work.
         */
        json_int_t spin = 0;
        size_t i;
        json_t *f;
        json_array_foreach(json_object_get(j, "functions"), i, f)
        {
            /* The compiler may clone it ("netab_test_spin.constprop.0"). */
            if (!strncmp(json_string_value(json_object_get(f, "symbol")), "netab_test_spin", 15))
                spin += json_integer_value(json_object_get(f, "samples"));
        }
        print_message("netab_test_spin: %lld samples of %lld\n", (long long)spin,
                      (long long)json_integer_value(json_object_get(j, "samples")));
        assert_in_range(spin, 200, 400);
        /* The full list holds every sample that has a function, the loop's included. */
        json_t *full = json_object_get(j, "full");
        json_int_t sum = json_integer_value(json_object_get(full, "omitted_samples")) +
                         json_integer_value(json_object_get(j, "unattributed"));
        json_int_t spin_full = 0;
        const char *mname, *sname;
        json_t *m, *n;
        json_object_foreach(json_object_get(full, "functions"), mname, m)
        {
            json_object_foreach(m, sname, n)
            {
                sum += json_integer_value(n);
                if (!strncmp(sname, "netab_test_spin", 15))
                    spin_full += json_integer_value(n);
            }
        }
        ASSERT_EQ(sum, json_integer_value(json_object_get(j, "samples")));
        ASSERT_EQ(spin_full, spin);
    } else {
        ASSERT_NE(geteuid(), 0);
    }
    assert_string_equal(json_string_value(json_object_get(j, "scope")), profile_scope_name(scope));
    json_decref(j);
    profile_free(p);
}

static void test_live(void **state)
{
    (void)state;
    live(PROFILE_SCOPE_SYSTEM);
    live(PROFILE_SCOPE_TEST);
}

/*
 * A group of two software events (every machine has them) in the test's
 * scope: a busy loop of 300 ms of this thread's CPU time (its clock, an
 * independent count) gets about 300 ms of task-clock and of cpu-clock,
 * and the kernel's counters read at the end agree with the samples' sum.
 */
static void test_live_group(void **state)
{
    (void)state;
    if (geteuid() != 0)
        skip();
    enum profile_event ev[2] = {PROFILE_CPU_CLOCK, PROFILE_TASK_CLOCK};
    int cpu = 0;
    struct profile *p = profile_open(ev, 2, 999, PROFILE_SCOPE_TEST, &cpu, 1);
    assert_non_null(p);
    profile_enable(p);
    uint64_t t0 = thread_ms();
    while (thread_ms() - t0 < 300)
        netab_test_spin(100000);
    profile_disable(p);
    json_t *j = profile_json(p, PROFILE_TOP);
    char err[NB_ERRLEN];
    assert_int_equal(profile_check(j, err, sizeof(err)), 0);
    assert_null(json_object_get(j, "why"));
    json_t *g = json_object_get(j, "group");
    assert_non_null(g);
    for (size_t k = 0; k < 2; k++) {
        double counted =
            (double)json_integer_value(json_array_get(json_object_get(g, "counted"), k));
        double sampled =
            (double)json_integer_value(json_array_get(json_object_get(g, "sampled"), k));
        print_message("event %zu: counted %.0f, sampled %.0f\n", k, counted, sampled);
        /* Only what each stream counted after its last sample is not in a sample. */
        ASSERT_LE(sampled, counted);
        ASSERT_GE(sampled, 0.95 * counted);
    }
    size_t i;
    json_t *f;
    double spin[2] = {0};
    json_array_foreach(json_object_get(j, "functions"), i, f)
    {
        if (!strncmp(json_string_value(json_object_get(f, "symbol")), "netab_test_spin", 15))
            for (size_t k = 0; k < 2; k++)
                spin[k] +=
                    (double)json_integer_value(json_array_get(json_object_get(f, "counts"), k));
    }
    print_message("netab_test_spin: cpu-clock %.0f ns, task-clock %.0f ns of 300 ms\n", spin[0],
                  spin[1]);
    for (size_t k = 0; k < 2; k++) {
        ASSERT_GE(spin[k], 0.8 * 300e6);
        ASSERT_LE(spin[k], 1.2 * 300e6);
    }
    json_decref(j);
    profile_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_agg),
        cmocka_unit_test(test_agg_bound),
        cmocka_unit_test(test_agg_vals),
        cmocka_unit_test(test_group_take),
        cmocka_unit_test(test_kernel_symbols),
        cmocka_unit_test(test_user_symbols),
        cmocka_unit_test(test_records),
        cmocka_unit_test(test_event_list),
        cmocka_unit_test(test_check),
        cmocka_unit_test(test_check_scope),
        cmocka_unit_test(test_check_group),
        cmocka_unit_test(test_check_full),
        cmocka_unit_test(test_full_bound),
        cmocka_unit_test(test_live),
        cmocka_unit_test(test_live_group),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
