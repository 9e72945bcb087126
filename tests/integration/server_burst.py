#!/usr/bin/env python3
"""50 `netab run -t 1` at once against `netab server --max-clients 4` (docs/server.md, "Limits").

Every client either runs its test or exits 1 with one of the reasons the
server documents for a refused or shed connection; none reads a bare "peer
closed the control connection". Every test the server admitted completes
(its log line says result=ok, and as many clients exit 0 as there are such
lines); no admitted test is shed or broken ("cannot send control message").
"busy" names the true count: refused only when 4 tests run, it says 4.
"""
import re
import time

from netab_helpers import Server, check, check_eq, log, run_main, start

CLIENTS = 50
MAX = 4
REASONS = (
    re.compile(r"server: server is busy: (\d+) tests running, its maximum \(--max-clients 4\); "
               r"try again later"),
    re.compile(r"server: too many connections from your address \(--max-conn-per-addr\)"),
    re.compile(r"server: server has too many connections in their handshake \(--max-pending\); "
               r"yours was the oldest"),
)


def burst(netab, per_addr):
    with Server(netab, extra=["--max-clients", str(MAX), "--max-conn-per-addr",
                              str(per_addr)]) as srv:
        procs = [start([netab, "run", "-c", "127.0.0.1", "-p", str(srv.port), "-t", "1"])
                 for _ in range(CLIENTS)]
        deadline = time.monotonic() + 90
        for p in procs:
            p.wait_exit(max(0.1, deadline - time.monotonic()))
        outcome = {"ok": 0, "busy": 0, "per-addr": 0, "pending": 0}
        for p in procs:
            r = p.finish(expect_rc=(0, 1), timeout=5)
            if r.returncode == 0:
                outcome["ok"] += 1
                continue
            err = r.stderr.strip()
            check("peer closed" not in err, "no client reads a bare 'peer closed'", err)
            match = [m for m in (x.search(err) for x in REASONS) if m]
            check(len(match) == 1, "a refused client names a documented reason", err)
            if match[0].re is REASONS[0]:
                outcome["busy"] += 1
                check_eq(int(match[0].group(1)), MAX, "'busy' names the tests really running")
            elif match[0].re is REASONS[1]:
                outcome["per-addr"] += 1
            else:
                outcome["pending"] += 1
        log(f"{CLIENTS} clients at once against --max-clients {MAX}, --max-conn-per-addr "
            f"{per_addr}: {outcome}")
        check_eq(sum(outcome.values()), CLIENTS, "every client is accounted for")
        check(outcome["ok"] >= 1, "some tests run", outcome)
        text = srv.log_text()
        ran = re.findall(r"peer=127\.0\.0\.1:\d+ test=tcp_stream .* result=(.*)$", text, re.M)
        check_eq([x for x in ran if x != "ok"], [], "every admitted test completes")
        check_eq(len(ran), outcome["ok"], "one result=ok line per client that ran")
        check("cannot send control message" not in text, "no admitted test lost its connection",
              text[-3000:])


def body(netab):
    burst(netab, 8)
    # Few handshakes per host: connections are shed while their threads wait for "start".
    burst(netab, 2)


if __name__ == "__main__":
    run_main(body)
