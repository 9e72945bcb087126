/*
 * Kernel counters of the network stack over a measurement window: the SNMP
 * and netstat MIBs (/proc/net/snmp, /proc/net/netstat, /proc/net/snmp6),
 * the NET_RX and NET_TX softirqs of each CPU (/proc/softirqs) and the
 * test interface's statistics (/sys/class/net/DEV/statistics). They say
 * where a datagram was dropped (Udp.RcvbufErrors: the receiver's socket
 * buffer was full) or why TCP slowed (TcpExt.TCPLossProbes).
 *
 * The /proc/net files are those of the network namespace the calling
 * process runs in; /proc/softirqs is the whole machine's.
 */
#ifndef NETAB_MEASURE_KCOUNTERS_H
#define NETAB_MEASURE_KCOUNTERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/err.h"

#define KC_NAME_MAX 64 /* "Group.Counter" with its NUL; longer names are skipped */
#define KC_IFNAME_MAX 16

/* One counter: "Udp.RcvbufErrors" and its value (signed: some are gauges, MaxConn is -1). */
struct kc_entry {
    char name[KC_NAME_MAX];
    int64_t value;
};

/* A list of counters; e is owned (kc_set_free()). */
struct kc_set {
    struct kc_entry *e;
    size_t n, cap;
};

/* NET_RX and NET_TX softirq counts per CPU; arrays owned (kc_softirqs_free()). */
struct kc_softirqs {
    int n;
    int *cpu;
    uint64_t *net_rx, *net_tx;
};

/*
 * Appends "group.name" = value to s. Names that would not fit KC_NAME_MAX
 * are skipped (returns 0). Returns 0 or -ENOMEM.
 */
NB_MUST_CHECK int kc_set_add(struct kc_set *s, const char *group, const char *name, int64_t value);

/* The entry called name ("Udp.InErrors"), or NULL. */
const struct kc_entry *kc_set_find(const struct kc_set *s, const char *name);

void kc_set_free(struct kc_set *s);

/*
 * Parses the header/value line pairs of /proc/net/snmp and /proc/net/netstat
 * ("Udp: InDatagrams NoPorts ..." then "Udp: 12 0 ...") and appends every
 * counter to s as "Udp.InDatagrams". Returns 0, -EINVAL when a value line
 * does not match its header (name, count, number) or -ENOMEM. Pure.
 */
NB_MUST_CHECK int kc_parse_pairs(const char *text, struct kc_set *s);

/*
 * Parses /proc/net/snmp6 ("Udp6InErrors   3", one per line) and appends each
 * counter with its group split off at the protocol's "6" ("Udp6.InErrors",
 * "Icmp6.InMsgs"); names without a "6" go to group "Snmp6". Returns 0,
 * -EINVAL on a malformed line or -ENOMEM. Pure.
 */
NB_MUST_CHECK int kc_parse_snmp6(const char *text, struct kc_set *s);

/*
 * Parses the NET_RX and NET_TX rows of /proc/softirqs, with the CPU numbers
 * from its header ("CPU0 CPU1 ..."). Returns 0, -EINVAL when the header or
 * a row is malformed or a row is missing, or -ENOMEM. Pure.
 */
NB_MUST_CHECK int kc_parse_softirqs(const char *text, struct kc_softirqs *s);

void kc_softirqs_free(struct kc_softirqs *s);

/*
 * The interface whose address is fd's local address (getsockname), into
 * name: "lo" for loopback, the veth of a namespace. Returns 0, or -ENODEV
 * when no interface has that address (a socket bound to any address).
 */
NB_MUST_CHECK int kc_iface_of_fd(int fd, char *name, size_t len);

/* Everything at one moment; parts that could not be read are marked absent. */
struct kc_snapshot {
    struct kc_set mib; /* snmp, netstat and snmp6 */
    struct kc_softirqs softirqs;
    struct kc_set iface; /* "iface.rx_packets" ... */
    bool have_mib, have_softirqs, have_iface;
    char ifname[KC_IFNAME_MAX]; /* "" when the interface is unknown */
};

/*
 * Reads every source into *snap (ifname may be "" or NULL: no interface
 * statistics). Never fails as a whole: an unreadable source is left out
 * (its have_* flag is false), so a test runs on any kernel.
 */
void kc_snapshot_take(struct kc_snapshot *snap, const char *ifname);

void kc_snapshot_free(struct kc_snapshot *snap);

/*
 * The change from a to b: into mib every counter of b whose value differs
 * from a's (the delta; counters new in b count from 0), into softirqs the
 * per-CPU deltas of the CPUs present in both, into iface every interface
 * statistic (zero deltas too). Returns 0 or -ENOMEM. Pure.
 */
NB_MUST_CHECK int kc_snapshot_delta(const struct kc_snapshot *a, const struct kc_snapshot *b,
                                    struct kc_snapshot *out);

#endif
