"""PEP 517 build backend of the tessel package, standard library only.

The package is pure Python, so a wheel is a zip of tessel/ with its
metadata; no build requirement is downloaded (``requires = []``). One
config setting: ``libtessel=PATH`` writes PATH into tessel/_config.py as
the library to load (``pip install . --config-settings libtessel=PATH``).
"""

import base64
import hashlib
import io
import os
import re
import tarfile
import zipfile

__all__ = ["get_requires_for_build_wheel", "get_requires_for_build_sdist",
           "get_requires_for_build_editable",
           "prepare_metadata_for_build_wheel", "build_wheel", "build_sdist",
           "build_editable"]

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKAGE = "tessel"
# zip entries get a fixed date, so that the same sources give the same wheel
DATE = (1980, 1, 1, 0, 0, 0)


def _project():
    """The [project] table of pyproject.toml (strings and string lists)."""
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as f:
        data = f.read()
    try:
        import tomllib
    except ImportError:  # Python < 3.11: the simple keys this file uses
        table = {}
        text = data.decode("utf-8")
        body = text.split("[project]", 1)[1].split("\n[", 1)[0]
        for key, value in re.findall(r'^(\w[\w-]*) = "([^"]*)"$', body,
                                     re.M):
            table[key] = value
        match = re.search(r'^license = \{text = "([^"]*)"\}', body, re.M)
        if match:
            table["license"] = {"text": match.group(1)}
        match = re.search(r"^classifiers = \[(.*?)\]", body, re.M | re.S)
        if match:
            table["classifiers"] = re.findall(r'"([^"]*)"', match.group(1))
        return table
    return tomllib.loads(data.decode("utf-8"))["project"]


def _dist_info(project):
    return "%s-%s.dist-info" % (project["name"], project["version"])


def _metadata(project):
    lines = ["Metadata-Version: 2.1",
             "Name: %s" % project["name"],
             "Version: %s" % project["version"],
             "Summary: %s" % project.get("description", ""),
             "Requires-Python: %s" % project.get("requires-python", "")]
    license = project.get("license", {})
    if isinstance(license, dict) and "text" in license:
        lines.append("License: %s" % license["text"])
    for classifier in project.get("classifiers", []):
        lines.append("Classifier: %s" % classifier)
    readme = os.path.join(ROOT, project.get("readme", "README.md"))
    body = ""
    if os.path.exists(readme):
        lines.append("Description-Content-Type: text/markdown")
        with open(readme, encoding="utf-8") as f:
            body = f.read()
    return ("\n".join(lines) + "\n\n" + body).encode("utf-8")


def _wheel_file():
    return (b"Wheel-Version: 1.0\nGenerator: tessel_build\n"
            b"Root-Is-Purelib: true\nTag: py3-none-any\n")


def _config(settings):
    """The text of tessel/_config.py for these config settings."""
    path = os.path.join(ROOT, PACKAGE, "_config.py")
    with open(path, "rb") as f:
        text = f.read().decode("utf-8")
    library = (settings or {}).get("libtessel")
    if library:
        if not isinstance(library, str):
            raise ValueError("libtessel: give one path")
        if not os.path.isabs(library):
            # (the build runs in another folder than the one pip was run
            # in, and the package is imported from others still)
            raise ValueError("libtessel: give an absolute path, not %r"
                             % library)
        text = re.sub(r"^LIBRARY: Optional\[str\] = None$",
                      "LIBRARY: Optional[str] = %r" % library, text,
                      flags=re.M)
    return text.encode("utf-8")


def _package_files(settings):
    """(archive name, bytes) of every file of the package."""
    folder = os.path.join(ROOT, PACKAGE)
    for name in sorted(os.listdir(folder)):
        if not (name.endswith(".py") or name == "py.typed"):
            continue
        if name == "_config.py":
            data = _config(settings)
        else:
            with open(os.path.join(folder, name), "rb") as f:
                data = f.read()
        yield "%s/%s" % (PACKAGE, name), data


def _license():
    """The licence text: COPYING beside pyproject.toml (an sdist), else
    the source tree's, two folders up; None when neither is there."""
    for path in (os.path.join(ROOT, "COPYING"),
                 os.path.join(ROOT, os.pardir, os.pardir, "COPYING")):
        if os.path.exists(path):
            with open(path, "rb") as f:
                return f.read()
    return None


def _write_wheel(directory, files, project):
    info = _dist_info(project)
    licence = _license()
    if licence is not None:
        files = list(files) + [("%s/COPYING" % info, licence)]
    files = list(files) + [
        ("%s/METADATA" % info, _metadata(project)),
        ("%s/WHEEL" % info, _wheel_file()),
        ("%s/top_level.txt" % info, (PACKAGE + "\n").encode()),
    ]
    record = []
    for name, data in files:
        digest = base64.urlsafe_b64encode(
            hashlib.sha256(data).digest()).rstrip(b"=").decode()
        record.append("%s,sha256=%s,%d" % (name, digest, len(data)))
    record.append("%s/RECORD,," % info)
    files.append(("%s/RECORD" % info, ("\n".join(record) + "\n").encode()))
    wheel = "%s-%s-py3-none-any.whl" % (project["name"], project["version"])
    with zipfile.ZipFile(os.path.join(directory, wheel), "w",
                         zipfile.ZIP_DEFLATED) as archive:
        for name, data in files:
            entry = zipfile.ZipInfo(name, DATE)
            entry.external_attr = 0o644 << 16
            entry.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(entry, data)
    return wheel


def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def get_requires_for_build_editable(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(metadata_directory,
                                     config_settings=None):
    project = _project()
    info = os.path.join(metadata_directory, _dist_info(project))
    os.makedirs(info, exist_ok=True)
    with open(os.path.join(info, "METADATA"), "wb") as f:
        f.write(_metadata(project))
    with open(os.path.join(info, "WHEEL"), "wb") as f:
        f.write(_wheel_file())
    return os.path.basename(info)


def build_wheel(wheel_directory, config_settings=None,
                metadata_directory=None):
    return _write_wheel(wheel_directory, _package_files(config_settings),
                        _project())


def build_editable(wheel_directory, config_settings=None,
                   metadata_directory=None):
    """A wheel whose .pth file puts this source tree on sys.path."""
    if (config_settings or {}).get("libtessel"):
        # the source tree's tessel/_config.py is the one imported
        raise ValueError("libtessel: an editable install imports the source "
                         "tree as it is; set TESSEL_LIBRARY to the library "
                         "instead")
    pth = ("%s\n" % ROOT).encode("utf-8")
    return _write_wheel(wheel_directory, [("__editable__.tessel.pth", pth)],
                        _project())


def build_sdist(sdist_directory, config_settings=None):
    project = _project()
    base = "%s-%s" % (project["name"], project["version"])
    names = ["pyproject.toml", "README.md",
             "backend/tessel_build.py"]
    names += [name for name, _ in _package_files(None)]
    names += ["tests/%s" % n for n in sorted(os.listdir(
        os.path.join(ROOT, "tests"))) if n.endswith((".py", ".sh"))]
    sdist = base + ".tar.gz"
    with tarfile.open(os.path.join(sdist_directory, sdist), "w:gz",
                      format=tarfile.PAX_FORMAT) as archive:
        for name in names:
            with open(os.path.join(ROOT, name), "rb") as f:
                data = f.read()
            entry = tarfile.TarInfo("%s/%s" % (base, name))
            entry.size = len(data)
            entry.mode = 0o644
            entry.mtime = 315532800
            archive.addfile(entry, io.BytesIO(data))
        licence = _license()
        if licence is not None:
            entry = tarfile.TarInfo("%s/COPYING" % base)
            entry.size = len(licence)
            entry.mode = 0o644
            entry.mtime = 315532800
            archive.addfile(entry, io.BytesIO(licence))
        meta = _metadata(project)
        entry = tarfile.TarInfo("%s/PKG-INFO" % base)
        entry.size = len(meta)
        entry.mode = 0o644
        entry.mtime = 315532800
        archive.addfile(entry, io.BytesIO(meta))
    return sdist
