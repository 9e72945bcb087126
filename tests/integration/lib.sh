# The one harness for netab's shell integration tests (bash). Source it first:
#     . "$(dirname "$0")/lib.sh"
# It gives the test
#   nb_tmp                a private temporary directory, removed on exit;
#   run_netab CMD...      runs CMD (netab, or a helper built with its library) with stdout in
#                         the file $nb_out and stderr in $nb_err, sets nb_rc to its exit status
#                         and fails the test at once, naming CMD and quoting the report, if
#                         its stderr or the sanitizer log directory holds a sanitizer report;
#   check WHAT RC TEXT CMD...
#                         run_netab CMD, then expects exit status RC and, unless TEXT is
#                         empty, TEXT (grep -F) in its stdout or stderr;
#   expect_rc WHAT RC     the same exit-status check for the last run_netab;
#   pass WHAT / fail WHAT one result line; a failure makes the test exit 1 at the end;
#   need TOOL...          fails the test (never skips) when a tool is missing: scripts/deps
#                         installs them all and CI has them;
#   need_exec FILE...     fails the test when FILE (the netab binary) is not executable;
#   nb_finish             the last line of a test: exit 1 if anything failed, else 0.
# Every netab invocation goes through run_netab (or check), never "$netab" directly: an
# UndefinedBehaviorSanitizer report that does not halt the process is seen only there. ASan
# and LSan reports of every process, also of processes netab itself starts (netab compare's
# runs), go to a log directory of ours (ASAN_OPTIONS log_path), checked after each command
# and at exit. The exit trap removes nb_tmp and turns a pending failure into exit status 1.
set -u

nb_tmp=$(mktemp -d "${TMPDIR:-/tmp}/netab-it-XXXXXX") || exit 1
nb_san=$nb_tmp/sanitizer
mkdir "$nb_san" || exit 1
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}log_path=$nb_san/report"
export LSAN_OPTIONS="${LSAN_OPTIONS:+$LSAN_OPTIONS:}log_path=$nb_san/report"
nb_out=$nb_tmp/stdout
nb_err=$nb_tmp/stderr
nb_rc=0
nb_cmd=
nb_fails=0
# The same patterns as netab_helpers.SANITIZER_RE: the first line of a report.
nb_san_re='ERROR: (Address|Leak|Thread|Memory)Sanitizer|WARNING: (Thread|Memory)Sanitizer|SUMMARY: [A-Za-z]*Sanitizer|[A-Za-z]+Sanitizer:DEADLYSIGNAL|: runtime error: '

# Records a failure in a file as well, so that one in a subshell still fails the test.
fail() {
    echo "FAIL: $*"
    nb_fails=$((nb_fails + 1))
    : >"$nb_tmp/failed"
}

pass() {
    echo "ok: $*"
}

# Ends the test now with a sanitizer failure (also when called in a subshell: the exit trap
# of the test's shell sees the marker file).
nb_sanitizer_fail() { # who, file holding the report
    echo "FAIL: $1: sanitizer report:"
    grep -E -m1 -A60 -- "$nb_san_re" "$2" 2>/dev/null || head -c 4000 "$2"
    : >"$nb_tmp/failed"
    exit 1
}

# Fails the test at once if any process wrote a sanitizer report into the log directory.
nb_check_san_dir() { # who ran last
    local f
    for f in "$nb_san"/report.*; do
        [ -e "$f" ] || continue
        mv "$f" "$nb_tmp/reported.${f##*.}"
        nb_sanitizer_fail "$1 (or a process it started; pid ${f##*.})" "$nb_tmp/reported.${f##*.}"
    done
}

run_netab() { # command...
    nb_cmd="$*"
    "$@" >"$nb_out" 2>"$nb_err"
    nb_rc=$?
    if grep -qE -- "$nb_san_re" "$nb_err"; then
        nb_sanitizer_fail "\`$nb_cmd\` (exit status $nb_rc)" "$nb_err"
    fi
    nb_check_san_dir "\`$nb_cmd\`"
    return 0
}

# Prints the last command's output, for a failure message.
nb_show() {
    echo "--- \`$nb_cmd\` stdout ---"
    tail -n 30 "$nb_out"
    echo "--- stderr ---"
    tail -n 30 "$nb_err"
}

expect_rc() { # what, expected exit status of the last run_netab
    if [ "$nb_rc" != "$2" ]; then
        fail "$1: exit $nb_rc, wanted $2"
        nb_show
        return 1
    fi
    return 0
}

check() { # what, expected exit status, expected text (grep -F) or "", command...
    local what=$1 want_rc=$2 want_text=$3
    shift 3
    run_netab "$@"
    expect_rc "$what" "$want_rc" || return 1
    if [ -n "$want_text" ] && ! cat "$nb_out" "$nb_err" | grep -qF -- "$want_text"; then
        fail "$what: output lacks '$want_text'"
        nb_show
        return 1
    fi
    pass "$what"
}

need() { # tool...
    local t
    for t in "$@"; do
        command -v "$t" >/dev/null 2>&1 || { fail "'$t' is not installed (run sh scripts/deps)"; exit 1; }
    done
}

nb_on_exit() {
    local rc=$? f
    trap - EXIT
    if [ -d "$nb_san" ]; then
        for f in "$nb_san"/report.*; do
            [ -e "$f" ] || continue
            echo "FAIL: a process of this test (pid ${f##*.}): sanitizer report:"
            head -c 4000 "$f"
            rc=1
        done
    fi
    [ -e "$nb_tmp/failed" ] && rc=1
    rm -rf "$nb_tmp"
    exit "$rc"
}
trap nb_on_exit EXIT

nb_finish() {
    if [ "$nb_fails" != 0 ] || [ -e "$nb_tmp/failed" ]; then
        echo "$nb_fails check(s) failed"
        exit 1
    fi
    exit 0
}

# Fails the test at once unless every argument is an executable file (the netab binary under
# test, a helper): a missing binary is a broken build, not a reason to skip.
need_exec() { # file...
    local f
    for f in "$@"; do
        [ -x "$f" ] || { fail "'$f' is not an executable file"; exit 1; }
    done
}
