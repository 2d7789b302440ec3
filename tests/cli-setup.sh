# Shared start of the command-line test scripts, sourced with
#   . "$(dirname "$0")/cli-setup.sh"
# after setting TMP_NAME (the temporary folder's name prefix). Checks the
# scripts' two arguments, TESSEL_EXE DATA_DIR, and sets TESSEL, DATA, TMP
# (a fresh folder removed on exit), OUT and ERR (files in it).
# SPDX-License-Identifier: MIT

if [ $# -ne 2 ]; then
	echo "usage: $0 TESSEL_EXE DATA_DIR" >&2
	exit 2
fi
TESSEL=$1
DATA=$2

TMP=$(mktemp -d "${TMPDIR:-/tmp}/$TMP_NAME.XXXXXX") || exit 1
trap 'rm -rf "$TMP"' EXIT
trap 'exit 1' HUP INT TERM

OUT=$TMP/stdout
ERR=$TMP/stderr
