/*
 * Unit tests for measure/kcounters and measure/percpu: the parsers on
 * files copied from a real 6.x kernel (data/) and on hand-made texts,
 * malformed input, and the delta arithmetic.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "measure/kcounters.h"
#include "measure/percpu.h"
#include "measure/procfile.h"

static char *fixture(const char *name)
{
    char path[512], *text = NULL;
    snprintf(path, sizeof(path), "%s/%s", MEASURE_DATA_DIR, name);
    assert_int_equal(procfile_read(path, &text), 0);
    return text;
}

static int64_t value_of(const struct kc_set *s, const char *name)
{
    const struct kc_entry *e = kc_set_find(s, name);
    assert_non_null(e);
    return e->value;
}

static void test_snmp_fixture(void **state)
{
    (void)state;
    char *text = fixture("snmp.txt");
    struct kc_set s = {0};
    assert_int_equal(kc_parse_pairs(text, &s), 0);
    /* Values read off the fixture's "Udp:" lines by eye. */
    assert_int_equal(value_of(&s, "Udp.InDatagrams"), 15686692);
    assert_int_equal(value_of(&s, "Udp.InErrors"), 53004);
    assert_int_equal(value_of(&s, "Udp.RcvbufErrors"), 53004);
    assert_int_equal(value_of(&s, "Udp.MemErrors"), 0);
    assert_int_equal(value_of(&s, "Ip.DefaultTTL"), 64);
    /* A gauge that the kernel reports as -1. */
    assert_int_equal(value_of(&s, "Tcp.MaxConn"), -1);
    assert_non_null(kc_set_find(&s, "UdpLite.InDatagrams"));
    kc_set_free(&s);
    free(text);
}

static void test_netstat_fixture(void **state)
{
    (void)state;
    char *text = fixture("netstat.txt");
    struct kc_set s = {0};
    assert_int_equal(kc_parse_pairs(text, &s), 0);
    assert_int_equal(value_of(&s, "TcpExt.SyncookiesSent"), 724);
    assert_int_equal(value_of(&s, "TcpExt.TW"), 28020);
    assert_non_null(kc_set_find(&s, "TcpExt.TCPLossProbes"));
    assert_non_null(kc_set_find(&s, "IpExt.InOctets"));
    /* 135 TcpExt counters (136 words less the group name) and the rest. */
    size_t tcpext = 0;
    for (size_t i = 0; i < s.n; i++)
        tcpext += !strncmp(s.e[i].name, "TcpExt.", 7);
    assert_int_equal(tcpext, 135);
    kc_set_free(&s);
    free(text);
}

static void test_pairs_malformed(void **state)
{
    (void)state;
    struct kc_set s = {0};
    /* More values than names, names of another group, a word for a number, a lone header. */
    assert_int_equal(kc_parse_pairs("Udp: A B\nUdp: 1 2 3\n", &s), -EINVAL);
    kc_set_free(&s);
    assert_int_equal(kc_parse_pairs("Udp: A B\nTcp: 1 2\n", &s), -EINVAL);
    kc_set_free(&s);
    assert_int_equal(kc_parse_pairs("Udp: A B\nUdp: 1 x\n", &s), -EINVAL);
    kc_set_free(&s);
    assert_int_equal(kc_parse_pairs("Udp: A B\n", &s), -EINVAL);
    kc_set_free(&s);
    assert_int_equal(kc_parse_pairs("Udp: A B\nUdp: 1 2", &s), 0);
    assert_int_equal(value_of(&s, "Udp.B"), 2);
    kc_set_free(&s);
}

static void test_snmp6(void **state)
{
    (void)state;
    char *text = fixture("snmp6.txt");
    struct kc_set s = {0};
    assert_int_equal(kc_parse_snmp6(text, &s), 0);
    assert_int_equal(s.n, 90);
    assert_int_equal(value_of(&s, "Icmp6.InMsgs"), 1);
    assert_int_equal(value_of(&s, "Udp6.InErrors"), 0);
    assert_non_null(kc_set_find(&s, "Ip6.InReceives"));
    assert_non_null(kc_set_find(&s, "UdpLite6.InDatagrams"));
    kc_set_free(&s);
    free(text);
    assert_int_equal(kc_parse_snmp6("Ip6InReceives 5 6\n", &s), -EINVAL);
    kc_set_free(&s);
    assert_int_equal(kc_parse_snmp6("Ip6InReceives\n", &s), -EINVAL);
    kc_set_free(&s);
    assert_int_equal(kc_parse_snmp6("Weird 7\n", &s), 0);
    assert_int_equal(value_of(&s, "Snmp6.Weird"), 7);
    kc_set_free(&s);
}

static void test_softirqs(void **state)
{
    (void)state;
    char *text = fixture("softirqs.txt");
    struct kc_softirqs s;
    assert_int_equal(kc_parse_softirqs(text, &s), 0);
    assert_int_equal(s.n, 2);
    assert_int_equal(s.cpu[1], 1);
    assert_int_equal(s.net_tx[0], 519669);
    assert_int_equal(s.net_tx[1], 455776);
    assert_int_equal(s.net_rx[0], 113711598);
    assert_int_equal(s.net_rx[1], 112137599);
    kc_softirqs_free(&s);
    free(text);
    /* CPU numbers come from the header, not the column's position. */
    assert_int_equal(kc_parse_softirqs("   CPU0  CPU3\nNET_TX: 1 2\nNET_RX: 3 4\n", &s), 0);
    assert_int_equal(s.cpu[1], 3);
    assert_int_equal(s.net_rx[1], 4);
    kc_softirqs_free(&s);
    assert_int_equal(kc_parse_softirqs("   CPU0  CPU1\nNET_TX: 1\nNET_RX: 3 4\n", &s), -EINVAL);
    assert_int_equal(kc_parse_softirqs("   CPU0  CPU1\nNET_TX: 1 2\n", &s), -EINVAL);
    assert_int_equal(kc_parse_softirqs("   CPUx\nNET_TX: 1\nNET_RX: 1\n", &s), -EINVAL);
}

static void test_delta(void **state)
{
    (void)state;
    struct kc_snapshot a = {0}, b = {0}, d;
    a.have_mib = b.have_mib = true;
    assert_int_equal(kc_parse_pairs("Udp: InErrors RcvbufErrors NoPorts\nUdp: 10 7 1\n", &a.mib),
                     0);
    assert_int_equal(kc_parse_pairs("Udp: InErrors RcvbufErrors NoPorts\nUdp: 25 19 1\n", &b.mib),
                     0);
    assert_int_equal(kc_parse_pairs("Tcp: CurrEstab\nTcp: 1\n", &b.mib), 0); /* new in b */
    a.have_iface = b.have_iface = true;
    strcpy(a.ifname, "veth0");
    strcpy(b.ifname, "veth0");
    assert_int_equal(kc_set_add(&a.iface, "iface", "rx_packets", 100), 0);
    assert_int_equal(kc_set_add(&b.iface, "iface", "rx_packets", 100), 0);
    assert_int_equal(kc_snapshot_delta(&a, &b, &d), 0);
    /* Only what changed: NoPorts did not. */
    assert_int_equal(d.mib.n, 3);
    assert_int_equal(value_of(&d.mib, "Udp.InErrors"), 15);
    assert_int_equal(value_of(&d.mib, "Udp.RcvbufErrors"), 12);
    assert_int_equal(value_of(&d.mib, "Tcp.CurrEstab"), 1);
    assert_null(kc_set_find(&d.mib, "Udp.NoPorts"));
    /* Interface statistics are all kept, zero or not. */
    assert_true(d.have_iface);
    assert_int_equal(value_of(&d.iface, "iface.rx_packets"), 0);
    assert_false(d.have_softirqs);
    kc_snapshot_free(&a);
    kc_snapshot_free(&b);
    kc_snapshot_free(&d);
}

static void test_live_snapshot(void **state)
{
    (void)state;
    struct kc_snapshot s;
    char ifname[KC_IFNAME_MAX] = "lo";
    kc_snapshot_take(&s, ifname);
    assert_true(s.have_mib);
    assert_non_null(kc_set_find(&s.mib, "Udp.RcvbufErrors"));
    assert_true(s.have_softirqs);
    assert_true(s.have_iface);
    assert_non_null(kc_set_find(&s.iface, "iface.tx_bytes"));
    kc_snapshot_free(&s);
    /* A name with a slash never becomes a path. */
    kc_snapshot_take(&s, "../x");
    assert_false(s.have_iface);
    kc_snapshot_free(&s);
}

static void test_percpu_fixture(void **state)
{
    (void)state;
    char *text = fixture("stat.txt");
    struct percpu_sample s;
    assert_int_equal(percpu_parse(text, &s), 0);
    assert_int_equal(s.n, 2);
    assert_int_equal(s.cpus[0].cpu, 0);
    assert_int_equal(s.cpus[0].user, 52147);
    assert_int_equal(s.cpus[1].softirq, 39284);
    assert_int_equal(s.cpus[1].steal, 107);
    percpu_sample_free(&s);
    free(text);
    assert_int_equal(percpu_parse("cpu  1 2 3 4\n", &s), -EINVAL); /* no cpuN line */
    assert_int_equal(percpu_parse("cpu0 1 2 3\n", &s), -EINVAL);   /* too few fields */
    assert_int_equal(percpu_parse("cpu0 1 2 3 4x\n", &s), -EINVAL);
    assert_int_equal(percpu_parse("cpu99999 1 2 3 4\n", &s), -EINVAL);
}

static void test_percpu_between(void **state)
{
    (void)state;
    struct percpu_sample a, b;
    /* CPU 0: 100 ticks, 60 busy (20 softirq); CPU 1: offline at the end; CPU 2 appears. */
    assert_int_equal(percpu_parse("cpu0 10 0 10 100 0 0 0 0\ncpu1 1 1 1 1\n", &a), 0);
    assert_int_equal(percpu_parse("cpu0 30 0 30 140 0 0 20 0\ncpu2 1 1 1 1\n", &b), 0);
    struct percpu_usage *u;
    int n;
    assert_int_equal(percpu_between(&a, &b, 2.0, &u, &n), 0);
    assert_int_equal(n, 1);
    assert_int_equal(u[0].cpu, 0);
    assert_float_equal(u[0].total_pct, 60.0, 1e-9);
    assert_float_equal(u[0].user_pct, 20.0, 1e-9);
    assert_float_equal(u[0].system_pct, 20.0, 1e-9);
    assert_float_equal(u[0].softirq_pct, 20.0, 1e-9);
    assert_float_equal(u[0].busy_us, 1.2e6, 1e-3);
    free(u);
    percpu_sample_free(&a);
    percpu_sample_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_snmp_fixture),    cmocka_unit_test(test_netstat_fixture),
        cmocka_unit_test(test_pairs_malformed), cmocka_unit_test(test_snmp6),
        cmocka_unit_test(test_softirqs),        cmocka_unit_test(test_delta),
        cmocka_unit_test(test_live_snapshot),   cmocka_unit_test(test_percpu_fixture),
        cmocka_unit_test(test_percpu_between),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
