#include "compare/schedule.h"

size_t compare_looks(unsigned first, unsigned max, unsigned *looks, size_t cap)
{
    size_t k = 0;
    if (first > max)
        first = max;
    for (unsigned n = first;;) {
        if (k < cap)
            looks[k] = n;
        k++;
        if (n >= max)
            break;
        unsigned next = n + (n + 1) / 2; /* ceil(1.5 n) */
        n = next > n ? (next < max ? next : max) : n + 1;
    }
    return k;
}

double compare_look_confidence(double confidence, size_t k)
{
    return k ? 1 - (1 - confidence) / (double)k : confidence;
}
