#!/usr/bin/env python3
"""Two netab binaries against each other and the bare loops, single-stream TCP on loopback.

For a before/after figure of an engine change: each round runs, in a seeded
random order, `A run`, `B run`, `bare -f` and `bare` for --seconds each, then
prints every tool's Gbit/s per round and the medians of the per-round ratios
(B/A, and each netab against each bare loop). Run it on a quiet machine.

    python3 bench/tcp_ab.py --a /tmp/netab-before --b build/netab --build build -r 8 -t 3
"""
import argparse
import json
import os
import random
import statistics
import subprocess


def gbits(argv, seconds):
    out = subprocess.run(argv, capture_output=True, text=True, timeout=seconds + 60,
                         check=True).stdout
    if "bits_per_second=" in out:
        return float(out.split("bits_per_second=")[1].split()[0]) / 1e9
    return json.loads(out)["end"]["receiver"]["bits_per_second"] / 1e9


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--a", required=True, help="the netab binary before the change")
    p.add_argument("--b", required=True, help="the netab binary after the change")
    p.add_argument("--build", default="build", help="the build with bench/bare (default build)")
    p.add_argument("-r", "--rounds", type=int, default=8)
    p.add_argument("-t", "--seconds", type=float, default=3.0)
    p.add_argument("--seed", type=int, default=5)
    a = p.parse_args()
    t = "%g" % a.seconds
    bare = os.path.join(a.build, "bench", "bare")
    tools = {
        "A": [a.a, "run", "-t", t, "-i", "0", "--json"],
        "B": [a.b, "run", "-t", t, "-i", "0", "--json"],
        "bare -f": [bare, "-t", t, "-f"],
        "bare": [bare, "-t", t],
    }
    got = {k: [] for k in tools}
    rng = random.Random(a.seed)
    for r in range(a.rounds):
        order = list(tools)
        rng.shuffle(order)
        for k in order:
            got[k].append(gbits(tools[k], a.seconds))
        print(f"round {r + 1}/{a.rounds}: " +
              ", ".join(f"{k} {got[k][-1]:.2f}" for k in tools), flush=True)
    for k, v in got.items():
        print(f"{k:8} median {statistics.median(v):.2f} Gbit/s")
    for x, y in [("B", "A"), ("A", "bare"), ("B", "bare"), ("A", "bare -f"), ("B", "bare -f")]:
        ratios = [i / j for i, j in zip(got[x], got[y])]
        print(f"{x} / {y}: median of per-round ratios {statistics.median(ratios):.3f}")


if __name__ == "__main__":
    main()
