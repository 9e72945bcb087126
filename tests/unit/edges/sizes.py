#!/usr/bin/env python3
"""Sizes of the sources, checked: no .c or .h file under src/ over 600 lines
and no function definition in a .c file under src/ over 80 lines (issue 21,
RULES.md). A file or function past these asks to be split; this test fails
naming each offender, its path, line and size, so the limit cannot drift.

A function is counted from the first line of its signature (the return type,
also when it stands on a line of its own) to the line of its closing brace,
both included. Braces are matched by a scan that skips comments, string and
character literals and preprocessor lines, so a "{" in a format string or a
comment does not shift the count.

    sizes.py ROOT           check ROOT/src
    sizes.py --self-test    prove the check on fixtures it writes itself:
                            it must pass at exactly the limits (600 lines,
                            80-line function) and fail one past them
"""

import os
import sys
import tempfile

MAX_FILE_LINES = 600
MAX_FUNCTION_LINES = 80


def strip_code(text):
    """Return text with comments, string and character literals and
    preprocessor directives replaced by spaces, newlines kept, so line numbers
    and brace positions in real code are unchanged."""
    out = []
    i = 0
    n = len(text)
    at_line_start = True  # only whitespace so far on this line
    while i < n:
        c = text[i]
        nxt = text[i + 1] if i + 1 < n else ""
        if c == "/" and nxt == "*":
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
            out.append("".join(ch if ch == "\n" else " " for ch in text[i:end]))
            i = end
            continue
        if c == "/" and nxt == "/":
            end = text.find("\n", i)
            end = n if end < 0 else end
            out.append(" " * (end - i))
            i = end
            continue
        if c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            end = min(j + 1, n)
            out.append("".join(ch if ch == "\n" else " " for ch in text[i:end]))
            i = end
            at_line_start = False
            continue
        if c == "#" and at_line_start:
            # A directive runs to the first newline not escaped by a backslash.
            j = i
            while j < n:
                if text[j] == "\n" and text[j - 1] != "\\":
                    break
                j += 1
            out.append("".join(ch if ch == "\n" else " " for ch in text[i:j]))
            i = j
            continue
        if c == "\n":
            at_line_start = True
        elif not c.isspace():
            at_line_start = False
        out.append(c)
        i += 1
    return "".join(out)


def functions(text):
    """Yield (name, first_line, lines) of each function definition in C
    source text: a brace at file scope whose head (the code since the previous
    file-scope ';' or '}') ends with ')'. Struct, union and enum bodies and
    initialisers end their heads with a name, ']' or '=', so they are not
    counted."""
    code = strip_code(text)
    depth = 0
    head_start = 0  # offset where the current file-scope head begins
    open_at = None
    for pos, c in enumerate(code):
        if c == "{":
            if depth == 0:
                head = code[head_start:pos]
                if head.rstrip().endswith(")"):
                    first = head_start + (len(head) - len(head.lstrip()))
                    open_at = first
                else:
                    open_at = None
            depth += 1
        elif c == "}":
            depth -= 1
            if depth < 0:
                depth = 0
            if depth == 0:
                if open_at is not None:
                    # The name is the word before the head's first '('.
                    head = code[open_at : code.index("{", open_at)]
                    words = head[: head.find("(")].split()
                    name = words[-1].lstrip("*") if words else "?"
                    first_line = code.count("\n", 0, open_at) + 1
                    last_line = code.count("\n", 0, pos) + 1
                    yield name, first_line, last_line - first_line + 1
                open_at = None
                head_start = pos + 1
        elif c == ";" and depth == 0:
            head_start = pos + 1


def line_count(text):
    """Lines as wc -l counts them, plus a last line without a newline."""
    return text.count("\n") + (0 if text.endswith("\n") or not text else 1)


def check(src):
    """Return the offenders under src as sorted message lines."""
    bad = []
    for dirpath, dirnames, filenames in os.walk(src):
        dirnames.sort()
        for fname in sorted(filenames):
            if not fname.endswith((".c", ".h")):
                continue
            path = os.path.join(dirpath, fname)
            rel = os.path.relpath(path, os.path.dirname(src.rstrip("/")))
            with open(path, encoding="utf-8", errors="replace") as f:
                text = f.read()
            lines = line_count(text)
            if lines > MAX_FILE_LINES:
                bad.append(f"{rel}: {lines} lines (limit {MAX_FILE_LINES})")
            if not fname.endswith(".c"):
                continue
            for name, first, size in functions(text):
                if size > MAX_FUNCTION_LINES:
                    bad.append(
                        f"{rel}:{first}: function {name} is {size} lines "
                        f"(limit {MAX_FUNCTION_LINES})"
                    )
    return bad


def fixture_function(name, lines):
    """A C function of exactly `lines` lines (signature to closing brace) whose
    body holds braces in a string, a character, comments and a directive, which
    a naive count would get wrong."""
    assert lines >= 8
    body = [
        "static int",
        f"{name}(int x)",
        "{",
        '    const char *s = "}}{ \\" }"; /* { */',
        "    char c = '}'; // {",
        "#define BRACE {",
    ]
    filler = lines - len(body) - 2
    body += ["    x += s[0] + c;"] * filler
    body += ["    return x;", "}"]
    assert len(body) == lines
    return body


def self_test():
    """Write fixtures at and one past each limit and check the verdicts.
    Return 0 when every verdict is right."""
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "src")
        os.makedirs(os.path.join(src, "lib"))

        def write(name, lines):
            with open(os.path.join(src, "lib", name), "w") as f:
                f.write("\n".join(lines) + "\n")

        def pad(lines, total):
            return lines + ["/* filler } { */"] * (total - len(lines))

        ok80 = fixture_function("fits", 80)
        long81 = fixture_function("too_long", 81)
        table = ["static const int table[] = {", "    1, 2,", "};"]
        write("file600.c", pad(ok80 + table, 600))
        write("file601.c", pad(["struct s {", "    int a;", "};"], 601))
        write("header601.h", pad([], 601))
        write("long.c", long81)
        got = check(src)
        want = [
            "src/lib/file601.c: 601 lines (limit 600)",
            "src/lib/header601.h: 601 lines (limit 600)",
            "src/lib/long.c:1: function too_long is 81 lines (limit 80)",
        ]
        if sorted(got) != sorted(want):
            failures.append(f"verdicts {got}, wanted {want}")
        sizes = {n: s for n, _, s in functions("\n".join(ok80 + long81))}
        if sizes != {"fits": 80, "too_long": 81}:
            failures.append(f"function sizes {sizes}")
        # The exit status, as meson sees it: 1 with offenders, 0 once they are gone.
        if main(["sizes.py", tmp]) != 1:
            failures.append("exit status with offenders is not 1")
        for name in ("file601.c", "header601.h", "long.c"):
            os.unlink(os.path.join(src, "lib", name))
        if main(["sizes.py", tmp]) != 0:
            failures.append("exit status without offenders is not 0")
    for f in failures:
        print("self-test: " + f)
    if not failures:
        print("self-test: 600/601-line files and 80/81-line functions judged right")
    return 1 if failures else 0


def main(argv):
    if len(argv) == 2 and argv[1] == "--self-test":
        return self_test()
    if len(argv) != 2:
        print("usage: sizes.py ROOT | --self-test", file=sys.stderr)
        return 2
    src = os.path.join(argv[1], "src")
    if not os.path.isdir(src):
        print(f"sizes.py: {src}: not a directory", file=sys.stderr)
        return 2
    bad = check(src)
    for line in bad:
        print(line)
    if bad:
        print(
            f"{len(bad)} over the limits: split along real seams "
            "(tables, phases), see RULES.md"
        )
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
