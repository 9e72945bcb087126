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
check engine engine measure util
check measure measure util
check stats stats util
check input input util
check util util
[ "$status" = 0 ] && echo "module edges: engine, measure, stats, input and util include only what they may"
exit "$status"
