#include "util/words.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

int words_push(struct words *ws, const char *word)
{
    char *copy = strdup(word);
    char **w = copy ? realloc(ws->w, (ws->n + 2) * sizeof(*w)) : NULL;
    if (!w) {
        free(copy);
        return -ENOMEM;
    }
    w[ws->n++] = copy;
    w[ws->n] = NULL;
    ws->w = w;
    return 0;
}

void words_free(struct words *ws)
{
    for (size_t i = 0; i < ws->n; i++)
        free(ws->w[i]);
    free(ws->w);
    ws->w = NULL;
    ws->n = 0;
}

int words_split(const char *s, struct words *out, char *err, size_t errlen)
{
    struct words ws = {0};
    /* A word is never longer than the input, so one buffer of that size serves every word. */
    char *buf = malloc(strlen(s) + 1);
    if (!buf)
        return -ENOMEM;
    int rc = 0;
    const char *p = s;
    for (;;) {
        while (*p == ' ' || *p == '\t' || *p == '\n')
            p++;
        if (!*p)
            break;
        size_t len = 0;
        while (*p && *p != ' ' && *p != '\t' && *p != '\n') {
            if (*p == '\'') {
                const char *end = strchr(p + 1, '\'');
                if (!end) {
                    rc = err_set(err, errlen, EINVAL, "unterminated ' quote in \"%s\"", s);
                    goto out;
                }
                memcpy(buf + len, p + 1, (size_t)(end - p - 1));
                len += (size_t)(end - p - 1);
                p = end + 1;
            } else if (*p == '"') {
                for (p++; *p && *p != '"'; p++) {
                    if (*p == '\\' && p[1] && strchr("$`\"\\\n", p[1]))
                        p++;
                    buf[len++] = *p;
                }
                if (!*p) {
                    rc = err_set(err, errlen, EINVAL, "unterminated \" quote in \"%s\"", s);
                    goto out;
                }
                p++;
            } else if (*p == '\\') {
                if (!p[1]) {
                    rc = err_set(err, errlen, EINVAL, "trailing backslash in \"%s\"", s);
                    goto out;
                }
                buf[len++] = p[1];
                p += 2;
            } else {
                buf[len++] = *p++;
            }
        }
        buf[len] = '\0';
        rc = words_push(&ws, buf);
        if (rc) {
            err_set(err, errlen, ENOMEM, "out of memory");
            goto out;
        }
    }
    /* An empty string still yields a valid, empty, NULL-terminated array. */
    if (!ws.w) {
        ws.w = calloc(1, sizeof(*ws.w));
        if (!ws.w)
            rc = -ENOMEM;
    }
out:
    free(buf);
    if (rc)
        words_free(&ws);
    else
        *out = ws;
    return rc;
}

size_t words_shell_quote(const char *word, char *buf, size_t len)
{
    size_t need = 0;
#define PUT(c)                                                                                     \
    do {                                                                                           \
        if (need + 1 < len)                                                                        \
            buf[need] = (c);                                                                       \
        need++;                                                                                    \
    } while (0)
    PUT('\'');
    for (const char *p = word; *p; p++) {
        if (*p == '\'') {
            PUT('\'');
            PUT('\\');
            PUT('\'');
            PUT('\'');
        } else {
            PUT(*p);
        }
    }
    PUT('\'');
#undef PUT
    if (len)
        buf[need < len ? need : len - 1] = '\0';
    return need;
}
