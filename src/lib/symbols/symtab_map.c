/*
 * Text symbol maps: the kernel's System.map, /proc/kallsyms snapshots and
 * `nm -n [-S]` listings. They carry no section information, so a function
 * is recognised by its type letter (see symtab_parse_map in symtab.h).
 */
#include "symbols/symtab.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* One parsed line, pointing into the caller's text. */
struct map_line {
    uint64_t addr, size;
    const char *name;
    size_t namelen;
    char type;
    bool sized;
};

struct map_lines {
    struct map_line *v;
    size_t n, cap;
};

#define MAX_TOKENS 6

/* Splits [s, e) at blanks into at most MAX_TOKENS tokens; returns how many (MAX_TOKENS + 1 = too
 * many). */
static int tokenize(const char *s, const char *e, const char **tok, size_t *len)
{
    int n = 0;
    while (s < e) {
        while (s < e && (*s == ' ' || *s == '\t' || *s == '\r'))
            s++;
        if (s == e)
            break;
        if (n == MAX_TOKENS)
            return MAX_TOKENS + 1;
        tok[n] = s;
        while (s < e && *s != ' ' && *s != '\t' && *s != '\r')
            s++;
        len[n] = (size_t)(s - tok[n]);
        n++;
    }
    return n;
}

/* Parses a token of 1..16 hex digits. */
static bool parse_hex(const char *s, size_t len, uint64_t *out)
{
    if (len == 0 || len > 16)
        return false;
    uint64_t v = 0;
    for (size_t i = 0; i < len; i++) {
        int c = (unsigned char)s[i];
        if (!isxdigit(c))
            return false;
        v = v * 16 + (uint64_t)(isdigit(c) ? c - '0' : tolower(c) - 'a' + 10);
    }
    *out = v;
    return true;
}

static bool is_type(const char *s, size_t len)
{
    return len == 1 && (isalpha((unsigned char)s[0]) || s[0] == '?');
}

static bool is_module(const char *s, size_t len)
{
    return len >= 3 && s[0] == '[' && s[len - 1] == ']';
}

/*
 * Parses one non-blank line. Returns 1 and fills *l for a symbol, 0 for a
 * line to skip (an undefined symbol), -1 for a line that is not a map line.
 */
static int parse_line(const char *s, const char *e, struct map_line *l)
{
    const char *tok[MAX_TOKENS];
    size_t len[MAX_TOKENS];
    int n = tokenize(s, e, tok, len);
    if (n == 2 && is_type(tok[0], len[0]) && strchr("Uwv", tok[0][0]))
        return 0;
    memset(l, 0, sizeof(*l));
    int name = -1;
    if ((n == 3 || n == 4) && is_type(tok[1], len[1]) && parse_hex(tok[0], len[0], &l->addr)) {
        l->type = tok[1][0];
        name = 2;
    } else if ((n == 4 || n == 5) && is_type(tok[2], len[2]) &&
               parse_hex(tok[0], len[0], &l->addr) && parse_hex(tok[1], len[1], &l->size)) {
        l->type = tok[2][0];
        l->sized = true;
        name = 3;
    }
    if (name < 0 || (n == name + 2 && !is_module(tok[name + 1], len[name + 1])))
        return -1;
    l->name = tok[name];
    l->namelen = len[name];
    return 1;
}

static int lines_push(struct map_lines *ls, const struct map_line *l)
{
    if (ls->n == ls->cap) {
        size_t cap = ls->cap ? ls->cap * 2 : 1024;
        struct map_line *v = realloc(ls->v, cap * sizeof(*v));
        if (!v)
            return -ENOMEM;
        ls->v = v;
        ls->cap = cap;
    }
    ls->v[ls->n++] = *l;
    return 0;
}

/* Reads every line of text into ls; a bad line is an error naming its number. */
static int read_lines(const char *path, const char *text, size_t len, struct map_lines *ls,
                      char *err, size_t errlen)
{
    const char *p = text, *end = text + len;
    size_t lineno = 0;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *e = nl ? nl : end;
        lineno++;
        const char *q = p;
        while (q < e && (*q == ' ' || *q == '\t' || *q == '\r'))
            q++;
        if (q < e) {
            struct map_line l;
            int r = parse_line(p, e, &l);
            if (r < 0) {
                int shown = (int)(e - q > 60 ? 60 : e - q);
                for (int i = 0; i < shown; i++)
                    if (!isprint((unsigned char)q[i]))
                        shown = i;
                return err_set(err, errlen, EINVAL,
                               "%s line %zu is not a symbol map line (expected 'ADDRESS "
                               "[SIZE] TYPE NAME'): '%.*s%s'",
                               path, lineno, shown, q, shown < e - q ? "..." : "");
            }
            if (r > 0 && lines_push(ls, &l))
                return -ENOMEM;
        }
        p = nl ? nl + 1 : end;
    }
    return 0;
}

static int line_cmp(const void *a, const void *b)
{
    const struct map_line *x = a, *y = b;
    return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static bool is_text_type(char t)
{
    return t == 't' || t == 'T';
}

static bool is_weak_code_type(char t)
{
    return t == 'W' || t == 'w' || t == 'i';
}

/*
 * The alignment an address shows: its lowest set bit, capped at a page,
 * beyond which no function is aligned.
 */
static uint64_t next_align(uint64_t addr)
{
    uint64_t a = addr & -addr;
    return !a || a > 4096 ? 4096 : a;
}

/* Adds the functions among ls (sorted by address) to out, sizes as symtab.h says. */
static int add_functions(const struct map_lines *ls, bool sized, struct symtab *out)
{
    uint64_t lo = UINT64_MAX, hi = 0;
    for (size_t i = 0; i < ls->n; i++)
        if (is_text_type(ls->v[i].type)) {
            lo = ls->v[i].addr < lo ? ls->v[i].addr : lo;
            hi = ls->v[i].addr > hi ? ls->v[i].addr : hi;
        }
    size_t next = ls->n; /* first line with an address above the current one */
    for (size_t i = ls->n; i-- > 0;) {
        const struct map_line *l = &ls->v[i];
        if (i + 1 < ls->n && ls->v[i + 1].addr > l->addr)
            next = i + 1;
        bool fn =
            is_text_type(l->type) || (is_weak_code_type(l->type) && l->addr >= lo && l->addr <= hi);
        if (!fn)
            continue;
        uint64_t size = l->size, align = 0;
        if (!sized && next < ls->n) {
            size = ls->v[next].addr - l->addr;
            align = next_align(ls->v[next].addr);
        }
        int rc = symtab_add(out, l->name, l->namelen, NULL, l->addr, size);
        if (rc)
            return rc;
        out->syms[out->n - 1].next_align = align;
    }
    return 0;
}

/* Drops the absolute symbols, which are not placed in memory and would distort inferred sizes. */
static void drop_absolute(struct map_lines *ls)
{
    size_t k = 0;
    for (size_t i = 0; i < ls->n; i++)
        if (ls->v[i].type != 'a' && ls->v[i].type != 'A')
            ls->v[k++] = ls->v[i];
    ls->n = k;
}

int symtab_parse_map(const char *path, const char *text, size_t len, struct symtab *out, char *err,
                     size_t errlen)
{
    memset(out, 0, sizeof(*out));
    struct map_lines ls = {0};
    int rc = read_lines(path, text, len, &ls, err, errlen);
    if (rc == -ENOMEM)
        err_set(err, errlen, ENOMEM, "out of memory reading %s", path);
    if (rc)
        goto out;
    drop_absolute(&ls);
    bool sized = false;
    for (size_t i = 0; i < ls.n; i++)
        sized |= ls.v[i].sized;
    /* Sizes are inferred from the next higher address, so the lines go in address order. */
    if (ls.n > 1)
        qsort(ls.v, ls.n, sizeof(ls.v[0]), line_cmp);
    out->source = sized ? SYMTAB_MAP_SIZED : SYMTAB_MAP;
    rc = add_functions(&ls, sized, out);
    if (rc) {
        err_set(err, errlen, rc, "out of memory reading %s", path);
        goto out;
    }
    if (out->n == 0) {
        rc = err_set(err, errlen, EINVAL,
                     "%s has no function symbols (no line of type t or T): not a System.map "
                     "or nm listing of code",
                     path);
        goto out;
    }
    bool all_zero = out->n > 1;
    for (size_t i = 0; i < out->n && all_zero; i++)
        all_zero = out->syms[i].addr == 0;
    if (all_zero) {
        rc = err_set(err, errlen, EINVAL,
                     "every address in %s is 0: a /proc/kallsyms snapshot must be taken as "
                     "root (or with kernel.kptr_restrict=0)",
                     path);
        goto out;
    }
    symtab_sort(out);
out:
    free(ls.v);
    if (rc)
        symtab_free(out);
    return rc;
}
