#!/usr/bin/env python3
"""UDP stream on loopback against a real `netab server`.

Asserts that pacing keeps its schedule at 100M and 1G (the sender's rate within
1% of -b less the schedule time it reports it gave up after stalls, and the
receiver's within 1% of the sender's), that a sender held still (SIGSTOP)
counts a stall, gives up about that time and says so, that datagram accounting
closes (sent == received + lost), that loopback at 100M loses nothing, and
that -R, -P 2 and -n work (-n sends exactly ceil(n / len) datagrams).
"""
import math
import os
import re
import signal
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import netab_helpers as h  # noqa: E402


def accounting(c, label, e):
    snd, rcv = h.field(e, "sender", dict), h.field(e, "receiver", dict)
    sp, rp, lost = snd.get("packets"), rcv.get("packets"), rcv.get("lost_packets")
    c.check(None not in (sp, rp, lost) and sp == rp + lost,
            f"{label}: sender packets == receiver packets + lost_packets",
            f"sent={sp} received={rp} lost={lost}")
    return sp, rp, lost


def rate_check(c, netab, label, e, target):
    """The pacer kept its schedule: the sender sent the target rate, less exactly the schedule
    time it reports it gave up after stalls (a preemption or hypervisor steal longer than the
    catch-up limit: docs/udp.md), and the receiver measured what was sent."""
    rbps = h.field(e, "receiver.bits_per_second", "num")
    sbps = h.field(e, "sender.bits_per_second", "num")
    secs = h.field(e, "sender.seconds", "num")
    stalls = h.field(e, "sender.stalls", int)
    gave_up = h.field(e, "sender.stalled_seconds", "num")
    n = h.field(e, "streams", int)
    # -b is per stream: N senders for `secs` each, less the time they gave up in all.
    want = target * (1 - gave_up / (n * secs)) if secs > 0 and n else 0
    c.note(f"{label}: sender {sbps / 1e6:.3f} Mbit/s, receiver {rbps / 1e6:.3f} Mbit/s, "
           f"target {target / 1e6:.0f}; {stalls} stall(s), {gave_up * 1e3:.1f} ms given up")
    # Whatever the sender managed, the receiver must have measured it to within 1%.
    c.check(h.within(rbps, sbps, 0.01), f"{label}: receiver rate within 1% of the sender's",
            f"{rbps:.0f} vs {sbps:.0f}")
    c.check(h.within(sbps, want, 0.01),
            f"{label}: sender bits_per_second within 1% of the target less the time given up",
            f"{sbps:.0f} vs {want:.0f}")
    c.check((stalls == 0) == (gave_up == 0), f"{label}: time given up only with stalls",
            f"stalls={stalls} stalled_seconds={gave_up}")
    return stalls, gave_up, secs


def stall_case(c, netab, srv):
    """-R: the server, the sender, is stopped (SIGSTOP) for 0.4 s mid-test. It must count a
    stall, give up about that time (all but the 5 ms / 256-datagram catch-up limit) rather than
    burst it, send exactly the rest of the schedule, and `netab run` must say so in its text."""
    db = os.path.join(h.WORK_DIR, "stall.db")
    p = h.start([netab, "run", "-c", "127.0.0.1", "-p", str(srv.port), "-u", "-R", "-b", "100M",
                 "-t", "3", "-i", "0.5", "--db", db])
    if not p.wait_output(re.compile(r"0\.00-0\.50")):
        raise h.TestFailure("no first interval line from the client:\n" + p.stdout_text())
    os.kill(srv.pid(), signal.SIGSTOP)
    t = time.monotonic()
    time.sleep(0.4)  # how long the sender is held, not a wait for an event
    held = time.monotonic() - t  # at least this long: both readings are inside the stop
    os.kill(srv.pid(), signal.SIGCONT)
    r = p.finish()
    c.check("fell behind its schedule" in r.stdout,
            "stall: the text says the sender fell behind its schedule", r.stdout[-600:])
    doc = h.netab_cmd(netab, "runs", "show", "1", "--db", db, "--json").doc
    e = h.end_of(h.field(doc, "result", dict))
    c.check(bool(e), "stall: the stored run has a summary", str(doc)[:300])
    if not e:
        return
    stalls, gave_up, secs = rate_check(c, netab, "stall", e, 100e6)
    c.check(stalls >= 1, "stall: the sender counted a stall", f"stalls={stalls}")
    # The sender owed at least `held` of schedule when it ran again; it sends the catch-up limit
    # (5 ms at 100M, but at least 256 datagrams: ~30 ms) and gives up the rest.
    c.check(held - 0.05 <= gave_up <= secs, "stall: it gave up about the time it was held",
            f"given up {gave_up:.3f} s, held at least {held:.3f} s")
    sp, rp, lost = accounting(c, "stall", e)
    c.check(lost == 0, "stall: no datagram lost on loopback", f"lost={lost}")


def test(netab, c):
    with h.Server(netab) as srv:
        # 1. 100 Mbit/s, 2 s: exact rate, no loss on loopback.
        rc, doc, err = h.run_against(netab, srv, ["-u", "-b", "100M", "-t", "2", "-i", "0"])
        e = h.end_of(doc)
        c.check(rc == 0 and e, "-u -b 100M -t 2 succeeds", f"rc={rc} {err.strip()[:300]}")
        if e:
            rate_check(c, netab, "100M", e, 100e6)
            sp, rp, lost = accounting(c, "100M", e)
            c.check(lost == 0, "100M on loopback: no datagram lost", f"lost={lost}")
            c.check(e["receiver"].get("malformed") == 0 and e["receiver"].get("foreign") == 0,
                    "100M: no malformed or foreign datagrams")

        # 2. 1 Gbit/s, 2 s. A sender starved of CPU (a sanitizer build, a busy shared host)
        # gives up what it cannot send, counted, and the identity above still holds.
        rc, doc, err = h.run_against(netab, srv, ["-u", "-b", "1G", "-t", "2", "-i", "0"])
        e = h.end_of(doc)
        c.check(rc == 0 and e, "-u -b 1G -t 2 succeeds", f"rc={rc} {err.strip()[:300]}")
        if e:
            rate_check(c, netab, "1G", e, 1e9)
            sp, rp, lost = accounting(c, "1G", e)
            c.note(f"1G: lost {lost} of {sp} ({e['receiver'].get('lost_percent')}%)")

        # 3. Reverse: the server sends, the client receives; same accounting.
        rc, doc, err = h.run_against(netab, srv, ["-u", "-R", "-b", "100M", "-t", "2", "-i", "0"])
        e = h.end_of(doc)
        c.check(rc == 0 and e, "-u -R -b 100M succeeds", f"rc={rc} {err.strip()[:300]}")
        if e:
            c.check("server_to_client" in h.field(e, "directions", dict),
                    "-R: traffic is reported as server_to_client", str(list(e["directions"])))
            rate_check(c, netab, "-R 100M", e, 100e6)
            sp, rp, lost = accounting(c, "-R", e)
            c.check(lost == 0, "-R 100M on loopback: no datagram lost", f"lost={lost}")

        # 3b. The same, with the sender held still for 0.4 s.
        stall_case(c, netab, srv)

        # 4. Two parallel streams, -b is per stream: 2 x 50M = 100M in total.
        rc, doc, err = h.run_against(netab, srv,
                                     ["-u", "-P", "2", "-b", "50M", "-t", "2", "-i", "0"])
        e = h.end_of(doc)
        c.check(rc == 0 and e, "-u -P 2 -b 50M succeeds", f"rc={rc} {err.strip()[:300]}")
        if e:
            c.check(e.get("streams") == 2, "-P 2: two streams reported", str(e.get("streams")))
            rate_check(c, netab, "-P 2 x 50M", e, 100e6)
            sp, rp, lost = accounting(c, "-P 2", e)
            c.check(lost == 0, "-P 2 on loopback: no datagram lost", f"lost={lost}")
            per = h.field(doc, "streams", list)
            c.check(len(per) == 2, "-P 2: two entries in streams[]", str(len(per)))

        # 5. -n: an exact byte count, not a multiple of the datagram size.
        n, length = 1_000_003, 1400
        want = math.ceil(n / length)
        rc, doc, err = h.run_against(
            netab, srv, ["-u", "-b", "100M", "-l", str(length), "-n", str(n), "-i", "0"])
        e = h.end_of(doc)
        c.check(rc == 0 and e, f"-u -n {n} -l {length} succeeds", f"rc={rc} {err.strip()[:300]}")
        if e:
            sp, rp, lost = accounting(c, "-n", e)
            c.check(sp == want, f"-n: sender packets == ceil(n/len) == {want}", f"sent={sp}")
            c.check(rp == want, f"-n: receiver packets == ceil(n/len) == {want}",
                    f"received={rp}")


if __name__ == "__main__":
    h.main(test)
