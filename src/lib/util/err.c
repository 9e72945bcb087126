#include "util/err.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>

int err_set(char *err, size_t errlen, int code, const char *fmt, ...)
{
    if (err && errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    /*
     * A caller that passes errno after a call that did not set it, or a
     * helper's 0, must still see a failure: the message says something went
     * wrong, so returning "success" would lose it.
     */
    if (code == 0)
        return -EIO;
    return code > 0 ? -code : code;
}
