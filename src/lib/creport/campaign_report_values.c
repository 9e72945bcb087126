/*
 * The sorted values of a campaign report (the columns of numbers people
 * paste side by side in mailing lists): for each cell's deciding metric,
 * every measured run's value in ascending order, one column per variant,
 * in text and Markdown; the CSV, JSON and HTML printers use
 * creport_sorted() for theirs.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "creport/campaign_report.h"

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double *creport_sorted(const struct creport_entry *en)
{
    double *s = malloc((en->n ? en->n : 1) * sizeof(double));
    if (!s)
        return NULL;
    memcpy(s, en->values, en->n * sizeof(double));
    qsort(s, en->n, sizeof(double), cmp_double);
    return s;
}

/* Columns of 12 characters after a 4-character rank: five variants fit in 72 columns. */
#define COLW 12
#define PER_BLOCK 5

/* Variants v0..v1-1 of cell c, metric m, side by side. Returns 0 or -ENOMEM. */
static int text_block(FILE *f, const struct creport *r, size_t c, size_t m, size_t v0, size_t v1)
{
    double *cols[PER_BLOCK] = {0};
    size_t rows = 0;
    int e = 0;
    fprintf(f, "%4s", "#");
    for (size_t v = v0; v < v1; v++) {
        const struct creport_entry *en = creport_at(r, v, c, m);
        rows = en->n > rows ? en->n : rows;
        if (!(cols[v - v0] = creport_sorted(en)))
            e = -ENOMEM;
        fprintf(f, " %*.*s", COLW - 1, COLW - 1, r->variants[v]);
    }
    fputc('\n', f);
    for (size_t i = 0; i < rows && !e; i++) {
        fprintf(f, "%4zu", i + 1);
        for (size_t v = v0; v < v1; v++) {
            if (i < creport_at(r, v, c, m)->n)
                fprintf(f, " %*.5g", COLW - 1, cols[v - v0][i]);
            else
                fprintf(f, " %*s", COLW - 1, "");
        }
        fputc('\n', f);
    }
    for (size_t k = 0; k < PER_BLOCK; k++)
        free(cols[k]);
    return e;
}

int creport_print_values_text(const struct creport *r, FILE *f)
{
    const struct creport_metric *md = creport_report_metrics(r, &(size_t){0});
    int e = 0;
    for (size_t c = 0; c < r->ncells && !e; c++) {
        int m = r->cells[c].decide;
        if (m < 0 || !creport_at(r, 0, c, (size_t)m)->shown)
            continue;
        fprintf(f, "\nSorted values of %s, every measured run, ascending,\n", md[m].label);
        /* The cell's name may be long: in pieces that keep the text within 72 columns. */
        const char *name = r->cells[c].name[0] ? r->cells[c].name : "default";
        size_t len = strlen(name);
        for (size_t at = 0; at < len || at == 0; at += 60)
            fprintf(f, "%s%.60s%s\n", at ? "  " : "in ", name + at, at + 60 >= len ? ":" : "");
        for (size_t v0 = 0; v0 < r->nvariants && !e; v0 += PER_BLOCK) {
            size_t v1 = v0 + PER_BLOCK < r->nvariants ? v0 + PER_BLOCK : r->nvariants;
            e = text_block(f, r, c, (size_t)m, v0, v1);
        }
    }
    return e;
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
        double **cols = calloc(r->nvariants, sizeof(double *));
        if (!cols)
            return -ENOMEM;
        for (size_t v = 0; v < r->nvariants; v++) {
            const struct creport_entry *en = creport_at(r, v, c, (size_t)m);
            rows = en->n > rows ? en->n : rows;
            cols[v] = creport_sorted(en);
            fprintf(f, " %s |", r->variants[v]);
        }
        fputs("\n|---:|", f);
        for (size_t v = 0; v < r->nvariants; v++)
            fputs("---:|", f);
        fputc('\n', f);
        for (size_t i = 0; i < rows; i++) {
            fprintf(f, "| %zu |", i + 1);
            for (size_t v = 0; v < r->nvariants; v++)
                if (cols[v] && i < creport_at(r, v, c, (size_t)m)->n)
                    fprintf(f, " %.6g |", cols[v][i]);
                else
                    fputs("  |", f);
            fputc('\n', f);
        }
        for (size_t v = 0; v < r->nvariants; v++)
            free(cols[v]);
        free(cols);
    }
    return 0;
}
