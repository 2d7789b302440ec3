#!/bin/sh
# The exploration on every shipped model profile (doc/explore.md): its
# wall-clock time and result table, default budget (or the options given,
# e.g. --fast). Run it alone: the times are the machine's.
#   sh scripts/bench-explore.sh [TESSEL [OPTIONS...]]
set -u
tessel=${1:-build/tools/tessel}
[ $# -gt 0 ] && shift
here=$(cd "$(dirname "$0")/.." && pwd)
out=$(mktemp -d) || exit 1
trap 'rm -rf "$out"' EXIT
for f in "$here"/doc/examples/models/*.json; do
	b=$(basename "$f" .json)
	start=$(date +%s.%N)
	"$tessel" explore "$f" --format json -q "$@" >"$out/$b.json" || {
		echo "$b: tessel explore failed" >&2; continue; }
	end=$(date +%s.%N)
	echo "$end $start" | awk '{printf "%.2f s\n", $1 - $2}' >"$out/$b.time"
done
python3 "$here/scripts/explore-table.py" "$out"/*.json
