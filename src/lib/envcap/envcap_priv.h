/* Internal to the envcap module. */
#ifndef NETAB_ENVCAP_ENVCAP_PRIV_H
#define NETAB_ENVCAP_ENVCAP_PRIV_H

#include <jansson.h>

/* The interface{} object of a snapshot (iface.c). Never NULL unless out of memory. */
json_t *envcap_iface_section(const char *ifname, const char *sys, const char *proc);

/* Program names counted as noise sources; NULL-terminated. */
extern const char *const envcap_noise_comms[];

#endif
