/* The state of a profile, shared by profile.c (sampling) and profile_json.c (its document). */
#ifndef NETAB_MEASURE_PROFILE_PRIV_H
#define NETAB_MEASURE_PROFILE_PRIV_H

#include <jansson.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "measure/profile.h"
#include "measure/profile_agg.h"
#include "measure/profile_sym.h"

#define MAX_STACK 32
#define PROFILE_MAX_COMMS 4096

struct profile {
    enum profile_event ev;
    unsigned freq;
    int ncpus;
    int cpu[PROFILE_MAX_CPUS];
    int fd[PROFILE_MAX_CPUS];
    void *ring[PROFILE_MAX_CPUS];
    size_t ring_len, page;
    char why[160]; /* non-empty: no profile, and why */
    pthread_t reader;
    bool reader_running;
    atomic_bool stop;
    pthread_mutex_t lock; /* agg and lost, between the reader and a final drain */
    struct pagg agg;
    uint64_t lost, throttled;
    struct psym_comm comms[PROFILE_MAX_COMMS]; /* names of processes seen starting (COMM records) */
    size_t ncomms;
    uint64_t enabled_ns, sampled_ns;
};

/* A function's counts while the document is made (profile_json.c). */
struct profile_fn {
    const char *symbol, *module; /* owned by the symboliser */
    uint64_t self;
    json_t *callers; /* {symbol: samples} */
};

/*
 * The full profile of fns[0..n) (sorted, most samples first):
 * {"functions": {module: {symbol: samples}}, "omitted_functions",
 * "omitted_samples"}, the functions listed while the rows' estimated size
 * in an indented document (name + 24 bytes a row, module name + 24 a
 * module) stays within PROFILE_FULL_BYTES; the first row over the budget
 * and every one after it are only counted, so no omitted function has
 * more samples than a listed one. The budget keeps a server's result
 * within one control frame and a stored run small (docs/profile.md).
 * Names are cut to 255 bytes on a UTF-8 boundary; cut names that meet add
 * up; a name jansson refuses (not UTF-8) is counted as omitted. New
 * reference, NULL when out of memory.
 */
json_t *profile_full_json(const struct profile_fn *fns, size_t n);

#endif
