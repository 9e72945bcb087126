#!/usr/bin/env python3
"""Two netab binaries alternated on any test: the before/after figure of a data-path change.

Each round runs `A run OPTIONS` and `B run OPTIONS` in a seeded random order
and reads the test's own figure from --json: transactions per second for
tcp_rr and udp_rr, connections per second for tcp_crr, received Gbit/s for
streams. It prints both figures and B/A per round, then the median of the
per-round ratios and their spread. Run it on a quiet machine; options after
`--` go to both runs unchanged (add -A 0,1 for the pinned figure).

    python3 bench/ab.py --a /tmp/netab-before --b build/netab -r 14 -- -t 2 -u -b 0 -l 1400
"""
import argparse
import json
import random
import statistics
import subprocess


def figure(argv, seconds):
    out = subprocess.run(argv, capture_output=True, text=True, timeout=seconds + 120,
                         check=True).stdout
    end = json.loads(out)["end"]
    for key in ("connections_per_second", "transactions_per_second"):
        if key in end:
            return end[key], key
    return end["receiver"]["bits_per_second"] / 1e9, "Gbit/s received"


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--a", required=True, help="the netab binary before the change")
    p.add_argument("--b", required=True, help="the netab binary after the change")
    p.add_argument("-r", "--rounds", type=int, default=10)
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("options", nargs="*", help="netab run options (after --)")
    a = p.parse_args()
    opts = a.options or ["-t", "2"]
    seconds = 10.0
    if "-t" in opts:
        seconds = float(opts[opts.index("-t") + 1])
    rng = random.Random(a.seed)
    ratios, unit = [], ""
    print("round   A            B            B/A")
    for r in range(a.rounds):
        order = ["A", "B"]
        rng.shuffle(order)
        got = {}
        for tool in order:
            binary = a.a if tool == "A" else a.b
            got[tool], unit = figure([binary, "run", "--json", *opts], seconds)
        ratios.append(got["B"] / got["A"])
        print(f"{r + 1:5d}   {got['A']:<12.6g} {got['B']:<12.6g} {ratios[-1]:.3f}", flush=True)
    print(f"figure: {unit}; options: {' '.join(opts)}")
    print(f"B/A median {statistics.median(ratios):.3f} over {len(ratios)} rounds "
          f"(min {min(ratios):.3f}, max {max(ratios):.3f})")


if __name__ == "__main__":
    main()
