#!/bin/sh
# Compare the ABI of the built libtessel with the committed baseline
# (abi/libtessel.so.1.abi, see abi/README.md) using libabigail's abidiff.
#
#   check-abi.sh LIBRARY BASELINE INCLUDE_DIR
#
# Passes when nothing changed or when the only changes are added functions
# or variables (allowed in a minor release, doc/guide.md "ABI policy").
# Fails on anything else: a removed function, a changed signature, a changed
# enum value, a changed soname... Exits 77 (skip) without abidiff.
set -eu
if [ $# -ne 3 ]; then
	echo "usage: $0 LIBRARY BASELINE INCLUDE_DIR" >&2
	exit 2
fi
lib=$1
baseline=$2
include=$3

if ! command -v abidiff >/dev/null 2>&1; then
	echo "abidiff not found (Debian: apt-get install abigail-tools); skipping"
	exit 77
fi
for f in "$lib" "$baseline"; do
	[ -r "$f" ] || { echo "cannot read $f"; exit 1; }
done
[ -d "$include" ] || { echo "no such directory: $include"; exit 1; }

# Without DWARF (e.g. a buildtype=release build) abidiff can only compare
# the ELF symbols: removals are still caught, signature changes are not.
if ! readelf -S "$lib" 2>/dev/null | grep -q '\.debug_info'; then
	echo "warning: $lib has no debug info; only ELF symbols are compared"
fi

# Same view of the library as the one the baseline was made with: exported
# functions only, types not defined in the public headers dropped.
run_abidiff() {
	abidiff --headers-dir2 "$include" --drop-private-types \
		--exported-interfaces-only --no-show-locs "$@" "$baseline" "$lib" 2>&1
}

set +e
report=$(run_abidiff)
status=$?
set -e

if [ $status -eq 0 ]; then
	echo "ABI of $lib matches $baseline"
	exit 0
fi
if [ $((status & 3)) -ne 0 ]; then
	# bit 1: abidiff failed; bit 2: usage error
	echo "abidiff failed (exit status $status):"
	printf '%s\n' "$report"
	exit 1
fi
if [ $((status & 8)) -ne 0 ]; then
	echo "INCOMPATIBLE ABI change against $baseline (abidiff exit status $status):"
	printf '%s\n' "$report"
	exit 1
fi

# Bit 4 only: some ABI change. Allowed only if it consists of additions,
# i.e. nothing is left once added functions and variables are ignored.
set +e
rest=$(run_abidiff --no-added-syms)
rest_status=$?
set -e
if [ $rest_status -eq 0 ]; then
	echo "ABI of $lib is $baseline plus additions (compatible):"
	printf '%s\n' "$report"
	echo "If these additions are a new release, update the baseline (abi/README.md)."
	exit 0
fi
echo "ABI change against $baseline that is not only additions (abidiff exit status $status):"
printf '%s\n' "$report"
exit 1
