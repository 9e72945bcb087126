/* Unit tests for layout/symtab_map: System.map, kallsyms and nm text, and format detection. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include "netab_assert.h"

#include "symbols/symtab.h"

/* Parses text or fails the test with the reader's message. */
static void parse_ok(const char *text, struct symtab *t)
{
    char err[NB_ERRLEN] = "";
    int rc = symtab_parse_map("test.map", text, strlen(text), t, err, sizeof(err));
    if (rc)
        fail_msg("symtab_parse_map failed (%d): %s", rc, err);
}

/* Parses text, expects -EINVAL and a message containing `want`. */
static void parse_bad(const char *text, const char *want)
{
    char err[NB_ERRLEN] = "";
    struct symtab t;
    int rc = symtab_parse_map("test.map", text, strlen(text), &t, err, sizeof(err));
    if (rc != -EINVAL)
        fail_msg("expected -EINVAL for %s, got %d", text, rc);
    if (!strstr(err, want))
        fail_msg("message '%s' lacks '%s'", err, want);
    assert_int_equal(t.n, 0);
    assert_null(t.syms);
}

static const struct symtab_sym *find(const struct symtab *t, const char *name)
{
    for (size_t i = 0; i < t->n; i++)
        if (!strcmp(t->syms[i].name, name))
            return &t->syms[i];
    fail_msg("no symbol %s", name);
    return NULL;
}

static void test_system_map_inferred_sizes(void **state)
{
    (void)state;
    /* Sizes are the distance to the next higher address, whatever its type. */
    struct symtab t;
    parse_ok("ffffffff81000000 T _stext\n"
             "ffffffff81000000 T _text\n"
             "ffffffff81000040 t ip_rcv\n"
             "ffffffff810000a8 T ip_forward\n"
             "ffffffff81000100 r some_rodata\n"
             "ffffffff81000200 T last_text\n",
             &t);
    assert_int_equal(t.source, SYMTAB_MAP);
    assert_int_equal(t.n, 5);
    assert_int_equal(find(&t, "_stext")->size, 0x40);
    assert_int_equal(find(&t, "_text")->size, 0x40);
    assert_int_equal(find(&t, "ip_rcv")->addr, 0xffffffff81000040ull);
    assert_int_equal(find(&t, "ip_rcv")->size, 0x68);
    assert_int_equal(find(&t, "ip_forward")->size, 0x58);
    assert_int_equal(find(&t, "last_text")->size, 0); /* nothing after it: unknown */
    assert_null(find(&t, "ip_rcv")->section);
    /* Sorted by address, then name. */
    for (size_t i = 1; i < t.n; i++)
        ASSERT_LE(t.syms[i - 1].addr, t.syms[i].addr);
    symtab_free(&t);
}

static void test_nm_sized(void **state)
{
    (void)state;
    /* nm -n -S: exact sizes; a symbol nm printed without size has size 0; undefined skipped. */
    struct symtab t;
    parse_ok("                 w __gmon_start__\n"
             "                 U printf@GLIBC_2.2.5\n"
             "000000000000037c 0000000000000020 r __abi_tag\n"
             "0000000000001000 T _init\n"
             "0000000000001050 0000000000000022 T _start\n"
             "0000000000001139 0000000000000025 T work\n"
             "000000000000115e 0000000000000026 W weak_fn\n"
             "0000000000001184 T _fini\n"
             "0000000000004008 W data_start\n",
             &t);
    assert_int_equal(t.source, SYMTAB_MAP_SIZED);
    assert_int_equal(t.n, 5); /* data_start is a weak symbol beyond the text: data */
    assert_int_equal(find(&t, "_init")->size, 0);
    assert_int_equal(find(&t, "_start")->size, 0x22);
    assert_int_equal(find(&t, "work")->addr, 0x1139);
    assert_int_equal(find(&t, "work")->size, 0x25);
    assert_int_equal(find(&t, "weak_fn")->size, 0x26);
    for (size_t i = 0; i < t.n; i++)
        assert_string_not_equal(t.syms[i].name, "data_start");
    symtab_free(&t);
}

static void test_kallsyms_modules(void **state)
{
    (void)state;
    /* kallsyms: a module column; absolute symbols do not shorten inferred sizes. */
    struct symtab t;
    parse_ok("ffffffff81000000 T _stext\n"
             "ffffffff81000010 A some_abs\n"
             "ffffffff81000020 t tail\n"
             "ffffffffc0a00000 t nf_nat_ipv4_fn\t[nf_nat]\n"
             "ffffffffc0a00090 t nf_nat_inet_fn\t[nf_nat]\n",
             &t);
    assert_int_equal(t.n, 4);
    assert_int_equal(find(&t, "_stext")->size, 0x20);
    assert_int_equal(find(&t, "nf_nat_ipv4_fn")->size, 0x90);
    assert_int_equal(find(&t, "nf_nat_ipv4_fn")->addr, 0xffffffffc0a00000ull);
    symtab_free(&t);
}

static void test_garbage_lines(void **state)
{
    (void)state;
    /* Every bad line names its line number and quotes the line. */
    parse_bad("ffffffff81000000 T _stext\n\nhello world\n", "line 3");
    parse_bad("ffffffff81000000 T _stext\nhello world\n", "'hello world'");
    parse_bad("zzzz T name\n", "line 1");
    parse_bad("ffffffff81000000 TT name\n", "line 1");
    parse_bad("ffffffff81000000 T\n", "line 1");
    parse_bad("ffffffff81000000 T name extra\n", "line 1");
    parse_bad("11112222333344445 T too_long_address\n", "line 1");
    parse_bad("a.out:\n0000000000001000 T _init\n", "line 1");
    /* A long garbage line is cut in the message. */
    char big[400];
    memset(big, 'x', sizeof(big) - 2);
    big[sizeof(big) - 2] = ' ';
    big[sizeof(big) - 1] = '\0';
    parse_bad(big, "...");
}

static void test_no_functions(void **state)
{
    (void)state;
    parse_bad("", "no function symbols");
    parse_bad("0000000000004008 D data\n0000000000004010 B bss\n", "no function symbols");
    /* kallsyms read without privilege shows every address as 0. */
    parse_bad("0000000000000000 T _stext\n0000000000000000 T ip_rcv\n", "as root");
}

static void test_load_detects_format(void **state)
{
    (void)state;
    char path[] = "/tmp/netab-test-map-XXXXXX";
    int fd = mkstemp(path);
    ASSERT_GE(fd, 0);
    const char map[] = "0000000000001000 T f\n0000000000001010 T g\n";
    assert_int_equal(write(fd, map, sizeof(map) - 1), (ssize_t)sizeof(map) - 1);
    close(fd);
    char err[NB_ERRLEN] = "";
    struct symtab t;
    assert_int_equal(symtab_load(path, &t, err, sizeof(err)), 0);
    assert_int_equal(t.n, 2);
    assert_int_equal(t.syms[0].size, 0x10);
    symtab_free(&t);
    /* Binary data that is not ELF is refused with a clear message. */
    fd = open(path, O_WRONLY | O_TRUNC);
    ASSERT_GE(fd, 0);
    const char bin[] = "\x01\x02\x00\x03garbage";
    assert_int_equal(write(fd, bin, sizeof(bin)), (ssize_t)sizeof(bin));
    close(fd);
    assert_int_equal(symtab_load(path, &t, err, sizeof(err)), -EINVAL);
    assert_non_null(strstr(err, "neither an ELF file nor a symbol map"));
    /* An ELF magic number followed by nothing is a truncated ELF file. */
    fd = open(path, O_WRONLY | O_TRUNC);
    ASSERT_GE(fd, 0);
    assert_int_equal(write(fd, "\177ELF\002\001", 6), 6);
    close(fd);
    assert_int_equal(symtab_load(path, &t, err, sizeof(err)), -EINVAL);
    assert_non_null(strstr(err, "corrupt ELF"));
    unlink(path);
    assert_int_equal(symtab_load(path, &t, err, sizeof(err)), -ENOENT);
    assert_non_null(strstr(err, path));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_system_map_inferred_sizes),
        cmocka_unit_test(test_nm_sized),
        cmocka_unit_test(test_kallsyms_modules),
        cmocka_unit_test(test_garbage_lines),
        cmocka_unit_test(test_no_functions),
        cmocka_unit_test(test_load_detects_format),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
