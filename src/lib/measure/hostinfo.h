/* Facts about the host a test ran on. */
#ifndef NETAB_MEASURE_HOSTINFO_H
#define NETAB_MEASURE_HOSTINFO_H

struct hostinfo {
    char hostname[256];
    char kernel[128];    /* uname -r */
    char cpu_model[256]; /* "model name" from /proc/cpuinfo, or "unknown" */
    int online_cpus;
};

/* Never fails: a fact that cannot be read is recorded as "unknown". */
void hostinfo_collect(struct hostinfo *h);

#endif
