/*
 * One error convention for libnetab: functions return 0 on success or a
 * negative errno on failure. Functions whose failure needs explanation also
 * take a caller-supplied buffer (err, errlen) and write a full sentence into it.
 */
#ifndef NETAB_UTIL_ERR_H
#define NETAB_UTIL_ERR_H

#include <stddef.h>

#define NB_MUST_CHECK __attribute__((warn_unused_result))
#define NB_ERRLEN 256

/*
 * Writes a formatted message into err (if err is not NULL). Returns -code for
 * a positive errno, code itself for a negative one, and -EIO for 0: a
 * function that writes an error message never reports success.
 */
int err_set(char *err, size_t errlen, int code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#endif
