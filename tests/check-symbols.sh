#!/bin/sh
# Compare the dynamic symbols libtessel exports with its version script:
# every exported function must be listed, every listed one exported, and
# each must carry a symbol version.
set -eu
lib=$1
map=$2
exported=$(nm -D --defined-only "$lib" | awk '$2 ~ /^[TDBR]$/ {print $3}' | grep -v '^TESSEL_' | sed 's/@.*//' | sort)
listed=$(sed -n 's/^[[:space:]]*\(tessel_[a-z0-9_]*\);.*/\1/p' "$map" | sort)
status=0
extra=$(printf '%s\n' "$exported" | grep -v '^tessel_' || true)
if [ -n "$extra" ]; then
	echo "exported without the tessel_ prefix:"; echo "$extra"; status=1
fi
if [ "$exported" != "$listed" ]; then
	echo "exported symbols differ from $map:"
	diff -u "$(printf '%s\n' "$listed" > "${TMPDIR:-/tmp}/tsl-listed.$$"; echo "${TMPDIR:-/tmp}/tsl-listed.$$")" \
		"$(printf '%s\n' "$exported" > "${TMPDIR:-/tmp}/tsl-exported.$$"; echo "${TMPDIR:-/tmp}/tsl-exported.$$")" || true
	rm -f "${TMPDIR:-/tmp}/tsl-listed.$$" "${TMPDIR:-/tmp}/tsl-exported.$$"
	status=1
fi
unversioned=$(objdump -T "$lib" | awk '/ DF .text/ && $NF ~ /^tessel_/ && $(NF-1) !~ /TESSEL_/ {print $NF}')
if [ -n "$unversioned" ]; then
	echo "exported without a symbol version:"; echo "$unversioned"; status=1
fi
soname=$(objdump -p "$lib" | awk '$1 == "SONAME" {print $2}')
if [ "$soname" != "libtessel.so.1" ]; then
	echo "unexpected soname: '$soname' (want libtessel.so.1)"; status=1
fi
[ $status -eq 0 ] && echo "$(printf '%s\n' "$exported" | wc -l) exported symbols match $map; soname $soname"
exit $status
