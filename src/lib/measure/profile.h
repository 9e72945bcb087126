/*
 * A sampled profile over a test's measured window (netab run --profile):
 * perf_event_open(2) sampling events with call chains, read from their
 * ring buffers by a thread of the profile's own while the test runs, and
 * symbolised at the end: kernel addresses through /proc/kallsyms, user
 * addresses through the process's maps and the mapped file's ELF symbol
 * table (symbols/symtab.h).
 *
 * Two scopes (docs/profile.md). The test's (the default): this process's
 * threads, those that exist when the profile opens and every one they
 * start later (per-task events, one per thread and CPU, inherited), with
 * their kernel stacks; plus, on the test's CPUs, the softirq work other
 * tasks (ksoftirqd, or whatever a softirq interrupted) do, as kernel work
 * for the test. The system's: every task on the CPUs, as `perf record -a`.
 * In both the idle task outside softirq is counted apart (the idle share),
 * never as a function.
 *
 * Per-task sampling needs perf_event_paranoid <= 1 (or root); CPU-wide
 * sampling root or perf_event_paranoid <= 0. Nothing here fails a test: a
 * profile that cannot be taken says why, and one of the test's scope that
 * cannot sample its CPUs says what it lacks.
 *
 * Ownership: a struct profile belongs to the caller, who frees it with
 * profile_free(); profile_json() returns a new reference.
 */
#ifndef NETAB_MEASURE_PROFILE_H
#define NETAB_MEASURE_PROFILE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/err.h"

#define PROFILE_DEFAULT_FREQ 999 /* Hz per CPU: perf's habit of avoiding lockstep with timers */
#define PROFILE_MAX_CPUS 256
#define PROFILE_TOP 30 /* functions with callers and shares in the run document */
/* The full list's budget: about 6,000 functions of kernel-like names (docs/profile.md). */
#define PROFILE_FULL_BYTES (192 * 1024)

enum profile_event {
    PROFILE_CPU_CLOCK, /* software: every machine has it */
    PROFILE_CYCLES,
    PROFILE_INSTRUCTIONS,
    PROFILE_L1I_MISSES,
    PROFILE_ITLB_MISSES,
    /* Software events every machine has: a group's members where there is no PMU (tests). */
    PROFILE_TASK_CLOCK,
    PROFILE_PAGE_FAULTS,
    PROFILE_CONTEXT_SWITCHES,
    PROFILE_NEVENTS
};

/* The event's name as perf spells it ("cpu-clock", "L1-icache-load-misses"). */
const char *profile_event_name(enum profile_event e);

/* An event from its name; -EINVAL when unknown. */
NB_MUST_CHECK int profile_event_from_name(const char *name, enum profile_event *e);

#define PROFILE_MAX_EVENTS 4

/*
 * A comma-separated list of events ("cycles,instructions"), each at most
 * once, into evs[0..PROFILE_MAX_EVENTS). Returns their number, or -EINVAL.
 */
NB_MUST_CHECK int profile_events_from_list(const char *list, enum profile_event *evs);

/* What a profile samples: the test's own work (the default), or every task on the CPUs. */
enum profile_scope { PROFILE_SCOPE_TEST, PROFILE_SCOPE_SYSTEM };

/* "test" or "system". */
const char *profile_scope_name(enum profile_scope s);

/* A scope from its name; -EINVAL when unknown. */
NB_MUST_CHECK int profile_scope_from_name(const char *name, enum profile_scope *s);

struct profile;

/*
 * Opens disabled sampling events of evs[0] and starts the reader thread:
 * a CPU-wide event on each of cpus[0..ncpus) (the test's CPUs; all online
 * CPUs when ncpus is 0) and, in the test's scope, a per-task event for
 * each of this process's threads on each online CPU. Call it on the thread
 * that starts the test's threads, before it starts them. Where evs[] asks
 * for hardware events and the machine has no PMU for evs[0], it samples
 * cpu-clock instead and its note says so in one line. The events after the
 * first are counted in one group with it (each sample of evs[0] carries
 * the group's counts, and what they grew by since that event's previous
 * sample goes to the sample's function); one the machine lacks is left
 * out, which the note says. Always returns a
 * profile (NULL only when out of memory); one that could not open its
 * events carries the reason, and profile_json() reports it.
 */
struct profile *profile_open(const enum profile_event *evs, int nev, unsigned freq,
                             enum profile_scope scope, const int *cpus, int ncpus);

/* The window opens: sampling starts. */
void profile_enable(struct profile *p);

/* The window closed: sampling stops, the rings are drained and the reader thread ends. */
void profile_disable(struct profile *p);

/*
 * The profile as the run document's end.profile.local|remote: event,
 * frequency, CPUs, scope, idle share, samples, lost samples, seconds sampled, the top
 * functions (symbol, module, self samples, share of all samples, top
 * callers) and the full profile ("full": every function's self samples by
 * module, within PROFILE_FULL_BYTES, and what the budget left out); or
 * {"event", "why"} when there is none. New reference.
 */
json_t *profile_json(struct profile *p, int top);

void profile_free(struct profile *p);

/*
 * Checks a peer's profile member (from the network): exactly the members
 * profile_json() writes, strings bounded, counts non-negative integers, at
 * most PROFILE_TOP functions with at most 3 callers each, and the full
 * list (optional: a peer before it sends none) within the size its
 * budget allows. Returns 0 or
 * -EPROTO with a message.
 */
NB_MUST_CHECK int profile_check(const json_t *p, char *err, size_t errlen);

#endif
