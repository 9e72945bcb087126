/*
 * Value-printing assertions for the cmocka tests that compare numbers, in the
 * style of libuv's ASSERT_EQ/ASSERT_GT: ASSERT_LT(a, b) fails the test with
 * both expressions and both values ("ASSERT_LT(got, want) failed: got = 7,
 * want = 5"), where assert_true() of a comparison says only that it was false.
 *
 * The operands are compared in the type C itself would compare them in (the
 * usual arithmetic conversions: __typeof__((a) + (b))), so ASSERT_LT(a, b)
 * holds exactly when a < b does; each is evaluated once. A failure goes
 * through cmocka's fail_msg(), which does not depend on NDEBUG: these never
 * vanish from a release build. Arithmetic operands only (a pointer operand
 * does not compile): compare pointers with cmocka's assert_ptr_equal(),
 * assert_ptr_not_equal(), assert_null() and assert_non_null(), strings with
 * assert_string_equal() or ASSERT_STARTS_WITH() below, and memory with
 * assert_memory_equal(). tests/unit/edges rejects assert_true() and
 * assert_false() of a comparison, which print neither value.
 */
#ifndef NETAB_TEST_ASSERT_H
#define NETAB_TEST_ASSERT_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

/* One value as text, by its type (after the usual arithmetic conversions). */
static inline const char *nb_assert_fmt_i(char *buf, size_t len, intmax_t v)
{
    snprintf(buf, len, "%jd", v);
    return buf;
}

static inline const char *nb_assert_fmt_u(char *buf, size_t len, uintmax_t v)
{
    snprintf(buf, len, "%ju", v);
    return buf;
}

static inline const char *nb_assert_fmt_d(char *buf, size_t len, long double v)
{
    snprintf(buf, len, "%.17Lg", v);
    return buf;
}

/* Kept by hand: clang-format 14 splits a _Generic association list at its colons. */
/* clang-format off */
#define NB_ASSERT_FMT(buf, v)                                                                      \
    _Generic((v),                                                                                  \
        float: nb_assert_fmt_d,                                                                    \
        double: nb_assert_fmt_d,                                                                   \
        long double: nb_assert_fmt_d,                                                              \
        unsigned int: nb_assert_fmt_u,                                                             \
        unsigned long: nb_assert_fmt_u,                                                            \
        unsigned long long: nb_assert_fmt_u,                                                       \
        default: nb_assert_fmt_i)(buf, sizeof(buf), v)
/* clang-format on */

#define NB_ASSERT_CMP(name, a, op, b)                                                              \
    do {                                                                                           \
        __typeof__((a) + (b)) nb_assert_a_ = (a), nb_assert_b_ = (b);                              \
        if (!(nb_assert_a_ op nb_assert_b_)) {                                                     \
            char nb_assert_sa_[64], nb_assert_sb_[64];                                             \
            fail_msg(name "(%s, %s) failed: %s = %s, %s = %s", #a, #b, #a,                         \
                     NB_ASSERT_FMT(nb_assert_sa_, nb_assert_a_), #b,                               \
                     NB_ASSERT_FMT(nb_assert_sb_, nb_assert_b_));                                  \
        }                                                                                          \
    } while (0)

#define ASSERT_EQ(a, b) NB_ASSERT_CMP("ASSERT_EQ", a, ==, b)
#define ASSERT_NE(a, b) NB_ASSERT_CMP("ASSERT_NE", a, !=, b)
#define ASSERT_LT(a, b) NB_ASSERT_CMP("ASSERT_LT", a, <, b)
#define ASSERT_LE(a, b) NB_ASSERT_CMP("ASSERT_LE", a, <=, b)
#define ASSERT_GT(a, b) NB_ASSERT_CMP("ASSERT_GT", a, >, b)
#define ASSERT_GE(a, b) NB_ASSERT_CMP("ASSERT_GE", a, >=, b)

/*
 * ASSERT_STARTS_WITH(s, prefix) holds when the string s begins with the string
 * prefix (strncmp() over strlen(prefix) bytes, so it never reads past the end
 * of a shorter s). On failure it prints both expressions, the prefix and the
 * start of s, a little longer than the prefix so the reader sees where they
 * part; a NULL s fails as NULL. Each operand is evaluated once.
 */
#define ASSERT_STARTS_WITH(s, prefix)                                                              \
    do {                                                                                           \
        const char *nb_assert_s_ = (s), *nb_assert_p_ = (prefix);                                  \
        size_t nb_assert_n_ = strlen(nb_assert_p_);                                                \
        if (!nb_assert_s_)                                                                         \
            fail_msg("ASSERT_STARTS_WITH(%s, %s) failed: %s is NULL", #s, #prefix, #s);            \
        else if (strncmp(nb_assert_s_, nb_assert_p_, nb_assert_n_) != 0)                           \
            fail_msg("ASSERT_STARTS_WITH(%s, %s) failed: %s begins \"%.*s\", %s = \"%s\"", #s,     \
                     #prefix, #s, (int)nb_assert_n_ + 16, nb_assert_s_, #prefix, nb_assert_p_);    \
    } while (0)

#endif
