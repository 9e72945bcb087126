/*
 * Regular expressions from outside and the text they are matched against:
 * the first line of the input is a pattern (an experiment's `expect:`, or
 * `netab compare --metric-regex`), the rest the text (a DUT's identity, a
 * benchmark's output). The pattern is compiled both ways netab compiles
 * them, every match of it walked as the DUT check and compare's metric
 * reader do, and compare_metric_from_regex run on the same text.
 */
#include "fuzz.h"

#include <math.h>

#include "compare/metrics.h"
#include "util/pattern.h"

static void walk(const struct pattern *p, const char *text, size_t len)
{
    size_t m[4], from = 0;
    char err[NB_ERRLEN] = "";
    int rc = 0;
    while (from <= len && (rc = pattern_find(p, text, len, from, m, err, sizeof(err))) == 1) {
        FUZZ_CHECK(m[0] >= from && m[0] <= m[1] && m[1] <= len, "a match lies in the text");
        FUZZ_CHECK((m[2] == SIZE_MAX) == (m[3] == SIZE_MAX), "a group is set on both ends or none");
        FUZZ_CHECK(m[2] == SIZE_MAX || (m[2] <= m[3] && m[3] <= len), "a group lies in the text");
        from = pattern_next_from(m);
    }
    FUZZ_CHECK(rc >= 0 || err[0], "a failed match says why");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *nl = memchr(data, '\n', size);
    size_t relen = nl ? (size_t)(nl - data) : size;
    char *re = malloc(relen + 1), *text = malloc(size - relen + 1);
    if (!re || !text)
        abort();
    memcpy(re, data, relen);
    re[relen] = '\0';
    size_t textlen = nl ? size - relen - 1 : 0;
    memcpy(text, nl ? nl + 1 : data, textlen);
    text[textlen] = '\0';
    for (unsigned flags = 0; flags <= PATTERN_LINES; flags++) {
        struct pattern *p = NULL;
        char err[NB_ERRLEN] = "";
        int rc = pattern_compile(&p, re, flags, err, sizeof(err));
        FUZZ_CHECK(rc == 0 ? p != NULL : (p == NULL && (rc == -ENOMEM || err[0])),
                   "a refused pattern yields nothing and says why");
        if (p)
            walk(p, text, strlen(text)); /* as netab sees it: up to the first NUL */
        pattern_free(p);
    }
    double v;
    char err[NB_ERRLEN] = "";
    int rc = compare_metric_from_regex(text, re, &v, err, sizeof(err));
    FUZZ_CHECK(rc == 0 ? isfinite(v) : err[0] != '\0', "a metric is finite, a failure says why");
    free(re);
    free(text);
    return 0;
}
