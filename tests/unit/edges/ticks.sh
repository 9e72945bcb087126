#!/bin/sh
# No loop in src/ sleeps or polls on a fixed period (issue 30; docs/architecture.md, "No
# thread ticks beside the data threads"): waiting is on events and deadlines
# (util/evloop). This fails on
#   - any usleep( call;
#   - a poll(), ppoll() or epoll_wait() whose timeout (the last argument; ppoll's third,
#     before its signal mask) holds a number
#     other than 0 or -1, or an upper-case constant: a fixed period, or a cap shorter than
#     the deadline it stands in for;
#   - a #define of a *_SLEEP_*, *_TICK_*, *_WAKE_* or *_SLICE_* period: a cap hidden in a
#     name.
# The waits not yet converted are listed below, each with its reason; an entry that no
# longer matches anything fails too, so the list only shrinks.
set -eu
root=$1
# FILE|TEXT (a fixed string of the offending line)|reason
allowed='src/lib/proto/client.c|poll(&pfd, 1, 500)|one grace wait for the server'"'"'s reason after a stream failed, not a loop'
found=$(cd "$root" && {
    grep -rnF 'usleep(' src || true
    grep -rnE '(^|[^a-z_])(poll|ppoll|epoll_wait) *\(' src | perl -ne '
        my ($where, $code) = /^([^:]+:[0-9]+:)(.*)$/ or next;
        while ($code =~ /(?<![a-z_])(poll|ppoll|epoll_wait)\s*(\((?:[^()]++|(?2))*\))/g) {
            my ($fn, $args) = ($1, substr($2, 1, -1));
            my ($depth, @arg) = (0, "");
            for my $ch (split //, $args) {
                $depth++ if $ch eq "(";
                $depth-- if $ch eq ")";
                if ($ch eq "," && !$depth) { push @arg, ""; next }
                $arg[-1] .= $ch;
            }
            my $last = $fn eq "ppoll" && @arg > 2 ? $arg[2] : $arg[-1];
            $last =~ s/(?<![0-9])-\s*1\b//g; # -1: no timeout, allowed
            if ($last =~ /\b[1-9][0-9]*\b|\b[A-Z][A-Z0-9_]+\b/) { print "$where$code\n"; last }
        }' || true
    grep -rnE '#define [A-Z0-9_]*_(SLEEP|TICK|WAKE|SLICE)_[A-Z0-9_]*' src || true
} | sort -u)
status=0
unlisted=$(printf '%s\n' "$found" | while IFS= read -r hit; do
    [ -n "$hit" ] || continue
    file=${hit%%:*}
    ok=$(printf '%s\n' "$allowed" | while IFS='|' read -r f text why; do
        if [ "$f" = "$file" ]; then case $hit in *"$text"*) echo yes ;; esac; fi
    done)
    [ -n "$ok" ] || printf '%s\n' "$hit"
done || true)
if [ -n "$unlisted" ]; then
    echo "waits on a fixed period (use util/evloop: events and deadlines), not listed as exceptions:"
    printf '%s\n' "$unlisted"
    status=1
fi
stale=$(printf '%s\n' "$allowed" | while IFS='|' read -r f text why; do
    printf '%s\n' "$found" | grep -F "$f:" | grep -qF "$text" || printf '%s|%s\n' "$f" "$text"
done || true)
if [ -n "$stale" ]; then
    echo "exceptions that no longer match (remove them from tests/unit/edges/ticks.sh):"
    printf '%s\n' "$stale"
    status=1
fi
n=$(printf '%s\n' "$allowed" | wc -l)
[ "$status" = 0 ] && echo "no fixed-period wait in src/ beyond the $n listed exceptions"
exit "$status"
