/*
 * The shape limits of an experiment file, checked on libyaml's event stream
 * before the document is built. libyaml's scanner walks its whole stack of
 * possible simple keys for every token, so N unclosed brackets cost N² (50k
 * took 4 s, the 1 MiB cap half an hour), and its loader compares every new
 * anchor and every alias with all anchors before it. Stopping at the first
 * event past a limit keeps both small: nothing past depth EXP_MAX_DEPTH is
 * ever scanned, and no more than EXP_MAX_ANCHORS anchors are compared.
 * Aliases are counted as the nodes they stand for, so a file cannot make
 * the walkers visit a mapping a hundred thousand times through one alias.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "experiment/exp_priv.h"

struct anchor {
    char *name;
    size_t start; /* nodes counted when it began */
    size_t size;  /* nodes it stands for, aliases inside it expanded */
    bool done;    /* its node ended: size is known */
};

struct shape {
    struct anchor anchors[EXP_MAX_ANCHORS];
    int nanchors;
    int open_at[EXP_MAX_DEPTH + 2]; /* the anchor of the open node at each depth, or -1 */
    int depth;
    size_t nodes; /* every scalar and collection, each alias as the nodes it stands for */
};

/* Records the anchor of a node that begins at depth d (0 = none given). */
static int shape_anchor(struct shape *s, const yaml_char_t *name, int d)
{
    if (!name)
        return 0;
    if (s->nanchors == EXP_MAX_ANCHORS)
        return -E2BIG;
    char *dup = strdup((const char *)name);
    if (!dup)
        return -ENOMEM;
    /* The node was counted already: it is part of its own size. */
    s->anchors[s->nanchors] = (struct anchor){.name = dup, .start = s->nodes - 1};
    s->open_at[d] = s->nanchors++;
    return 0;
}

/* Closes the anchor of the node that ended at depth d, if it had one: its size is now known. */
static void shape_close(struct shape *s, int d)
{
    int i = s->open_at[d];
    if (i < 0)
        return;
    s->anchors[i].size = s->nodes - s->anchors[i].start;
    s->anchors[i].done = true;
    s->open_at[d] = -1;
}

/* The size of the latest complete anchor called name; 1 for an unknown one (the loader says so). */
static size_t shape_alias(const struct shape *s, const yaml_char_t *name)
{
    for (int i = s->nanchors - 1; i >= 0; i--)
        if (s->anchors[i].done && !strcmp(s->anchors[i].name, (const char *)name))
            return s->anchors[i].size;
    return 1;
}

/* Takes one event into s. Returns 0, or which limit it passes (-ELOOP, -E2BIG, -EFBIG). */
static int shape_event(struct shape *s, const yaml_event_t *ev)
{
    int rc = 0;
    switch (ev->type) {
    case YAML_SEQUENCE_START_EVENT:
    case YAML_MAPPING_START_EVENT:
        if (++s->depth > EXP_MAX_DEPTH)
            return -ELOOP;
        s->nodes++;
        rc = shape_anchor(s,
                          ev->type == YAML_SEQUENCE_START_EVENT ? ev->data.sequence_start.anchor
                                                                : ev->data.mapping_start.anchor,
                          s->depth);
        break;
    case YAML_SEQUENCE_END_EVENT:
    case YAML_MAPPING_END_EVENT:
        shape_close(s, s->depth--);
        break;
    case YAML_SCALAR_EVENT:
        s->nodes++;
        rc = shape_anchor(s, ev->data.scalar.anchor, s->depth + 1);
        shape_close(s, s->depth + 1);
        break;
    case YAML_ALIAS_EVENT:
        s->nodes += shape_alias(s, ev->data.alias.anchor);
        break;
    default:
        break;
    }
    if (!rc && s->nodes > EXP_MAX_NODES)
        rc = -EFBIG;
    return rc;
}

/* Adds the error for limit rc at mark m. */
static void shape_report(struct exp_errors *errs, int rc, const yaml_mark_t *m)
{
    int line = (int)m->line + 1, col = (int)m->column + 1;
    if (rc == -ELOOP)
        exp_errors_add(errs, line, col,
                       "lists and mappings are nested more than %d deep here; an experiment "
                       "needs a few levels",
                       EXP_MAX_DEPTH);
    else if (rc == -E2BIG)
        exp_errors_add(errs, line, col, "more than %d anchors (&name) in the file",
                       EXP_MAX_ANCHORS);
    else
        exp_errors_add(errs, line, col,
                       "more than %d values in the file, counting each alias (*name) as "
                       "the values it stands for",
                       EXP_MAX_NODES);
}

int exp_check_shape(const char *buf, size_t len, struct exp_errors *errs)
{
    struct shape *s = calloc(1, sizeof(*s));
    yaml_parser_t parser;
    if (!s)
        return -ENOMEM;
    if (!yaml_parser_initialize(&parser)) {
        free(s);
        return -ENOMEM;
    }
    yaml_parser_set_input_string(&parser, (const unsigned char *)buf, len);
    for (int d = 0; d < EXP_MAX_DEPTH + 2; d++)
        s->open_at[d] = -1;
    int rc = 0;
    for (bool done = false; !done && !rc;) {
        yaml_event_t ev;
        if (!yaml_parser_parse(&parser, &ev))
            break; /* a syntax error: the loader reports it, at the same place */
        done = ev.type == YAML_STREAM_END_EVENT;
        rc = shape_event(s, &ev);
        if (rc == -ENOMEM) {
            yaml_event_delete(&ev);
            break;
        }
        if (rc)
            shape_report(errs, rc, &ev.start_mark);
        yaml_event_delete(&ev);
    }
    yaml_parser_delete(&parser);
    for (int i = 0; i < s->nanchors; i++)
        free(s->anchors[i].name);
    free(s);
    return rc == -ENOMEM ? -ENOMEM : rc ? -EINVAL : 0;
}
