#include "util/optmatch.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#define MAX_HINTS 3
#define MAX_NAME 64

/* True when the "--name[=value]" element el spells exactly name. */
static bool spelled_exactly(const char *el, const char *name)
{
    if (strncmp(el, "--", 2))
        return false;
    el += 2;
    size_t n = strcspn(el, "=");
    return strlen(name) == n && !strncmp(el, name, n);
}

/* True when the "--name[=value]" element el spells some long option exactly. */
static bool known_exactly(const char *el, const struct option *longopts)
{
    for (const struct option *o = longopts; o && o->name; o++)
        if (spelled_exactly(el, o->name))
            return true;
    return false;
}

int optmatch_next(int argc, char *const argv[], const char *shortopts,
                  const struct option *longopts)
{
    int idx = -1;
    int c = getopt_long(argc, argv, shortopts, longopts, &idx);
    if (c == -1)
        return c;
    if (c == '?') {
        /* "--json=1" for an option without a value: getopt names it by its val in optopt. */
        if (optind > 0 && optind <= argc && known_exactly(argv[optind - 1], longopts))
            optopt = 0;
        return c;
    }
    if (c == ':') {
        /* A missing value: argv[optind - 1] is the option as typed, long or short. */
        const char *el = argv[optind - 1];
        if (!strncmp(el, "--", 2) && !known_exactly(el, longopts)) {
            optopt = 0;
            return '?';
        }
        return c;
    }
    if (idx < 0)
        return c; /* a short option */
    /* The option's element, before its value when that was the next element. */
    int at = optind - 1;
    if (longopts[idx].has_arg != no_argument && optarg && at > 0 && optarg == argv[at])
        at--;
    if (!spelled_exactly(argv[at], longopts[idx].name)) {
        optopt = 0;
        optind = at + 1;
        return '?';
    }
    return c;
}

/*
 * The optimal string alignment distance between a and b (edits: insert,
 * delete, replace, swap of two neighbours), or MAX_NAME when either is
 * longer than MAX_NAME - 1 characters.
 */
static size_t distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la >= MAX_NAME || lb >= MAX_NAME)
        return MAX_NAME;
    size_t d[MAX_NAME][MAX_NAME];
    for (size_t i = 0; i <= la; i++)
        d[i][0] = i;
    for (size_t j = 0; j <= lb; j++)
        d[0][j] = j;
    for (size_t i = 1; i <= la; i++)
        for (size_t j = 1; j <= lb; j++) {
            size_t best = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
            if (d[i - 1][j] + 1 < best)
                best = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < best)
                best = d[i][j - 1] + 1;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
                d[i - 2][j - 2] + 1 < best)
                best = d[i - 2][j - 2] + 1;
            d[i][j] = best;
        }
    return d[la][lb];
}

/*
 * How close word is to name: 0 when word abbreviates name (at least two
 * characters), else its edit distance; SIZE_MAX when not close at all.
 */
static size_t closeness(const char *word, const char *name)
{
    size_t lw = strlen(word);
    if (lw >= 2 && lw < strlen(name) && !strncmp(word, name, lw))
        return 0;
    size_t d = distance(word, name);
    size_t limit = lw < 5 ? 1 : 2;
    return d <= limit && d < lw ? d : (size_t)-1;
}

/*
 * Writes "; did you mean 'P<a>'?" with up to MAX_HINTS of the closest names
 * (prefix prepended to each) into buf, or "". Returns buf.
 */
static const char *hint(const char *word, const char *const *names, size_t n, const char *prefix,
                        char *buf, size_t len)
{
    size_t best = (size_t)-1;
    for (size_t i = 0; i < n; i++) {
        size_t c = closeness(word, names[i]);
        if (c < best)
            best = c;
    }
    if (len)
        buf[0] = '\0';
    if (best == (size_t)-1 || !len)
        return buf;
    size_t used = 0, shown = 0;
    for (size_t i = 0; i < n && shown < MAX_HINTS; i++) {
        if (closeness(word, names[i]) != best)
            continue;
        int w = snprintf(buf + used, len - used, "%s'%s%s'", shown ? " or " : "; did you mean ",
                         prefix, names[i]);
        if (w < 0 || (size_t)w >= len - used) {
            buf[used] = '\0'; /* only whole names: drop the one cut */
            break;
        }
        used += (size_t)w;
        shown++;
    }
    if (shown && used + 1 < len) {
        buf[used++] = '?';
        buf[used] = '\0';
    }
    return buf;
}

const char *optmatch_closest(const char *word, const char *const *names, size_t n, char *buf,
                             size_t len)
{
    return hint(word, names, n, "", buf, len);
}

const char *optmatch_hint(const char *arg, const struct option *longopts, char *buf, size_t len)
{
    if (len)
        buf[0] = '\0';
    if (strncmp(arg, "--", 2) || !longopts)
        return buf;
    char word[MAX_NAME];
    size_t lw = strcspn(arg + 2, "=");
    if (lw >= sizeof(word))
        return buf;
    memcpy(word, arg + 2, lw);
    word[lw] = '\0';
    if (known_exactly(arg, longopts)) {
        /* Known and still refused: a value given to an option that takes none. */
        snprintf(buf, len, "; '--%s' takes no value", word);
        return buf;
    }
    const char *names[256];
    size_t n = 0;
    for (const struct option *o = longopts; o->name && n < 256; o++)
        names[n++] = o->name;
    return hint(word, names, n, "--", buf, len);
}
