/* The CSV writer: RFC 4180 quoting and round-trip numbers (see csv.h). */
#include "util/csv.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void csv_init(struct csv *w, FILE *f, enum csv_eol eol)
{
    w->f = f;
    w->eol = eol == CSV_CRLF ? "\r\n" : "\n";
    w->fields = 0;
}

/* Writes the comma that separates this field from the previous one. */
static void separate(struct csv *w)
{
    if (w->fields++)
        fputc(',', w->f);
}

bool csv_formula_like(const char *s)
{
    if (!s || !*s || !strchr("=+-@\t\r", *s))
        return false;
    if (*s != '-')
        return true;
    /*
     * A negative number is data, not a formula: "-1.5" stays as it is, and
     * so do a lone "-" and a ';'-separated list of numbers ("-2;-1.5", the
     * report's sorted values).
     */
    if (!s[1])
        return false;
    for (const char *p = s;;) {
        char *end;
        (void)strtod(p, &end);
        if (end == p || (*end && *end != ';'))
            return true;
        if (!*end)
            return false;
        p = end + 1;
    }
}

void csv_text(struct csv *w, const char *s)
{
    separate(w);
    if (!s)
        return;
    /* A leading ' makes a spreadsheet show the field as text instead of evaluating it. */
    const char *guard = csv_formula_like(s) ? "'" : "";
    if (!strpbrk(s, ",\"\r\n")) {
        fputs(guard, w->f);
        fputs(s, w->f);
        return;
    }
    fputc('"', w->f);
    fputs(guard, w->f);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', w->f);
        fputc(*s, w->f);
    }
    fputc('"', w->f);
}

/*
 * Fifteen significant digits suffice for every decimal of up to fifteen
 * digits (DBL_DIG), so most measured values come out as they were typed;
 * the closest 16- or 17-digit decimal is tried only when fewer digits would
 * read back as a different double. Seventeen always round-trip.
 */
size_t csv_format_number(char *buf, size_t len, double v)
{
    if (!len)
        return 0;
    buf[0] = '\0';
    if (!isfinite(v))
        return 0;
    int n = 0;
    for (int digits = 15; digits <= 17; digits++) {
        n = snprintf(buf, len, "%.*g", digits, v);
        if (n < 0 || (size_t)n >= len || strtod(buf, NULL) == v)
            break;
    }
    if (n < 0) {
        buf[0] = '\0';
        return 0;
    }
    return (size_t)n < len ? (size_t)n : len - 1;
}

void csv_number(struct csv *w, double v)
{
    char buf[CSV_NUMBER_LEN];
    separate(w);
    if (csv_format_number(buf, sizeof(buf), v))
        fputs(buf, w->f);
}

void csv_integer(struct csv *w, long long v)
{
    separate(w);
    fprintf(w->f, "%lld", v);
}

void csv_empty(struct csv *w)
{
    separate(w);
}

void csv_header(struct csv *w, const char *const *names, size_t n)
{
    for (size_t i = 0; i < n; i++)
        csv_text(w, names[i]);
    csv_end(w);
}

void csv_end(struct csv *w)
{
    fputs(w->eol, w->f);
    w->fields = 0;
}

int csv_status(const struct csv *w)
{
    return ferror(w->f) ? -EIO : 0;
}
