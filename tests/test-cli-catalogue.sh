#!/bin/sh
# Malformed and hostile input through the tessel command line: every case
# must exit with the documented status (2 bad usage or input, 1 infeasible),
# print "tessel: ..." on stderr, nothing on stdout, and with --output FILE
# leave neither FILE nor a temporary FILE.XXXXXX behind.
#
# Usage: test-cli-catalogue.sh TESSEL_EXE DATA_DIR
# SPDX-License-Identifier: MIT
set -u

TMP_NAME=tessel-cli-cat
. "$(dirname "$0")/cli-setup.sh"
RESULT=$TMP/result.out
CASES=0
FAILS=0

# check WANT DESCRIPTION -- ARGS...: run tessel ARGS twice, once as given
# and once with --output "$RESULT" appended (for the commands that take
# it), and check each run.
check_one() {
	want=$1 desc=$2
	shift 2
	rm -f "$RESULT" "$RESULT".??????
	"$TESSEL" "$@" >"$OUT" 2>"$ERR" </dev/null
	status=$?
	problem=
	[ "$status" -eq "$want" ] || problem="exit status $status, wanted $want"
	[ -z "$problem" ] && [ -s "$OUT" ] && problem="stdout is not empty"
	[ -z "$problem" ] && ! head -n 1 "$ERR" | grep -q '^tessel: ' &&
		problem="stderr does not start with 'tessel: '"
	[ -z "$problem" ] && { [ -e "$RESULT" ] || leftover "$RESULT"; } &&
		problem="an output file was left behind"
	if [ -n "$problem" ]; then
		FAILS=$((FAILS + 1))
		echo "not ok - $desc: $problem"
		echo "  command: tessel $*"
		echo "  --- stdout ---"; head -c 600 "$OUT"; echo
		echo "  --- stderr ---"; head -c 600 "$ERR"; echo
	else
		echo "ok - $desc (exit $status: $(head -n 1 "$ERR" | cut -c1-100))"
	fi
}

check() {
	want=$1 desc=$2
	shift 2
	CASES=$((CASES + 1))
	check_one "$want" "$desc" "$@"
	case "$1 $*" in
	*--output*) ;;
	search*)
		check_one "$want" "$desc [--output]" "$@" --output "$RESULT" ;;
	esac
}

# ------------------------------------------------------------ input files

printf '' >"$TMP/empty.json"
printf '  \n\t\r\n  ' >"$TMP/blank.json"
printf '{"devices": 2,\000 "blocks": []}' >"$TMP/nul.json"
printf '{"devices": 2, "blocks": [{"name": "a\377", "kind": "forward", "span": 1, "memory": 1, "devices": [0]}]}' \
	>"$TMP/badutf8.json"
head -c 100000 /dev/zero | tr '\0' '[' >"$TMP/deep.json"
printf '{"devices": "2", "blocks": []}' >"$TMP/wrongtype.json"
printf '{"devices": 2, "blocks": [{"name": "a", "kind": "forward", "span": 1000001, "memory": 1, "devices": [0]}]}' \
	>"$TMP/span.json"
printf '{"devices": 2, "blocks": [{"name": "a", "kind": "forward", "span": 1, "memory": 1, "devices": [2]}]}' \
	>"$TMP/device.json"
printf '{"devices": 2, "blocks": [{"name": "a", "kind": "forward", "span": 1, "memory": 1, "devices": [-2]}]}' \
	>"$TMP/device-neg.json"
printf '{"devices": 2, "blocks": [{"name": "a", "kind": "forward", "span": 1, "memory": 1, "devices": [0]}, {"name": "a", "kind": "forward", "span": 1, "memory": 1, "devices": [1]}]}' \
	>"$TMP/dup.json"
printf '{"devices": 2, "blocks": [{"name": "a", "kind": "forward", "span": 1, "memory": 1, "devices": [0], "after": ["b"]}, {"name": "b", "kind": "forward", "span": 1, "memory": 1, "devices": [1], "after": ["a"]}]}' \
	>"$TMP/cycle.json"
printf '{"devices": 2, "blocks": [{"name": "a", "kind": "forward", "span": 1, "memory": 1, "devices": [0], "after": ["zz"]}]}' \
	>"$TMP/unknown.json"
printf '{"devices": 0, "blocks": []}' >"$TMP/zero.json"
printf '{"devices": 2, "blocks": [{"name": "a", "kind": "forward", "span": 1, "memory": 1, "devices": [0]}]}' \
	>"$TMP/placement.json"
printf '{"devices": 2, "memory_limit": 0, "blocks": [{"name": "a", "kind": "forward", "span": 1, "memory": 1, "devices": [0]}]}' \
	>"$TMP/limit.json"
printf '{"format": "tessel-schedule", "version": 1, "nmicros": 0}' >"$TMP/sched-bad.json"
printf '{"a": -1}' >"$TMP/durations-bad.json"
mkdir "$TMP/dir.json"

# A valid schedule to simulate with bad options.
"$TESSEL" search --preset vshape --devices 2 --micro-batches 2 --fast \
	--format json --output "$TMP/sched.json" >/dev/null 2>&1 ||
	{ echo "could not make a schedule"; exit 1; }

# ------------------------------------------------------------------ cases

for f in empty blank nul badutf8 deep wrongtype span device device-neg dup \
	cycle unknown zero; do
	check 2 "placement $f.json" search "$TMP/$f.json" --fast
done
check 2 "placement is a directory" search "$TMP/dir.json" --fast
check 2 "placement does not exist" search "$TMP/nope.json" --fast
check 1 "memory limit 0 in the placement" search "$TMP/limit.json" --fast
check 1 "--memory 0 for a preset" search --preset vshape --memory 0 --fast
check 2 "--devices 0" search --preset vshape --devices 0 --fast
check 2 "--devices 1" search --preset vshape --devices 1 --fast
check 2 "--devices 4097" search --preset vshape --devices 4097 --fast
check 2 "--devices -2" search --preset vshape --devices -2 --fast
check 2 "--micro-batches 0" search --preset vshape --micro-batches 0 --fast
check 2 "--micro-batches 1000001" search --preset vshape --micro-batches 1000001 --fast
check 2 "--micro-batches 2^64" search --preset vshape --micro-batches 18446744073709551616 --fast
check 2 "--threads 257" search --preset vshape --threads 257 --fast
check 2 "--threads -1" search --preset vshape --threads -1 --fast
check 2 "--time-limit nan" search --preset vshape --time-limit nan --fast
check 2 "--time-limit inf" search --preset vshape --time-limit inf --fast
check 2 "--time-limit 1e30" search --preset vshape --time-limit 1e30 --fast
check 2 "--memory 1e3" search --preset vshape --memory 1e3 --fast
check 2 "--memory 2^63" search --preset vshape --memory 9223372036854775808 --fast
check 2 "--preset with invalid UTF-8" search --preset "$(printf 'v\377shape')" --fast
check 2 "--preset empty" search --preset '' --fast
check 2 "--step-us -1" search --preset vshape --format trace --step-us -1 --fast
check 2 "--step-us nan" search --preset vshape --format trace --step-us nan --fast
check 2 "--step-us in hexadecimal" search --preset vshape --format trace --step-us 0x10 --fast
check 2 "simulate --latency in hexadecimal" simulate "$TMP/sched.json" --latency 0x1p3
check 2 "compare --latency in hexadecimal" compare --latency 0x10 vshape
check 2 "compare --latency 1e300" compare --latency 1e300 vshape
check 2 "a schedule file of NUL bytes" validate /dev/zero
check 2 "--format empty" search --preset vshape --format '' --fast
check 2 "--output in a missing directory" search --preset vshape --fast --output "$TMP/no/such/dir/out"
check 2 "validate an empty file" validate "$TMP/empty.json"
check 2 "validate a deep file" validate "$TMP/deep.json"
check 2 "validate nmicros 0" validate "$TMP/sched-bad.json"
check 2 "validate a NUL byte" validate "$TMP/nul.json"
check 2 "validate a directory" validate "$TMP/dir.json"
check 2 "simulate --jitter 1" simulate "$TMP/sched.json" --jitter 1
check 2 "simulate --jitter nan" simulate "$TMP/sched.json" --jitter nan
check 2 "simulate --latency inf" simulate "$TMP/sched.json" --latency inf
check 2 "simulate negative duration" simulate "$TMP/sched.json" --durations "$TMP/durations-bad.json"
check 2 "simulate durations from an empty file" simulate "$TMP/sched.json" --durations "$TMP/empty.json"
check 2 "simulate a placement, not a schedule" simulate "$TMP/dup.json"
# NUL bytes end every read at once (/dev/zero is endless)
check 2 "explore a model of NUL bytes" explore /dev/zero
check 2 "simulate durations of NUL bytes" simulate "$TMP/sched.json" --durations /dev/zero
check 2 "compare durations of NUL bytes" compare vshape -n 2 --fast --durations /dev/zero
check 2 "validate NUL bytes against a placement" validate /dev/zero --placement "$TMP/placement.json"
for cmd in "search -" "validate -" "simulate -"; do
	CASES=$((CASES + 1))
	# shellcheck disable=SC2086
	timeout 60 "$TESSEL" $cmd </dev/zero >"$OUT" 2>"$ERR"
	status=$?
	if [ "$status" -eq 2 ] && [ ! -s "$OUT" ] && grep -q 'NUL byte' "$ERR"; then
		echo "ok - $cmd on endless NUL bytes (exit 2: $(head -n 1 "$ERR"))"
	else
		FAILS=$((FAILS + 1))
		echo "not ok - $cmd on endless NUL bytes: exit $status"
		head -c 600 "$ERR"
	fi
done
if [ -w /dev/full ]; then
	# a device that refuses the write: one error, exit 2, no double close
	for fmt in text json svg trace actions torch; do
		check 2 "search --format $fmt to a full device" search --preset vshape -d 4 \
			--fast --format "$fmt" --output /dev/full
	done
fi

echo "$CASES cases, $FAILS failed"
[ "$CASES" -ge 20 ] || { echo "too few cases"; exit 1; }
[ "$FAILS" -eq 0 ]
