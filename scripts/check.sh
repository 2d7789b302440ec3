#!/bin/sh
# Install what is missing, build, and run the whole test suite. The last
# line is the summary "N passed, N failed" from meson's test counts.
set -u
cd "$(dirname "$0")/.."
sh scripts/setup-deps.sh || exit 1
[ -d build ] || meson setup build >/dev/null || exit 1
ninja -C build >/dev/null || { ninja -C build; exit 1; }
log=$(mktemp)
meson test -C build --print-errorlogs "$@" 2>&1 | tee "$log"
status=$?
ok=$(sed -n 's/^Ok: *\([0-9]*\).*/\1/p' "$log" | tail -n 1)
exp=$(sed -n 's/^Expected Fail: *\([0-9]*\).*/\1/p' "$log" | tail -n 1)
fail=$(sed -n 's/^Fail: *\([0-9]*\).*/\1/p' "$log" | tail -n 1)
upass=$(sed -n 's/^Unexpected Pass: *\([0-9]*\).*/\1/p' "$log" | tail -n 1)
timeo=$(sed -n 's/^Timeout: *\([0-9]*\).*/\1/p' "$log" | tail -n 1)
skip=$(sed -n 's/^Skipped: *\([0-9]*\).*/\1/p' "$log" | tail -n 1)
rm -f "$log"
passed=$(( ${ok:-0} + ${exp:-0} ))
failed=$(( ${fail:-0} + ${upass:-0} + ${timeo:-0} ))
if [ "$passed" -eq 0 ] && [ "$failed" -eq 0 ]; then
	failed=1 # no test ran: that is a failure
fi
[ "$failed" -eq 0 ] && [ "$status" -ne 0 ] && failed=1
echo "${passed} passed, ${failed} failed, ${skip:-0} skipped"
[ "$failed" -eq 0 ]
