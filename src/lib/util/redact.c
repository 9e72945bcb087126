/*
 * Passwords out of database URLs (redact.h): what netab prints, stores and
 * reports of a command line never holds one.
 */
#include "util/redact.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/words.h"

/* Drops "password=..." from a URL's query part (after '?'), in place. */
static void drop_password_param(char *url)
{
    char *q = strchr(url, '?');
    if (!q)
        return;
    char *p = q + 1;
    while (*p) {
        char *end = p + strcspn(p, "&");
        if (!strncmp(p, "password=", 9)) {
            /* Remove this parameter and the '&' after it (or before it, at the end). */
            if (*end == '&') {
                memmove(p, end + 1, strlen(end + 1) + 1);
                continue;
            }
            /* The last parameter: cut it with the '&' before it, or the '?' if alone. */
            if (p > q + 1)
                p[-1] = '\0';
            else
                *q = '\0';
            break;
        }
        p = *end ? end + 1 : end;
    }
}

char *redact_url(const char *target)
{
    char *out = strdup(target ? target : "");
    if (!out)
        return NULL;
    char *scheme_end = strstr(out, "://");
    if (!scheme_end || strcspn(out, "/?@") < (size_t)(scheme_end - out))
        return out;
    char *auth = scheme_end + 3;
    size_t authlen = strcspn(auth, "/?#");
    /* The last '@' of the authority ends the user information (a password may hold '@'). */
    char *at = NULL;
    for (char *c = auth; c < auth + authlen; c++)
        if (*c == '@')
            at = c;
    if (at) {
        char *colon = memchr(auth, ':', (size_t)(at - auth));
        if (colon)
            memmove(colon, at, strlen(at) + 1);
    }
    drop_password_param(out);
    return out;
}

/* The next URL of a PostgreSQL scheme in p, or NULL. */
static const char *next_url(const char *p)
{
    const char *a = strstr(p, "postgresql://"), *b = strstr(p, "postgres://");
    return !a ? b : !b ? a : a < b ? a : b;
}

char *redact_text(const char *text)
{
    if (!text)
        return NULL;
    size_t len = strlen(text);
    char *out = malloc(len + 1), *o = out;
    if (!out)
        return NULL;
    for (const char *p = text;;) {
        const char *u = next_url(p);
        if (!u) {
            strcpy(o, p);
            break;
        }
        memcpy(o, p, (size_t)(u - p));
        o += u - p;
        size_t n = strcspn(u, " \t\n\r\"'\\");
        char *tok = strndup(u, n);
        char *r = tok ? redact_url(tok) : NULL;
        free(tok);
        if (!r) {
            free(out);
            return NULL;
        }
        /* Redaction only shortens a URL: the copy fits where the original stood. */
        o = stpcpy(o, r);
        free(r);
        p = u + n;
    }
    return out;
}

/* Writes word to f as /bin/sh reads it back: as it is when plain, else single-quoted. */
static void put_word(FILE *f, const char *word)
{
    bool plain = *word && strspn(word, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                       "0123456789-_./=:,+%@") == strlen(word);
    if (plain) {
        fputs(word, f);
        return;
    }
    size_t need = words_shell_quote(word, NULL, 0);
    char *q = malloc(need + 1);
    if (!q) {
        /* Out of memory: an unmistakably broken word rather than an unquoted one. */
        fputs("''", f);
        return;
    }
    words_shell_quote(word, q, need + 1);
    fputs(q, f);
    free(q);
}

char *redact_command(const char *const *argv, size_t n)
{
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    if (!f)
        return NULL;
    bool ok = true;
    for (size_t i = 0; i < n && ok; i++) {
        char *clean = redact_text(argv[i] ? argv[i] : "");
        if (!clean) {
            ok = false;
            break;
        }
        if (i)
            fputc(' ', f);
        put_word(f, clean);
        free(clean);
    }
    if (fclose(f) || !ok) {
        free(out);
        return NULL;
    }
    return out;
}
