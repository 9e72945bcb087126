/* Assertions shared by the statistics tests; they print both values on failure. */
#ifndef NETAB_TEST_STATS_HELPERS_H
#define NETAB_TEST_STATS_HELPERS_H

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

/* Relative closeness |a - e| <= tol * max(|e|, 1e-300); absolute near zero via abs_floor. */
#define ASSERT_REL(actual, expected, tol)                                                          \
    do {                                                                                           \
        double a_ = (actual), e_ = (expected);                                                     \
        double d_ = fabs(a_ - e_), s_ = fabs(e_) > 1e-12 ? fabs(e_) : 1e-12;                       \
        if (!(d_ <= (tol)*s_)) {                                                                   \
            print_error("%s:%d: %s = %.17g, expected %.17g (rel. error %.3g > %.3g)\n", __FILE__,  \
                        __LINE__, #actual, a_, e_, d_ / s_, (double)(tol));                        \
            fail();                                                                                \
        }                                                                                          \
    } while (0)

#endif
