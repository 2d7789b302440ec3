#!/bin/sh
# tessel compare: libtessel's schedule against the baselines on one
# placement.   test-cli-compare.sh TESSEL
set -u
T=$1
fail() { echo "FAIL: $*"; exit 1; }
out=$("$T" compare vshape -d 4 -n 8 -m 4 --fast) || fail "compare vshape exited $?"
printf '%s\n' "$out"
for r in "tessel " "gpipe (greedy)" "1f1b (greedy, " "gpipe (published)" "1f1b (published)"; do
	printf '%s\n' "$out" | grep -q "^$r" || fail "no row '$r'"
done
# 1F1B's closed form on 4 devices, 8 micro-batches, F 1, B 3: (N + D - 1)(F + B) = 44
printf '%s\n' "$out" | grep -q '^1f1b (published) *44 ' || fail "1f1b (published) is not 44"
# GPipe keeps all 8 micro-batches: over the limit of 4
printf '%s\n' "$out" | grep '^gpipe (greedy)' | grep -q 'over the limit' || fail "gpipe within the limit"
# libtessel within the limit, no longer than 1F1B (its own peak is 4 = D)
tm=$(printf '%s\n' "$out" | awk '/^tessel / { print $2 }')
[ "$tm" -le 44 ] || fail "tessel makespan $tm > 44"
printf '%s\n' "$out" | grep '^tessel ' | grep -q 'over the limit' && fail "tessel over the limit"
printf '%s\n' "$out" | grep -q "speedup over the best baseline within the memory limits" || fail "no summary"
# zero bubble on its own placement: the published ZB-H1 order applies
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cat > "$dir/zb.json" <<'JSON'
{"devices": 2, "memory_limit": 2, "blocks": [
 {"name": "f0", "kind": "forward", "span": 1, "memory": 1, "devices": [0], "stage": 0},
 {"name": "f1", "kind": "forward", "span": 1, "memory": 1, "devices": [1], "after": ["f0"], "stage": 1},
 {"name": "b1", "kind": "backward", "span": 1, "memory": 0, "devices": [1], "after": ["f1"], "stage": 1},
 {"name": "w1", "kind": "weight", "span": 1, "memory": -1, "devices": [1], "after": ["b1"], "stage": 1},
 {"name": "b0", "kind": "backward", "span": 1, "memory": 0, "devices": [0], "after": ["b1"], "stage": 0},
 {"name": "w0", "kind": "weight", "span": 1, "memory": -1, "devices": [0], "after": ["b0"], "stage": 0}]}
JSON
out=$("$T" compare "$dir/zb.json" -n 4 --fast --latency 0.5) || fail "compare zb.json exited $?"
printf '%s\n' "$out"
printf '%s\n' "$out" | grep -q '^zb-h1 (published)' || fail "no zb-h1 row"
printf '%s\n' "$out" | grep -q 'latency 0.5' || fail "latency not shown"
# durations: a slower f0 makes every makespan longer
printf '{"f0": 5}\n' > "$dir/d.json"
slow=$("$T" compare "$dir/zb.json" -n 4 --fast --durations "$dir/d.json" | awk '/^tessel / { print $2 }')
fast=$("$T" compare "$dir/zb.json" -n 4 --fast | awk '/^tessel / { print $2 }')
awk -v a="$slow" -v b="$fast" 'BEGIN { exit !(a > b) }' || fail "durations ignored ($slow <= $fast)"
# latency and uneven stages: the published 1F1B order is replayed with the
# placement's own spans (stage 1 twice as slow) and latency, so it is
# never shorter than LB(N) nor than its own replay by hand: 1F1B on two
# stages of 1 and 2 steps each way, latency 2: the last stage bounds it
cat > "$dir/lat.json" <<'JSON'
{"devices": 2, "memory_limit": 2, "latency": 2, "blocks": [
 {"name": "f0", "kind": "forward", "span": 1, "memory": 1, "devices": [0], "stage": 0},
 {"name": "f1", "kind": "forward", "span": 2, "memory": 1, "devices": [1], "after": ["f0"], "stage": 1},
 {"name": "b1", "kind": "backward", "span": 2, "memory": -1, "devices": [1], "after": ["f1"], "stage": 1},
 {"name": "b0", "kind": "backward", "span": 1, "memory": -1, "devices": [0], "after": ["b1"], "stage": 0}]}
JSON
out=$("$T" compare "$dir/lat.json" -n 8 --fast) || fail "compare lat.json exited $?"
printf '%s\n' "$out"
pub=$(printf '%s\n' "$out" | awk '/^1f1b \(published\)/ { print $3 }')
tm=$(printf '%s\n' "$out" | awk '/^tessel / { print $2 }')
[ -n "$pub" ] || fail "no 1f1b (published) row with latency and uneven stages"
# stage 1 alone: 8 x (2 + 2) = 32 steps, plus f0 and its latency before the
# first f1 (3) and the latency and b0 after the last b1 (3): at least 38
awk -v p="$pub" 'BEGIN { exit !(p >= 38) }' || fail "published 1f1b $pub < 38: spans or latency ignored"
awk -v p="$pub" -v t="$tm" 'BEGIN { exit !(t <= p) }' || fail "tessel $tm longer than published 1f1b $pub"
# a placement no family has: said so
out=$("$T" compare mshape -n 8 --fast) || fail "compare mshape exited $?"
printf '%s\n' "$out" | grep -q '^# no published family' || fail "no note for a placement without a family"
# bad usage
"$T" compare >/dev/null 2>&1; [ $? -eq 2 ] || fail "no placement: not 2"
"$T" compare nosuch >/dev/null 2>&1; [ $? -eq 2 ] || fail "unknown preset: not 2"
"$T" compare vshape --latency -1 >/dev/null 2>&1; [ $? -eq 2 ] || fail "negative latency: not 2"
"$T" compare --help | grep -q '^Usage: tessel compare' || fail "no help"
# durations under which no schedule can be simulated (the times overflow):
# refused as bad input, no table (was a table of '-' and exit status 0)
printf '{"f0": 1.7976931348623157e308}\n' >"$dir/huge.json"
"$T" compare "$dir/zb.json" -n 4 --fast --durations "$dir/huge.json" >"$dir/out" 2>"$dir/err"
st=$?
[ $st -eq 2 ] || fail "compare with overflowing durations: exit status $st, expected 2"
[ ! -s "$dir/out" ] || fail "compare with overflowing durations printed a table"
grep -q "huge.json: simulation: .*overflow" "$dir/err" || fail "compare with overflowing durations: $(cat "$dir/err")"

# '-': the placement from the standard input, as a file gives it
from_stdin=$("$T" compare - -n 4 --fast < "$dir/zb.json" | awk '/^tessel / { print $2 }')
from_file=$("$T" compare "$dir/zb.json" -n 4 --fast | awk '/^tessel / { print $2 }')
[ -n "$from_stdin" ] && [ "$from_stdin" = "$from_file" ] || fail "compare -: '$from_stdin', the file: '$from_file'"
exit 0
