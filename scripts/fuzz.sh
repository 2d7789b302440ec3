#!/bin/sh
# Build the libFuzzer targets of fuzz/ with clang (ASan + UBSan) and run
# each for SECONDS seconds (default 60), printing libFuzzer's final stats.
#
#   sh scripts/fuzz.sh [SECONDS] [TARGET...]     TARGET: placement schedule graph search
#
# Environment: CC (default clang), FUZZ_BUILD (build and work directory,
# default ${TMPDIR:-/tmp}/tessel-fuzz), FUZZ_JOBS (targets run at the same
# time, default 1), FUZZ_ARGS (extra libFuzzer arguments), FUZZ_KEEP_GOING=1
# (fork mode: go on after crashes, timeouts and out-of-memory, keeping
# every crashing input).
# The seed corpus fuzz/corpus/TARGET is read, never written: new inputs go
# to FUZZ_BUILD/corpus-TARGET, crashes to FUZZ_BUILD/crashes/ (the end of
# the output lists those of this run). Exit status 1 when any target found
# a crash, leak or timeout.
set -eu

root=$(cd "$(dirname "$0")/.." && pwd)
seconds=60
case ${1:-} in
''|*[!0-9]*) ;;
*) seconds=$1; shift ;;
esac
targets=${*:-placement schedule graph search}
cc=${CC:-clang}
work=${FUZZ_BUILD:-${TMPDIR:-/tmp}/tessel-fuzz}
jobs=${FUZZ_JOBS:-1}
san="-fsanitize=address,undefined -fno-sanitize-recover=undefined"
cflags="-g -O1 -std=gnu11 -D_FILE_OFFSET_BITS=64 -pthread -I$root/include"
for d in "$root"/lib/*/; do cflags="$cflags -I$d"; done

mkdir -p "$work/obj" "$work/crashes"
# crashes of earlier runs stay in $work/crashes; only this run's are listed
stamp="$work/run-started"
: >"$stamp"

# The library, instrumented for coverage (fuzzer-no-link) and the sanitizers.
objs=
for src in "$root"/lib/*/*.c; do
	obj="$work/obj/$(basename "$src" .c).o"
	if [ ! -e "$obj" ] ||
	   [ -n "$(find "$src" "$root/lib" "$root/include" -name '*.[ch]' -newer "$obj" \
		\( -name '*.h' -o -path "$src" \))" ]; then
		echo "CC $src"
		if ! $cc $cflags -fsanitize=fuzzer-no-link $san -c "$src" -o "$obj" 2>"$work/cc.err"; then
			# clang rejects the GNU __atomic builtins on an _Atomic object
			# (lib/common/util.c, accepted by gcc): retry with plain objects.
			if grep -q 'atomic operation must be a pointer' "$work/cc.err"; then
				echo "  (retrying with -D_Atomic= : clang rejects __atomic_* on _Atomic in $(basename "$src"))"
				$cc $cflags -D_Atomic= -fsanitize=fuzzer-no-link $san -c "$src" -o "$obj"
			else
				cat "$work/cc.err" >&2
				exit 1
			fi
		fi
	fi
	objs="$objs $obj"
done

for t in $targets; do
	[ -f "$root/fuzz/fuzz_$t.c" ] || { echo "no target fuzz/fuzz_$t.c" >&2; exit 2; }
	echo "LINK fuzz_$t"
	# shellcheck disable=SC2086
	$cc $cflags -fsanitize=fuzzer $san "$root/fuzz/fuzz_$t.c" $objs \
		-lz3 -ljansson -lpthread -lm -o "$work/fuzz_$t"
done

run_one() {
	t=$1
	mkdir -p "$work/corpus-$t"
	log="$work/fuzz_$t.log"
	keep=
	[ "${FUZZ_KEEP_GOING:-0}" = 1 ] &&
		keep="-fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1"
	set +e
	# shellcheck disable=SC2086
	ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} \
	UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1} \
	"$work/fuzz_$t" -max_total_time="$seconds" -print_final_stats=1 \
		-timeout=10 -rss_limit_mb=2048 -max_len=8192 \
		-artifact_prefix="$work/crashes/$t-" $keep ${FUZZ_ARGS:-} \
		"$work/corpus-$t" "$root/fuzz/corpus/$t" >"$log" 2>&1
	rc=$?
	set -e
	echo "== $t: exit $rc (log $log)"
	grep -E '^#[0-9]+.*cov:' "$log" | tail -n 1
	[ -z "$keep" ] || grep -cE 'ERROR: AddressSanitizer|runtime error|deadly signal' "$log" |
		sed 's/^/crash reports: /' 
	grep -E '^stat::|ERROR:|SUMMARY:|^artifact_prefix|Test unit written' "$log" || true
	return $rc
}

status=0
if [ "$jobs" -gt 1 ]; then
	pids=
	for t in $targets; do
		run_one "$t" >"$work/summary-$t.txt" 2>&1 &
		pids="$pids $!"
	done
	for p in $pids; do wait "$p" || status=1; done
	for t in $targets; do cat "$work/summary-$t.txt"; done
else
	for t in $targets; do run_one "$t" || status=1; done
fi
find "$work/crashes" -type f -newer "$stamp" 2>/dev/null |
	sed 's|^.*/|crash input: |' || true
exit $status
