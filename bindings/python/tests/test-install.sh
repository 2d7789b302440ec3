#!/bin/sh
# The Python package as installed, used from outside the source tree:
# 1. meson install (into a temporary destdir): the package loads the
#    libtessel installed beside it, with neither TESSEL_LIBRARY nor
#    LD_LIBRARY_PATH, and pip knows it (its dist-info);
# 2. pip install ./bindings/python into a fresh venv (python3 -m venv,
#    nothing downloaded: --no-index), told where the installed library
#    is with --config-settings libtessel=PATH, then found through the
#    dynamic linker (LD_LIBRARY_PATH) when installed without it.
# Each runs a search from a directory outside the tree.
#
# Usage: test-install.sh BUILD_ROOT SOURCE_ROOT PYTHON3
set -eu
build=$1
src=$(cd "$2" && pwd)
python=$3

if [ -n "${TESSEL_UNDER_VALGRIND:-}" ]; then
	echo "skipped under valgrind"
	exit 77
fi
command -v meson >/dev/null 2>&1 || { echo "missing meson: skipped"; exit 77; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/tessel-pyinstall.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
dest=$tmp/root
fail() {
	echo "FAIL: $*" >&2
	exit 1
}
unset TESSEL_LIBRARY PYTHONPATH LD_LIBRARY_PATH || true

meson install -C "$build" --no-rebuild --quiet --destdir "$dest" >"$tmp/install.log" 2>&1 ||
	{ cat "$tmp/install.log" >&2; fail "meson install"; }
config=$(find "$dest" -path '*/tessel/_config.py' | head -n 1)
[ -n "$config" ] || fail "tessel/_config.py not installed"
site=$(dirname "$(dirname "$config")")
lib=$(find "$dest" -name libtessel.so.1 | head -n 1)
[ -n "$lib" ] || fail "libtessel.so.1 not installed"
[ -f "$site/tessel/py.typed" ] || fail "py.typed not installed"
version=$(sed -n "s/^ *version : '\(.*\)',/\1/p" "$src/meson.build" | head -n 1)
grep -q "^Version: $version\$" "$site/tessel-$version.dist-info/METADATA" ||
	fail "no tessel-$version.dist-info/METADATA"
echo "package in $site, library $lib"
# the package went where the prefix's own Python finds it
meson introspect "$build" --buildoptions >"$tmp/options.json"
prefix=$("$python" -c 'import json, sys
print(next(o["value"] for o in json.load(open(sys.argv[1])) if o["name"] == "prefix"))' \
	"$tmp/options.json")
want=$("$python" "$src/bindings/python/site_dir.py" "$prefix" 2>/dev/null)
[ "$site" = "$dest$want" ] || fail "package in $site, not in $dest$want (site_dir.py $prefix)"
if "$python" -c 'import sys; sys.exit(0 if sys.argv[1] in sys.path else 1)' "$want"; then
	echo "$python searches $want"
fi
# a virtual environment as the prefix: its own site-packages
if "$python" -m venv --without-pip "$tmp/prefixvenv" >/dev/null 2>&1; then
	want=$("$tmp/prefixvenv/bin/python3" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
	got=$("$python" "$src/bindings/python/site_dir.py" "$tmp/prefixvenv")
	[ "$got" = "$want" ] || fail "site_dir.py for a venv prefix: $got, not $want"
	echo "a venv prefix: $got"
fi
# the installed program finds the installed library by its run path
tool=$(find "$dest" -path '*/bin/tessel' | head -n 1)
if [ -n "$tool" ] && command -v readelf >/dev/null 2>&1; then
	libdir=$(dirname "${lib#"$dest"}")
	readelf -d "$tool" | grep -E 'RUNPATH|RPATH' | grep -q "\[$libdir\]" ||
		fail "the installed tessel has no run path to $libdir"
	echo "tessel's run path: $libdir"
fi

cat >"$tmp/search.py" <<'PY'
import os, sys
import tessel
from tessel import _lib
s = tessel.search(tessel.Graph.preset("mshape", devices=4, memory=6))
name = _lib.lib._name
print(os.path.realpath(name) if os.path.isabs(name) else name, s.makespan, tessel.__version__)
PY
cd "$tmp"
out=$(PYTHONPATH=$site "$python" "$tmp/search.py") || fail "search with the meson-installed package"
echo "meson install: $out"
[ "$out" = "$(realpath "$lib") 108 $version" ] || fail "not the installed library: $out"
PYTHONPATH=$site "$python" -m pip list 2>/dev/null | grep -q "^tessel  *$version" ||
	fail "pip does not list the meson-installed package"

if ! "$python" -c "import ensurepip, venv" 2>/dev/null; then
	echo "$python has no venv or ensurepip (Debian: python3-venv): pip part skipped"
	exit 77
fi
"$python" -m venv "$tmp/venv" >"$tmp/venv.log" 2>&1 || { cat "$tmp/venv.log" >&2; fail "python3 -m venv"; }
"$tmp/venv/bin/python" -m pip install --no-index --no-cache-dir --quiet \
	"$src/bindings/python" --config-settings "libtessel=$lib" >"$tmp/pip.log" 2>&1 ||
	{ cat "$tmp/pip.log" >&2; fail "pip install ./bindings/python"; }
out=$("$tmp/venv/bin/python" "$tmp/search.py") || fail "search with the pip-installed package"
echo "pip install --config-settings libtessel=...: $out"
[ "$out" = "$(realpath "$lib") 108 $version" ] || fail "not the installed library: $out"
"$tmp/venv/bin/python" -m pip show tessel | grep -q "^Version: $version" || fail "pip show tessel"

"$tmp/venv/bin/python" -m pip install --no-index --no-cache-dir --quiet --force-reinstall \
	"$src/bindings/python" >"$tmp/pip.log" 2>&1 ||
	{ cat "$tmp/pip.log" >&2; fail "pip install ./bindings/python (plain)"; }
out=$(LD_LIBRARY_PATH=$(dirname "$lib") "$tmp/venv/bin/python" "$tmp/search.py") ||
	fail "search with the pip-installed package through LD_LIBRARY_PATH"
echo "pip install, LD_LIBRARY_PATH: $out"
case "$out" in *" 108 $version") ;; *) fail "unexpected: $out" ;; esac
if "$tmp/venv/bin/python" -c "import tessel" 2>"$tmp/err.txt"; then
	# a libtessel installed on the system may serve it
	echo "(a system libtessel is found without LD_LIBRARY_PATH)"
else
	grep -q "TESSEL_LIBRARY" "$tmp/err.txt" || fail "no hint when the library is missing"
fi
echo "ok"
