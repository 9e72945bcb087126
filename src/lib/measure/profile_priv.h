/* The state of a profile, shared by profile.c (sampling) and profile_json.c (its document). */
#ifndef NETAB_MEASURE_PROFILE_PRIV_H
#define NETAB_MEASURE_PROFILE_PRIV_H

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

#endif
