/* history_from_csv(): a series of (label, value) from anywhere. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "history/history.h"
#include "history/history_priv.h"
#include "util/textfile.h"

/*
 * Splits one line into its label (unquoted, "" escapes undone, in place)
 * and value text. false when there is no comma after the label.
 */
static bool split_line(char *line, char **label, char **value)
{
    if (*line == '"') {
        char *w = line, *r = line + 1;
        for (; *r; r++) {
            if (*r == '"' && r[1] == '"')
                *w++ = *r++;
            else if (*r == '"')
                break;
            else
                *w++ = *r;
        }
        if (*r != '"' || r[1] != ',')
            return false;
        *w = '\0';
        *label = line;
        *value = r + 2;
        return true;
    }
    char *comma = strrchr(line, ',');
    if (!comma)
        return false;
    *comma = '\0';
    *label = line;
    *value = comma + 1;
    return true;
}

static bool parse_value(const char *s, double *out)
{
    while (*s == ' ' || *s == '\t')
        s++;
    char *e;
    errno = 0;
    double v = strtod(s, &e);
    while (*e == ' ' || *e == '\t' || *e == '\r')
        e++;
    if (e == s || *e || errno || !isfinite(v))
        return false;
    *out = v;
    return true;
}

int history_from_csv(const char *path, struct history *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof(*out));
    snprintf(out->metric, sizeof(out->metric), "value");
    FILE *f = fopen(path, "r");
    if (!f)
        return err_set(err, errlen, errno, "%s: %s", path, strerror(errno));
    char *buf = NULL;
    size_t len;
    int rc = textfile_read(f, TEXTFILE_MAX, &buf, &len);
    fclose(f);
    if (rc)
        return err_set(err, errlen, -rc, "%s: %s", path,
                       rc == -EFBIG ? "larger than 64 MiB" : strerror(-rc));
    struct history_series *s = NULL;
    rc = history_add_series(out, NULL, &s);
    size_t lineno = 0;
    for (char *line = buf, *next; !rc && line && *line; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        lineno++;
        size_t l = strlen(line);
        if (l && line[l - 1] == '\r')
            line[--l] = '\0';
        if (!l || *line == '#')
            continue;
        char *label, *value;
        double v;
        if (!split_line(line, &label, &value))
            rc = err_set(err, errlen, EINVAL, "%s:%zu: not 'label,value'", path, lineno);
        else if (!parse_value(value, &v) && !(s->n == 0 && lineno == 1))
            rc = err_set(err, errlen, EINVAL, "%s:%zu: '%s' is not a finite number", path, lineno,
                         value);
        else if (parse_value(value, &v) && history_add_point(s, label, NULL, v, 1))
            rc = err_set(err, errlen, ENOMEM, "out of memory");
    }
    if (!rc && s->n == 0)
        rc = err_set(err, errlen, EINVAL, "%s: no values", path);
    free(buf);
    return rc;
}
