"""Where this installation's libtessel is.

In the source tree both are None and the library is found through
TESSEL_LIBRARY or the dynamic linker. ``meson install`` installs a copy
naming the installed library (LIBRARY) and the directory it installs this
package into (PACKAGE_DIR); ``pip install`` with ``--config-settings
libtessel=PATH`` writes LIBRARY.
"""

from typing import Optional

#: Path of the installed libtessel.so.1, or None.
LIBRARY: Optional[str] = None
#: Directory the package was installed into, or None.
PACKAGE_DIR: Optional[str] = None
