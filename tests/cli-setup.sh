# Shared start of the command-line test scripts, sourced with
#   . "$(dirname "$0")/cli-setup.sh"
# after setting TMP_NAME (the temporary folder's name prefix). Checks the
# scripts' two arguments, TESSEL_EXE DATA_DIR, and sets TESSEL, DATA, TMP
# (a fresh folder removed on exit), OUT and ERR (files in it), and the
# helpers: run ARGS (tessel, keeping stdout, stderr and STATUS), fail,
# pass, expect_status, expect_stdout_has / _empty, expect_stderr_has /
# _empty, leftover FILE (true when a temporary FILE.XXXXXX of an output
# is there).
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

STATUS=0
LAST=

leftover() {
	for f in "$1".??????; do
		[ -e "$f" ] && return 0
	done
	return 1
}

fail() {
	echo "FAIL: $*" >&2
	if [ -n "$LAST" ]; then
		echo "  command: $LAST" >&2
		echo "  exit status: $STATUS" >&2
		echo "  --- stdout (first lines) ---" >&2
		head -n 20 "$OUT" >&2 2>/dev/null
		echo "  --- stderr ---" >&2
		head -n 20 "$ERR" >&2 2>/dev/null
	fi
	exit 1
}

pass() {
	echo "ok - $*"
}

# run ARGS...: run tessel, keeping stdout, stderr and the exit status.
run() {
	LAST="tessel $*"
	"$TESSEL" "$@" >"$OUT" 2>"$ERR"
	STATUS=$?
}

expect_status() {
	[ "$STATUS" -eq "$1" ] || fail "expected exit status $1"
}

expect_stdout_has() {
	grep -q -e "$1" "$OUT" || fail "expected '$1' on stdout"
}

expect_stderr_has() {
	grep -q -e "$1" "$ERR" || fail "expected '$1' on stderr"
}

expect_stdout_empty() {
	[ ! -s "$OUT" ] || fail "expected nothing on stdout"
}

expect_stderr_empty() {
	[ ! -s "$ERR" ] || fail "expected nothing on stderr"
}
