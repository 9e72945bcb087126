/*
 * bisect/dutfile.h: the experiment file of netab bisect --experiment, its
 * templates filled in per commit, and every key it cannot use refused by
 * name.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "bisect/dutfile.h"
#include "netab_assert.h"

#define HASH "0123456789abcdef0123456789abcdef01234567"

static const char good_file[] = "name: k\n"
                                "dut:\n"
                                "  ssh: root@198.18.0.2\n"
                                "  boot_timeout: 30\n"
                                "test:\n"
                                "  time: 2\n"
                                "variants:\n"
                                "  - name: kernel\n"
                                "    opts: -R\n"
                                "    boot: kexec -l /boot/vmlinuz-{commit} && systemctl kexec\n"
                                "    expect: '-g{short}$'\n";

static void test_expand(void **state)
{
    (void)state;
    char *s = bisect_dutfile_expand("/boot/{commit} {short}x{short} a{2,3} {com", HASH);
    assert_non_null(s);
    assert_string_equal(s, "/boot/" HASH " 0123456789abx0123456789ab a{2,3} {com");
    free(s);
}

static void test_load(void **state)
{
    (void)state;
    struct bisect_dutfile f;
    char err[512];
    int rc = bisect_dutfile_load("k.yaml", good_file, strlen(good_file), &f, err, sizeof(err));
    assert_int_equal(rc, 0);
    /* The test: options, then the variant's opts; neither "run" nor "--json". */
    ASSERT_EQ(f.nwords, (size_t)3);
    assert_string_equal(f.words[0], "-t");
    assert_string_equal(f.words[1], "2");
    assert_string_equal(f.words[2], "-R");
    assert_null(f.words[3]);
    assert_string_equal(f.e->dut->ssh, "root@198.18.0.2");
    char *boot = bisect_dutfile_expand(f.e->variants[0].boot, HASH);
    assert_string_equal(boot, "kexec -l /boot/vmlinuz-" HASH " && systemctl kexec");
    free(boot);
    bisect_dutfile_free(&f);
    assert_null(f.e);
}

/* good_file with `from` replaced by `to`: the load must fail naming `want`. */
static void refused(const char *from, const char *to, const char *want)
{
    char text[2048];
    const char *at = strstr(good_file, from);
    assert_non_null(at);
    snprintf(text, sizeof(text), "%.*s%s%s", (int)(at - good_file), good_file, to,
             at + strlen(from));
    struct bisect_dutfile f;
    char err[512] = "";
    int rc = bisect_dutfile_load("k.yaml", text, strlen(text), &f, err, sizeof(err));
    ASSERT_NE(rc, 0);
    if (!strstr(err, want) || strncmp(err, "k.yaml", 6))
        fail_msg("'%s' -> '%s': error '%s' does not name '%s'", from, to, err, want);
    assert_null(f.e);
}

static void test_refusals(void **state)
{
    (void)state;
    refused("dut:\n  ssh: root@198.18.0.2\n  boot_timeout: 30\n", "", "boot");
    refused("/boot/vmlinuz-{commit}", "/boot/vmlinuz", "its boot must name {commit} or {short}");
    refused("-g{short}$", "-g$", "its expect must name {commit} or {short}");
    refused("name: k\n", "name: k\nruns: 10\n", "runs/warmup (use --runs, --warmup)");
    refused("name: k\n", "name: k\nseed: 3\n", "seed (use --seed)");
    refused("name: k\n", "name: k\norder: blocked\n", "order");
    refused("name: k\n", "name: k\nprepare: 'true'\n", "prepare");
    refused("    opts: -R\n", "    opts: -R\n    setup: 'true'\n", "setup/teardown");
    refused("test:\n", "matrix:\n  streams: [1, 2]\ntest:\n", "matrix");
    refused("variants:\n", "variants:\n  - name: other\n    boot: b{commit}\n    expect: x\n",
            "2 variants: netab bisect needs exactly one");
    refused("  time: 2\n", "  time: forever\n", "k.yaml:");
}

static void test_no_dut(void **state)
{
    (void)state;
    static const char text[] = "name: k\nvariants:\n  - name: a\n";
    struct bisect_dutfile f;
    char err[512] = "";
    ASSERT_NE(bisect_dutfile_load("k.yaml", text, strlen(text), &f, err, sizeof(err)), 0);
    assert_non_null(strstr(err, "k.yaml: no dut: section"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_expand),
        cmocka_unit_test(test_load),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_no_dut),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
