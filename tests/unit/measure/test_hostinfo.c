/* Unit tests for measure/hostinfo: real collection and /proc/cpuinfo parsing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>
#include "netab_assert.h"

#include "measure/hostinfo.h"

static void test_collect(void **state)
{
    (void)state;
    struct hostinfo h;
    hostinfo_collect(&h);
    ASSERT_NE(h.hostname[0], '\0');
    ASSERT_NE(h.kernel[0], '\0');
    ASSERT_NE(h.cpu_model[0], '\0');
    ASSERT_GE(h.online_cpus, 1);
    assert_non_null(memchr(h.hostname, '\0', sizeof(h.hostname)));
}

static void model(const char *text, const char *want)
{
    char out[64];
    hostinfo_parse_cpu_model(text, out, sizeof(out));
    assert_string_equal(out, want);
}

static void test_parse_model(void **state)
{
    (void)state;
    model("processor\t: 0\nvendor_id\t: GenuineIntel\nmodel\t\t: 85\n"
          "model name\t: Intel(R) Xeon(R) Gold 6230 CPU @ 2.10GHz\ncpu MHz\t\t: 2100.000\n",
          "Intel(R) Xeon(R) Gold 6230 CPU @ 2.10GHz");
    /* arm64 without "model name": none of the keys match, "CPU implementer" included. */
    model("processor\t: 0\nBogoMIPS\t: 50.00\nCPU implementer\t: 0x41\nCPU part\t: 0xd0c\n",
          "unknown");
    /* powerpc names the model under "cpu". */
    model("processor\t: 0\ncpu\t\t: POWER9 (raw), altivec supported\nclock\t\t: 2166MHz\n",
          "POWER9 (raw), altivec supported");
    /* "model name" wins even when a lesser key comes first. */
    model("cpu\t: lesser\nmodel name : better  \n", "better");
    /* An empty value does not count. */
    model("model name\t:\ncpu model\t: MIPS 24Kc V7.4\n", "MIPS 24Kc V7.4");
    model("", "unknown");
    model(NULL, "unknown");
    /* Long values are truncated, not overflowed. */
    char tiny[8];
    hostinfo_parse_cpu_model("model name : ABCDEFGHIJKLMNOP\n", tiny, sizeof(tiny));
    assert_string_equal(tiny, "ABCDEFG");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_collect),
        cmocka_unit_test(test_parse_model),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
