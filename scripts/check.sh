#!/bin/sh
# Install what is missing, build, and run the whole test suite. The last
# line is the summary "N passed, N failed" from meson's test counts.
#
#   sh scripts/check.sh            the suite
#   sh scripts/check.sh --full     the suite, then again under valgrind, in
#                                  a build with -Db_sanitize=address,undefined,
#                                  and the threads, search, explore and C++ bindings suites in a
#                                  build with -Db_sanitize=thread (what CI
#                                  runs)
#   sh scripts/check.sh --quality  the suite, then the long result-quality
#                                  sweeps (meson suite "quality": every
#                                  published case, every preset at real
#                                  costs; not in CI)
#
# Measured as CI runs it (CI=true bash .ci/run in a fresh clone, in a fresh
# Debian 12 minbase chroot with build-essential, git, python3; 2 cores),
# seconds per pass as printed by mark() below:
#   at 446cf87 (a bare minbase chroot): install 131, build and plain suite
#               170, valgrind 252, AddressSanitizer 515, ThreadSanitizer 71;
#               total 1139 s
#   at 6df6120: install 117, build and plain suite 163, valgrind 171,
#               AddressSanitizer 390, ThreadSanitizer 75; total 916 s
#   at 30b20f7: install 132, build and plain suite 168, valgrind 311,
#               AddressSanitizer 416, ThreadSanitizer 52; total 1079 s
#               (a fuzzer shared the machine during the valgrind pass)
#   at c2f4404: install 116, build and plain suite 134, valgrind 144,
#               AddressSanitizer 386, ThreadSanitizer 58; total 838 s
#   at 82d1118: install 120, build and plain suite 164, valgrind 137,
#               AddressSanitizer 428, ThreadSanitizer 65; total 915 s
#   at beffa5c: install 123, build and plain suite 149, valgrind 173,
#               AddressSanitizer 453, ThreadSanitizer 58; total 956 s
#   at 44aeac4 (a bare minbase chroot: the compilers installed too):
#               install 161, build and plain suite 170, valgrind 201,
#               AddressSanitizer 477, ThreadSanitizer 76; total 1085 s
#               (a fuzzer shared the machine during the sanitizer passes)
# The plain suite alone, after the build, on 2 idle cores: about 110 s.
#
# Under valgrind and the sanitizers the tests run their lighter cases
# (tests/helpers.c, th_under_checker: smaller work budgets, fewer and
# smaller searches, the same code paths); allocation failures are injected
# under AddressSanitizer only.
set -u
cd "$(dirname "$0")/.."
full=0
quality=0
case "${1:-}" in
--full) full=1 ;;
--quality) quality=1 ;;
"") ;;
*) echo "usage: sh scripts/check.sh [--full | --quality]" >&2; exit 2 ;;
esac
t0=$(date +%s)
sh scripts/setup-deps.sh || exit 1
# seconds since the last mark, for the timings of each pass
mark() {
	t1=$(date +%s)
	echo "-- $1: $((t1 - t0)) s"
	t0=$t1
}
mark "install"

passed=0
failed=0
skipped=0

# run_suite BUILDDIR [meson test arguments]: build, test, add up the counts
run_suite() {
	dir=$1
	shift
	ninja -C "$dir" >/dev/null || { ninja -C "$dir"; failed=$((failed + 1)); return; }
	log=$(mktemp)
	meson test -C "$dir" --print-errorlogs "$@" 2>&1 | tee "$log"
	status=$?
	ok=$(sed -n 's/^Ok: *\([0-9]*\).*/\1/p' "$log" | tail -n 1)
	exp=$(sed -n 's/^Expected Fail: *\([0-9]*\).*/\1/p' "$log" | tail -n 1)
	fail=$(sed -n 's/^Fail: *\([0-9]*\).*/\1/p' "$log" | tail -n 1)
	upass=$(sed -n 's/^Unexpected Pass: *\([0-9]*\).*/\1/p' "$log" | tail -n 1)
	timeo=$(sed -n 's/^Timeout: *\([0-9]*\).*/\1/p' "$log" | tail -n 1)
	skip=$(sed -n 's/^Skipped: *\([0-9]*\).*/\1/p' "$log" | tail -n 1)
	rm -f "$log"
	p=$(( ${ok:-0} + ${exp:-0} ))
	f=$(( ${fail:-0} + ${upass:-0} + ${timeo:-0} ))
	# no test ran, or meson failed without counting: a failure
	if [ "$p" -eq 0 ] && [ "$f" -eq 0 ]; then f=1; fi
	if [ "$f" -eq 0 ] && [ "$status" -ne 0 ]; then f=1; fi
	passed=$((passed + p))
	failed=$((failed + f))
	skipped=$((skipped + ${skip:-0}))
}

[ -f build/build.ninja ] || meson setup --reconfigure build >/dev/null 2>&1 ||
	meson setup build >/dev/null || exit 1
run_suite build
mark "build and plain suite"
if [ "$quality" -eq 1 ]; then
	echo "== the result-quality sweeps"
	run_suite build --setup=quality --suite quality
	mark "quality sweeps"
fi
if [ "$full" -eq 1 ]; then
	echo "== the suite under valgrind"
	run_suite build --setup=valgrind
	mark "valgrind"
	echo "== the suite with AddressSanitizer and UndefinedBehaviorSanitizer"
	[ -d build-sanitize ] || meson setup build-sanitize \
		-Db_sanitize=address,undefined -Db_lundef=false >/dev/null || exit 1
	# search-published checks result quality, not memory safety: the
	# same code runs under the sanitizers in the other suites; alloc
	# (allocation failures injected at every allocating statement) runs
	# here, not under valgrind
	run_suite build-sanitize --no-suite search-published
	mark "AddressSanitizer build and suite"
	echo "== the threads, search, explore and C++ bindings suites with ThreadSanitizer"
	[ -d build-tsan ] || meson setup build-tsan \
		-Db_sanitize=thread -Db_lundef=false >/dev/null || exit 1
	# tests/tsan.supp: only a report inside the uninstrumented libz3
	TSAN_OPTIONS="suppressions=$(pwd)/tests/tsan.supp halt_on_error=1"
	# the tests' lighter cases, as under valgrind (tests/helpers.c)
	TESSEL_UNDER_CHECKER=1
	export TSAN_OPTIONS TESSEL_UNDER_CHECKER
	run_suite build-tsan --suite threads --suite search --suite explore --suite python-sanitized \
		--suite bindings
	unset TSAN_OPTIONS TESSEL_UNDER_CHECKER
	mark "ThreadSanitizer build and suite"
fi
[ "$skipped" -gt 0 ] && echo "(${skipped} skipped)"
echo "${passed} passed, ${failed} failed"
[ "$failed" -eq 0 ]
