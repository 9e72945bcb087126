/*
 * Inputs read as a stream (plain numbers parsed as they are read, so that
 * memory holds 8 bytes per value) and the caps on values per input and in
 * all inputs together: lines across the 64 KiB buffer, a line longer than
 * it, a last line without '\n', NUL bytes past the first buffer, JSON past
 * the first buffer, and the messages that name the file, line and cap.
 */
#include "test_helpers.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "input/input.h"
#include "input/input_priv.h"
#include "netab_assert.h"

/* Writes text[0..len-1] to a new temporary file; its path goes into path. */
static void write_tmp(char *path, size_t pathlen, const char *text, size_t len)
{
    snprintf(path, pathlen, "/tmp/netab-input-stream-XXXXXX");
    int fd = mkstemp(path);
    ASSERT_GE(fd, 0);
    FILE *f = fdopen(fd, "w");
    assert_non_null(f);
    assert_int_equal(fwrite(text, 1, len, f), len);
    assert_int_equal(fclose(f), 0);
}

/* A growing text buffer for building inputs. */
struct text {
    char *s;
    size_t n, cap;
};

static void add(struct text *t, const char *s, size_t len)
{
    if (t->n + len + 1 > t->cap) {
        t->cap = (t->n + len + 1) * 2;
        t->s = realloc(t->s, t->cap);
        assert_non_null(t->s);
    }
    memcpy(t->s + t->n, s, len);
    t->n += len;
    t->s[t->n] = '\0';
}

static int read_file(const char *path, const struct input_opts *o, struct input_values *v,
                     char *err)
{
    memset(v, 0, sizeof(*v));
    err[0] = '\0';
    return input_read_path(path, o, v, err, NB_ERRLEN);
}

/*
 * 60,000 values in two columns, comments, blank lines, CRLF, a comment line
 * of 200,000 bytes (longer than the read buffer) and a last line without
 * '\n': every value arrives, in order, from either column.
 */
static void test_plain_stream(void **state)
{
    (void)state;
    struct text t = {0};
    char line[64], path[64], err[NB_ERRLEN];
    enum { N = 60000 };
    for (int k = 0; k < N; k++) {
        if (k == 30000) {
            add(&t, "#", 1);
            for (int j = 0; j < 200000; j++)
                add(&t, "x", 1);
            add(&t, "\n\n", 2);
        }
        int len = snprintf(line, sizeof(line), "%d.5 %d%s", k, -k,
                           k == N - 1   ? ""
                           : k % 7 == 0 ? " # seven\r\n"
                                        : "\n");
        add(&t, line, (size_t)len);
    }
    write_tmp(path, sizeof(path), t.s, t.n);
    for (unsigned col = 1; col <= 2; col++) {
        struct input_opts o = {.column = col};
        struct input_values v;
        int rc = read_file(path, &o, &v, err);
        if (rc)
            fail_msg("%s", err);
        assert_int_equal(v.format, INPUT_PLAIN);
        assert_int_equal(v.n, N);
        for (int k = 0; k < N; k++)
            if (v.v[k] != (col == 1 ? k + 0.5 : -k))
                fail_msg("column %u value %d: %.17g", col, k, v.v[k]);
        ASSERT_LE(v.cap, 2 * (size_t)N); /* 8 bytes a value, give or take the doubling */
        input_values_free(&v);
    }
    unlink(path);
    free(t.s);
}

/* A bad value far past the first buffer is reported with its line; a NUL byte with its offset. */
static void test_stream_errors(void **state)
{
    (void)state;
    struct text t = {0};
    char path[64], err[NB_ERRLEN];
    for (int k = 0; k < 50000; k++)
        add(&t, "12\n", 3);
    add(&t, "12oops\n", 7);
    write_tmp(path, sizeof(path), t.s, t.n);
    struct input_opts o = {0};
    struct input_values v;
    assert_int_equal(read_file(path, &o, &v, err), -EINVAL);
    char want[128];
    snprintf(want, sizeof(want), "%s:50001: '12oops' is not a number", path);
    if (!strstr(err, want))
        fail_msg("%s", err);
    input_values_free(&v);
    unlink(path);

    t.n = 150000;
    t.s[100000] = '\0';
    write_tmp(path, sizeof(path), t.s, t.n);
    assert_int_equal(read_file(path, &o, &v, err), -EINVAL);
    snprintf(want, sizeof(want), "%s is a binary file (a NUL byte at offset 100000)", path);
    if (!strstr(err, want))
        fail_msg("%s", err);
    input_values_free(&v);
    unlink(path);
    free(t.s);
}

/* JSON longer than the first buffer, and after 70,000 blanks, is read whole and detected. */
static void test_json_past_head(void **state)
{
    (void)state;
    struct text t = {0};
    char doc[96], path[64], err[NB_ERRLEN];
    for (int k = 0; k < 70000; k++)
        add(&t, " ", 1);
    for (int k = 0; k < 3000; k++) {
        int len =
            snprintf(doc, sizeof(doc), "{\"end\": {\"receiver\": {\"bits_per_second\": %d}}}\n", k);
        add(&t, doc, (size_t)len);
    }
    write_tmp(path, sizeof(path), t.s, t.n);
    struct input_opts o = {0};
    struct input_values v;
    int rc = read_file(path, &o, &v, err);
    if (rc)
        fail_msg("%s", err);
    assert_int_equal(v.format, INPUT_NETAB);
    assert_int_equal(v.n, 3000);
    for (int k = 0; k < 3000; k++)
        ASSERT_EQ(v.v[k], k);
    input_values_free(&v);
    unlink(path);
    free(t.s);
}

/*
 * The cap of all inputs together: with values_before just under it, the
 * value that passes it is refused, naming the file, its line and the cap;
 * the same values from a buffer are refused alike.
 */
static void test_total_cap(void **state)
{
    (void)state;
    char path[64], err[NB_ERRLEN], want[256];
    const char text[] = "1\n2\n3\n";
    write_tmp(path, sizeof(path), text, sizeof(text) - 1);
    struct input_opts o = {.values_before = INPUT_VALUES_TOTAL_MAX - 2};
    struct input_values v;
    assert_int_equal(read_file(path, &o, &v, err), -E2BIG);
    snprintf(want, sizeof(want),
             "%s:3: more than %zu values in all inputs together, the most netab reads (%zu in "
             "the inputs before this one)",
             path, INPUT_VALUES_TOTAL_MAX, INPUT_VALUES_TOTAL_MAX - 2);
    if (!strstr(err, want))
        fail_msg("%s", err);
    assert_int_equal(v.n, 2);
    input_values_free(&v);
    o.values_before = INPUT_VALUES_TOTAL_MAX - 3;
    assert_int_equal(read_file(path, &o, &v, err), 0);
    assert_int_equal(v.n, 3);
    input_values_free(&v);
    o.values_before = INPUT_VALUES_TOTAL_MAX;
    assert_int_equal(input_parse_buffer("b.txt", text, sizeof(text) - 1, &o, &v, err, NB_ERRLEN),
                     -E2BIG);
    assert_non_null(strstr(err, "b.txt:1: more than"));
    input_values_free(&v);
    unlink(path);
}

/*
 * A top-level array is read element by element: each element's errors
 * name its own line, and elements that are not documents are refused as
 * before (a scalar, a nested array).
 */
static void test_json_array_elements(void **state)
{
    (void)state;
    const char text[] = "[\n{\"end\": {\"receiver\": {\"bits_per_second\": 5}}},\n"
                        "{\"end\": {\"receiver\": {\"bits_per_second\": 6}}},\n"
                        "{\"end\": {}}\n]\n";
    struct input_opts o = {0};
    struct input_values v = {0};
    char err[NB_ERRLEN];
    int rc = input_parse_buffer("a.json", text, sizeof(text) - 1, &o, &v, err, NB_ERRLEN);
    assert_int_equal(rc, -EINVAL);
    if (!strstr(err, "a.json:4: the document has no 'end.receiver.bits_per_second'"))
        fail_msg("%s", err);
    assert_int_equal(v.n, 2);
    input_values_free(&v);
    const char *bad[][2] = {
        {"[1, 2]", "a.json:1: expected a JSON object (one run), got a scalar"},
        {"[[{\"a\": 1}]]", "a.json:1: expected a JSON object (one run), got an array"},
        {"[{\"end\": {\"receiver\": {\"bits_per_second\": 1}}} {\"a\": 2}]",
         "a.json:1: invalid JSON: ',' or ']' expected"},
        {"[{\"end\": {\"receiver\": {\"bits_per_second\": 1}}},", "a.json:1: invalid JSON"},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        o.format = INPUT_NETAB;
        rc = input_parse_buffer("a.json", bad[i][0], strlen(bad[i][0]), &o, &v, err, NB_ERRLEN);
        ASSERT_LT(rc, 0);
        if (!strstr(err, bad[i][1]))
            fail_msg("%s: %s", bad[i][0], err);
        input_values_free(&v);
    }
    const char empty[] = "[]\n[ ]";
    assert_int_equal(input_parse_buffer("e.json", empty, sizeof(empty) - 1, &o, &v, err, NB_ERRLEN),
                     0);
    assert_int_equal(v.n, 0);
}

/*
 * One document is weighed before jansson loads it (about 40 bytes a value,
 * 230 an object): 6,000,001 numbers in one array are refused at once, a
 * document just under the weight is read.
 */
static void test_json_document_cost(void **state)
{
    (void)state;
    struct text t = {0};
    const char head[] = "{\"end\": {\"receiver\": {\"bits_per_second\": 7}}, \"x\": [0";
    add(&t, head, sizeof(head) - 1);
    /* So far 1 + 5 + 5 + 5 ('{' thrice) + 1 (',') + 5 ('[') = 22; each ",0" adds 1. */
    for (size_t k = 0; k < INPUT_JSON_COST_MAX - 31; k++)
        add(&t, ",0", 2);
    add(&t, "]}", 2);
    struct input_opts o = {0};
    struct input_values v = {0};
    char err[NB_ERRLEN];
    int rc = input_parse_buffer("w.json", t.s, t.n, &o, &v, err, NB_ERRLEN);
    if (rc)
        fail_msg("%s", err);
    assert_int_equal(v.n, 1);
    input_values_free(&v);
    t.n -= 2;
    for (int k = 0; k < 40; k++)
        add(&t, ",0", 2);
    add(&t, "]}", 2);
    rc = input_parse_buffer("w.json", t.s, t.n, &o, &v, err, NB_ERRLEN);
    assert_int_equal(rc, -E2BIG);
    if (!strstr(err, "w.json:1: the JSON document holds more than 6000000 values"))
        fail_msg("%s", err);
    input_values_free(&v);
    free(t.s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plain_stream),        cmocka_unit_test(test_stream_errors),
        cmocka_unit_test(test_json_past_head),      cmocka_unit_test(test_total_cap),
        cmocka_unit_test(test_json_array_elements), cmocka_unit_test(test_json_document_cost),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
