#!/bin/sh
# Install what is missing, build, and run the main job: a schedule search
# on the built-in default (mshape on 4 devices, memory 6, 16 micro-batches).
set -eu
cd "$(dirname "$0")/.."
sh scripts/setup-deps.sh build
# (a folder named build that meson did not set up is set up anew)
[ -f build/build.ninja ] || meson setup --reconfigure build >/dev/null 2>&1 ||
	meson setup build >/dev/null
# the library and the command line only (the tests are built by check.sh)
ninja -C build tools/tessel >/dev/null
./build/tools/tessel search "$@"
