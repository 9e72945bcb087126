/*
 * Failed runs as data (report.h, struct creport_fail): their
 * reasons shortened for a table cell, their count and reason in a sentence,
 * and the section that lists them in text, Markdown and JSON.
 */
#include "report/fails.h"

#include <stdio.h>
#include <string.h>

#include "report/tables.h"

/* Kinds of failure by a phrase of the error, in the order they are tried. */
static const struct {
    const char *phrase, *kind;
} kinds[] = {
    {"Connection refused", "connection refused"},
    {"Connection reset", "connection reset"},
    {"timed out", "timed out"},
    {"timeout", "timed out"},
    {"No route to host", "no route to host"},
    {"Network is unreachable", "network unreachable"},
    {"100% loss", "100% loss"},
    {"killed by signal", "killed"},
    {"refused", "refused"},
};

void creport_fail_reason(const char *error, char *reason, size_t rlen, char *short_reason,
                         size_t slen)
{
    static const char framing[] = "netab run reported: ";
    const char *e = error && *error ? error : "no reason recorded";
    if (!strncmp(e, framing, sizeof(framing) - 1))
        e += sizeof(framing) - 1;
    size_t n = strlen(e);
    const char *tail = strstr(e, " (exit status ");
    if (tail && tail[strlen(tail) - 1] == ')' && !strchr(tail + 2, '('))
        n = (size_t)(tail - e);
    snprintf(reason, rlen, "%.*s", (int)n, e);
    /* A run's error can quote a peer or a hook: no control byte reaches a report. */
    for (char *p = reason; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            *p = '?';
    int status;
    if (sscanf(e, "setup failed: exit status %d", &status) == 1) {
        snprintf(short_reason, slen, "setup exit %d", status);
        return;
    }
    for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
        if (strstr(e, kinds[i].phrase)) {
            snprintf(short_reason, slen, "%s", kinds[i].kind);
            return;
        }
    /* Anything else: its first words, up to the first colon. */
    size_t w = strcspn(reason, ":");
    snprintf(short_reason, slen, "%.*s", (int)(w < slen - 1 ? w : slen - 1), reason);
}

void creport_fail_cell(const struct creport *r, size_t v, size_t c, char *buf, size_t len)
{
    const struct creport_fail *f = creport_fail_at(r, v, c);
    if (f->failed && !f->ok)
        snprintf(buf, len, "(fails: %s)", f->short_reason);
    else if (len)
        buf[0] = '\0';
}

void creport_fail_text(const struct creport *r, size_t v, size_t c, char *buf, size_t len)
{
    const struct creport_fail *f = creport_fail_at(r, v, c);
    if (f->failed)
        snprintf(buf, len, "%zu of %zu failed: %s", f->failed, f->failed + f->ok, f->reason);
    else if (len)
        buf[0] = '\0';
}

bool creport_any_fails(const struct creport *r)
{
    return r->fail_sets > 0;
}

/* Each variant and cell with failures through line(f, text), "V @ C: 2 of 5 failed: why". */
static void walk(FILE *f, const struct creport *r, void (*line)(FILE *, const char *))
{
    for (size_t c = 0; c < r->ncells; c++)
        for (size_t v = 0; v < r->nvariants; v++) {
            char why[300], text[400];
            creport_fail_text(r, v, c, why, sizeof(why));
            if (!*why)
                continue;
            snprintf(text, sizeof(text), "%s @ %s: %s", r->variants[v],
                     r->cells[c].name[0] ? r->cells[c].name : "(all)", why);
            line(f, text);
        }
}

static void text_line(FILE *f, const char *text)
{
    creport_wrap(f, "  ", "    ", text);
}

static void md_line(FILE *f, const char *text)
{
    fputs("- ", f);
    creport_md_text(f, text);
    fputc('\n', f);
}

void creport_print_fails_text(FILE *f, const struct creport *r)
{
    if (!creport_any_fails(r))
        return;
    fputs("\nFailed runs (not compared as numbers):\n", f);
    walk(f, r, text_line);
}

void creport_print_fails_markdown(FILE *f, const struct creport *r)
{
    if (!creport_any_fails(r))
        return;
    fputs("\n### Failed runs (not compared as numbers)\n\n", f);
    walk(f, r, md_line);
}

json_t *creport_fails_json(const struct creport *r)
{
    json_t *a = json_array();
    for (size_t c = 0; a && c < r->ncells; c++)
        for (size_t v = 0; v < r->nvariants; v++) {
            const struct creport_fail *f = creport_fail_at(r, v, c);
            if (!f->failed)
                continue;
            json_t *o = json_pack("{s:s, s:s, s:I, s:I, s:s, s:s}", "variant", r->variants[v],
                                  "cell", r->cells[c].name, "failed", (json_int_t)f->failed, "runs",
                                  (json_int_t)(f->failed + f->ok), "reason", f->reason,
                                  "short_reason", f->short_reason);
            if (!o || json_array_append_new(a, o)) {
                json_decref(a);
                return NULL;
            }
        }
    return a;
}
