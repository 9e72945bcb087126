/* KTAP version 1 lines (ktap.h). */
#include <stdarg.h>

#include "util/ktap.h"

void ktap_header(FILE *f, size_t ntests)
{
    fprintf(f, "KTAP version 1\n1..%zu\n", ntests);
}

/* s with '#' as '_' and control bytes as ' ': neither may end a description or a line early. */
static void put_clean(FILE *f, const char *s)
{
    for (; *s; s++)
        fputc(*s == '#' ? '_' : (unsigned char)*s < 0x20 || *s == 0x7f ? ' ' : *s, f);
}

void ktap_result(FILE *f, size_t n, bool ok, const char *name, const char *skip)
{
    fprintf(f, "%sok %zu ", ok || skip ? "" : "not ", n);
    put_clean(f, name);
    if (skip) {
        fputs(" # SKIP ", f);
        put_clean(f, skip);
    }
    fputc('\n', f);
}

void ktap_diag(FILE *f, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    fputs("# ", f);
    for (const char *s = buf; *s; s++) {
        if (*s == '\n')
            fputs("\n# ", f);
        else
            fputc((unsigned char)*s < 0x20 || *s == 0x7f ? ' ' : *s, f);
    }
    fputc('\n', f);
}

void ktap_totals(FILE *f, size_t pass, size_t fail, size_t skip)
{
    fprintf(f, "# Totals: pass:%zu fail:%zu xfail:0 xpass:0 skip:%zu error:0\n", pass, fail, skip);
}
