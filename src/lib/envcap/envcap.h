/*
 * Environment capture: the facts about a host that decide whether two
 * benchmark runs are comparable (CPU frequency policy, turbo, SMT,
 * mitigations, NIC driver and offloads, IRQ affinity, network sysctls, load,
 * competing benchmark processes). See docs/environment.md.
 *
 * Every reader takes a sysfs and a procfs root so that tests can point it at
 * a fake tree; NULL means "/sys" and "/proc". A fact that cannot be read is
 * recorded as JSON null (unknown), never guessed.
 */
#ifndef NETAB_ENVCAP_ENVCAP_H
#define NETAB_ENVCAP_ENVCAP_H

#include <jansson.h>
#include <stddef.h>

#include "util/err.h"

/*
 * Captures a snapshot of the host as a JSON object with the members kernel,
 * cmdline, cpu{}, cpufreq{}, turbo{}, vulnerabilities{}, interface{} (null
 * when ifname is NULL), sysctl{}, load{}, noise_processes[] and
 * test_processes[] (the census, with no run: see env_capture_run()),
 * irqbalance and identity{} (measure/identity.h; with a fake sysfs root,
 * its parent is the root of the fake proc/, sys/ and boot/ it reads).
 * Never fails for want of a fact; returns NULL only when out of memory.
 * Caller has ownership (json_decref).
 */
json_t *env_capture(const char *ifname, const char *sysfs_root, const char *procfs_root);

/* The server a measurement talks to, so that the census can leave it out. */
struct env_run_peer {
    const char *addr; /* numeric IPv4 or IPv6 address the run connects to; NULL: none */
    int port;         /* its TCP control port */
};

/*
 * env_capture() for one run: its census of competing processes
 * (noise_processes[]) leaves out the processes of the test itself, listed
 * instead in test_processes[] with a "why" each: this process, its
 * ancestors (the controller), its descendants, and the run's server peer
 * (NULL: none) when it runs on this host in any network namespace, with
 * that server's descendants. docs/environment.md gives the rule.
 */
json_t *env_capture_run(const char *ifname, const char *sysfs_root, const char *procfs_root,
                        const struct env_run_peer *peer);

/*
 * The interface that owns the address ip (IPv4 or IPv6 literal): first an
 * exact match of a local address (getifaddrs), then the interface the
 * kernel's route to ip leaves through (a connected UDP socket; nothing is
 * sent). Loopback addresses give "lo". Returns 0 or a negative errno
 * (-EINVAL bad address, -ENODEV no interface found).
 */
int env_iface_for_addr(const char *ip, char *ifname, size_t len) NB_MUST_CHECK;

/*
 * Fills irqs[] (up to max) with the IRQ numbers that serve ifname: the MSI
 * vectors of its device (or of the device's parent, for virtio) and the
 * /proc/interrupts lines whose action names the interface or its device.
 * Returns the number found (sorted, unique), or a negative errno.
 */
int env_iface_irqs(const char *ifname, const char *sysfs_root, const char *procfs_root, int *irqs,
                   int max);

/*
 * Human-readable warnings about a snapshot from env_capture(): governor not
 * "performance", turbo on, 1-minute load above 0.5, competing benchmark
 * processes, SMT on (informational), irqbalance running. Returns a JSON
 * array of strings (possibly empty); NULL only when out of memory. Caller
 * has ownership.
 */
json_t *env_warnings(const json_t *env);

/*
 * The warnings of many runs' snapshots envs[0..n-1] (entries that are not
 * objects, such as runs without a snapshot, are skipped), aggregated so that
 * a report prints each once: settings warnings once each, with "(in k of N
 * runs)" when not every run had them; "1-minute load average above 0.5 in
 * 14 of 60 runs (up to 2.21)"; "competing benchmark processes in 20 of 60
 * runs: make x12, cc1 x40" (occurrences over all runs). Returns a JSON
 * array of strings; NULL only when out of memory. Caller has ownership.
 */
json_t *env_warnings_summary(const json_t *const *envs, size_t n);

/*
 * The same sentences, in the same order and number, for a short report:
 * competing processes counted by program name alone, "competing processes
 * in 8 of 8 runs: netab x48, iperf3 x16" (the list cut with ", ..." to stay
 * within a line), their command lines left to env_warnings_summary().
 */
json_t *env_warnings_summary_by_name(const json_t *const *envs, size_t n);

/*
 * The leaves that differ between two snapshots, as an array of objects
 * {"path": JSON Pointer (RFC 6901), "a": value or null, "b": value or null}
 * in a's order then b's extra paths. Volatile facts are left out; see
 * env_diff_ignored. A leaf missing on one side is given as null there.
 * Returns NULL only when out of memory. Caller has ownership.
 */
json_t *env_diff(const json_t *a, const json_t *b);

/*
 * The ignore list of env_diff: JSON Pointer prefixes, where a "*" segment
 * matches any one key or index. NULL-terminated.
 */
extern const char *const env_diff_ignored[];

/*
 * Sentences about two build identities a and b (identity objects as in
 * docs/json.md, or NULL/null) of one end (end: "local", "remote") that a
 * list of differing leaves does not make plain: with the same kernel
 * release, "local: same kernel release X, different build IDs: A vs B";
 * likewise for the kernel config hash and the interface module's
 * srcversion and build ID. A different release (or an unknown one) gives
 * no sentence: the release row says it. Returns a JSON array of strings;
 * NULL only when out of memory. Caller has ownership.
 */
json_t *env_identity_notes(const json_t *a, const json_t *b, const char *end);

#endif
