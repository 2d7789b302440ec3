"""Print the directory meson installs the package "tessel" into for PREFIX.

Where the prefix's own Python finds it: of the site directories of PREFIX
(site.getsitepackages) that a Python searches, the first under PREFIX/lib
(else the first at all), asking

1. a Python of the prefix itself (PREFIX/bin/python3: a virtual
   environment, or a Python installed under the prefix), then
2. this Python (Debian's python3: /usr/local/lib/python3.X/dist-packages
   for /usr/local, /usr/lib/python3/dist-packages for /usr);
3. else PREFIX/lib/python3.X/site-packages, which no Python searches by
   itself: it says so on standard error (set PYTHONPATH to it).

Usage: python3 site_dir.py PREFIX
"""
import os
import subprocess
import sys

PICK = r"""
import os, site, sys
prefix = sys.argv[1]
searched = {os.path.realpath(p) for p in sys.path if p}
found = [p for p in site.getsitepackages([prefix])
         if os.path.realpath(p) in searched]
found.sort(key=lambda p: not os.path.relpath(p, prefix).startswith("lib"))
print(found[0] if found else "")
"""


def searched_dir(python, prefix):
    try:
        return subprocess.run([python, "-c", PICK, prefix], capture_output=True,
                              text=True, timeout=60, check=True).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return ""


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: site_dir.py PREFIX")
    prefix = os.path.abspath(sys.argv[1])
    own = os.path.join(prefix, "bin", "python3")
    found = ""
    if os.access(own, os.X_OK):
        found = searched_dir(own, prefix)
    if not found:
        found = searched_dir(sys.executable, prefix)
    if not found:
        found = os.path.join(prefix, "lib", "python%d.%d" % sys.version_info[:2],
                             "site-packages")
        print("tessel: no Python of prefix %s searches it: the package goes to %s "
              "(set PYTHONPATH to it)" % (prefix, found), file=sys.stderr)
    print(found)


main()
