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
check bisect bisect compare campaign experiment store stats statsreport util
check history history compare store stats plot util
check compare compare campaign experiment store runspec statsreport stats input metric profdiff util
check campaign campaign experiment store envcap runspec proto util
check experiment experiment runspec engine metric util
check runspec runspec engine proto util
check creport creport statsreport stats store envcap plot input metric profdiff layout symbols util
check statsreport statsreport stats plot util
check runout runout engine plot metric util
check plot plot stats util
check proto proto engine measure util
check engine engine measure util
check envcap envcap measure util
check measure measure symbols util
check stats stats util
check profdiff profdiff stats util
check input input util
check store store metric util
check metric metric util
check layout layout symbols util
check symbols symbols util
check util util
# Only the CLI decides what a signal does; the library offers cancel calls.
handlers=$(grep -rnE '(^|[^a-z_])(sigaction|signal) *\(' "$root/src/lib" || true)
if [ -n "$handlers" ]; then
    echo "src/lib installs signal handlers (the CLI's job):"
    echo "$handlers" | sed "s|$root/||"
    status=1
fi
# Unit tests compare numbers with tests/unit/netab_assert.h (ASSERT_LT(a, b) prints both
# values), never with assert_true(a < b), which says only that something was false.
bare=$(grep -rnE 'assert_(true|false)\(' "$root/tests/unit" --include='*.c' --include='*.h' |
    sed 's/->//g' | grep -E 'assert_(true|false)\(.*[<>]' || true)
if [ -n "$bare" ]; then
    echo "unit tests compare numbers with assert_true/assert_false; use ASSERT_LT and friends:"
    echo "$bare" | sed "s|$root/||"
    status=1
fi
[ "$status" = 0 ] && echo "module edges: every module includes only what it may; no handler in src/lib"
exit "$status"
