#!/bin/sh
# End-to-end tests of the tessel command line.
#
# Usage: test-cli.sh TESSEL_EXE DATA_DIR
#
# Stops at the first failure with a message saying what was run, what was
# expected and what happened.
# SPDX-License-Identifier: MIT
set -u

TMP_NAME=tessel-cli
. "$(dirname "$0")/cli-setup.sh"

# A success: exit 0, something on stdout.
expect_ok() {
	expect_status 0
	[ -s "$OUT" ] || fail "expected output on stdout"
}

# A refusal: exit STATUS, nothing on stdout, "tessel: reason" on stderr.
expect_refused() {
	expect_status "$1"
	expect_stdout_empty
	expect_stderr_has '^tessel: '
}

# A text grid: rows of cells, then the figures.
expect_grid() {
	expect_ok
	expect_stdout_has 'period'
	[ "$(wc -l <"$OUT")" -ge 3 ] || fail "expected a grid of several lines"
}

# ---------------------------------------------------------------- help, version

# a folder given as a file: the system's reason
run search "$TMP"
expect_refused 2
expect_stderr_has 'Is a directory'
run search - <"$TMP"
expect_refused 2
expect_stderr_has 'Is a directory'
pass "a folder as the placement"
printf '{"devices": 2, "blocks": [{"name": "a\\u0000b", "kind": "forward", "span": 1, "memory": 0, "devices": [0]}]}\n' >"$TMP/nul.json"
run search "$TMP/nul.json"
expect_refused 2
expect_stderr_has 'a string holds a NUL character'
grep -q JSON_ALLOW_NUL "$ERR" && fail "the message names a flag of the JSON parser"
pass "a NUL in a name"

# the man page names the version the program has
run --version
expect_ok
version=$(sed -n 's/^tessel //p' "$OUT")
grep -q "^\.TH TESSEL 1 \"[0-9]*\" \"libtessel $version\"" "$DATA/../../tools/tessel.1" ||
	fail "tools/tessel.1 does not name version $version"
pass "the man page's version"

run --help
expect_ok
expect_stdout_has 'search'
expect_stdout_has 'validate'
expect_stderr_empty
pass "--help"

run -h
expect_ok
pass "-h"

run --version
expect_ok
expect_stdout_has '^tessel [0-9][0-9]*\.[0-9][0-9]*\.[0-9][0-9]*'
pass "--version"

for cmd in search validate simulate presets; do
	run "$cmd" --help
	expect_ok
	expect_stdout_has "tessel $cmd"
	expect_stderr_empty
	pass "$cmd --help"
done

# ---------------------------------------------------------------- presets

run presets
expect_ok
for name in vshape xshape mshape nnshape kshape; do
	expect_stdout_has "^$name"
done
pass "presets lists the five presets"

# ---------------------------------------------------------------- search

run search
expect_grid
expect_stdout_has '|'
expect_stderr_empty
pass "search (default: mshape, 4 devices)"

found=0
for f in "$DATA"/*.json; do
	[ -e "$f" ] || continue
	case $(basename "$f") in model-*) continue ;; esac # model profiles
	found=1
	run search "$f"
	expect_grid
	pass "search $(basename "$f")"
done
[ "$found" -eq 1 ] || fail "no placement files in $DATA"

run search --preset vshape --devices 4 --micro-batches 8 --fast
expect_grid
pass "search --preset vshape --fast"

# a solver memory cap too small for any check: the heuristics' schedule
run search --preset xshape --devices 8 --memory 12 --solver-memory 1
expect_grid
expect_stdout_has 'period 8 (resource bound 8, optimal)'
pass "search --solver-memory"

run search --preset vshape --infer --micro-batches 4
expect_grid
pass "search --infer"

run search --preset vshape --memory unlimited --micro-batches 4 --time-limit 60
expect_grid
pass "search --memory unlimited --time-limit"

# a number so small that a double holds 0 is refused, not taken as 0 (a
# time limit of 0 is none); a subnormal one is taken
run search --preset vshape --micro-batches 4 --time-limit 1e-400
expect_refused 2
expect_stderr_has 'too small'
run simulate "$DATA/vshape-4dev.json" --latency 1e-400
expect_refused 2
expect_stderr_has 'too small'
# and too large: said so, not "not a number"
run simulate "$DATA/vshape-4dev.json" --latency 1e309
expect_refused 2
expect_stderr_has 'latency: 1e309 is too large for a double'
for us in 0 -1; do
	run search --preset vshape --format trace --step-us "$us"
	expect_refused 2
	expect_stderr_has "step-us: $us is out of range (a number > 0)"
done
# a tight-limit cache that is not a regular file is refused, not read for ever
run bench --suite full --preset vshape --max-devices 4 --fast --tight-cache /dev/zero
expect_refused 2
expect_stderr_has 'not a regular file'
# a cache's malformed lines are skipped with a warning (a device count that
# would wrap, a limit with a sign or trailing junk), a record glued to a
# line without its newline is not lost: the limit found goes on a line of
# its own and is read back
printf '# tight limits\nvshape 4294967300 5\nvshape 4 5junk\nvshape +4 +5\nmshape 2 3' >"$TMP/tight.txt"
run bench --suite full --preset vshape --max-devices 4 --fast --tight-cache "$TMP/tight.txt"
expect_status 0
[ "$(grep -c 'warning: .*tight.txt: line [234] is not' "$ERR")" -eq 3 ] || fail "warnings: $(cat "$ERR")"
expect_stdout_has 'vshape on 4 devices: tight memory limit 4 (proven minimal)'
[ "$(tail -n 2 "$TMP/tight.txt")" = "mshape 2 3
vshape 4 4" ] || fail "cache after: $(cat "$TMP/tight.txt")"
run bench --suite full --preset vshape --max-devices 4 --fast --tight-cache "$TMP/tight.txt"
expect_status 0
expect_stdout_has "tight memory limit 4 (from $TMP/tight.txt)"
pass "numbers too small for a double, a cache that is a device refused, a malformed cache"

# ---------------------------------------------------------------- JSON, validate

SCHED=$TMP/schedule.json
run search --preset vshape --format json --output "$SCHED"
expect_status 0
expect_stdout_empty
[ -s "$SCHED" ] || fail "--output did not write $SCHED"
! leftover "$SCHED" || fail "--output left a temporary file behind"
grep -q '"tessel-schedule"' "$SCHED" || fail "$SCHED is not schedule JSON"
pass "search --format json --output"

run validate "$SCHED"
expect_ok
expect_stdout_has '^valid: '
pass "validate accepts the schedule search wrote"

# blocks on 9 to 13 devices, heuristic mode: the passes after the repetend
# was labelled moved its entries (1.8.9 wrote a repetend ending past the
# makespan, which validate refused)
run search "$DATA/wide-13dev.json" -n 12 --fast --format json --output "$TMP/wide.json"
expect_status 0
run validate "$TMP/wide.json"
expect_ok
pass "validate accepts a schedule of blocks on many devices"

# a schedule from a pipe, and from a FIFO: read once, as it comes
LAST="cat schedule | tessel validate /dev/stdin"
cat "$SCHED" | "$TESSEL" validate /dev/stdin >"$OUT" 2>"$ERR"
STATUS=$?
expect_ok
expect_stdout_has '^valid: '
if mkfifo "$TMP/fifo" 2>/dev/null; then
	cat "$SCHED" >"$TMP/fifo" &
	run validate "$TMP/fifo"
	wait
	expect_ok
	expect_stdout_has '^valid: '
	# an empty FIFO: read once, refused, not waited on again
	: >"$TMP/fifo" &
	LAST="tessel validate (empty FIFO)"
	if command -v timeout >/dev/null 2>&1; then
		timeout 60 "$TESSEL" validate "$TMP/fifo" >"$OUT" 2>"$ERR"
	else
		"$TESSEL" validate "$TMP/fifo" >"$OUT" 2>"$ERR"
	fi
	STATUS=$?
	wait
	expect_refused 2
	expect_stderr_has 'empty'
	rm -f "$TMP/fifo"
fi
pass "validate reads a schedule from a pipe and a FIFO"

# a signal once the search has ended, while the result is written (here:
# waiting for a reader of the FIFO -o names), is ignored: the result is
# written whole, with the status it would have had; two as well. Where
# /proc does not show the wait (wait_for_partner), skipped.
late_signals() {
	rm -f "$TMP/late"
	mkfifo "$TMP/late" 2>/dev/null || return 0
	"$TESSEL" "$@" -o "$TMP/late" 2>"$ERR" &
	pid=$!
	tries=0
	while [ "$(cat /proc/$pid/wchan 2>/dev/null)" != wait_for_partner ] &&
	      [ $tries -lt 1200 ] && kill -0 $pid 2>/dev/null; do
		sleep 0.1
		tries=$((tries + 1))
	done
	if [ "$(cat /proc/$pid/wchan 2>/dev/null)" != wait_for_partner ]; then
		cat "$TMP/late" >/dev/null &
		wait
		rm -f "$TMP/late"
		return 0
	fi
	kill -TERM $pid
	kill -TERM $pid
	# (a program that died meanwhile never opens the FIFO: not waited on)
	if command -v timeout >/dev/null 2>&1; then
		timeout 60 cat "$TMP/late" >"$OUT"
	else
		cat "$TMP/late" >"$OUT"
	fi
	wait $pid
	STATUS=$?
	LAST="tessel $* -o FIFO, two SIGTERMs while it writes"
	rm -f "$TMP/late"
	expect_status 0
	[ -s "$OUT" ] || fail "nothing written"
}
late_signals search --preset vshape -d 4 -n 16 -q --format json --work-limit 20
"$TESSEL" validate "$OUT" >/dev/null 2>&1 || fail "the schedule written after two late signals is not whole"
late_signals search --preset vshape -d 4 -n 16 -q --format json --work-limit 20 --sweep 4,6
grep -q '"sweep"' "$OUT" || fail "the sweep written after two late signals is not whole"
pass "a signal while search writes its result is ignored"

run search --preset mshape --format json
expect_ok
expect_stdout_has '"tessel-schedule"'
cp "$OUT" "$TMP/stdout.json"
run validate "$TMP/stdout.json"
expect_ok
pass "search --format json to stdout, validate"

# Corrupt one block's step: start a block at the same step as another block
# of the same device, so that the device does two things at once.
BAD=$TMP/corrupt.json
python3 - "$SCHED" "$BAD" <<'EOF' || fail "could not corrupt $SCHED"
import json, sys
with open(sys.argv[1]) as f:
    doc = json.load(f)
blocks = doc["blocks"]
def corrupt():
    for a in blocks:
        for b in blocks:
            if a is not b and set(a["device"]) & set(b["device"]) \
                    and a["step"] != b["step"]:
                b["step"] = a["step"]
                return
    sys.exit("no two blocks share a device")
corrupt()
with open(sys.argv[2], "w") as f:
    json.dump(doc, f)
EOF
run validate "$BAD"
expect_refused 1
pass "validate rejects a corrupted schedule (exit 1)"

printf '{"format": "tessel-schedule", "blocks": [' >"$TMP/truncated.json"
run validate "$TMP/truncated.json"
expect_refused 2
pass "validate rejects malformed JSON (exit 2)"

# ---------------------------------------------------------------- formats

for fmt in actions torch torch-comms trace svg; do
	run search --preset vshape --micro-batches 4 --format "$fmt"
	expect_ok
	pass "search --format $fmt"
done
run search --preset vshape --micro-batches 4 --format svg
head -c 4 "$OUT" | grep -q '^<svg' || fail "--format svg does not start with <svg"
pass "search --format svg writes an SVG"
run search --preset vshape --micro-batches 4 --format trace --step-us 2.5
expect_ok
pass "search --format trace --step-us"
run search --preset vshape --micro-batches 4 --format svg --output "$TMP/s.svg"
expect_status 0
[ -s "$TMP/s.svg" ] || fail "--format svg --output wrote nothing"
pass "search --format svg --output"

# ---------------------------------------------------------------- profiled durations

# Durations in ms with a step of 0.1 ms: spans 3 and 6; the text names the
# step, the trace runs in real time (100 us a step), simulate in ms.
cat >"$TMP/profiled.json" <<'EOF'
{"devices": 2, "step": 0.1, "unit": "ms", "memory_limit": 2, "blocks": [
  {"name": "f0", "kind": "forward", "duration": 0.3, "memory": 1, "devices": [0]},
  {"name": "f1", "kind": "forward", "duration": 0.3, "memory": 1, "devices": [1], "after": ["f0"]},
  {"name": "b1", "kind": "backward", "duration": 0.55, "memory": -1, "devices": [1], "after": ["f1"]},
  {"name": "b0", "kind": "backward", "duration": 0.55, "memory": -1, "devices": [0], "after": ["b1"]}
]}
EOF
run search "$TMP/profiled.json" --micro-batches 4 --fast
expect_grid
expect_stdout_has '^step 0.1 ms (durations rounded up to whole steps)$'
expect_stdout_has '^one cell = 3 steps$'
expect_stdout_has '^makespan [0-9]* = [0-9.]* ms ('
pass "search a placement with durations in ms"
run search "$TMP/profiled.json" --micro-batches 4 --fast --format trace
expect_ok
expect_stdout_has '"name": "f0 mb1", "cat": "forward", "ph": "X", "ts": [0-9.]*, "dur": 300, '
pass "search --format trace runs in the placement's unit"
run search "$TMP/profiled.json" --micro-batches 4 --fast --format json --output "$TMP/profiled-sched.json"
expect_status 0
grep -q '^  "step": 0.1,$' "$TMP/profiled-sched.json" || fail "no step in the schedule JSON"
run simulate "$TMP/profiled-sched.json"
expect_ok
expect_stdout_has '^makespan [0-9.]* ms$'
expect_stdout_has '^device 1: busy 3.4 ms, idle [0-9.]* ms, peak memory [0-9]*$'
pass "simulate in the placement's unit"

# ---------------------------------------------------------------- simulate

want=$(sed -n 's/^  "nsteps": \([0-9]*\),$/\1/p' "$SCHED")
[ -n "$want" ] || fail "no nsteps in $SCHED"
run simulate "$SCHED"
expect_ok
expect_stdout_has "^makespan $want\$"
expect_stdout_has '^device 0: busy [0-9.]*, idle [0-9.]*, peak memory [0-9-]*$'
expect_stdout_has '^device 3: '
pass "simulate without durations gives the schedule's makespan ($want)"

run simulate "$SCHED" --latency 0.5 --jitter 0.2 --seed 7
expect_ok
cp "$OUT" "$TMP/sim1"
run simulate "$SCHED" --latency 0.5 --jitter 0.2 --seed 7
expect_ok
cmp -s "$OUT" "$TMP/sim1" || fail "simulate with a seed is not deterministic"
pass "simulate --latency --jitter --seed is deterministic"

printf '{"f0": 3.5}\n' >"$TMP/durations.json"
run simulate "$SCHED" --durations "$TMP/durations.json"
expect_ok
expect_stdout_has '^makespan '
pass "simulate --durations"

printf '{"nosuchblock": 1}\n' >"$TMP/bad-durations.json"
run simulate "$SCHED" --durations "$TMP/bad-durations.json"
expect_refused 2
expect_stderr_has 'nosuchblock'
pass "simulate rejects durations of unknown blocks (exit 2)"

# times that overflow a double: refused, never inf or nan figures
run simulate "$SCHED" --latency 1e308
expect_refused 2
expect_stderr_has 'the times overflow'
run simulate "$SCHED" --latency -1
expect_refused 2
expect_stderr_has 'out of range (a number >= 0)'
run simulate - --durations - <"$SCHED"
expect_refused 2
pass "simulate: overflowing times, ranges, one standard input"

# ---------------------------------------------------------------- validate --placement

# A schedule in the reference implementation's layout: only its keys.
REF=$TMP/reference.json
python3 - "$SCHED" "$REF" <<'EOF2' || fail "could not write $REF"
import json, sys
with open(sys.argv[1]) as f:
    doc = json.load(f)
keys = ("mid", "span", "memory", "btype", "gid", "step", "device")
ref = {"ndevs": doc["ndevs"], "repetend": doc["repetend"],
       "blocks": [{k: b[k] for k in keys} for b in doc["blocks"]]}
with open(sys.argv[2], "w") as f:
    json.dump(ref, f)
EOF2
run validate "$REF" --placement "$DATA/vshape-4dev.json"
expect_ok
expect_stdout_has '^valid: '
pass "validate --placement accepts a reference-format schedule"

run validate "$SCHED" --placement "$DATA/vshape-4dev.json"
expect_ok
pass "validate --placement accepts the library's schedule JSON"

run validate "$REF" --placement "$DATA/mshape-4dev.json"
expect_refused 2
pass "validate --placement rejects a schedule of another placement (exit 2)"

run validate "$REF"
expect_refused 2
pass "validate without --placement rejects a reference-format schedule"

# ---------------------------------------------------------------- bench --suite published

run bench --suite published --family 1f1b --max-devices 4 --fast --time-limit 10 --write "$TMP/pub"
expect_ok
expect_stdout_has '^case  *D  *N  *memory  *published  *tessel  *LB  *gap  *seconds$'
expect_stdout_has '^1f1b 1-2  *4  *16  *4  *57  *57  *57  *+0 '
expect_stdout_has '^# libtessel against the published schedules: 0 shorter, 1 equal, 0 longer$'
[ "$(tail -n 1 "$OUT")" = "1 cases, 0 failed" ] || fail "expected '1 cases, 0 failed' last"
for kind in placement published tessel; do
	[ -s "$TMP/pub/1f1b-1-2-d4-n16.$kind.json" ] || fail "--write wrote no $kind file"
done
run validate "$TMP/pub/1f1b-1-2-d4-n16.published.json"
expect_ok
run search "$TMP/pub/1f1b-1-2-d4-n16.placement.json" --micro-batches 16 --fast
expect_grid
expect_stdout_has 'makespan 57 '
pass "bench --suite published: a row, the summary, and --write files that validate and search"

run bench --suite published --family zb-h1 --max-devices 4 --fast --time-limit 10 --span-scale 2
expect_status 0
expect_stdout_has '^zb-h1 2-2-2  *4  *16  *4  *102 '
expect_stdout_has '^zb-h1 4-4-2  *4  *16  *4  *178 '
expect_stdout_has '^2 cases, 0 failed$'
run bench --suite published --family chimera --max-devices 4 --fast --time-limit 10
expect_status 0
expect_stdout_has '^# dualpipe, chimera: a micro-batch of the placement is a pair'
expect_stdout_has '^chimera 1-2  *4  *16  *4  *58 '
pass "bench --suite published: --span-scale, --family, pairs"

# ---------------------------------------------------------------- bench --suite zb

# the peer's V pipelines on 4 devices at 1x memory, where list scheduling
# alone was longer than the peer: the V rounds keep them at or below it
run bench --suite zb --fast --match v_p4_m16_mem1x
expect_status 0
expect_stdout_has '^v_p4_m16_mem1x_c6_even  *4  *16  *13209 '
expect_stdout_has ' 0 longer;'
[ "$(tail -n 1 "$OUT")" = "4 cases, 0 failed" ] || fail "expected '4 cases, 0 failed' last"
pass "bench --suite zb: V pipelines at 1x memory no longer than the peer"

# --data: the peer's orders on other sizes (scripts/make-zb-peer.py
# --sizes); its 6-device cases, none longer than the peer
run bench --suite zb --fast --data "$DATA/zb-peer-sizes.txt" --match _p6_
expect_status 0
expect_stdout_has '^h_p6_m18_mem1.25x_c6_even  *6  *18  *16012 '
expect_stdout_has ' 0 longer;'
[ "$(tail -n 1 "$OUT")" = "6 cases, 0 failed" ] || fail "expected '6 cases, 0 failed' last"
pass "bench --suite zb --data: the peer on other sizes, none longer"

# hostile data: a case name that would write outside --write's folder, a
# name twice, seconds that are no number, a limit beyond 2^50: refused
# as bad input, nothing written
awk '/^case h_p4_m8_mem1x_c6_even /{p=1} p{print} p&&/^end/{exit}' "$DATA/zb-peer.txt" >"$TMP/zb-one.txt"
mkdir -p "$TMP/zbw/a/b"
for edit in 's/^case h_p4_m8_mem1x_c6_even /case ..\/..\/escape /' \
	's/^peer \([0-9]*\) .*/peer \1 nan/' 's/^peer \([0-9]*\) .*/peer \1 abc/' \
	's/^\(memory [-0-9]* [-0-9]* [-0-9]*\) [0-9]*/\1 2000000000000000/'; do
	sed "$edit" "$TMP/zb-one.txt" >"$TMP/zb-bad.txt"
	run bench --suite zb --fast --data "$TMP/zb-bad.txt" --write "$TMP/zbw/a/b"
	expect_status 2
	expect_stderr_has 'line [0-9]*: '
done
cat "$TMP/zb-one.txt" "$TMP/zb-one.txt" >"$TMP/zb-bad.txt"
run bench --suite zb --fast --data "$TMP/zb-bad.txt"
expect_status 2
expect_stderr_has 'a case name comes twice'
[ -z "$(find "$TMP/zbw" -type f)" ] || fail "bench --write wrote from hostile data"
# orders that are no permutation of the blocks: an op twice, an op missing,
# a huge case whose orders are empty (refused as read, before anything its
# size is made: 3 x 8192 x 100000 instances would be 20 GB)
for edit in 's/^order 0 F0 F1 /order 0 F0 F0 /' 's/^order 3 \(.*\) W7$/order 3 \1/' \
	's/^order \([0-9]\) .*/order \1/'; do
	sed "$edit" "$TMP/zb-one.txt" >"$TMP/zb-bad.txt"
	run bench --suite zb --fast --data "$TMP/zb-bad.txt"
	expect_status 2
	expect_stderr_has 'line [0-9]*: .*\(twice\|expected\)'
done
{
	echo "case huge v 4096 100000 0"
	printf 'stages'; i=0; while [ $i -lt 4096 ]; do printf ' %d' $i; i=$((i + 1)); done
	while [ $i -gt 0 ]; do i=$((i - 1)); printf ' %d' $i; done; echo
	for k in f b w; do
		printf '%s' $k; i=0; while [ $i -lt 8192 ]; do printf ' 1'; i=$((i + 1)); done; echo
	done
	echo "comm 0"; echo "memory 1 -1 0 100"; echo "peer 1 0"
	i=0; while [ $i -lt 4096 ]; do echo "order $i"; i=$((i + 1)); done
	echo end
} >"$TMP/zb-bad.txt"
run bench --suite zb --fast --data "$TMP/zb-bad.txt"
expect_status 2
expect_stderr_has 'the orders hold 0 ops'
pass "bench --suite zb --data: hostile case names, seconds, limits and orders refused"

# ---------------------------------------------------------------- bad usage

refused_usage() {
	run "$@"
	expect_refused 2
	pass "refused (exit 2): tessel $*"
}

refused_usage
refused_usage frobnicate
refused_usage --frobnicate
refused_usage search --frobnicate
refused_usage search -Z
refused_usage search --devices abc
refused_usage search --devices 4x
refused_usage search --devices ''
refused_usage search --devices 99999999999999999999999
refused_usage search --devices
refused_usage search --micro-batches 0
refused_usage search --micro-batches -3
refused_usage search --threads 1.5
refused_usage search --time-limit abc
refused_usage search --time-limit -1
refused_usage search --memory -2
refused_usage search --format xml
refused_usage search --fast=1
refused_usage search --solver-memory -1
refused_usage search --solver-memory lots
refused_usage search --preset nosuchshape
refused_usage search --preset kshape --devices 3
refused_usage search "$TMP/does-not-exist.json"
refused_usage search "$DATA/vshape-4dev.json" "$DATA/mshape-4dev.json"
refused_usage search "$DATA/vshape-4dev.json" --infer
refused_usage search "$DATA/vshape-4dev.json" --preset vshape
refused_usage search "$TMP/truncated.json"
refused_usage validate
refused_usage validate "$TMP/does-not-exist.json"
refused_usage validate "$SCHED" "$SCHED"
refused_usage presets extra
refused_usage search --format pdf
refused_usage search --step-us 5
refused_usage search --format trace --step-us 0
refused_usage search --format trace --step-us abc
refused_usage validate "$SCHED" --placement
refused_usage validate "$SCHED" --placement "$TMP/does-not-exist.json"
refused_usage simulate
refused_usage simulate "$SCHED" "$SCHED"
refused_usage simulate "$TMP/does-not-exist.json"
refused_usage simulate "$TMP/truncated.json"
refused_usage simulate "$SCHED" --latency -1
refused_usage simulate "$SCHED" --latency abc
refused_usage simulate "$SCHED" --jitter 1
refused_usage simulate "$SCHED" --jitter -0.1
refused_usage simulate "$SCHED" --seed -1
refused_usage bench --suite nosuch
refused_usage bench --suite published --family nosuch
refused_usage bench --suite published --preset vshape
refused_usage bench --suite published --tight-cache "$TMP/tight.txt"
refused_usage bench --suite published --write "$SCHED"
refused_usage bench --family 1f1b
refused_usage bench --suite full --write "$TMP/pub"
refused_usage simulate "$SCHED" --seed x
refused_usage simulate "$SCHED" --durations "$TMP/does-not-exist.json"
refused_usage simulate "$SCHED" --frobnicate

# ---------------------------------------------------------------- no schedule

run search --preset vshape --memory 0
expect_refused 1
pass "vshape with --memory 0 has no schedule (exit 1)"

run search "$DATA/vshape-4dev.json" --memory 0
expect_refused 1
pass "placement file with --memory 0 has no schedule (exit 1)"

# ---------------------------------------------------------------- output failure

NODIR=$TMP/no-such-dir/out.json
run search --preset vshape --micro-batches 4 --output "$NODIR"
[ "$STATUS" -ne 0 ] || fail "expected a non-zero exit status"
expect_stdout_empty
expect_stderr_has '^tessel: '
if [ -e "$NODIR" ] || leftover "$NODIR"; then
	fail "a failed --output left a file behind"
fi
pass "--output into a missing directory fails and leaves no file"

# a file or a link left at a name a temporary file could have is never
# written through
LINKED=$TMP/linked.json
echo kept > "$TMP/unrelated.txt"
ln -s unrelated.txt "$LINKED.tmp"
mkdir "$LINKED.XXXXXX"
run search --preset vshape --micro-batches 4 --fast --format json --output "$LINKED"
expect_status 0
[ "$(cat "$TMP/unrelated.txt")" = kept ] || fail "--output wrote through $LINKED.tmp"
[ -f "$LINKED" ] && [ ! -L "$LINKED" ] || fail "--output did not write $LINKED itself"
rm -f "$LINKED.tmp"
rmdir "$LINKED.XXXXXX"
! leftover "$LINKED" || fail "--output left a temporary file behind"
pass "--output writes a temporary file of its own, never through a link left there"

if [ -w /dev/full ]; then
	LAST="tessel search --preset vshape --micro-batches 4 >/dev/full"
	"$TESSEL" search --preset vshape --micro-batches 4 >/dev/full 2>"$ERR"
	STATUS=$?
	[ "$STATUS" -ne 0 ] || fail "writing to a full stdout must fail"
	expect_stderr_has '^tessel: '
	pass "a full standard output is an error"
fi

# --output onto a pipe (or a device such as /dev/null) writes into it and
# leaves it what it was: no rename over it
if mkfifo "$TMP/fifo" 2>/dev/null; then
	cat "$TMP/fifo" >"$TMP/from-fifo" &
	reader=$!
	run search --preset vshape --micro-batches 4 --fast --format json --output "$TMP/fifo"
	wait "$reader"
	expect_status 0
	[ -p "$TMP/fifo" ] || fail "--output replaced the pipe with a file"
	grep -q '"period"' "$TMP/from-fifo" || fail "nothing came through the pipe"
	pass "--output onto a pipe"
fi
# --output onto a symbolic link replaces the file it names and keeps the
# link; an existing file keeps its permissions; a link to nothing yet makes
# the file it names
if ln -s real.json "$TMP/link.json" 2>/dev/null; then
	echo old >"$TMP/real.json"
	chmod 640 "$TMP/real.json"
	run search --preset vshape --micro-batches 4 --fast --format json --output "$TMP/link.json"
	expect_status 0
	[ -L "$TMP/link.json" ] || fail "--output replaced a symbolic link with a file"
	grep -q '"period"' "$TMP/real.json" || fail "--output did not write the file a link names"
	[ "$(stat -c %a "$TMP/real.json")" = 640 ] || fail "--output changed the permissions of the file it replaced"
	ln -s made.json "$TMP/dangling.json"
	run search --preset vshape --micro-batches 4 --fast --format json --output "$TMP/dangling.json"
	expect_status 0
	[ -L "$TMP/dangling.json" ] && grep -q '"period"' "$TMP/made.json" ||
		fail "--output onto a link to nothing did not make the file it names"
	pass "--output onto a symbolic link"
fi
# --output onto a file the user may not write: refused as the shell's
# redirect is (a rename through the folder would replace it), the file
# kept; as root, another user's file keeps its owner
echo kept >"$TMP/readonly.json"
chmod 444 "$TMP/readonly.json"
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null 2>&1 &&
	id nobody >/dev/null 2>&1 &&
	setpriv --reuid=nobody --regid=nogroup --clear-groups "$TESSEL" --version >/dev/null 2>&1; then
	chmod 777 "$TMP"
	LAST="tessel search --output readonly.json (as nobody)"
	setpriv --reuid=nobody --regid=nogroup --clear-groups "$TESSEL" search \
		--preset vshape --micro-batches 4 --fast --format json \
		--output "$TMP/readonly.json" >"$OUT" 2>"$ERR"
	STATUS=$?
	expect_status 2
	expect_stderr_has 'Permission denied'
	[ "$(cat "$TMP/readonly.json")" = kept ] || fail "--output replaced a file the user may not write"
	leftover "$TMP/readonly.json" && fail "a temporary file was left"
	chown nobody:nogroup "$TMP/readonly.json"
	chmod 644 "$TMP/readonly.json"
	run search --preset vshape --micro-batches 4 --fast --format json --output "$TMP/readonly.json"
	expect_status 0
	[ "$(stat -c %U "$TMP/readonly.json")" = nobody ] || fail "--output as root changed the owner of the file it replaced"
	chmod 755 "$TMP"
	pass "--output onto a file the user may not write"
fi
run search --preset vshape --micro-batches 4 --fast --output -
expect_status 0
expect_stdout_has 'period 4'
[ ! -e ./- ] || fail "--output - wrote a file named -"
pass "--output - is the standard output"

# --memory auto: the smallest equal limit that reaches the resource bound
run search --preset mshape --devices 8 --micro-batches 16 --memory auto --work-limit 2000
expect_status 0
expect_stderr_has '^tessel: search: --memory auto: [0-9]* on every device'
expect_stdout_has '^period 6 (resource bound 6'
# an inference placement takes no memory: 0 is its smallest limit
run search --preset vshape --infer --memory auto --fast
expect_status 0
expect_stderr_has '^tessel: search: --memory auto: 0 on every device'
pass "--memory auto"
# a limit that holds the period above the bound: the text output says so
run search --preset mshape --devices 8 --micro-batches 16 --memory 6 --fast
expect_status 0
expect_stdout_has '^memory: the limits .*hold the period above the resource bound 6'
run search --preset mshape --devices 8 --micro-batches 16 --memory 6 --fast --format json
expect_status 0
grep -q '^memory:' "$OUT" && fail "the memory note in JSON output"
# limits that admit the bound's period, a longer one chosen for the makespan:
# the note does not say the limits hold it
run search "$DATA/zb-v-4dev.json" --micro-batches 16 --memory 2424832 --work-limit 1152
expect_status 0
expect_stdout_has '^period 873 (resource bound 792, not proven optimal)'
expect_stdout_has "^memory: the limits admit the resource bound's period 792 (from [0-9]* on every device); this schedule's longer period gives the shorter makespan over its 16 micro-batches"
grep -q 'hold the period' "$OUT" && fail "the memory note says the limits hold a period they admit"
# with --output FILE the note goes to the standard error (not with --quiet)
run search "$DATA/zb-v-4dev.json" --micro-batches 16 --memory 2424832 --work-limit 1152 --output "$TMP/note.txt"
expect_status 0
expect_stderr_has "^memory: the limits admit the resource bound's period 792"
grep -q '^memory:' "$TMP/note.txt" && fail "the memory note in the file written"
run search "$DATA/zb-v-4dev.json" --micro-batches 16 --memory 2424832 --work-limit 1152 --output "$TMP/note.txt" -q
expect_status 0
grep -q '^memory:' "$ERR" && fail "the memory note with --quiet"
pass "the memory note of the text output"
# a file whose limit is in range but too small for a micro-batch: refused,
# with --memory or --sweep too, saying that the file's limit is at fault
sed 's/"memory_limit": *[0-9]*/"memory_limit": 0/' "$DATA/vshape-4dev.json" >"$TMP/v0.json"
grep -q '"memory_limit": 0' "$TMP/v0.json" || fail "could not make a placement with limit 0"
run search "$TMP/v0.json" --micro-batches 8
expect_status 1
expect_stderr_has 'memory limit 0 is below'
run search "$TMP/v0.json" --micro-batches 8 --memory 4
expect_status 1
expect_stderr_has "the file's own memory limits are checked before --memory replaces them"
run search "$TMP/v0.json" --micro-batches 8 --sweep 2,4
expect_status 1
expect_stderr_has "before --sweep replaces them"
pass "a file's own limit too small for a micro-batch, with --memory and --sweep"

# --memory min: the smallest equal limit under which any schedule exists;
# the search under it finds one (one micro-batch at a time if need be)
run search --preset mshape --devices 64 --micro-batches 16 --memory min --fast --format json
expect_status 0
expect_stderr_has '^tessel: search: --memory min: 1 on every device (proven the smallest)'
grep -q '"memory_limit": \[1, 1,' "$OUT" || fail "--memory min: not the limit 1"
run search --preset xshape --devices 32 --micro-batches 16 --memory 1 --work-limit 500
expect_status 0
expect_stdout_has '^peak memory: d0 1/1'
pass "--memory min, and a search under it"
# with alternatives declared, both say that they keep every activation
run search --preset vshape --micro-batches 8 --recompute --memory min --fast
expect_status 0
expect_stderr_has '^tessel: search: --memory min: [0-9]* on every device (.* with every activation kept; the declared alternatives may need less)'
run search --preset vshape --micro-batches 8 --recompute --memory auto --fast
expect_status 0
expect_stderr_has '^tessel: search: --memory auto: [0-9]* on every device (.* with every activation kept; the declared alternatives may need less)'
pass "--memory min and auto with alternatives"
# --memory auto under a time limit already spent: the reason given
run search --preset mshape --micro-batches 8 --memory auto --time-limit 0.001
expect_status 1
expect_stderr_has 'resource bound: [a-z]'
pass "--memory auto: a reason when the time limit passed"
# the pairing of --recompute on a chain of 8,000 blocks (every forward
# depends on every earlier one): declared and searched
python3 -c '
import json, sys
n = 4000
bl = [{"name": "f%d" % i, "kind": "forward", "span": 1, "memory": 1, "devices": [i % 4]} for i in range(n)]
for i in range(1, n):
    bl[i]["after"] = ["f%d" % (i - 1)]
for i in reversed(range(n)):
    bl.append({"name": "b%d" % i, "kind": "backward", "span": 1, "memory": -1, "devices": [i % 4],
               "after": ["f%d" % (n - 1)] if i == n - 1 else ["b%d" % (i + 1)]})
json.dump({"devices": 4, "blocks": bl}, open(sys.argv[1], "w"))' "$TMP/chain.json"
run search "$TMP/chain.json" --micro-batches 1 --recompute --alternatives always --fast --format json
expect_status 0
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
back = {b["name"]: b["recompute"]["backward"] for b in d["placement"]["blocks"] if "recompute" in b}
assert len(back) == 4000, len(back)
# the deepest backward on its device: the last of the chain there
assert back["f0"] == "b0" and back["f5"] == "b1" and back["f3999"] == "b3", back["f5"]' "$OUT" ||
	fail "--recompute on a chain: not every forward paired with the last backward on its device"
pass "--recompute pairs a long chain"
# offloads under a tight limit: the action stream's waits and copy order
# keep the replay within the limit on every device
for m in 2 3; do
	run search --preset vshape --micro-batches 16 --offload 1 --memory $m --fast --format json
	expect_status 0
	cp "$OUT" "$TMP/offload-$m.json"
	run simulate "$TMP/offload-$m.json"
	expect_status 0
	awk -v m=$m '/peak memory/ { if ($NF + 0 > m) bad = 1 } END { exit bad }' "$OUT" ||
		fail "simulate: a peak above the limit $m"
	run search --preset vshape --micro-batches 16 --offload 1 --memory $m --fast --format actions
	expect_status 0
done
expect_stdout_has '"op": "wait"'
pass "offloads: replayed within the limit"
# a preset's default memory scales with its devices: 3 per 2, rounded up
run search --preset mshape --devices 64 --micro-batches 32 --fast --format json
expect_status 0
grep -q '"memory_limit": \[96, 96,' "$OUT" || fail "mshape on 64 devices: default memory not 96"
run search --preset vshape --devices 7 --micro-batches 8 --fast --format json
expect_status 0
grep -q '"memory_limit": \[11, 11,' "$OUT" || fail "vshape on 7 devices: default memory not 11"
pass "preset memory scales with the devices"

# explore: a model profile's placements ranked; JSON; the best written
run explore "$DATA/model-small.json" --fast -q
expect_status 0
expect_stdout_has '^rank  family'
expect_stdout_has '^   1  '
expect_stdout_has 'published order'
run explore "$DATA/model-small.json" --fast --format json --top 3 -o "$TMP/best.json" -p "$TMP/best-placement.json"
expect_status 0
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["candidates"][0]["rank"] == 1' "$OUT" || fail "explore --format json"
run validate "$TMP/best.json"
expect_status 0
run search "$TMP/best-placement.json" --fast -n 4
expect_status 0
# one file for both outputs: refused before the search (not the
# placement silently written over the schedule)
run explore "$DATA/model-small.json" --fast -q -o "$TMP/both.json" -p "$TMP/./both.json"
expect_refused 2
expect_stderr_has 'same file'
[ ! -e "$TMP/both.json" ] || fail "explore wrote $TMP/both.json"
# an output in a folder that does not exist: refused before the search,
# and no other output written; the standard output is the table's
run explore "$DATA/model-small.json" --fast -q -o "$TMP/one.json" -p "$TMP/no-such-folder/p.json"
expect_refused 2
expect_stderr_has 'No such file or directory'
[ ! -e "$TMP/one.json" ] || fail "explore wrote $TMP/one.json"
run explore "$DATA/model-small.json" --fast -q --format json -o -
expect_refused 2
expect_stderr_has 'standard output'
run explore "$DATA/model-small.json" --fast -q -p "$TMP"
expect_refused 2
expect_stderr_has 'Is a directory'
run explore "$DATA/vshape-4dev.json"
expect_status 2
expect_stderr_has 'unit'
# an option without its argument is said to be one
run explore "$DATA/model-small.json" -k
expect_refused 2
expect_stderr_has 'option -k needs an argument'
run explore
expect_status 2
pass "explore"

# ------------------------------------------------- recompute and offload
# vshape on 8 devices at memory 4 (half its 1F1B budget): recompute chosen
# per micro-batch beats keeping everything and recomputing everything
makespan() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["nsteps"])' "$1"; }
run search -p vshape -d 8 -m 4 -n 16 --fast -q --alternatives off --recompute --format json -o "$TMP/off.json"
expect_status 0
run search -p vshape -d 8 -m 4 -n 16 --fast -q --recompute --format json -o "$TMP/chosen.json"
expect_status 0
run search -p vshape -d 8 -m 4 -n 16 --fast -q --recompute --alternatives always --format json -o "$TMP/always.json"
expect_status 0
off=$(makespan "$TMP/off.json"); chosen=$(makespan "$TMP/chosen.json"); always=$(makespan "$TMP/always.json")
[ "$chosen" -lt "$off" ] && [ "$chosen" -lt "$always" ] ||
	fail "recompute chosen ($chosen) not shorter than off ($off) and always ($always)"
grep -q '"choice": "recompute"' "$TMP/chosen.json" || fail "no recompute chosen"
grep -q '"choice"' "$TMP/off.json" && fail "--alternatives off chose an alternative"
run validate "$TMP/chosen.json"
expect_status 0
expect_stdout_has '^activations: [1-9][0-9]* recomputed, 0 offloaded'
# a limit below one micro-batch's need: only with the alternatives
run search -p vshape -d 4 -m 0 -n 4 --fast -q --recompute
expect_status 0
run search -p vshape -d 4 -m 0 -n 4 --fast -q
expect_refused 1
run search -p vshape -d 4 -m 2 --recompute --format torch
expect_refused 2
expect_stderr_has 'add --alternatives off'
run search -p vshape -d 4 -m 2 --recompute --alternatives off --format torch -q
expect_status 0
run search -p vshape --alternatives sometimes
expect_refused 2
run search -p vshape --offload 0
expect_refused 2
run search -p vshape -d 4 -m 3 -n 8 --fast -q --recompute --offload 1 --format text
expect_grid
pass "recompute and offload"

# ---------------------------------------------------------------- --sweep

# the ZB-V placement of tests/data/zb-v-4dev.json: single searches give
# 13181 at 1x its 1F1B budget and 13209 at 1.1x; the sweep never grows
run search "$DATA/zb-v-4dev.json" -n 16 -w 300 --sweep 2667315,2424832,unlimited,1 -q
expect_ok
expect_stdout_has '^memory limit  *makespan'
expect_stdout_has '^1  *no schedule$'
awk 'NR == 2 { a = $2 } NR == 3 { b = $2 } NR == 4 { u = $2 }
     END { exit !(a <= b && u <= a) }' "$OUT" || fail "expected makespans that never grow with the limit"
awk 'NR > 1 && $2 != "no" && $5 !~ /^[0-9]+(\/[0-9]+)?$/ { bad = 1 } END { exit bad }' "$OUT" ||
	fail "expected a period P or P/k in the sweep's table"
run search -p vshape -d 4 --sweep 2,3,unlimited -q -w 100 --format json
expect_ok
expect_stdout_has '"memory_limit": null, "schedule": {'
run search -p vshape --sweep 2,x
expect_refused 2
run search -p vshape --sweep 2 -m 3
expect_refused 2
run search -p vshape --sweep 3 --format svg
expect_refused 2
run search -p vshape --sweep 0 -q
expect_refused 1
pass "search --sweep"

# bench options refused where they do not apply, an unknown preset refused
run bench --preset vshape
expect_refused 2
run bench --max-devices 2
expect_refused 2
run bench --suite full --preset no-such-preset
expect_refused 2
expect_stderr_has "no preset named 'no-such-preset'"
for spans in " 1,2,3" "1, 2,3" "+1,2,3" "1,2,3 " "1,2" "1,2,3," "0,2,3" "1,2,1000001"; do
	run bench --kind-spans "$spans" --max-devices 2 --fast
	expect_refused 2
	expect_stderr_has "kind-spans: expected three integers"
done
pass "bench: options of other suites, unknown preset, malformed --kind-spans"

# memory running out while reading an input is no fault of the input: exit
# status 1 (as for a file), not 2 (not under the sanitizers, which reserve
# more address space than the limit leaves)
if ! ldd "$TESSEL" 2>/dev/null | grep -q -e libasan -e libtsan; then
	for src in stdin file; do
		LAST="tessel search ($src of 200 MB, address space 150 MB)"
		if [ $src = stdin ]; then
			(ulimit -v 150000 && yes | head -c 200000000 |
				"$TESSEL" search - -q -o /dev/null) >"$OUT" 2>"$ERR"
		else
			yes | head -c 200000000 >"$TMP/big.txt"
			(ulimit -v 150000 &&
				"$TESSEL" search "$TMP/big.txt" -q -o /dev/null) >"$OUT" 2>"$ERR"
		fi
		STATUS=$?
		rm -f "$TMP/big.txt"
		expect_status 1
		expect_stderr_has "out of memory"
	done
	pass "an input too large for memory: exit status 1 from a file or the standard input"
fi

echo "all cli tests passed"
