/*
 * The experiment's matrix order and the cells' headings. The report may not
 * use the experiment module (README, "Development"), so it expands the
 * matrix the store's spec records the same way experiment_cells() does:
 * mixed radix, the last axis the fastest digit.
 */
#include "report/matrix.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdbool.h>
#include <string.h>

#include "metric/spec.h"

/* A matrix value as the experiment file wrote it: strings as they are, numbers and booleans. */
static char *value_text(const json_t *v)
{
    char b[64];
    if (json_is_string(v))
        return strdup(json_string_value(v));
    if (json_is_integer(v))
        snprintf(b, sizeof(b), "%lld", (long long)json_integer_value(v));
    else if (json_is_boolean(v))
        snprintf(b, sizeof(b), "%s", json_is_true(v) ? "true" : "false");
    else if (json_is_real(v))
        snprintf(b, sizeof(b), "%g", json_real_value(v));
    else
        return strdup("");
    return strdup(b);
}

/* Cell i of the product of axes: its values and its plan name. Returns 0 or -ENOMEM. */
static int expand_cell(struct creport *r, const json_t *spec, size_t i)
{
    struct creport_cell *cell = &r->cells[i];
    size_t len = 1, rest = i;
    cell->decide = -1;
    if (!(cell->values = calloc(r->naxes, sizeof(char *))))
        return -ENOMEM;
    for (size_t a = r->naxes; a-- > 0;) {
        size_t nv = spec_axis_size(spec, a);
        if (!(cell->values[a] = value_text(spec_axis_value(spec, a, rest % nv))))
            return -ENOMEM;
        rest /= nv;
    }
    for (size_t a = 0; a < r->naxes; a++)
        len += strlen(r->axes[a]) + strlen(cell->values[a]) + 2;
    if (!(cell->name = malloc(len)))
        return -ENOMEM;
    cell->name[0] = 0;
    for (size_t a = 0, u = 0; a < r->naxes; a++)
        u += (size_t)snprintf(cell->name + u, len - u, "%s%s=%s", a ? "," : "", r->axes[a],
                              cell->values[a]);
    return 0;
}

int creport_matrix_cells(struct creport *r, json_t *spec)
{
    size_t naxes = spec_axis_count(spec), count = naxes ? 1 : 0;
    int e = 0;
    for (size_t a = 0; a < naxes; a++) {
        size_t nv = spec_axis_size(spec, a);
        /* A spec this code does not understand orders nothing: the plan's order stands. */
        if (!spec_axis_key(spec, a) || !nv || count > SIZE_MAX / nv / 2)
            count = 0;
        count *= nv;
    }
    if (!count)
        goto out;
    r->axes = calloc(naxes, sizeof(char *));
    r->cells = calloc(count, sizeof(*r->cells));
    if (!r->axes || !r->cells) {
        e = -ENOMEM;
        goto out;
    }
    for (r->naxes = 0; r->naxes < naxes; r->naxes++)
        if (!(r->axes[r->naxes] = strdup(spec_axis_key(spec, r->naxes)))) {
            e = -ENOMEM;
            goto out;
        }
    for (r->ncells = 0; r->ncells < count && !e; r->ncells++)
        e = expand_cell(r, spec, r->ncells);
out:
    return e;
}

/*
 * Cells: the experiment file's matrix order (creport_matrix_cells()), then
 * any cell the plan names that the spec does not, in plan order. A matrix
 * cell the plan never names is dropped, so that no column stays empty.
 */
int creport_collect_cells(struct creport *r, json_t *spec, const struct store_plan_row *plan,
                          size_t nplan)
{
    int e = creport_matrix_cells(r, spec);
    bool *named = calloc(r->ncells + nplan + 1, sizeof(bool));
    if (!named)
        e = -ENOMEM;
    for (size_t i = 0; !e && i < nplan; i++) {
        const char *name = plan[i].cell ? plan[i].cell : "";
        size_t c = 0;
        while (c < r->ncells && strcmp(r->cells[c].name, name))
            c++;
        if (c == r->ncells) {
            struct creport_cell *p = realloc(r->cells, (c + 1) * sizeof(*p));
            if (!p || !(p[c] = (struct creport_cell){.name = strdup(name), .decide = -1}).name) {
                r->cells = p ? p : r->cells;
                e = -ENOMEM;
                break;
            }
            r->cells = p;
            r->ncells++;
        }
        named[c] = true;
    }
    size_t kept = 0;
    for (size_t c = 0; !e && c < r->ncells; c++) {
        if (named[c]) {
            r->cells[kept++] = r->cells[c];
            continue;
        }
        for (size_t a = 0; r->cells[c].values && a < r->naxes; a++)
            free(r->cells[c].values[a]);
        free(r->cells[c].values);
        free(r->cells[c].name);
    }
    if (!e)
        r->ncells = kept;
    free(named);
    return e;
}

/*
 * --baseline NAME: moves that variant to the front, the others keeping their
 * order. -EINVAL with a message naming the variants there are when no
 * variant has that name.
 */
int creport_move_baseline(struct creport *r, const char *name, char *err, size_t errlen)
{
    size_t b = 0;
    while (b < r->nvariants && strcmp(r->variants[b], name))
        b++;
    if (b == r->nvariants) {
        char names[512] = "";
        for (size_t v = 0, u = 0; v < r->nvariants && u < sizeof(names); v++)
            u += (size_t)snprintf(names + u, sizeof(names) - u, "%s%s", v ? ", " : "",
                                  r->variants[v]);
        return err_set(err, errlen, EINVAL, "--baseline: no variant '%s' (variants: %s)", name,
                       r->nvariants ? names : "none");
    }
    char *keep = r->variants[b];
    memmove(r->variants + 1, r->variants, b * sizeof(char *));
    r->variants[0] = keep;
    return 0;
}

void creport_matrix_free(struct creport *r)
{
    for (size_t c = 0; r->cells && c < r->ncells; c++) {
        for (size_t a = 0; r->cells[c].values && a < r->naxes; a++)
            free(r->cells[c].values[a]);
        free(r->cells[c].values);
    }
    for (size_t a = 0; r->axes && a < r->naxes; a++)
        free(r->axes[a]);
    free(r->axes);
}

/* The length of the suffix starting at a '_' that every value of axis a ends with, or 0. */
static size_t shared_suffix(const struct creport *r, size_t a)
{
    const char *first = NULL;
    for (size_t c = 0; c < r->ncells && !first; c++)
        if (r->cells[c].values)
            first = r->cells[c].values[a];
    const char *u = first ? strrchr(first, '_') : NULL;
    if (!u || u == first)
        return 0;
    size_t len = strlen(u);
    for (size_t c = 0; c < r->ncells; c++) {
        const char *v = r->cells[c].values ? r->cells[c].values[a] : NULL;
        size_t vl = v ? strlen(v) : 0;
        if (v && (vl <= len || strcmp(v + vl - len, u)))
            return 0;
    }
    return len;
}

/*
 * A boolean axis's value as a word, since "tcp_stream true" says nothing:
 * reverse is the direction the local end moves data ("send", or "recv"
 * with -R), any other key itself or "no-KEY". NULL when v is no boolean.
 */
static const char *bool_word(const char *key, const char *v, char *b, size_t n)
{
    bool t = !strcmp(v, "true");
    if (!t && strcmp(v, "false"))
        return NULL;
    if (!strcmp(key, "reverse"))
        return t ? "recv" : "send";
    snprintf(b, n, "%s%s", t ? "" : "no-", key);
    return b;
}

void creport_cell_heading(const struct creport *r, size_t c, enum creport_heading h, char *b,
                          size_t n)
{
    const struct creport_cell *cell = &r->cells[c];
    if (h == CREPORT_HEAD_LABEL) {
        snprintf(b, n, "c%zu", c + 1);
        return;
    }
    if (!cell->values || !r->naxes) {
        snprintf(b, n, "%s", cell->name[0] ? cell->name : "(all)");
        return;
    }
    size_t u = 0;
    b[0] = 0;
    for (size_t a = 0; a < r->naxes && u < n; a++) {
        char word[64];
        const char *v = bool_word(r->axes[a], cell->values[a], word, sizeof(word));
        size_t len =
            v ? strlen(v)
              : strlen(cell->values[a]) - (h == CREPORT_HEAD_SHORT ? shared_suffix(r, a) : 0);
        v = v ? v : cell->values[a];
        u += (size_t)snprintf(b + u, n - u, "%s%.*s", a ? " " : "", (int)len, v);
    }
}

void creport_cell_axes_but(const struct creport *r, size_t c, long skip1, long skip2, char *b,
                           size_t n)
{
    size_t u = 0;
    if (n)
        *b = '\0';
    for (size_t a = 0; a < r->naxes && u < n; a++)
        if ((long)a != skip1 && (long)a != skip2)
            u += (size_t)snprintf(b + u, n - u, "%s%s=%s", u ? "," : "", r->axes[a],
                                  r->cells[c].values[a] ? r->cells[c].values[a] : "?");
}
