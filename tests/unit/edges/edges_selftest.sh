#!/bin/sh
# Proves edges.sh's check of the unit tests' assertions on a tree it writes itself, so
# the check cannot pass by finding nothing: every offender below (a comparison inside
# assert_true/assert_false, on one line or across lines, beside a parenthesis in a
# literal, with a backslash that dash's echo would turn into a NUL, with a byte that is
# not UTF-8 and makes grep call its input binary, in a .c or a .h) must be named with
# its file and line and fail the run, while the clean file (comparisons only inside
# literals, "->", value-printing macros) must pass.
#
#     edges_selftest.sh EDGES_SH
set -eu
edges=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# The module directories edges.sh checks the include lines of, empty.
for m in $(sed -n 's/^check \([a-z_]*\) .*/\1/p' "$edges"); do
    mkdir -p "$tmp/src/lib/$m"
done
mkdir -p "$tmp/tests/unit/x"
cat >"$tmp/tests/unit/x/test_clean.c" <<'EOF'
    ASSERT_EQ(a, b);
    assert_true(found);
    assert_true(p->ok);
    assert_false(strstr(s, "a == b ("));
    assert_true(is(c, '(') && is(d, '<'));
    assert_non_null(strchr(s, '='));
EOF
status=0
fail() {
    echo "self-test: $*"
    status=1
}
if ! sh "$edges" "$tmp" >"$tmp/out"; then
    fail "a tree without offenders failed:"
    cat "$tmp/out"
fi

cat >"$tmp/tests/unit/x/test_bad.c" <<'EOF'
    assert_true(a == b);
    assert_false(x != 0);
    assert_true(p->n == 1 && q);
    assert_true(ok &&
                n == 2);
    assert_true(c == '(');
    assert_true(strchr(s, ')') != NULL); assert_true(a < b);
    assert_false(p->n > 1);
    assert_true(s[0] != '\0');
EOF
printf "    assert_true(s[0] == '\\377');\n" >>"$tmp/tests/unit/x/test_bad.c"
cat >"$tmp/tests/unit/x/helpers.h" <<'EOF'
#define CHECK(x) assert_true((x) != 0)
EOF
if sh "$edges" "$tmp" >"$tmp/out"; then
    fail "a tree with offenders passed"
fi
for want in 'x/test_bad.c:1: assert_true(a == b)' 'x/test_bad.c:2: assert_false(x != 0)' \
    'x/test_bad.c:3: assert_true(p->n == 1 && q)' 'x/test_bad.c:4: assert_true(ok && n == 2)' \
    "x/test_bad.c:6: assert_true(c == '(')" "x/test_bad.c:7: assert_true(strchr(s, ')') != NULL)" \
    'x/test_bad.c:7: assert_true(a < b)' 'x/test_bad.c:8: assert_false(p->n > 1)' \
    "x/test_bad.c:9: assert_true(s[0] != '\\0')" "$(printf "x/test_bad.c:10: assert_true(s[0] == '\\377')")" \
    'x/helpers.h:1: assert_true((x) != 0)'; do
    grep -aqxF "tests/unit/$want" "$tmp/out" || fail "not named: $want"
done
grep -q 'use ASSERT_EQ/ASSERT_NE' "$tmp/out" || fail "no message naming ASSERT_EQ/ASSERT_NE"
grep -q 'use ASSERT_LT and friends' "$tmp/out" || fail "no message naming ASSERT_LT"
if grep -aq 'test_clean.c' "$tmp/out"; then
    fail "a clean call named:"
    grep -a 'test_clean.c' "$tmp/out"
fi

# A call left open hides what follows it: the check fails on it rather than pass.
rm "$tmp/tests/unit/x/test_bad.c" "$tmp/tests/unit/x/helpers.h"
printf '    assert_true(f(x);\n' >"$tmp/tests/unit/x/test_open.c"
if sh "$edges" "$tmp" >"$tmp/out"; then
    fail "a call never closed passed"
fi
grep -q 'x/test_open.c:1: assert_true(f(x);' "$tmp/out" || fail "the open call not named"

# A tree without unit tests is no proof: the check has nothing to read and fails.
rm -r "$tmp/tests/unit/x"
if sh "$edges" "$tmp" >"$tmp/out" 2>&1; then
    fail "a tree without unit tests passed"
fi
[ "$status" = 0 ] && echo "self-test: offenders named, clean calls passed, open calls and empty trees failed"
exit "$status"
