#!/bin/sh
# The public headers compile stand-alone under strict settings:
#   tessel.h as C99 (-pedantic) and as C++17, tessel.hpp as C++17.
# Usage: test-header.sh INCLUDE_DIR CPP_BINDINGS_DIR
set -eu
inc=$1
cppdir=$2
CC=${CC:-cc}
CXX=${CXX:-c++}
# Under valgrind this would check the compilers and the shell, not libtessel.
if [ -n "${TESSEL_UNDER_VALGRIND:-}" ]; then
	echo "skipped under valgrind"
	exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cat >"$tmp/h.c" <<'SRC'
#include <tessel.h>
#include <tessel.h> /* include guard */
int tessel_header_probe(void);
int tessel_header_probe(void)
{
	tessel_graph *g = 0;
	return tessel_graph_new(&g, 1) + TESSEL_VERSION_MAJOR + (int)TESSEL_ITEROVER;
}
SRC
echo "C99: $CC -std=c99 -pedantic"
"$CC" -std=c99 -pedantic -Wall -Wextra -Werror -I"$inc" -c "$tmp/h.c" -o "$tmp/h.o"
echo "C11: $CC -std=c11 -pedantic"
"$CC" -std=c11 -pedantic -Wall -Wextra -Werror -I"$inc" -c "$tmp/h.c" -o "$tmp/h.o"

if ! command -v "$CXX" >/dev/null 2>&1; then
	echo "no C++ compiler ($CXX): C++ checks skipped"
	exit 0
fi
cp "$tmp/h.c" "$tmp/h.cpp"
echo "C++17: $CXX tessel.h"
"$CXX" -std=c++17 -pedantic -Wall -Wextra -Werror -I"$inc" -c "$tmp/h.cpp" -o "$tmp/hpp.o"

cat >"$tmp/w.cpp" <<'SRC'
#include <tessel.hpp>
#include <tessel.hpp>
#include <type_traits>
static_assert(!std::is_copy_constructible<tessel::Graph>::value, "move-only");
static_assert(std::is_nothrow_move_constructible<tessel::Graph>::value, "movable");
static_assert(!std::is_copy_constructible<tessel::Schedule>::value, "move-only");
static_assert(!std::is_copy_constructible<tessel::Options>::value, "move-only");
static_assert(!std::is_copy_constructible<tessel::EntryIterator>::value, "move-only");
static_assert(std::is_base_of<std::runtime_error, tessel::Error>::value, "error");
int probe(const tessel::Schedule &s);
int probe(const tessel::Schedule &s)
{
	int n = 0;
	for (const auto &e : s.entries(0))
		n += static_cast<int>(e.start);
	for (const auto &a : s.actions(0))
		n += static_cast<int>(a.step);
	return n;
}
SRC
echo "C++17: $CXX tessel.hpp"
"$CXX" -std=c++17 -pedantic -Wall -Wextra -Werror -Wshadow -Wold-style-cast \
	-I"$inc" -I"$cppdir" -c "$tmp/w.cpp" -o "$tmp/w.o"
echo "C++17 without exceptions: $CXX tessel.hpp refused with its own message"
if "$CXX" -std=c++17 -fno-exceptions -I"$inc" -I"$cppdir" -c "$tmp/w.cpp" \
	-o "$tmp/w.o" 2>"$tmp/noexc.txt"; then
	echo "tessel.hpp compiled with -fno-exceptions" >&2
	exit 1
fi
grep -q "compile with exceptions" "$tmp/noexc.txt" || {
	cat "$tmp/noexc.txt" >&2
	exit 1
}
echo "headers OK"
