/* Internal to the envcap module. */
#ifndef NETAB_ENVCAP_ENVCAP_PRIV_H
#define NETAB_ENVCAP_ENVCAP_PRIV_H

#include <jansson.h>

#include "envcap/envcap.h"

/* The interface{} object of a snapshot (iface.c). Never NULL unless out of memory. */
json_t *envcap_iface_section(const char *ifname, const char *sys, const char *proc);

/* Program names counted as noise sources; NULL-terminated. */
extern const char *const envcap_noise_comms[];

/*
 * The competing-process census (census.c): the benchmark programs running
 * under procfs root proc that are not of this test (see census.c for the
 * rule), as [{pid, comm, cmdline}] sorted by pid; *ours receives those that
 * are, with a "why" each. Sets *irqbalance to 1 when an irqbalance daemon is
 * seen. Returns JSON null (and *ours null, *irqbalance -1) when proc cannot
 * be listed.
 */
json_t *envcap_census(const char *proc, const struct env_run_peer *peer, int *irqbalance,
                      json_t **ours);

#endif
