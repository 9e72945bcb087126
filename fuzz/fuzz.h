/*
 * What every libFuzzer harness of netab shares. A harness feeds the bytes
 * libFuzzer gives it to one parser of bytes from outside, exactly as the
 * program would (same entry point, same limits), and checks the few
 * invariants the parser promises: a failure leaves an error sentence, a
 * success leaves a result that can be used and freed. Any crash, sanitizer
 * report, leak or broken invariant is a finding (see docs/fuzzing.md).
 */
#ifndef NETAB_FUZZ_FUZZ_H
#define NETAB_FUZZ_FUZZ_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Aborts (a finding) when cond is false, naming the broken promise. */
#define FUZZ_CHECK(cond, what)                                                                     \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "fuzz invariant broken: %s (%s:%d)\n", what, __FILE__, __LINE__);      \
            abort();                                                                               \
        }                                                                                          \
    } while (0)

/*
 * A NUL-terminated copy of data, for parsers that need one (caller frees).
 * Aborts when out of memory: libFuzzer's -rss_limit_mb bounds the inputs.
 */
static inline char *fuzz_strdup(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    if (!s)
        abort();
    memcpy(s, data, size);
    s[size] = '\0';
    return s;
}

#endif
