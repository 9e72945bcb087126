/*
 * The sorted values of a campaign report (the columns of numbers people
 * paste side by side in mailing lists): for each cell's deciding metric,
 * every measured run's value in ascending order (the model's sorted), one
 * column per variant, in text and Markdown, each number as
 * creport_fmt_value() writes it in every format.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/report.h"
#include "report/tables.h"

/* Columns of 12 characters after a 4-character rank: five variants fit in 72 columns. */
#define COLW 12
#define PER_BLOCK 5

/* Variants v0..v1-1 of cell c, metric m, side by side. */
static void text_block(FILE *f, const struct creport *r, size_t c, size_t m, size_t v0, size_t v1)
{
    size_t rows = 0;
    char x[32];
    fprintf(f, "%4s", "#");
    for (size_t v = v0; v < v1; v++) {
        const struct creport_entry *en = creport_at(r, v, c, m);
        rows = en->n > rows ? en->n : rows;
        fprintf(f, " %*.*s", COLW - 1, COLW - 1, r->variants[v]);
    }
    fputc('\n', f);
    for (size_t i = 0; i < rows; i++) {
        fprintf(f, "%4zu", i + 1);
        for (size_t v = v0; v < v1; v++) {
            const struct creport_entry *en = creport_at(r, v, c, m);
            if (i < en->n)
                creport_fmt_value(x, sizeof(x), en->sorted[i]);
            fprintf(f, " %*s", COLW - 1, i < en->n ? x : "");
        }
        fputc('\n', f);
    }
}

int creport_print_values_text(const struct creport *r, FILE *f)
{
    const struct creport_metric *md = creport_report_metrics(r, &(size_t){0});
    for (size_t c = 0; c < r->ncells; c++) {
        int m = r->cells[c].decide;
        if (m < 0 || !creport_at(r, 0, c, (size_t)m)->shown)
            continue;
        fprintf(f, "\nSorted values of %s, every measured run, ascending,\n", md[m].label);
        /* The cell's name may be long: in pieces that keep the text within 72 columns. */
        const char *name = r->cells[c].name[0] ? r->cells[c].name : "default";
        size_t len = strlen(name);
        for (size_t at = 0; at < len || at == 0; at += 60)
            fprintf(f, "%s%.60s%s\n", at ? "  " : "in ", name + at, at + 60 >= len ? ":" : "");
        for (size_t v0 = 0; v0 < r->nvariants; v0 += PER_BLOCK) {
            size_t v1 = v0 + PER_BLOCK < r->nvariants ? v0 + PER_BLOCK : r->nvariants;
            text_block(f, r, c, (size_t)m, v0, v1);
        }
    }
    return ferror(f) ? -EIO : 0;
}

int creport_print_values_markdown(const struct creport *r, FILE *f)
{
    const struct creport_metric *md = creport_report_metrics(r, &(size_t){0});
    for (size_t c = 0; c < r->ncells; c++) {
        int m = r->cells[c].decide;
        if (m < 0 || !creport_at(r, 0, c, (size_t)m)->shown)
            continue;
        fprintf(f, "\n**Sorted values: %s (%s), %s**\n\n| # |", md[m].title, md[m].unit,
                r->cells[c].name[0] ? r->cells[c].name : "default");
        size_t rows = 0;
        char x[32];
        for (size_t v = 0; v < r->nvariants; v++) {
            const struct creport_entry *en = creport_at(r, v, c, (size_t)m);
            rows = en->n > rows ? en->n : rows;
            fprintf(f, " %s |", r->variants[v]);
        }
        fputs("\n|---:|", f);
        for (size_t v = 0; v < r->nvariants; v++)
            fputs("---:|", f);
        fputc('\n', f);
        for (size_t i = 0; i < rows; i++) {
            fprintf(f, "| %zu |", i + 1);
            for (size_t v = 0; v < r->nvariants; v++) {
                const struct creport_entry *en = creport_at(r, v, c, (size_t)m);
                if (i < en->n)
                    creport_fmt_value(x, sizeof(x), en->sorted[i]);
                fprintf(f, " %s |", i < en->n ? x : "");
            }
            fputc('\n', f);
        }
    }
    return ferror(f) ? -EIO : 0;
}
