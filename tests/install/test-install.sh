#!/bin/sh
# Install the build into a temporary directory (meson install --destdir) and
# build outside programs against it with nothing but pkg-config:
#   tests/install/outside.c                with cc
#   bindings/cpp/examples/launcher.cpp     with c++ -std=c++17 (if present)
# Checks that the library, the tessel program, its man page, the pc file
# and the headers were installed. Nothing is downloaded.
#
# Usage: test-install.sh BUILD_ROOT SOURCE_ROOT [B_SANITIZE]
set -eu
build=$1
src=$2
sanitize=${3:-none}
CC=${CC:-cc}
CXX=${CXX:-c++}

# A shell script under valgrind would check the shell, not libtessel.
if [ -n "${TESSEL_UNDER_VALGRIND:-}" ]; then
	echo "skipped under valgrind"
	exit 77
fi
for tool in meson pkg-config "$CC"; do
	command -v "$tool" >/dev/null 2>&1 || { echo "missing $tool: skipped"; exit 77; }
done

tmp=$(mktemp -d "${TMPDIR:-/tmp}/tessel-install.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
dest=$tmp/root

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

# --no-rebuild: meson test has built everything already, and a nested ninja
# would fight over the build directory's lock.
meson install -C "$build" --no-rebuild --quiet --destdir "$dest" >"$tmp/install.log" 2>&1 ||
	{ cat "$tmp/install.log" >&2; fail "meson install"; }

pc=$(find "$dest" -name libtessel.pc | head -n 1)
[ -n "$pc" ] || fail "libtessel.pc not installed"
pcdir=$(dirname "$pc")
PKG_CONFIG_PATH=$pcdir
export PKG_CONFIG_PATH
# The pc file names the real prefix; point it into the destdir.
prefix=$(pkg-config --variable=prefix libtessel)
[ -n "$prefix" ] || fail "no prefix in libtessel.pc"
root=$dest$prefix
pkgc() {
	pkg-config --define-variable=prefix="$root" "$@" libtessel
}
libdir=$(pkgc --variable=libdir)
includedir=$(pkgc --variable=includedir)
echo "installed under $root (libdir $libdir)"

case "$libdir" in "$dest"/*) ;; *) fail "libdir $libdir is outside $dest" ;; esac
[ -f "$includedir/tessel.h" ] || fail "tessel.h not in $includedir"
[ -f "$includedir/tessel.hpp" ] || fail "tessel.hpp not in $includedir"
[ -e "$libdir/libtessel.so.1" ] || fail "libtessel.so.1 not in $libdir"
[ -e "$libdir/libtessel.so" ] || fail "libtessel.so (dev link) not in $libdir"
[ -x "$root/bin/tessel" ] || fail "tessel program not in $root/bin"
[ -f "$root/share/tessel/zb-peer.txt" ] ||
	fail "the peer's orders (tessel bench --suite zb) not in $root/share/tessel"
# only a shared library installed: users need no Z3 or jansson files
if ! find "$dest" -name 'libtessel.a' | grep -q .; then
	! grep -q '^Requires.private' "$pc" || fail "libtessel.pc requires $(grep '^Requires.private' "$pc")"
fi
man=$(find "$dest" -path '*/man1/tessel.1*' | head -n 1)
[ -n "$man" ] || fail "man page tessel.1 not installed"
[ "$(pkgc --modversion)" = "$(sed -n "s/^ *version : '\(.*\)',/\1/p" "$src/meson.build" | head -n 1)" ] ||
	fail "pc version differs from the project version"

flags=""
if [ "$sanitize" != "none" ] && [ -n "$sanitize" ]; then
	flags="-fsanitize=$sanitize"
fi

LD_LIBRARY_PATH=$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export LD_LIBRARY_PATH

# The installed program runs from the destdir.
"$root/bin/tessel" presets >"$tmp/presets.txt" || fail "installed tessel presets"
grep -q mshape "$tmp/presets.txt" || fail "installed tessel lists no mshape"

# C: an outside program, pkg-config only.
# shellcheck disable=SC2046,SC2086
"$CC" -std=c99 -Wall -Wextra -Werror $flags -o "$tmp/outside" "$src/tests/install/outside.c" \
	$(pkgc --cflags --libs) || fail "building outside.c against the installed library"
"$tmp/outside" >"$tmp/outside.txt" || fail "running outside"
cat "$tmp/outside.txt"
grep -q "makespan [0-9]" "$tmp/outside.txt" || fail "outside printed no makespan"
# It really used the installed copy.
if command -v ldd >/dev/null 2>&1; then
	ldd "$tmp/outside" | grep libtessel | grep -q "$dest" || fail "outside did not load the installed libtessel"
fi

# C++: the launcher, against the installed tessel.hpp.
if command -v "$CXX" >/dev/null 2>&1; then
	# shellcheck disable=SC2046,SC2086
	"$CXX" -std=c++17 -Wall -Wextra -Werror $flags -o "$tmp/launcher" \
		"$src/bindings/cpp/examples/launcher.cpp" $(pkgc --cflags --libs) ||
		fail "building the C++ launcher against the installed headers"
	"$tmp/launcher" >"$tmp/launcher.txt" || fail "running the C++ launcher"
	grep -q "^rank 3:" "$tmp/launcher.txt" || fail "launcher printed no rank 3"
	grep -q "compute" "$tmp/launcher.txt" || fail "launcher printed no compute action"
	head -n 2 "$tmp/launcher.txt"
else
	echo "no C++ compiler ($CXX): launcher skipped"
fi
echo "install OK"
