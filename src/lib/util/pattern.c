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
    char text[PATTERN_MAX_LEN + 1];
};

void pattern_free(struct pattern *p)
{
    if (!p)
        return;
    pcre2_code_free(p->code);
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
    if (!p || !cctx) {
        pcre2_compile_context_free(cctx);
        pattern_free(p);
        return err_set(err, errlen, ENOMEM, "out of memory compiling '%.80s'", re);
    }
    memcpy(p->text, re, len + 1);
    pcre2_set_max_pattern_length(cctx, PATTERN_MAX_LEN);
    /* Bytes, never UTF-8: an identity or a command's output may be any bytes, and
     * an offset one past an empty match must be a valid place to go on from. */
    uint32_t options = PCRE2_NEVER_UTF | PCRE2_NEVER_UCP | PCRE2_NEVER_BACKSLASH_C;
    if (flags & PATTERN_LINES)
        options |= PCRE2_MULTILINE;
    int code;
    PCRE2_SIZE at;
    p->code = pcre2_compile((PCRE2_SPTR)re, len, options, &code, &at, cctx);
    pcre2_compile_context_free(cctx);
    if (!p->code) {
        pattern_free(p);
        if (code == PCRE2_ERROR_NOMEMORY)
            return err_set(err, errlen, ENOMEM, "out of memory compiling '%.80s'", re);
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

size_t pattern_next_from(const size_t m[4])
{
    return m[1] > m[0] ? m[1] : m[1] + 1;
}

size_t pattern_groups(const struct pattern *p)
{
    uint32_t n = 0;
    if (pcre2_pattern_info(p->code, PCRE2_INFO_CAPTURECOUNT, &n))
        return 0;
    return n;
}

/* PCRE2's limits count per start position: spread the search's budget over them. */
static uint32_t position_limit(size_t len, size_t from)
{
    size_t per = PATTERN_SEARCH_BUDGET / (len - from + 1);
    return per < PATTERN_POSITION_MIN ? PATTERN_POSITION_MIN : (uint32_t)per;
}

static const char *limit_name(int rc)
{
    return rc == PCRE2_ERROR_HEAPLIMIT    ? "memory"
           : rc == PCRE2_ERROR_DEPTHLIMIT ? "depth"
                                          : "backtracking";
}

int pattern_find(const struct pattern *p, const char *s, size_t len, size_t from, size_t m[4],
                 char *err, size_t errlen)
{
    pcre2_match_data *md = pcre2_match_data_create(2, NULL);
    pcre2_match_context *mctx = pcre2_match_context_create(NULL);
    if (!md || !mctx) {
        pcre2_match_data_free(md);
        pcre2_match_context_free(mctx);
        return err_set(err, errlen, ENOMEM, "out of memory matching '%.80s'", p->text);
    }
    pcre2_set_match_limit(mctx, position_limit(len, from));
    pcre2_set_depth_limit(mctx, PATTERN_DEPTH_LIMIT);
    pcre2_set_heap_limit(mctx, PATTERN_HEAP_LIMIT_KIB);
    /* 0: a match with more groups than md holds; the first two are filled in. */
    int rc = pcre2_match(p->code, (PCRE2_SPTR)s, len, from, 0, md, mctx);
    if (rc >= 0) {
        const PCRE2_SIZE *v = pcre2_get_ovector_pointer(md);
        bool group = (rc == 0 || rc > 1) && v[2] != PCRE2_UNSET;
        m[0] = v[0];
        m[1] = v[1];
        m[2] = group ? v[2] : SIZE_MAX;
        m[3] = group ? v[3] : SIZE_MAX;
    }
    pcre2_match_data_free(md);
    pcre2_match_context_free(mctx);
    if (rc >= 0)
        return 1;
    if (rc == PCRE2_ERROR_NOMATCH)
        return 0;
    if (rc == PCRE2_ERROR_NOMEMORY)
        return err_set(err, errlen, ENOMEM, "out of memory matching '%.80s'", p->text);
    if (rc == PCRE2_ERROR_MATCHLIMIT || rc == PCRE2_ERROR_DEPTHLIMIT || rc == PCRE2_ERROR_HEAPLIMIT)
        return err_set(err, errlen, E2BIG,
                       "matching '%.80s' against %zu bytes reached its %s limit: rewrite it "
                       "without nested repetitions such as (a+)+",
                       p->text, len - from, limit_name(rc));
    PCRE2_UCHAR why[160];
    if (pcre2_get_error_message(rc, why, sizeof(why)) < 0)
        strcpy((char *)why, "unknown error");
    return err_set(err, errlen, EINVAL, "matching '%.80s' failed: %s", p->text, (const char *)why);
}
