#!/bin/sh
# Run the misuse catalogue: run-misuse.sh PYTHON3 misuse.py [CASE ...].
# The shell only execs PYTHON3: under the valgrind test setup valgrind
# follows no exec, so it checks this shell and not the catalogue's runner;
# misuse.py itself runs each case under valgrind (TESSEL_UNDER_VALGRIND=1).
exec "$@"
