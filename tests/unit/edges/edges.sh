#!/bin/sh
# The module edges DESIGN.md draws, checked on the sources: each module below
# may include headers only from the modules listed after it. A new include
# across an edge (say, engine including a proto header) fails this test with
# the file and the line.
set -eu
root=$1
status=0
check() {
    module=$1
    shift
    allowed=$(printf '%s|' "$@")
    bad=$(grep -rnE '^#include "[a-z_]+/' "$root/src/lib/$module" |
        grep -vE "#include \"(${allowed%|})/" || true)
    if [ -n "$bad" ]; then
        echo "src/lib/$module may include only $*, but:"
        echo "$bad" | sed "s|$root/||"
        status=1
    fi
}
check bisect bisect judge metric compare campaign experiment store stats statsreport util
check history history judge metric compare store stats plot util
check compare compare judge campaign experiment store runspec statsreport stats input metric profdiff util
check campaign campaign experiment store envcap runspec proto util
check experiment experiment runspec engine metric util
check runspec runspec rrul engine proto util
check report report judge statsreport stats store envcap plot input metric profdiff layout symbols util
check statsreport statsreport judge metric stats plot input util
check rrul rrul engine proto measure stats util
check runout runout engine plot metric util
check plot plot stats util
check proto proto engine measure util
check engine engine measure util
check envcap envcap measure util
check measure measure symbols util
check stats stats util
check profdiff profdiff stats util
check input input util
check import import input store runout util
check store store metric util
check metric metric util
check judge judge metric util
check layout layout symbols store util
check symbols symbols util
check util util
# Only the CLI decides what a signal does; the library offers cancel calls.
handlers=$(grep -rnE '(^|[^a-z_])(sigaction|signal) *\(' "$root/src/lib" || true)
if [ -n "$handlers" ]; then
    echo "src/lib installs signal handlers (the CLI's job):"
    echo "$handlers" | sed "s|$root/||"
    status=1
fi
# The report's model is typed (issue 29): no struct of its headers holds a JSON
# object (a member declared json_t *). Only rundoc.h, each run's parsed
# documents while the model is built, never kept in the model, may.
jsonmembers=$(grep -nE '^[[:space:]]+(const[[:space:]]+)?json_t[[:space:]]*\*[^()]*;' \
    $(ls "$root"/src/lib/report/*.h | grep -v '/rundoc\.h$') || true)
if [ -n "$jsonmembers" ]; then
    echo "the report's model holds JSON objects (type them; docs/architecture.md, Output):"
    echo "$jsonmembers" | sed "s|$root/||"
    status=1
fi
# The CLI only parses arguments, calls libnetab and maps errors to exit statuses
# (README "Development"); its size is held so that library logic does not creep
# back into it. Issue 21 asks for at most 3000 lines: lower cli_max as the CLI
# shrinks toward that, never raise it.
cli_max=3162
cli_lines=$(cat "$root"/src/cli/*.c "$root"/src/cli/*.h | wc -l)
if [ "$cli_lines" -gt "$cli_max" ]; then
    echo "src/cli/ holds $cli_lines lines of .c and .h, more than $cli_max: move library logic into src/lib"
    status=1
fi
# Unit tests compare values with assertions that print both sides on failure:
# tests/unit/netab_assert.h for numbers (ASSERT_LT(a, b), ASSERT_EQ(a, b) print both
# values), cmocka's pointer, string and memory assertions for the rest; never with
# assert_true(a < b) or assert_true(a == b), which say only that something was false.
# Each assert_true/assert_false call is read whole, also when it spans lines, its
# parentheses matched outside string and character literals; a call whose code (the
# literals' contents and "->" left out) holds < or > is printed as "lt FILE:LINE: CALL",
# one holding == or != as "eq FILE:LINE: CALL", every call as "call FILE:LINE: CALL".
calls=$(find "$root/tests/unit" \( -name '*.c' -o -name '*.h' \) -exec awk '
    function scan(s,   k, c) {
        for (k = 1; k <= length(s); k++) {
            c = substr(s, k, 1)
            if (quote != "") {
                if (c == "\\")
                    k++
                else if (c == quote)
                    quote = ""
                continue
            }
            code = code c
            if (c == "\"" || c == "\047")
                quote = c
            else if (c == "(")
                depth++
            else if (c == ")" && --depth == 0) {
                text = text substr(s, 1, k)
                return substr(s, k + 1)
            }
        }
        text = text s " "
        code = code " "
        return ""
    }
    function report(   where) {
        where = file ":" at ": "
        gsub(/[ \t]+/, " ", text)
        print "call " where text
        gsub(/->/, "", code)
        if (code ~ /[<>]/)
            print "lt " where text
        if (code ~ /[=!]=/)
            print "eq " where text
        open = 0
    }
    function unclosed() {
        if (open)
            print "unclosed " file ":" at ": " text
        open = 0
    }
    FNR == 1 { unclosed(); file = FILENAME }
    {
        rest = $0
        for (;;) {
            if (!open) {
                if (!match(rest, /assert_(true|false)\(/))
                    break
                rest = substr(rest, RSTART)
                open = 1; depth = 0; quote = ""; text = ""; code = ""; at = FNR
            }
            rest = scan(rest)
            if (depth > 0)
                break
            report()
        }
    }
    END { unclosed() }' {} + | sort -t: -k1,1 -k2,2n)
# The scan must have read every call grep finds, in a tree that has unit tests: a scan
# that read nothing, or no tree, would pass.
sources=$(find "$root/tests/unit" -name '*.c' 2>/dev/null | wc -l)
want=$(grep -rhoE 'assert_(true|false)\(' "$root/tests/unit" --include='*.c' --include='*.h' |
    wc -l)
got=$(printf '%s\n' "$calls" | grep -acE '^call ' || true)
if [ "$sources" -eq 0 ] || [ "$got" -ne "$want" ]; then
    echo "the assert_true/assert_false scan read $got calls in $root/tests/unit's $sources" \
        ".c files where grep finds $want"
    status=1
fi
# kind LABEL: the calls of that kind, without the kind, as FILE:LINE: CALL below the label.
offenders() {
    found=$(printf '%s\n' "$calls" | grep -aE "^$1 " | sed "s|^$1 $root/||" || true)
    if [ -n "$found" ]; then
        printf '%s\n%s\n' "$2" "$found"
        status=1
    fi
}
offenders unclosed "assert_true/assert_false calls whose parentheses this check cannot match:"
offenders lt "unit tests compare numbers with assert_true/assert_false; use ASSERT_LT and friends:"
offenders eq "unit tests test equality with assert_true/assert_false; use ASSERT_EQ/ASSERT_NE
(netab_assert.h) for numbers, assert_ptr_equal/assert_ptr_not_equal/assert_null/
assert_non_null for pointers, assert_string_equal or ASSERT_STARTS_WITH for strings,
assert_memory_equal for memory:"
[ "$status" = 0 ] && echo "module edges: every module includes only what it may; no handler in src/lib;" \
    "no unit test compares with assert_true/assert_false; src/cli/ $cli_lines lines (at most $cli_max)"
exit "$status"
