#include "util/textfile.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

int textfile_read(FILE *f, size_t max, char **buf, size_t *len)
{
    return textfile_read_after(f, max, NULL, 0, buf, len);
}

int textfile_read_after(FILE *f, size_t max, const char *head, size_t headlen, char **buf,
                        size_t *len)
{
    size_t cap = 1 << 16, n = headlen;
    while (cap < headlen)
        cap *= 2;
    char *b = malloc(cap + 1);
    *buf = NULL;
    *len = 0;
    if (!b)
        return -ENOMEM;
    if (headlen)
        memcpy(b, head, headlen);
    if (n > max) {
        free(b);
        return -EFBIG;
    }
    for (;;) {
        if (n == cap) {
            /* One byte past the cap is enough to know the input is too large. */
            if (cap > max) {
                free(b);
                return -EFBIG;
            }
            size_t ncap = cap * 2 > max + 1 ? max + 1 : cap * 2;
            char *nb = realloc(b, ncap + 1);
            if (!nb) {
                free(b);
                return -ENOMEM;
            }
            b = nb;
            cap = ncap;
        }
        size_t got = fread(b + n, 1, cap - n, f);
        const char *nul = got ? memchr(b + n, '\0', got) : NULL;
        if (nul) {
            *len = (size_t)(nul - b);
            free(b);
            return -EILSEQ;
        }
        n += got;
        if (n > max) {
            free(b);
            return -EFBIG;
        }
        if (got == 0) {
            if (ferror(f)) {
                int e = errno ? errno : EIO;
                free(b);
                return -e;
            }
            break;
        }
    }
    b[n] = '\0';
    *buf = b;
    *len = n;
    return 0;
}

int textfile_load(const char *path, size_t max, const char *what, char **buf, size_t *len,
                  char *err, size_t errlen)
{
    bool in = !strcmp(path, "-");
    FILE *f = in ? stdin : fopen(path, "rb");
    *buf = NULL;
    *len = 0;
    if (!f)
        return err_set(err, errlen, errno, "cannot read %s: %s", path, strerror(errno));
    int rc = textfile_read(f, max, buf, len);
    if (!in)
        fclose(f);
    if (rc == -EFBIG)
        return err_set(err, errlen, EFBIG,
                       "cannot read %s: larger than %zu MiB, the most one document may hold", path,
                       max >> 20);
    if (rc == -EILSEQ)
        return err_set(err, errlen, EILSEQ,
                       "cannot read %s: a binary file (it holds a NUL byte), "
                       "not %s",
                       path, what);
    if (rc)
        return err_set(err, errlen, -rc, "cannot read %s: %s", path, strerror(-rc));
    return 0;
}
