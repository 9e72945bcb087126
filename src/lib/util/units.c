/*
 * Parsing and formatting of sizes, rates and durations.
 *
 * Sizes and rates are parsed with exact integer arithmetic rather than
 * strtod(): "1.5M" must give exactly 1572864 bytes, a byte count near 2^64
 * must not lose its low digits to a double, and strtod() would also accept
 * things we do not want ("inf", "nan", "0x10", "1e3", leading blanks).
 */
#include "util/units.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* More fraction digits than this cannot be represented exactly below. */
#define MAX_FRAC_DIGITS 18

typedef unsigned __int128 u128;

/* A decimal number split into its exact parts: value = ipart + frac / 10^ndigits. */
struct decimal {
    uint64_t ipart;
    uint64_t frac;
    int ndigits;
    const char *end; /* first character after the number */
};

enum decimal_status { DEC_OK, DEC_SYNTAX, DEC_RANGE, DEC_PRECISION };

/*
 * Scans an unsigned decimal "123", "1.5", ".5" or "1." at the start of s.
 * At least one digit is required; no sign, blank, exponent or hex. Trailing
 * zeros of the fraction are dropped so that "1.50000" is as exact as "1.5".
 */
static enum decimal_status decimal_scan(const char *s, struct decimal *d)
{
    enum decimal_status st = DEC_OK;
    const char *p = s;
    bool any_digit = false;

    d->ipart = 0;
    d->frac = 0;
    d->ndigits = 0;
    /* Overflow is remembered but scanning goes on, so that "1e99" stays a syntax error. */
    for (; *p >= '0' && *p <= '9'; p++) {
        any_digit = true;
        unsigned digit = (unsigned)(*p - '0');
        if (d->ipart > (UINT64_MAX - digit) / 10)
            st = DEC_RANGE;
        else
            d->ipart = d->ipart * 10 + digit;
    }
    if (*p == '.') {
        p++;
        const char *fs = p;
        while (*p >= '0' && *p <= '9')
            p++;
        const char *fe = p;
        if (fe > fs)
            any_digit = true;
        while (fe > fs && fe[-1] == '0')
            fe--;
        if (fe - fs > MAX_FRAC_DIGITS) {
            if (st == DEC_OK)
                st = DEC_PRECISION;
        } else {
            for (const char *q = fs; q < fe; q++)
                d->frac = d->frac * 10 + (uint64_t)(*q - '0');
            d->ndigits = (int)(fe - fs);
        }
    }
    d->end = p;
    return any_digit ? st : DEC_SYNTAX;
}

static uint64_t pow10_u64(int n)
{
    uint64_t r = 1;
    while (n-- > 0)
        r *= 10;
    return r;
}

/*
 * Reads an optional K/M/G suffix with an optional 'i' after it, which must
 * end the string. kilo is the multiplier of a bare K (1000 or 1024); an 'i'
 * always means 1024. Returns false for anything else after the number.
 */
static bool suffix_scan(const char *p, uint64_t kilo, uint64_t *mult)
{
    int power;

    switch (*p) {
    case '\0':
        *mult = 1;
        return true;
    case 'K':
    case 'k':
        power = 1;
        break;
    case 'M':
    case 'm':
        power = 2;
        break;
    case 'G':
    case 'g':
        power = 3;
        break;
    default:
        return false;
    }
    p++;
    if (*p == 'i') {
        kilo = 1024;
        p++;
    }
    if (*p != '\0')
        return false;
    *mult = 1;
    while (power-- > 0)
        *mult *= kilo;
    return true;
}

/*
 * Computes d * mult exactly. Returns -ERANGE if the integral result does not
 * fit in 64 bits. *exact tells whether the fraction vanished; the result is
 * rounded to nearest (halves up) when it did not.
 */
static int decimal_scale(const struct decimal *d, uint64_t mult, uint64_t *out, bool *exact)
{
    u128 whole = (u128)d->ipart * mult;
    u128 den = pow10_u64(d->ndigits);
    /* frac < 10^18 and mult <= 2^30, so this product fits easily in 128 bits. */
    u128 fnum = (u128)d->frac * mult;
    u128 q = fnum / den;
    u128 r = fnum % den;

    *exact = (r == 0);
    if (2 * r >= den)
        q++;
    whole += q;
    if (whole > UINT64_MAX)
        return -ERANGE;
    *out = (uint64_t)whole;
    return 0;
}

static const char *shown(const char *s)
{
    return s ? s : "(null)";
}

int units_parse_size(const char *s, uint64_t *out, char *err, size_t errlen)
{
    static const char expect[] = "expected a number with optional K, M, G, Ki, Mi or Gi";
    struct decimal d;
    uint64_t mult = 1, v;
    bool exact;

    if (!s)
        return err_set(err, errlen, EINVAL, "a size is missing (%s)", expect);
    enum decimal_status st = decimal_scan(s, &d);
    if (st == DEC_SYNTAX || !suffix_scan(d.end, 1024, &mult))
        return err_set(err, errlen, EINVAL, "'%s' is not a valid size (%s)", s, expect);
    if (st == DEC_PRECISION)
        return err_set(err, errlen, EINVAL, "'%s' has more fraction digits than a size can use", s);
    if (st == DEC_RANGE || decimal_scale(&d, mult, &v, &exact))
        return err_set(err, errlen, ERANGE,
                       "'%s' is too large for a size (the maximum is %llu bytes)", s,
                       (unsigned long long)UINT64_MAX);
    if (!exact)
        return err_set(err, errlen, EINVAL, "'%s' is not a whole number of bytes", s);
    *out = v;
    return 0;
}

int units_parse_rate(const char *s, uint64_t *out, char *err, size_t errlen)
{
    static const char expect[] =
        "expected a number of bits per second with optional K, M, G, Ki, Mi or Gi";
    struct decimal d;
    uint64_t mult = 1, v;
    bool exact;

    if (!s)
        return err_set(err, errlen, EINVAL, "a rate is missing (%s)", expect);
    enum decimal_status st = decimal_scan(s, &d);
    if (st == DEC_SYNTAX || !suffix_scan(d.end, 1000, &mult))
        return err_set(err, errlen, EINVAL, "'%s' is not a valid rate (%s)", s, expect);
    if (st == DEC_PRECISION)
        return err_set(err, errlen, EINVAL, "'%s' has more fraction digits than a rate can use", s);
    /* A rate below one bit per second is meaningless, so rounding is harmless. */
    if (st == DEC_RANGE || decimal_scale(&d, mult, &v, &exact))
        return err_set(err, errlen, ERANGE,
                       "'%s' is too large for a rate (the maximum is %llu bit/s)", s,
                       (unsigned long long)UINT64_MAX);
    *out = v;
    return 0;
}

int units_parse_seconds(const char *s, double *out, char *err, size_t errlen)
{
    struct decimal d;

    if (!s)
        return err_set(err, errlen, EINVAL, "a duration is missing");
    /*
     * The syntax check keeps strtod() from accepting signs, blanks, "inf",
     * "nan", hex and exponents; a valid string can still overflow to inf.
     */
    enum decimal_status st = decimal_scan(s, &d);
    if (st == DEC_SYNTAX || *d.end != '\0')
        return err_set(err, errlen, EINVAL,
                       "'%s' is not a valid duration (expected a non-negative number of "
                       "seconds such as 10 or 0.5)",
                       shown(s));
    errno = 0;
    double v = strtod(s, NULL);
    if (errno == ERANGE || !isfinite(v))
        return err_set(err, errlen, ERANGE, "'%s' seconds is too long a duration", s);
    *out = v;
    return 0;
}

int units_parse_int(const char *s, long min, long max, long *out, char *err, size_t errlen)
{
    char *end;

    /* strtol() skips blanks and accepts "+"; neither belongs in a plain integer. */
    if (!s || !(*s == '-' || (*s >= '0' && *s <= '9')))
        goto invalid;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (end == s || *end != '\0' || (*s == '-' && end == s + 1))
        goto invalid;
    if (errno == ERANGE || v < min || v > max)
        return err_set(err, errlen, ERANGE,
                       "'%s' is out of range (expected an integer from %ld to %ld)", s, min, max);
    *out = v;
    return 0;
invalid:
    return err_set(err, errlen, EINVAL,
                   "'%s' is not a valid integer (expected an integer from %ld to %ld)", shown(s),
                   min, max);
}

/*
 * Formats v with a prefix from units[] so that three significant digits show
 * ("941", "9.41", "94.1"). A value that would round up to `base` moves to the
 * next prefix, so 999.7 Mbit/s prints as "1.00 Gbit/s", not "1000 Mbit/s".
 * With whole_first the unprefixed unit prints as a whole number ("100 B").
 */
static void format_scaled(double v, double base, const char *const *units, int nunits,
                          bool whole_first, char *buf, size_t len)
{
    if (!isfinite(v)) {
        snprintf(buf, len, "%f %s", v, units[0]);
        return;
    }
    const char *sign = v < 0 ? "-" : "";
    double a = fabs(v);
    int i = 0;
    while (i + 1 < nunits && a >= base - 0.5) {
        a /= base;
        i++;
    }
    if (a == 0 || (i == 0 && whole_first)) {
        snprintf(buf, len, "%s%.0f %s", sign, a, units[i]);
        return;
    }
    int decimals = a >= 99.95 ? 0 : a >= 9.995 ? 1 : 2;
    snprintf(buf, len, "%s%.*f %s", sign, decimals, a, units[i]);
}

void units_format_rate(double bits_per_second, char *buf, size_t len)
{
    static const char *const units[] = {"bit/s", "Kbit/s", "Mbit/s", "Gbit/s", "Tbit/s"};
    format_scaled(bits_per_second, 1000.0, units, 5, false, buf, len);
}

void units_format_bytes(double bytes, char *buf, size_t len)
{
    static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
    format_scaled(bytes, 1024.0, units, 6, true, buf, len);
}
