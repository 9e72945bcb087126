/* Text from outside made printable: control bytes as \xNN (see printable.h). */
#include "util/printable.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/*
 * How many bytes at p (len left) form one control character to escape: 1
 * for a C0 byte or DEL, 2 for a C1 control in UTF-8, 0 for a byte to copy.
 */
static size_t control_at(const unsigned char *p, size_t len)
{
    if (*p < 0x20 || *p == 0x7f)
        return 1;
    if (*p == 0xc2 && len > 1 && p[1] >= 0x80 && p[1] <= 0x9f)
        return 2;
    return 0;
}

bool printable_needed(const char *s)
{
    if (!s)
        return false;
    size_t len = strlen(s);
    for (size_t i = 0; i < len; i++)
        if (control_at((const unsigned char *)s + i, len - i))
            return true;
    return false;
}

size_t printable_copy(char *dst, size_t cap, const char *src)
{
    const unsigned char *p = (const unsigned char *)(src ? src : "");
    size_t len = strlen((const char *)p), need = 0;
    for (size_t i = 0; i < len;) {
        size_t n = control_at(p + i, len - i);
        if (!n) {
            if (need + 1 < cap)
                dst[need] = (char)p[i];
            need++;
            i++;
            continue;
        }
        for (size_t k = 0; k < n; k++, i++) {
            /* An escape goes in whole or not at all: no half "\x1" in a truncated copy. */
            if (need + 4 < cap)
                snprintf(dst + need, cap - need, "\\x%02x", p[i]);
            else if (need < cap)
                cap = need + 1;
            need += 4;
        }
    }
    if (cap)
        dst[need < cap ? need : cap - 1] = '\0';
    return need;
}

char *printable_dup(const char *src)
{
    size_t need = printable_copy(NULL, 0, src);
    char *out = malloc(need + 1);
    if (out)
        printable_copy(out, need + 1, src);
    return out;
}

int printable_write(FILE *f, const char *buf, size_t len, bool keep_newlines)
{
    const unsigned char *p = (const unsigned char *)buf;
    size_t i = 0, start = 0;
    while (i < len) {
        size_t n = control_at(p + i, len - i);
        if (!n || (keep_newlines && p[i] == '\n')) {
            i++;
            continue;
        }
        fwrite(p + start, 1, i - start, f);
        for (size_t k = 0; k < n; k++, i++)
            fprintf(f, "\\x%02x", p[i]);
        start = i;
    }
    fwrite(p + start, 1, len - start, f);
    return ferror(f) ? -EIO : 0;
}

int printable_vfprintf(FILE *f, const char *fmt, va_list ap)
{
    char buf[4096];
    int n = vsnprintf(buf, sizeof(buf), fmt, ap);
    if (n < 0)
        return -EIO;
    return printable_write(f, buf, (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf) - 1, true);
}
