/*
 * Text of the environment snapshot for `netab env`: moved from the CLI,
 * which keeps the argument handling.
 */
#include "envcap/print.h"

#include <errno.h>
#include <stdlib.h>

/* The leaves of v as "path value" lines, one per fact. */
static void print_flat(FILE *f, const char *prefix, const json_t *v)
{
    char path[512];
    if (json_is_object(v) && json_object_size(v)) {
        const char *k;
        json_t *c;
        json_object_foreach((json_t *)v, k, c)
        {
            snprintf(path, sizeof(path), "%s%s%s", prefix, *prefix ? "." : "", k);
            print_flat(f, path, c);
        }
    } else if (json_is_array(v) && json_array_size(v)) {
        size_t i;
        json_t *c;
        json_array_foreach(v, i, c)
        {
            snprintf(path, sizeof(path), "%s[%zu]", prefix, i);
            print_flat(f, path, c);
        }
    } else {
        char *s = json_dumps(v, JSON_ENCODE_ANY | JSON_REAL_PRECISION(6));
        fprintf(f, "%-44s %s\n", prefix, s ? s : "?");
        free(s);
    }
}

int env_print_text(FILE *f, const json_t *env, const json_t *warn)
{
    print_flat(f, "", env);
    size_t i;
    json_t *w;
    fprintf(f, "\nwarnings:%s\n", json_array_size(warn) ? "" : " none");
    json_array_foreach(warn, i, w) fprintf(f, "  - %s\n", json_string_value(w));
    return ferror(f) ? -EIO : 0;
}
