/* Extended regular expressions from outside, checked for size before regcomp (util/regex.h). */
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "util/regex.h"

/* The index just past the bracket expression that starts at p[i] == '['. */
static size_t bracket_end(const char *p, size_t i)
{
    size_t j = i + 1;
    if (p[j] == '^')
        j++;
    if (p[j] == ']')
        j++;
    while (p[j] && p[j] != ']') {
        if (p[j] == '[' && (p[j + 1] == ':' || p[j + 1] == '.' || p[j + 1] == '=')) {
            const char *close = p + j + 2;
            char kind = p[j + 1];
            while (*close && !(close[0] == kind && close[1] == ']'))
                close++;
            if (!*close)
                return strlen(p);
            j = (size_t)(close - p) + 2;
            continue;
        }
        j++;
    }
    return p[j] ? j + 1 : j;
}

/*
 * Reads an interval "{m}", "{m,}" or "{m,n}" at p[i] == '{'. Returns the
 * number of copies glibc makes of the repeated atom (n, or m + 1 for an open
 * end, at least 1) and sets *next past the '}'; 0 when it is no interval.
 */
static double interval_copies(const char *p, size_t i, size_t *next)
{
    size_t j = i + 1;
    double m = 0, n = -1;
    bool digits = false, comma = false;
    for (; isdigit((unsigned char)p[j]); j++, digits = true)
        m = m < 1e9 ? m * 10 + (p[j] - '0') : m;
    if (p[j] == ',') {
        comma = true;
        j++;
        if (isdigit((unsigned char)p[j]))
            n = 0;
        for (; isdigit((unsigned char)p[j]); j++)
            n = n < 1e9 ? n * 10 + (p[j] - '0') : n;
    }
    if (p[j] != '}' || (!digits && n < 0))
        return 0;
    *next = j + 1;
    double copies = n >= 0 ? n : comma ? m + 1 : m;
    return copies < 1 ? 1 : copies;
}

struct group {
    double sum, last; /* the weight so far, and that of its last atom */
};

static double weight_of(const char *p, bool *backref)
{
    struct group stack[REGEX_MAX_LEN / 2 + 2];
    size_t depth = 0;
    struct group g = {0, 0};
    size_t len = strlen(p);
    for (size_t i = 0; i < len;) {
        double atom = 1, copies = 0;
        size_t next = i + 1;
        switch (p[i]) {
        case '\\':
            if (p[i + 1] >= '1' && p[i + 1] <= '9')
                *backref = true;
            next = p[i + 1] ? i + 2 : i + 1;
            break;
        case '[':
            next = bracket_end(p, i);
            break;
        case '(':
            if (depth < sizeof(stack) / sizeof(stack[0]))
                stack[depth++] = g;
            g = (struct group){0, 0};
            i = next;
            continue;
        case ')':
            if (depth) {
                atom = g.sum > 1 ? g.sum : 1;
                g = stack[--depth];
            }
            break;
        case '|':
            g.last = 0;
            i = next;
            continue;
        case '*':
        case '?':
            i = next;
            continue;
        case '+':
            copies = 2; /* glibc makes a+ into aa* */
            break;
        case '{':
            copies = interval_copies(p, i, &next);
            break;
        }
        if (copies > 0) {
            g.sum -= g.last;
            g.last *= copies;
            g.sum += g.last;
        } else {
            g.sum += atom;
            g.last = atom;
        }
        i = next;
    }
    while (depth) {
        double inner = g.sum;
        g = stack[--depth];
        g.sum += inner;
    }
    return g.sum;
}

double regex_weight(const char *pattern)
{
    bool backref = false;
    return weight_of(pattern, &backref);
}

int regex_compile(regex_t *r, const char *pattern, int flags, char *err, size_t errlen)
{
    size_t len = strlen(pattern);
    if (len > REGEX_MAX_LEN)
        return err_set(err, errlen, EINVAL,
                       "the regular expression is %zu characters long; at most %d are allowed", len,
                       REGEX_MAX_LEN);
    bool backref = false;
    double w = weight_of(pattern, &backref);
    if (backref)
        return err_set(err, errlen, EINVAL,
                       "'%.80s' uses a back-reference (\\1 to \\9), which is not supported",
                       pattern);
    if (w > REGEX_MAX_WEIGHT)
        return err_set(err, errlen, EINVAL,
                       "'%.80s' is too large once its repetitions are unrolled (%.0f atoms, at "
                       "most %d); nest fewer {m,n} counts",
                       pattern, w, REGEX_MAX_WEIGHT);
    int rc = regcomp(r, pattern, flags | REG_EXTENDED);
    if (rc) {
        char why[128];
        regerror(rc, r, why, sizeof(why));
        return err_set(err, errlen, EINVAL,
                       "'%.80s' is not a valid extended regular expression: %s", pattern, why);
    }
    return 0;
}
