#!/bin/sh
# The tessel command line: interrupting a search (SIGINT, SIGTERM), the
# progress report, '-' as the standard input, --version and --help after
# every command, 1-based columns in JSON errors.
#
# Usage: test-cli-signals.sh TESSEL_EXE DATA_DIR
# SPDX-License-Identifier: MIT
set -u

TMP_NAME=tessel-cli-signals
. "$(dirname "$0")/cli-setup.sh"
now_ms() {
	echo $(($(date +%s%N) / 1000000))
}

# The time from the signal to the end: 2 s, 6 s in a sanitizer build
# (several times slower).
LIMIT_MS=2000
case "${TESSEL_SANITIZE:-none}" in
none | "") ;;
*) LIMIT_MS=6000 ;;
esac

# A search that runs for minutes: nnshape on 8 devices, 64 micro-batches,
# with the solver (its heuristic schedule comes within milliseconds) and a
# work budget far beyond what a second of any machine does.
OUTFILE=
LONG="search --preset nnshape --devices 8 --memory 6 --micro-batches 64 --work-limit 100000000 --time-limit 600"

# interrupt SIGNAL [SIGNAL2]: start the long search, send SIGNAL after 1 s
# (and SIGNAL2 right after it), wait for the end. Sets STATUS and
# WAITED_MS (from the first signal to the end); kills the search and fails
# when it is still running 20 s after the signal.
interrupt() {
	LAST="tessel $LONG --format json, then SIG$1 after 1 s${2:+ and SIG$2}"
	# shellcheck disable=SC2086
	"$TESSEL" $LONG --format json ${OUTFILE:+--output "$OUTFILE"} >"$OUT" 2>"$ERR" &
	pid=$!
	sleep 1
	kill -0 "$pid" 2>/dev/null || fail "the search ended before the signal"
	t0=$(now_ms)
	kill -s "$1" "$pid"
	if [ $# -ge 2 ]; then
		# signals of one kind do not queue: the second goes once the
		# first was taken (its notice is out)
		n=0
		while ! grep -q "SIG$1 after" "$ERR" && [ $n -lt 400 ]; do
			sleep 0.005
			n=$((n + 1))
		done
		kill -s "$2" "$pid" 2>/dev/null
	fi
	# the watchdog ends with the search (it holds no output open)
	(
		n=0
		while kill -0 "$pid" 2>/dev/null && [ $n -lt 200 ]; do
			sleep 0.1
			n=$((n + 1))
		done
		kill -9 "$pid" 2>/dev/null
	) >/dev/null 2>&1 &
	dog=$!
	wait "$pid"
	STATUS=$?
	WAITED_MS=$(($(now_ms) - t0))
	wait "$dog" 2>/dev/null
	[ "$STATUS" -ne 137 ] || fail "still running 20 s after the signal"
}

# ---------------------------------------------------------------- SIGINT

interrupt INT
expect_status 130
[ "$WAITED_MS" -le "$LIMIT_MS" ] || fail "ended ${WAITED_MS} ms after SIGINT (> $LIMIT_MS)"
expect_stderr_has 'SIGINT'
expect_stderr_has 'interrupted after .* the best found so far'
expect_stdout_has '"format": "tessel-schedule"'
cp "$OUT" "$TMP/interrupted.json"
run validate "$TMP/interrupted.json"
expect_status 0
expect_stdout_has '^valid: 64 micro-batches'
pass "SIGINT: exit 130 after ${WAITED_MS} ms, a valid schedule and a notice"

interrupt TERM
expect_status 143
[ "$WAITED_MS" -le "$LIMIT_MS" ] || fail "ended ${WAITED_MS} ms after SIGTERM (> $LIMIT_MS)"
expect_stderr_has 'SIGTERM'
cp "$OUT" "$TMP/terminated.json"
run validate "$TMP/terminated.json"
expect_status 0
pass "SIGTERM: exit 143 after ${WAITED_MS} ms with a valid schedule"

# a second signal ends at once: the output file is either whole (the
# search had stopped and written it before the second signal came) or not
# there at all, never partial
OUTFILE="$TMP/twice.json"
rm -f "$OUTFILE" "$OUTFILE".??????
interrupt INT INT
OUTFILE=
expect_status 130
! leftover "$TMP/twice.json" || fail "a partial output file was left after the second SIGINT"
if [ -e "$TMP/twice.json" ]; then
	run validate "$TMP/twice.json"
	expect_status 0
	pass "a second SIGINT came after the schedule was written"
else
	expect_stderr_has 'interrupted again, stopping at once'
	pass "a second SIGINT ends at once (${WAITED_MS} ms), no output file"
fi

# ------------------------------------------------ while reading the input

# a FIFO nobody writes: tessel waits in reading its placement
for sig in INT TERM; do
	rm -f "$TMP/fifo.json"
	mkfifo "$TMP/fifo.json" || fail "mkfifo"
	LAST="tessel search fifo.json, SIG$sig while it reads"
	"$TESSEL" search "$TMP/fifo.json" --output "$TMP/never.json" >"$OUT" 2>"$ERR" &
	pid=$!
	sleep 1
	kill -s "$sig" "$pid"
	wait "$pid"
	STATUS=$?
	if [ "$sig" = INT ]; then expect_status 130; else expect_status 143; fi
	expect_stderr_has "^tessel: SIG$sig: stopped before the end"
	[ ! -e "$TMP/never.json" ] && ! leftover "$TMP/never.json" ||
		fail "an output file was left"
done
pass "SIGINT and SIGTERM while reading the input: 130 and 143, a message"

# ---------------------------------------------------------------- progress

run search --preset vshape --devices 4 --micro-batches 8 --progress --format json
expect_status 0
# a line per change: the time, the phase, the work of the budget, the best
expect_stderr_has '^tessel: search: [0-9.]* s, list, work [0-9]* of [0-9]*: period [0-9]*'
expect_stderr_has '^tessel: search: [0-9.]* s, [a-z]*, work [0-9]* of [0-9]*: period [0-9]*.*, makespan [0-9]* (LB [0-9]*, gap [0-9.]*%)$'
expect_stderr_has '^tessel: search: done in [0-9.]* s, work [0-9]*: period 4, makespan [0-9]*, LB [0-9]*$'
expect_stdout_has '"format": "tessel-schedule"'
pass "--progress"

run search --preset vshape --devices 4 --micro-batches 8 --progress --quiet
expect_status 0
[ ! -s "$ERR" ] || fail "--quiet printed on stderr"
run search --preset vshape --devices 4 --micro-batches 8
expect_status 0
[ ! -s "$ERR" ] || fail "progress on stderr that is no terminal"
pass "--quiet, and no progress when stderr is no terminal"

# ---------------------------------------------------------------- '-'

run search --preset vshape --devices 4 --micro-batches 6 --fast --format json
expect_status 0
cp "$OUT" "$TMP/s.json"
LAST="tessel validate - < s.json"
"$TESSEL" validate - <"$TMP/s.json" >"$OUT" 2>"$ERR"
STATUS=$?
expect_status 0
expect_stdout_has '^valid: 6 micro-batches'
LAST="tessel simulate - < s.json"
"$TESSEL" simulate - <"$TMP/s.json" >"$OUT" 2>"$ERR"
STATUS=$?
expect_status 0
expect_stdout_has '^makespan '
LAST="tessel search - --fast < vshape-4dev.json"
"$TESSEL" search - --fast --micro-batches 6 <"$DATA/vshape-4dev.json" >"$OUT" 2>"$ERR"
STATUS=$?
expect_status 0
expect_stdout_has 'period'
LAST="tessel validate - --placement - "
"$TESSEL" validate - --placement - </dev/null >"$OUT" 2>"$ERR"
STATUS=$?
expect_status 2
expect_stderr_has 'both'
LAST="tessel validate - < (empty)"
"$TESSEL" validate - </dev/null >"$OUT" 2>"$ERR"
STATUS=$?
expect_status 2
expect_stderr_has '^tessel: standard input: line 1, column 1: '
pass "'-' is the standard input"

# ---------------------------------------------------------------- explore

# an exploration interrupted ends as a search does: 130 / 143, with the
# candidates done so far
for sig in INT TERM; do
	LAST="tessel explore model-small.json -w 100000000 -j 1, then SIG$sig after 1 s"
	"$TESSEL" explore "$DATA/model-small.json" -w 100000000 -j 1 -f json >"$OUT" 2>"$ERR" &
	pid=$!
	sleep 1
	kill -s "$sig" "$pid" 2>/dev/null
	(
		n=0
		while kill -0 "$pid" 2>/dev/null && [ $n -lt 300 ]; do
			sleep 0.1
			n=$((n + 1))
		done
		kill -9 "$pid" 2>/dev/null
	) >/dev/null 2>&1 &
	dog=$!
	wait "$pid"
	STATUS=$?
	wait "$dog" 2>/dev/null
	[ "$STATUS" -ne 137 ] || fail "still running 30 s after the signal"
	if [ "$sig" = INT ]; then expect_status 130; else expect_status 143; fi
	expect_stderr_has "SIG$sig: stopping with the candidates done so far"
done
pass "explore: SIGINT and SIGTERM end with 130 and 143"

# ---------------------------------------------------------------- columns

printf '{\n' >"$TMP/open.json"
run validate "$TMP/open.json"
expect_status 2
expect_stderr_has 'line 2, column 1: '
printf '{"devices": x}' >"$TMP/token.json"
run search "$TMP/token.json"
expect_status 2
expect_stderr_has 'line 1, column 13: invalid token'
pass "JSON errors count columns from 1"

# ---------------------------------------------------------------- --version, --help after a command

for cmd in search validate simulate presets bench; do
	run "$cmd" --version
	expect_status 0
	expect_stdout_has '^tessel [0-9][0-9]*\.[0-9][0-9]*\.[0-9][0-9]*$'
	run "$cmd" --help
	expect_status 0
	expect_stdout_has "tessel $cmd"
done
run search --preset vshape -V
expect_status 0
expect_stdout_has '^tessel [0-9]'
pass "--version and --help after every command"

echo "all cli signal tests passed"
