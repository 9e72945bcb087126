/* Tests of env_capture, env_warnings, env_diff and env_iface_* (fake tree and this machine). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include <cmocka.h>

#include "envcap/envcap.h"
#include "envcap/print.h"

static char sys_root[4096], proc_root[4096];

/* Fails with both documents printed when a and b differ. */
static void assert_json_eq(const json_t *got, const char *want_text)
{
    json_error_t jerr;
    json_t *want = json_loads(want_text, JSON_DECODE_ANY, &jerr);
    if (!want)
        fail_msg("bad expected JSON: %s", jerr.text);
    if (!json_equal(got, want)) {
        char *g = json_dumps(got, JSON_SORT_KEYS | JSON_ENCODE_ANY);
        char *w = json_dumps(want, JSON_SORT_KEYS | JSON_ENCODE_ANY);
        print_error("got:  %s\nwant: %s\n", g, w);
        free(g);
        free(w);
        json_decref(want);
        fail();
    }
    json_decref(want);
}

static json_t *fake_env(void)
{
    json_t *env = env_capture("nbtest0", sys_root, proc_root);
    assert_non_null(env);
    return env;
}

static void capture_fake_tree(void **state)
{
    (void)state;
    json_t *env = fake_env();
    assert_json_eq(json_object_get(env, "kernel"), "\"6.1.0-fake\"");
    assert_json_eq(json_object_get(env, "cmdline"),
                   "\"BOOT_IMAGE=/vmlinuz-6.1.0-fake root=/dev/sda1 quiet\"");
    assert_json_eq(json_object_get(env, "cpu"),
                   "{\"model\": \"Fake CPU E-1234 @ 3.50GHz\", \"online\": \"0-1\","
                   " \"online_count\": 2, \"smt_active\": 1, \"smt_control\": \"on\"}");
    assert_json_eq(json_object_get(env, "cpufreq"),
                   "{\"governor\": \"powersave\", \"driver\": \"acpi-cpufreq\", \"cur_mhz\": null,"
                   " \"min_mhz\": 800, \"max_mhz\": 3500, \"hw_max_mhz\": 4200,"
                   " \"hw_min_mhz\": 800, \"uniform\": false, \"per_cpu\": ["
                   "{\"cpu\": 0, \"governor\": \"powersave\", \"driver\": \"acpi-cpufreq\","
                   " \"cur_mhz\": 2400, \"min_mhz\": 800, \"max_mhz\": 3500, \"hw_max_mhz\": 4200,"
                   " \"hw_min_mhz\": 800},"
                   "{\"cpu\": 1, \"governor\": \"powersave\", \"driver\": \"acpi-cpufreq\","
                   " \"cur_mhz\": 1800, \"min_mhz\": 800, \"max_mhz\": 3500, \"hw_max_mhz\": 4200,"
                   " \"hw_min_mhz\": 800}]}");
    assert_json_eq(json_object_get(env, "turbo"),
                   "{\"intel_pstate_no_turbo\": null, \"cpufreq_boost\": 1, \"enabled\": true}");
    assert_json_eq(json_object_get(env, "vulnerabilities"),
                   "{\"meltdown\": \"Mitigation: PTI\", \"spectre_v2\": \"Vulnerable\"}");
    /* nbtest0 exists only in the fake sysfs, so every ethtool fact is unknown: null. */
    assert_json_eq(json_object_get(env, "interface"),
                   "{\"name\": \"nbtest0\", \"mtu\": 1500, \"speed_mbps\": 10000,"
                   " \"operstate\": \"up\", \"driver\": null, \"driver_version\": null,"
                   " \"firmware_version\": null, \"bus_info\": null, \"features\": null,"
                   " \"irqs\": [{\"irq\": 120, \"affinity\": \"0\"},"
                   " {\"irq\": 121, \"affinity\": null}]}");
    /* Secrets (tcp_fastopen_key, netdev_rss_key) and non-tcp_ ipv4 sysctls are left out. */
    assert_json_eq(json_object_get(env, "sysctl"),
                   "{\"net.core.rmem_max\": \"212992\", \"net.core.somaxconn\": \"4096\","
                   " \"net.ipv4.tcp_congestion_control\": \"cubic\","
                   " \"net.ipv4.tcp_rmem\": \"4096 131072 6291456\"}");
    assert_json_eq(json_object_get(env, "load"),
                   "{\"avg1\": 1.5, \"avg5\": 0.8, \"avg15\": 0.4, \"runnable\": 3,"
                   " \"tasks\": 200}");
    assert_json_eq(
        json_object_get(env, "noise_processes"),
        "[{\"pid\": 5000001, \"comm\": \"iperf3\", \"cmdline\": \"iperf3 -s -p 5999\"}]");
    /* Nothing in the fake tree is this process or its family. */
    assert_json_eq(json_object_get(env, "test_processes"), "[]");
    assert_json_eq(json_object_get(env, "irqbalance"), "true");
    json_decref(env);
}

static void capture_missing_tree_is_null(void **state)
{
    (void)state;
    json_t *env = env_capture("nbtest1", "/nonexistent-netab-sys", "/nonexistent-netab-proc");
    assert_non_null(env);
    assert_json_eq(json_object_get(env, "kernel"), "null");
    assert_json_eq(json_object_get(env, "cmdline"), "null");
    assert_json_eq(json_object_get(env, "cpu"),
                   "{\"model\": null, \"online\": null, \"online_count\": null,"
                   " \"smt_active\": null, \"smt_control\": null}");
    assert_json_eq(json_object_get(json_object_get(env, "cpufreq"), "governor"), "null");
    assert_json_eq(json_object_get(json_object_get(env, "turbo"), "enabled"), "null");
    assert_json_eq(json_object_get(json_object_get(env, "interface"), "mtu"), "null");
    assert_json_eq(json_object_get(json_object_get(env, "interface"), "driver"), "null");
    assert_json_eq(json_object_get(json_object_get(env, "load"), "avg1"), "null");
    assert_json_eq(json_object_get(env, "noise_processes"), "null");
    assert_json_eq(json_object_get(env, "irqbalance"), "null");
    json_t *w = env_warnings(env);
    assert_int_equal(json_array_size(w), 0);
    json_decref(w);
    json_decref(env);
}

static void warnings_fake_tree(void **state)
{
    (void)state;
    json_t *env = fake_env();
    json_t *w = env_warnings(env);
    assert_json_eq(
        w, "[\"CPU frequency governor is \\\"powersave\\\", not \\\"performance\\\": clock speed "
           "changes with load, which adds noise\","
           " \"turbo/boost is on: the clock speed depends on temperature and on how many cores "
           "are busy\","
           " \"1-minute load average is 1.50 (above 0.5): other work is competing for the CPUs\","
           " \"another benchmark process is running: iperf3 (iperf3 -s -p 5999) (pid 5000001)\","
           " \"SMT (hyper-threading) is on (informational): sibling threads share a core\","
           " \"irqbalance is running: it may move the NIC's interrupts between CPUs during a "
           "run\"]");
    json_decref(w);

    /* Mixed governors: the warning names the CPUs. */
    json_t *cf = json_object_get(env, "cpufreq");
    json_object_set_new(cf, "governor", json_null());
    json_object_set_new(json_array_get(json_object_get(cf, "per_cpu"), 0), "governor",
                        json_string("performance"));
    w = env_warnings(env);
    assert_string_equal(json_string_value(json_array_get(w, 0)),
                        "CPU frequency governor is not \"performance\" on every CPU (1:powersave)");
    json_decref(w);
    json_decref(env);
}

/* Sixty runs' warnings become one line each, with counts (issue 10). */
static void warnings_summary_aggregates(void **state)
{
    (void)state;
    json_t *envs[60];
    for (int i = 0; i < 60; i++) {
        json_t *procs = json_array();
        /* make in 12 runs, cc1 40 times (twice in 20 runs). */
        if (i < 12)
            json_array_append_new(procs, json_pack("{s:s, s:i}", "comm", "make", "pid", 100 + i));
        if (i >= 40)
            for (int k = 0; k < 2; k++)
                json_array_append_new(
                    procs, json_pack("{s:s, s:i}", "comm", "cc1", "pid", 200 + 2 * i + k));
        envs[i] = json_pack("{s:{s:f}, s:o, s:{s:s}}", "load", "avg1",
                            i < 14 ? 2.21 - 0.01 * i : 0.2, "noise_processes", procs, "cpufreq",
                            "governor", i < 30 ? "powersave" : "performance");
    }
    json_t *w = env_warnings_summary((const json_t *const *)envs, 60);
    assert_json_eq(
        w, "[\"CPU frequency governor is \\\"powersave\\\", not \\\"performance\\\": clock speed "
           "changes with load, which adds noise (in 30 of 60 runs)\","
           " \"1-minute load average above 0.5 in 14 of 60 runs (up to 2.21): other work was "
           "competing for the CPUs\","
           " \"competing benchmark processes in 32 of 60 runs: make x12, cc1 x40\"]");
    json_decref(w);
    for (int i = 0; i < 60; i++)
        json_decref(envs[i]);
    /* No snapshots, no warnings. */
    w = env_warnings_summary(NULL, 0);
    assert_int_equal(json_array_size(w), 0);
    json_decref(w);
}

static void diff_snapshots(void **state)
{
    (void)state;
    json_t *a = fake_env(), *b = fake_env();
    json_t *d = env_diff(a, b);
    assert_json_eq(d, "[]");
    json_decref(d);

    /* Volatile facts are ignored; configuration differences are reported. */
    json_object_set_new(json_object_get(b, "load"), "avg1", json_real(9.0));
    json_object_set_new(
        json_array_get(json_object_get(json_object_get(b, "cpufreq"), "per_cpu"), 1), "cur_mhz",
        json_integer(4000));
    json_array_clear(json_object_get(b, "noise_processes"));
    json_object_set_new(json_object_get(b, "sysctl"), "net.core.somaxconn", json_string("128"));
    json_object_set_new(json_object_get(b, "sysctl"), "net.core.busy_poll", json_string("50"));
    json_object_del(json_object_get(b, "vulnerabilities"), "meltdown");
    json_object_set_new(json_object_get(b, "turbo"), "enabled", json_false());
    d = env_diff(a, b);
    assert_json_eq(d,
                   "[{\"path\": \"/turbo/enabled\", \"a\": true, \"b\": false},"
                   " {\"path\": \"/vulnerabilities/meltdown\", \"a\": \"Mitigation: PTI\","
                   " \"b\": null},"
                   " {\"path\": \"/sysctl/net.core.somaxconn\", \"a\": \"4096\", \"b\": \"128\"},"
                   " {\"path\": \"/sysctl/net.core.busy_poll\", \"a\": null, \"b\": \"50\"}]");
    json_decref(d);
    json_decref(a);
    json_decref(b);
}

static void iface_irqs_fake_tree(void **state)
{
    (void)state;
    int irqs[8];
    assert_int_equal(env_iface_irqs("nbtest0", sys_root, proc_root, irqs, 8), 2);
    assert_int_equal(irqs[0], 120);
    assert_int_equal(irqs[1], 121);
    assert_int_equal(env_iface_irqs("other0", sys_root, proc_root, irqs, 8), 1);
    assert_int_equal(irqs[0], 123);
    assert_int_equal(env_iface_irqs("../x", sys_root, proc_root, irqs, 8), -EINVAL);
}

static void iface_for_addr(void **state)
{
    (void)state;
    char name[64];
    assert_int_equal(env_iface_for_addr("127.0.0.1", name, sizeof(name)), 0);
    assert_string_equal(name, "lo");
    assert_int_equal(env_iface_for_addr("127.0.0.2", name, sizeof(name)), 0);
    assert_string_equal(name, "lo");
    assert_int_equal(env_iface_for_addr("::1", name, sizeof(name)), 0);
    assert_string_equal(name, "lo");
    assert_int_equal(env_iface_for_addr("not-an-address", name, sizeof(name)), -EINVAL);
}

static void capture_this_machine(void **state)
{
    (void)state;
    struct utsname u;
    assert_int_equal(uname(&u), 0);
    json_t *env = env_capture("lo", NULL, NULL);
    assert_non_null(env);
    assert_string_equal(json_string_value(json_object_get(env, "kernel")), u.release);
    json_t *ifc = json_object_get(env, "interface");
    assert_string_equal(json_string_value(json_object_get(ifc, "name")), "lo");
    assert_int_equal(json_integer_value(json_object_get(ifc, "mtu")), 65536);
    assert_true(json_is_object(json_object_get(env, "sysctl")));
    assert_non_null(json_object_get(json_object_get(env, "sysctl"), "net.core.somaxconn"));
    assert_true(json_is_array(json_object_get(env, "noise_processes")));
    json_t *w = env_warnings(env);
    assert_true(json_is_array(w));
    json_t *d = env_diff(env, env);
    assert_int_equal(json_array_size(d), 0);
    json_decref(d);
    json_decref(w);
    json_decref(env);
}

/* env_print_identity(): this host's release first, as uname says it, and a build ID line. */
static void print_identity_lines(void **state)
{
    (void)state;
    struct utsname u;
    assert_int_equal(uname(&u), 0);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    assert_int_equal(env_print_identity(f, "lo"), 0);
    fclose(f);
    char want[512];
    snprintf(want, sizeof(want), "release: %s\n", u.release);
    assert_int_equal(strncmp(buf, want, strlen(want)), 0);
    assert_non_null(strstr(buf, "\nbuild_id: "));
    free(buf);
}

/* env_print_text(): one line per leaf with its dotted path, then the warnings. */
/* netab env --json: the snapshot and its warnings in one document. */
static void document_holds_warnings(void **state)
{
    (void)state;
    json_t *doc = env_document("nbtest1", "/nonexistent-netab-sys", "/nonexistent-netab-proc");
    assert_non_null(doc);
    assert_int_equal(json_object_size(doc), 2);
    json_t *env = json_object_get(doc, "environment");
    assert_non_null(env);
    assert_json_eq(json_object_get(env, "kernel"), "null");
    assert_json_eq(json_object_get(doc, "warnings"), "[]");
    json_decref(doc);
}

static void print_text_flat(void **state)
{
    (void)state;
    json_t *env = json_loads("{\"host\": {\"kernel\": \"6.1\", \"cpus\": [2, null]}, "
                             "\"empty\": {}}",
                             0, NULL);
    json_t *warn = json_pack("[s]", "cpufreq governor is powersave");
    assert_non_null(env);
    assert_non_null(warn);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    assert_int_equal(env_print_text(f, env, warn), 0);
    fclose(f);
    char want[512];
    snprintf(want, sizeof(want), "%-44s %s\n%-44s %s\n%-44s %s\n%-44s %s\n\nwarnings:\n  - %s\n",
             "host.kernel", "\"6.1\"", "host.cpus[0]", "2", "host.cpus[1]", "null", "empty", "{}",
             "cpufreq governor is powersave");
    assert_string_equal(buf, want);
    free(buf);
    json_decref(warn);
    warn = json_array();
    json_t *none = json_object();
    f = open_memstream(&buf, &len);
    assert_non_null(f);
    assert_int_equal(env_print_text(f, none, warn), 0);
    fclose(f);
    assert_non_null(strstr(buf, "warnings: none\n"));
    free(buf);
    json_decref(none);
    json_decref(warn);
    json_decref(env);
}

int main(int argc, char **argv)
{
    const char *data = argc > 1 ? argv[1] : "tests/unit/envcap/data";
    snprintf(sys_root, sizeof(sys_root), "%s/sys", data);
    snprintf(proc_root, sizeof(proc_root), "%s/proc", data);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(capture_fake_tree),
        cmocka_unit_test(capture_missing_tree_is_null),
        cmocka_unit_test(warnings_fake_tree),
        cmocka_unit_test(diff_snapshots),
        cmocka_unit_test(warnings_summary_aggregates),
        cmocka_unit_test(iface_irqs_fake_tree),
        cmocka_unit_test(iface_for_addr),
        cmocka_unit_test(capture_this_machine),
        cmocka_unit_test(document_holds_warnings),
        cmocka_unit_test(print_text_flat),
        cmocka_unit_test(print_identity_lines),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
