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
 * vanish from a release build. Arithmetic operands only; compare pointers
 * with assert_ptr_equal().
 */
#ifndef NETAB_TEST_ASSERT_H
#define NETAB_TEST_ASSERT_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

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

#define NB_ASSERT_FMT(buf, v)                                                                      \
    _Generic((v),                                                                                  \
        float: nb_assert_fmt_d,                                                                    \
        double: nb_assert_fmt_d,                                                                   \
        long double: nb_assert_fmt_d,                                                              \
        unsigned int: nb_assert_fmt_u,                                                             \
        unsigned long: nb_assert_fmt_u,                                                            \
        unsigned long long: nb_assert_fmt_u,                                                       \
        default: nb_assert_fmt_i)(buf, sizeof(buf), v)

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

#endif
