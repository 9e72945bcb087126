#!/usr/bin/env python3
"""A consumer of `netab run --json-stream` (docs/json.md, "The live stream"):
prints each interval's rate as it arrives, then the receiver's throughput
from the last line's document. Arguments are netab run's options:

    python3 docs/json_stream_consumer.py -t 10 -i 0.5
"""
import json
import subprocess
import sys

p = subprocess.Popen(["netab", "run", "--json-stream", *sys.argv[1:]],
                     stdout=subprocess.PIPE, text=True)
doc = None
for line in p.stdout:
    ev = json.loads(line)
    if ev["event"] == "interval":
        d = ev["data"]
        print(f'{d["end"]:6.1f} s {d["bits_per_second"] / 1e9:8.2f} Gbit/s', flush=True)
    elif ev["event"] == "error":
        print("failed:", ev["data"], file=sys.stderr)
    elif ev["event"] == "end":
        doc = ev["data"]
p.wait()
if doc and doc["end"]:
    print(f'receiver: {doc["end"]["receiver"]["bits_per_second"] / 1e9:.2f} Gbit/s')
sys.exit(p.returncode)
