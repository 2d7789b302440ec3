#!/bin/sh
# Install what libtessel needs to build and test on Debian 12, if missing.
#   setup-deps.sh          to build and to test (and PyTorch, optional)
#   setup-deps.sh build    to build the library and the tessel program only
set -eu
mode=${1:-test}
pkgs="libz3-dev libjansson-dev meson ninja-build pkg-config gcc"
if [ "$mode" != build ]; then
	pkgs="$pkgs libcmocka-dev g++ valgrind python3 python3-venv python3-pip python3-jsonschema librsvg2-bin abigail-tools"
fi
missing=""
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
	echo "installing:$missing"
	SUDO=""
	[ "$(id -u)" -eq 0 ] || SUDO=sudo
	$SUDO apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $missing >/dev/null
fi
[ "$mode" != build ] || exit 0
# PyTorch (optional for users; the suite's torch-pipeline test runs the
# example with it): Debian's CPU build, without its recommended extras.
if ! dpkg-query -W -f='${Status}' python3-torch 2>/dev/null | grep -q "install ok installed"; then
	echo "installing: python3-torch"
	SUDO=""
	[ "$(id -u)" -eq 0 ] || SUDO=sudo
	# torch is optional: without it the torch-pipeline test is skipped
	if ! { $SUDO apt-get update -qq &&
	       DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq \
	           --no-install-recommends python3-torch >/dev/null; }; then
		echo "python3-torch could not be installed: the torch test will be skipped"
	fi
fi
