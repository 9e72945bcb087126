/* The experiment's own `layout:` section: the code layout report's hot set. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "experiment/exp_priv.h"

/*
 * Why p is no glob of a function name, or NULL when it is one: the rules of
 * layout_hot_check_pattern() (layout/, which experiment/ may not include),
 * so that validate refuses what the report would.
 */
static const char *bad_glob(const char *p)
{
    if (!*p)
        return "an empty pattern names no function";
    for (const char *q = p; *q; q++) {
        if (isspace((unsigned char)*q) || iscntrl((unsigned char)*q))
            return "it holds a blank or control character: a function name has none";
        if (*q == '\\' && !*++q)
            return "it ends in a lone '\\'";
        if (*q != '[')
            continue;
        const char *c = q + 1;
        c += *c == '!' || *c == '^';
        c += *c == ']';
        if (!(q = strchr(c, ']')))
            return "it opens a '[' class that is never closed with ']'";
    }
    return NULL;
}

/* Reads one hot pattern into e->layout_hot, reporting a bad one at its node. */
static void add_pattern(struct exp_ctx *c, yaml_node_t *n, struct experiment *e)
{
    char *s = NULL;
    if (!exp_get_string(c, n, "layout.hot", &s))
        return;
    const char *why = bad_glob(s);
    if (why) {
        exp_err(c, n, "layout: hot: pattern '%.80s': %s", s, why);
        free(s);
        return;
    }
    e->layout_hot[e->nlayout_hot++] = s;
}

void exp_parse_layout(struct exp_ctx *c, yaml_node_t *n, struct experiment *e)
{
    static const char *const keys[] = {"hot"};
    yaml_node_t *v[1], *hot;
    char buf[64];
    if (!exp_map_fields(c, n, "layout", keys, 1, v) || !(hot = v[0]))
        return;
    size_t count = hot->type == YAML_SEQUENCE_NODE
                       ? (size_t)(hot->data.sequence.items.top - hot->data.sequence.items.start)
                       : 0;
    if (hot->type != YAML_SEQUENCE_NODE || !count) {
        exp_err(c, hot, "layout: 'hot' must be a non-empty list of function names or globs, not %s",
                exp_describe(hot, buf, sizeof(buf)));
        return;
    }
    if (!(e->layout_hot = calloc(count, sizeof(*e->layout_hot)))) {
        c->oom = true;
        return;
    }
    for (size_t i = 0; i < count; i++) {
        yaml_node_t *item = exp_node(c, hot->data.sequence.items.start[i]);
        if (item)
            add_pattern(c, item, e);
    }
}
