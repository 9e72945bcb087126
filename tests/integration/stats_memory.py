#!/usr/bin/env python3
"""`netab stats` bounds its memory (issue 23, item 5).

A 64 MiB file of "1\\n" lines (33.5 million values) used to take 1.58 GB:
it must now be refused at the documented cap of 10,000,000 values per
input, naming the file and the cap, and stay far below 600 MB while
reading up to the cap. Inputs within the caps (16,000,000 values in all)
are read and analysed within the bound docs/stats.md states (about 32
bytes per value: under 600 MB). The peak resident set size of each netab
is read with getrusage(RUSAGE_CHILDREN) after each run. Memory, not time,
is measured. Under ASan/UBSan (shadow memory) only the messages are checked.
"""
import os
import resource
import tempfile

import netab_helpers as h

MB = 1 << 20


def peak():
    """The largest peak RSS of any netab run so far, in bytes (ru_maxrss is in KiB on Linux).

    It only grows, so each bound is checked right after the run it is about,
    the smallest first: a later, larger run cannot hide an earlier excess.
    """
    return resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024


def write_lines(path, text, count):
    with open(path, "w") as f:
        chunk = text * 65536
        for _ in range(count // 65536):
            f.write(chunk)
        f.write(text * (count % 65536))


def write_array(path, element, count):
    """A JSON array of count elements, written in pieces: a child forked while this process
    holds a large string would count it in its own peak RSS."""
    with open(path, "w") as f:
        f.write("[" + element)
        piece = ("," + element) * 65536
        for _ in range((count - 1) // 65536):
            f.write(piece)
        f.write(("," + element) * ((count - 1) % 65536) + "]")


def test(netab, c):
    sanitized = h.sanitized(netab)
    with tempfile.TemporaryDirectory() as d:
        big = os.path.join(d, "ones.txt")
        write_lines(big, "1\n", 32 * MB)  # 64 MiB, 33,554,432 values
        c.check(os.path.getsize(big) == 64 * MB, "the input is 64 MiB of '1\\n'")
        small = os.path.join(d, "small.txt")
        write_lines(small, "2\n3\n", 4)

        c.note(f"before any netab: {peak() / MB:.0f} MB (the harness's own children)")
        r = h.netab_cmd(netab, "stats", big, small, expect_rc=2)
        c.check(f"{big}:10000001: more than 10000000 values, the most one input may hold"
                in r.stderr, "64 MiB of '1\\n' is refused at the cap, naming the file", r.stderr)
        c.note(f"refusal: peak RSS {peak() / MB:.0f} MB")
        if not sanitized:
            # Reading up to the cap holds 8 bytes per value (80 MB) plus small buffers.
            c.check(peak() < 200 * MB, "refusing the 64 MiB input stays under 200 MB",
                    f"{peak() / MB:.0f} MB")

        # JSON: a 64 MiB array of 1.4 million run documents is read one document at a time
        # (it took 1.5 GB whole), and a 64 MiB array of 22 million empty objects (5 GB) is
        # refused at its first element.
        doc = '{"end": {"receiver": {"bits_per_second": 1}}}'
        count = (64 * MB - 2) // (len(doc) + 1)
        arr = os.path.join(d, "runs.json")
        write_array(arr, doc, count)
        r = h.netab_cmd(netab, "stats", "--json", arr, small)
        c.check(r.doc["sets"][0]["n"] == count, f"an array of {count} documents is read",
                str(r.doc["sets"][0]["n"]))
        objs = os.path.join(d, "objs.json")
        write_array(objs, "{}", (64 * MB - 2) // 3)
        r = h.netab_cmd(netab, "stats", objs, small, expect_rc=2)
        c.check(f"{objs}:1: the document has no 'end.receiver.bits_per_second'" in r.stderr,
                "an array of empty objects is refused at its first element", r.stderr)
        c.note(f"JSON arrays: peak RSS {peak() / MB:.0f} MB")
        if not sanitized:
            c.check(peak() < 200 * MB, "64 MiB JSON arrays stay under 200 MB",
                    f"{peak() / MB:.0f} MB")

        # Within the caps: 10,000,000 + 6,000,000 values, read and analysed.
        ten = os.path.join(d, "ten.txt")
        six = os.path.join(d, "six.txt")
        write_lines(ten, "1\n2\n", 5000000)
        write_lines(six, "1\n3\n", 3000000)

        h.netab_cmd(netab, "stats", "--json", ten, six, timeout=600)
        c.note(f"16,000,000 values: peak RSS {peak() / MB:.0f} MB")
        if not sanitized:
            c.check(peak() < 600 * MB, "16 million values (the total cap) stay under 600 MB",
                    f"{peak() / MB:.0f} MB")

        # The total cap: one value more than 16,000,000 in all is refused, naming the file.
        r = h.netab_cmd(netab, "stats", ten, six, small, expect_rc=2)
        c.check(f"{small}:1: more than 16000000 values in all inputs together" in r.stderr
                and "(16000000 in the inputs before this one)" in r.stderr,
                "the total cap names the file that passes it", r.stderr)


if __name__ == "__main__":
    h.main(test)
