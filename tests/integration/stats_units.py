#!/usr/bin/env python3
"""`netab stats` prints values in the input's unit, never with an exponent
(issue 29, item 7).

* iperf3 -J documents (bits per second): the text says "Values in Mbit/s."
  and shows each set's mean as the JSON's mean (bits/s, unchanged) divided
  by 10^6; the differences carry "Mbit/s".
* An iperf2 text report (the committed fixture tests/unit/stats/data/
  iperf2/tcp_p2_client.txt, Gbits/sec lines): likewise in Mbit/s.
* Plain numbers have no known unit: no "Values in" line, and a mean of
  7.6e8 is printed in plain digits, as the JSON's mean rounded.
* No "e+" anywhere in any of these texts (p-values may be small: "e-").
"""
import json
import os
import re
import tempfile

import netab_helpers as h

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "unit", "stats", "data")


def iperf3_docs(path, bps):
    """One iperf3 -J document per line, as a file of several runs holds them."""
    with open(path, "w") as f:
        for v in bps:
            doc = {"start": {"version": "iperf 3.12", "test_start": {"protocol": "TCP"}},
                   "end": {"sum_sent": {"bits_per_second": v},
                           "sum_received": {"bits_per_second": v}}}
            f.write(json.dumps(doc) + "\n")
    return path


def stats(netab, *files):
    """The text and the JSON document of `netab stats FILES`."""
    text = h.run_cmd([netab, "stats", *files]).stdout
    doc = h.run_cmd([netab, "stats", "--json", *files]).doc
    return text, doc


def set_row(text, name):
    """The summary row of the set shown as name: its columns N .. CV%."""
    for line in text.splitlines():
        cols = line.split()
        if len(cols) == 9 and cols[-1] == name:
            return cols[1:8]
    raise h.TestFailure(f"no summary row for {name}:\n{text}")


def check_no_exponent(c, what, text):
    c.check("e+" not in text, f"{what}: no 'e+' in the text", re.findall(r"\S*e\+\S*", text)[:3])


def check_iperf3(netab, c, d):
    a = iperf3_docs(os.path.join(d, "a.json"), [761666666.7 + 1e6 * i for i in range(5)])
    b = iperf3_docs(os.path.join(d, "b.json"), [801123456.7 + 1e6 * i for i in range(5)])
    text, doc = stats(netab, a, b)
    h.log(text)
    c.check("Values in Mbit/s." in text.splitlines(), "iperf3: the unit is named")
    for path, s in zip((a, b), doc["sets"]):
        row = set_row(text, path)
        want = f"{s['mean'] / 1e6:.6g}"
        c.check(row[4] == want, f"iperf3: {os.path.basename(path)}: mean {want} Mbit/s "
                f"(JSON {s['mean']} bit/s)", row)
        c.check(s["mean"] > 7e8, "iperf3: the JSON keeps bits per second", s["mean"])
    diff = next(line for line in text.splitlines() if line.strip().startswith("mean   diff"))
    want = f"{doc['comparisons'][0]['diff'] / 1e6:+.6g}"
    c.check(diff.split()[2] == want and "] Mbit/s (" in diff,
            f"iperf3: the difference {want} Mbit/s", diff)
    check_no_exponent(c, "iperf3", text)


def check_iperf2(netab, c):
    path = os.path.join(DATA, "iperf2", "tcp_p2_client.txt")
    text, doc = stats(netab, path)
    h.log(text)
    c.check("Values in Mbit/s." in text.splitlines(), "iperf2: the unit is named")
    s = doc["sets"][0]
    want = f"{s['mean'] / 1e6:.6g}"
    c.check(set_row(text, path)[4] == want, f"iperf2: mean {want} Mbit/s", s["mean"])
    check_no_exponent(c, "iperf2", text)


def check_plain(netab, c, d):
    path = os.path.join(d, "plain.txt")
    with open(path, "w") as f:
        f.write("".join(f"{761666666 + 1000003 * i}\n" for i in range(6)))
    text, doc = stats(netab, path)
    h.log(text)
    c.check(not any(line.startswith("Values in") for line in text.splitlines()),
            "plain: no unit claimed")
    mean = set_row(text, path)[4]
    c.check(mean == f"{doc['sets'][0]['mean']:.0f}", "plain: the mean in plain digits",
            (mean, doc["sets"][0]["mean"]))
    check_no_exponent(c, "plain", text)


def body(netab, c):
    with tempfile.TemporaryDirectory() as d:
        check_iperf3(netab, c, d)
        check_iperf2(netab, c)
        check_plain(netab, c, d)


if __name__ == "__main__":
    h.main(body)
