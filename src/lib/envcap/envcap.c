/*
 * env_capture(): reads the host facts that decide whether two benchmark runs
 * are comparable. Each section is read by its own function; every fact that
 * cannot be read becomes JSON null. The interface section is in iface.c.
 */
#include "envcap/envcap.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "envcap/envcap_priv.h"
#include "envcap/fsread.h"
#include "measure/hostinfo.h"
#include "measure/identity.h"

#define CPUINFO_MAX (256 * 1024)
#define CPULIST_BITS 8192

/* Reads the list of CPUs in root/rel ("0-3") into bits; returns the count or a negative errno. */
static int read_cpulist(const char *root, const char *rel, unsigned char *bits)
{
    char buf[1024];
    int err = fs_read(root, rel, buf, sizeof(buf));
    if (err < 0)
        return err;
    return fs_parse_cpulist(buf, bits, CPULIST_BITS);
}

static int bit_isset(const unsigned char *bits, int i)
{
    return (bits[i / 8] >> (i % 8)) & 1;
}

static json_t *cpu_section(const char *sys, const char *proc)
{
    json_t *cpu = json_object();
    char *buf = malloc(CPUINFO_MAX);
    unsigned char bits[CPULIST_BITS / 8];

    if (!cpu)
        goto fail;
    if (buf && fs_read(proc, "cpuinfo", buf, CPUINFO_MAX) > 0) {
        char model[256];
        hostinfo_parse_cpu_model(buf, model, sizeof(model));
        json_object_set_new(cpu, "model",
                            strcmp(model, "unknown") ? json_string(model) : json_null());
    } else {
        json_object_set_new(cpu, "model", json_null());
    }
    json_object_set_new(cpu, "online", fs_json_str(sys, "devices/system/cpu/online"));
    int n = read_cpulist(sys, "devices/system/cpu/online", bits);
    json_object_set_new(cpu, "online_count", n >= 0 ? json_integer(n) : json_null());
    json_object_set_new(cpu, "smt_active", fs_json_int(sys, "devices/system/cpu/smt/active"));
    json_object_set_new(cpu, "smt_control", fs_json_str(sys, "devices/system/cpu/smt/control"));
fail:
    free(buf);
    return cpu;
}

/* A cpufreq value in kHz, as MHz, or null. */
static json_t *khz_as_mhz(const char *sys, int cpu, const char *file)
{
    char rel[128];
    snprintf(rel, sizeof(rel), "devices/system/cpu/cpu%d/cpufreq/%s", cpu, file);
    json_t *v = fs_json_int(sys, rel);
    if (json_is_integer(v)) {
        json_int_t khz = json_integer_value(v);
        json_decref(v);
        return json_integer((khz + 500) / 1000);
    }
    return v;
}

static const struct {
    const char *key;  /* member name in the snapshot */
    const char *file; /* cpufreq file */
    int khz;          /* value is in kHz: report MHz */
} freq_fields[] = {
    {"governor", "scaling_governor", 0},   {"driver", "scaling_driver", 0},
    {"cur_mhz", "scaling_cur_freq", 1},    {"min_mhz", "scaling_min_freq", 1},
    {"max_mhz", "scaling_max_freq", 1},    {"hw_max_mhz", "cpuinfo_max_freq", 1},
    {"hw_min_mhz", "cpuinfo_min_freq", 1},
};
#define NFREQ (sizeof(freq_fields) / sizeof(freq_fields[0]))

/*
 * One object per online CPU; then each field is summarised at the top level
 * when all CPUs agree. A field on which they disagree is null at the top
 * level, "uniform" is false and "per_cpu" lists every CPU.
 */
static json_t *cpufreq_section(const char *sys)
{
    unsigned char bits[CPULIST_BITS / 8];
    json_t *sec = json_object(), *per = json_array();
    int n = read_cpulist(sys, "devices/system/cpu/online", bits);
    int uniform = 1;

    if (!sec || !per)
        goto out;
    for (int c = 0; n > 0 && c < CPULIST_BITS; c++) {
        if (!bit_isset(bits, c))
            continue;
        json_t *o = json_object();
        json_object_set_new(o, "cpu", json_integer(c));
        for (size_t f = 0; f < NFREQ; f++) {
            char rel[128];
            snprintf(rel, sizeof(rel), "devices/system/cpu/cpu%d/cpufreq/%s", c,
                     freq_fields[f].file);
            json_object_set_new(o, freq_fields[f].key,
                                freq_fields[f].khz ? khz_as_mhz(sys, c, freq_fields[f].file)
                                                   : fs_json_str(sys, rel));
        }
        json_array_append_new(per, o);
    }
    for (size_t f = 0; f < NFREQ; f++) {
        json_t *first = NULL;
        int same = 1;
        size_t i;
        json_t *o;
        json_array_foreach(per, i, o)
        {
            json_t *v = json_object_get(o, freq_fields[f].key);
            if (!first)
                first = v;
            else if (!json_equal(first, v))
                same = 0;
        }
        if (!same)
            uniform = 0;
        json_object_set_new(sec, freq_fields[f].key,
                            same && first ? json_deep_copy(first) : json_null());
    }
    json_object_set_new(sec, "uniform", json_boolean(uniform));
    if (!uniform) {
        json_object_set(sec, "per_cpu", per);
    }
out:
    json_decref(per);
    return sec;
}

/*
 * Turbo: intel_pstate's no_turbo (1 = off) wins when present, otherwise the
 * generic cpufreq boost (1 = on); "enabled" is null when neither exists.
 */
static json_t *turbo_section(const char *sys)
{
    json_t *t = json_object();
    json_t *no_turbo = fs_json_int(sys, "devices/system/cpu/intel_pstate/no_turbo");
    json_t *boost = fs_json_int(sys, "devices/system/cpu/cpufreq/boost");
    json_t *enabled = json_null();

    if (json_is_integer(no_turbo))
        enabled = json_boolean(json_integer_value(no_turbo) == 0);
    else if (json_is_integer(boost))
        enabled = json_boolean(json_integer_value(boost) != 0);
    json_object_set_new(t, "intel_pstate_no_turbo", no_turbo);
    json_object_set_new(t, "cpufreq_boost", boost);
    json_object_set_new(t, "enabled", enabled);
    return t;
}

/*
 * Files left out of the sysctl section because their values are secrets
 * (TCP Fast Open cookie key, RSS hash key) that must not end up in results.
 */
static const char *const secret_sysctls[] = {"tcp_fastopen_key", "netdev_rss_key", NULL};

static int name_filter_visible(const struct dirent *d)
{
    if (d->d_name[0] == '.')
        return 0;
    for (const char *const *s = secret_sysctls; *s; s++)
        if (!strcmp(d->d_name, *s))
            return 0;
    return 1;
}

/*
 * Every regular file in root/dir whose name starts with prefix, as
 * key_prefix+name -> contents (whitespace runs squashed to one space), in
 * name order; unreadable files are null. Returns an empty object when the
 * directory is missing, or null if even that fails.
 */
static json_t *dir_strings(const char *root, const char *dir, const char *prefix,
                           const char *key_prefix, json_t *into)
{
    char path[4096];
    struct dirent **names = NULL;
    snprintf(path, sizeof(path), "%s/%s", root, dir);
    int n = scandir(path, &names, name_filter_visible, alphasort);
    for (int i = 0; i < n; i++) {
        const char *name = names[i]->d_name;
        if (!strncmp(name, prefix, strlen(prefix)) && names[i]->d_type != DT_DIR) {
            char rel[1024], key[512];
            snprintf(rel, sizeof(rel), "%s/%s", dir, name);
            snprintf(key, sizeof(key), "%s%s", key_prefix, name);
            char *val = malloc(65536);
            if (val && fs_read(root, rel, val, 65536) >= 0) {
                fs_squash_spaces(val);
                json_object_set_new(into, key, json_string(val));
            } else {
                json_object_set_new(into, key, json_null());
            }
            free(val);
        }
        free(names[i]);
    }
    free(names);
    return into;
}

static json_t *load_section(const char *proc)
{
    char buf[256];
    double a1, a5, a15;
    int run, total;
    json_t *l = json_object();

    if (fs_read(proc, "loadavg", buf, sizeof(buf)) > 0 &&
        sscanf(buf, "%lf %lf %lf %d/%d", &a1, &a5, &a15, &run, &total) == 5) {
        json_object_set_new(l, "avg1", json_real(a1));
        json_object_set_new(l, "avg5", json_real(a5));
        json_object_set_new(l, "avg15", json_real(a15));
        json_object_set_new(l, "runnable", json_integer(run));
        json_object_set_new(l, "tasks", json_integer(total));
    } else {
        const char *k[] = {"avg1", "avg5", "avg15", "runnable", "tasks"};
        for (size_t i = 0; i < 5; i++)
            json_object_set_new(l, k[i], json_null());
    }
    return l;
}

static json_t *kernel_release(const char *proc, int real)
{
    json_t *k = fs_json_str(proc, "sys/kernel/osrelease");
    if (json_is_null(k) && real) {
        struct utsname u;
        if (uname(&u) == 0)
            return json_string(u.release);
    }
    return k;
}

/*
 * The build identity (measure/identity.h) with the interface's module. A
 * fake sysfs root's parent is taken as the root of the fake proc/, sys/ and
 * boot/ that identity_capture() reads.
 */
static json_t *identity_section(const char *ifname, const char *sysfs_root)
{
    char root[4096];
    struct identity *id = malloc(sizeof(*id));
    if (!id)
        return json_null();
    if (sysfs_root)
        snprintf(root, sizeof(root), "%s/..", sysfs_root);
    identity_capture(id, sysfs_root ? root : NULL, ifname);
    json_t *j = identity_to_json(id);
    free(id);
    return j ? j : json_null();
}

json_t *env_capture(const char *ifname, const char *sysfs_root, const char *procfs_root)
{
    return env_capture_run(ifname, sysfs_root, procfs_root, NULL);
}

json_t *env_capture_run(const char *ifname, const char *sysfs_root, const char *procfs_root,
                        const struct env_run_peer *peer)
{
    const char *sys = sysfs_root ? sysfs_root : "/sys";
    const char *proc = procfs_root ? procfs_root : "/proc";
    json_t *env = json_object();
    int irqbalance;

    if (!env)
        return NULL;
    json_object_set_new(env, "kernel", kernel_release(proc, procfs_root == NULL));
    json_object_set_new(env, "cmdline", fs_json_str(proc, "cmdline"));
    json_object_set_new(env, "cpu", cpu_section(sys, proc));
    json_object_set_new(env, "cpufreq", cpufreq_section(sys));
    json_object_set_new(env, "turbo", turbo_section(sys));
    json_object_set_new(
        env, "vulnerabilities",
        dir_strings(sys, "devices/system/cpu/vulnerabilities", "", "", json_object()));
    json_object_set_new(env, "interface",
                        ifname ? envcap_iface_section(ifname, sys, proc) : json_null());
    json_t *sysctl = json_object();
    dir_strings(proc, "sys/net/core", "", "net.core.", sysctl);
    dir_strings(proc, "sys/net/ipv4", "tcp_", "net.ipv4.", sysctl);
    json_object_set_new(env, "sysctl", sysctl);
    json_object_set_new(env, "load", load_section(proc));
    json_t *ours = NULL;
    json_object_set_new(env, "noise_processes", envcap_census(proc, peer, &irqbalance, &ours));
    json_object_set_new(env, "test_processes", ours);
    json_object_set_new(env, "irqbalance", irqbalance < 0 ? json_null() : json_boolean(irqbalance));
    json_object_set_new(env, "identity", identity_section(ifname, sysfs_root));
    return env;
}
