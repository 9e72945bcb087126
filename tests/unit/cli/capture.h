/*
 * Test helper: captures what the code under test writes to stdout or
 * stderr (fd 1 or 2) into a temporary file and returns it as a string.
 */
#ifndef NETAB_TESTS_CLI_CAPTURE_H
#define NETAB_TESTS_CLI_CAPTURE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct capture {
    int fd;    /* the captured descriptor */
    int saved; /* its original target */
    FILE *tmp;
};

static inline void capture_begin(struct capture *c, int fd)
{
    fflush(fd == 1 ? stdout : stderr);
    c->fd = fd;
    c->saved = dup(fd);
    c->tmp = tmpfile();
    if (c->saved < 0 || !c->tmp || dup2(fileno(c->tmp), fd) < 0)
        abort();
}

/* Restores the descriptor; returns what was written (caller frees). */
static inline char *capture_end(struct capture *c)
{
    fflush(c->fd == 1 ? stdout : stderr);
    dup2(c->saved, c->fd);
    close(c->saved);
    /* The output went to the descriptor, not through c->tmp's buffer: read it raw. */
    int tfd = fileno(c->tmp);
    off_t len = lseek(tfd, 0, SEEK_END);
    char *text = calloc(1, (size_t)(len > 0 ? len : 0) + 1);
    if (!text || len < 0 || pread(tfd, text, (size_t)len, 0) != (ssize_t)len)
        abort();
    fclose(c->tmp);
    return text;
}

/* Occurrences of needle in hay. */
static inline int count_of(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *p = hay; (p = strstr(p, needle)); p++)
        n++;
    return n;
}

#endif
