#include "util/jsonout.h"

#include <errno.h>

int jsonout_write(FILE *f, const json_t *doc)
{
    if (!doc)
        return -EINVAL;
    if (json_dumpf(doc, f, JSON_INDENT(2) | JSON_REAL_PRECISION(JSONOUT_PRECISION)))
        return -EIO;
    if (fputc('\n', f) == EOF || fflush(f) || ferror(f))
        return -EIO;
    return 0;
}

char *jsonout_compact(const json_t *v)
{
    if (!v)
        return NULL;
    return json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY | JSON_REAL_PRECISION(JSONOUT_PRECISION));
}

char *jsonout_display(const json_t *v)
{
    if (!v)
        return NULL;
    return json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY | JSON_REAL_PRECISION(10));
}
