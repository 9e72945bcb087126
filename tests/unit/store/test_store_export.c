/*
 * store_export_path() (`netab runs export -o FILE`): the same bytes as
 * store_export() into a stream, and a file that cannot be written or fills
 * up said so.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include "netab_assert.h"

#include <string.h>

#include "helpers.h"
#include "store/store.h"

static void test_export_path(void **state)
{
    (void)state;
    char dir[] = "/tmp/netab-export-XXXXXX", path[64], out[80], err[512] = "";
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof(path), "%s/results.db", dir);
    snprintf(out, sizeof(out), "%s/runs.csv", dir);
    struct store *s = NULL;
    assert_int_equal(store_open(path, STORE_OPEN_CREATE, &s, err, sizeof(err)), 0);
    char *doc = fixture("tcp_stream.json");
    assert_non_null(doc);
    int64_t id;
    assert_int_equal(store_record_result(s, "netab run", doc, 0, &id, err, sizeof(err)), 0);
    free(doc);

    /* The file holds what the stream gets. */
    char *want = NULL;
    size_t want_len = 0;
    FILE *m = open_memstream(&want, &want_len);
    assert_non_null(m);
    assert_int_equal(store_export(s, STORE_ALL_RUNS, STORE_FORMAT_CSV, m, err, sizeof(err)), 0);
    assert_int_equal(fclose(m), 0);
    assert_int_equal(store_export_path(s, STORE_ALL_RUNS, STORE_FORMAT_CSV, out, err, sizeof(err)),
                     0);
    size_t got_len = 0;
    char *got = slurp(out, &got_len);
    assert_non_null(got);
    assert_int_equal(got_len, want_len);
    assert_memory_equal(got, want, want_len);
    ASSERT_STARTS_WITH(got, "id,experiment,seq,variant,cell,status,");
    free(got);
    free(want);

    /* A directory that does not exist: the path and the reason. */
    char bad[96];
    snprintf(bad, sizeof(bad), "%s/no/such/dir.csv", dir);
    assert_int_equal(store_export_path(s, STORE_ALL_RUNS, STORE_FORMAT_CSV, bad, err, sizeof(err)),
                     -ENOENT);
    char msg[256];
    snprintf(msg, sizeof(msg), "cannot write %s: %s", bad, strerror(ENOENT));
    assert_string_equal(err, msg);
    /* A full device (a character device is written as a stream): the export cannot be written. */
    assert_int_equal(
        store_export_path(s, STORE_ALL_RUNS, STORE_FORMAT_JSON, "/dev/full", err, sizeof(err)),
        -EIO);
    assert_non_null(strstr(err, "writing"));
    store_close(s);
    rm_tree(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_export_path),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
