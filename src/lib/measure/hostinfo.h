/* Facts about the host a test ran on. */
#ifndef NETAB_MEASURE_HOSTINFO_H
#define NETAB_MEASURE_HOSTINFO_H

#include <stddef.h>

struct hostinfo {
    char hostname[256];
    char kernel[128];    /* uname -r */
    char cpu_model[256]; /* "model name" from /proc/cpuinfo, or "unknown" */
    int online_cpus;     /* 0 when unknown */
};

/* Never fails: a fact that cannot be read is recorded as "unknown". */
void hostinfo_collect(struct hostinfo *h);

/*
 * Copies the CPU model named in text (the contents of /proc/cpuinfo) into
 * out, or "unknown" if none is named. "model name" (x86, arm64 on recent
 * kernels) is preferred; "Processor", "cpu model" and "cpu" are used on
 * arches that lack it (older arm, mips, powerpc). Pure: no I/O.
 */
void hostinfo_parse_cpu_model(const char *text, char *out, size_t len);

#endif
