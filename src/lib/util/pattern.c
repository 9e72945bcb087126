/* PCRE2 patterns from outside, compiled and matched under limits (util/pattern.h). */
#define PCRE2_CODE_UNIT_WIDTH 8

#include <errno.h>
#include <pcre2.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/pattern.h"

struct pattern {
    pcre2_code *code;
    pcre2_match_context *mctx;
    char text[PATTERN_MAX_LEN + 1];
};

void pattern_free(struct pattern *p)
{
    if (!p)
        return;
    pcre2_code_free(p->code);
    pcre2_match_context_free(p->mctx);
    free(p);
}

int pattern_compile(struct pattern **out, const char *re, unsigned flags, char *err, size_t errlen)
{
    *out = NULL;
    size_t len = strlen(re);
    if (len > PATTERN_MAX_LEN)
        return err_set(err, errlen, EINVAL,
                       "the regular expression is %zu characters long; at most %d are allowed", len,
                       PATTERN_MAX_LEN);
    struct pattern *p = calloc(1, sizeof(*p));
    pcre2_compile_context *cctx = pcre2_compile_context_create(NULL);
    if (!p || !cctx || !(p->mctx = pcre2_match_context_create(NULL))) {
        pcre2_compile_context_free(cctx);
        pattern_free(p);
        return -ENOMEM;
    }
    memcpy(p->text, re, len + 1);
    pcre2_set_max_pattern_length(cctx, PATTERN_MAX_LEN);
    pcre2_set_match_limit(p->mctx, PATTERN_MATCH_LIMIT);
    int code;
    PCRE2_SIZE at;
    p->code = pcre2_compile((PCRE2_SPTR)re, len, (flags & PATTERN_LINES) ? PCRE2_MULTILINE : 0,
                            &code, &at, cctx);
    pcre2_compile_context_free(cctx);
    if (!p->code) {
        pattern_free(p);
        if (code == PCRE2_ERROR_NOMEMORY)
            return -ENOMEM;
        PCRE2_UCHAR why[160];
        if (pcre2_get_error_message(code, why, sizeof(why)) < 0)
            strcpy((char *)why, "unknown error");
        return err_set(err, errlen, EINVAL,
                       "'%.80s' is not a valid regular expression: %s (at character %zu)", re,
                       (const char *)why, (size_t)at + 1);
    }
    *out = p;
    return 0;
}

size_t pattern_groups(const struct pattern *p)
{
    uint32_t n = 0;
    if (pcre2_pattern_info(p->code, PCRE2_INFO_CAPTURECOUNT, &n))
        return 0;
    return n;
}

int pattern_find(const struct pattern *p, const char *s, size_t len, size_t from, size_t m[4],
                 char *err, size_t errlen)
{
    pcre2_match_data *md = pcre2_match_data_create(2, NULL);
    if (!md)
        return -ENOMEM;
    /* 0: a match with more groups than md holds; the first two are filled in. */
    int rc = pcre2_match(p->code, (PCRE2_SPTR)s, len, from, 0, md, p->mctx);
    if (rc >= 0) {
        const PCRE2_SIZE *v = pcre2_get_ovector_pointer(md);
        bool group = (rc == 0 || rc > 1) && v[2] != PCRE2_UNSET;
        m[0] = v[0];
        m[1] = v[1];
        m[2] = group ? v[2] : SIZE_MAX;
        m[3] = group ? v[3] : SIZE_MAX;
    }
    pcre2_match_data_free(md);
    if (rc >= 0)
        return 1;
    if (rc == PCRE2_ERROR_NOMATCH)
        return 0;
    if (rc == PCRE2_ERROR_NOMEMORY)
        return -ENOMEM;
    if (rc == PCRE2_ERROR_MATCHLIMIT || rc == PCRE2_ERROR_DEPTHLIMIT || rc == PCRE2_ERROR_HEAPLIMIT)
        return err_set(err, errlen, E2BIG,
                       "matching '%.80s' stopped after %d backtracking steps: rewrite it without "
                       "nested repetitions such as (a+)+",
                       p->text, PATTERN_MATCH_LIMIT);
    PCRE2_UCHAR why[160];
    if (pcre2_get_error_message(rc, why, sizeof(why)) < 0)
        strcpy((char *)why, "unknown error");
    return err_set(err, errlen, EINVAL, "matching '%.80s' failed: %s", p->text, (const char *)why);
}
