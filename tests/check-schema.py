#!/usr/bin/env python3
"""The JSON Schemas of doc/schema against the files the library reads and
writes: every placement and model profile of tests/data and doc/examples,
the placement `tessel search` writes back (with memory-time alternatives
declared), and broken variants the schema must refuse.

Usage: check-schema.py SOURCE_ROOT TESSEL_PROGRAM
"""
import glob
import json
import os
import subprocess
import sys

import jsonschema


def main():
    root, program = sys.argv[1], sys.argv[2]
    schemas = {}
    for kind in ("placement", "model"):
        with open(os.path.join(root, "doc", "schema", kind + ".schema.json")) as f:
            schemas[kind] = json.load(f)
        jsonschema.Draft202012Validator.check_schema(schemas[kind])
    checked = failed = 0
    files = sorted(glob.glob(os.path.join(root, "tests", "data", "*.json")) +
                   glob.glob(os.path.join(root, "doc", "examples", "*.json")) +
                   glob.glob(os.path.join(root, "doc", "examples", "models", "*.json")))
    for path in files:
        with open(path) as f:
            doc = json.load(f)
        kind = "model" if "layers" in doc else "placement"
        errors = list(jsonschema.Draft202012Validator(schemas[kind]).iter_errors(doc))
        checked += 1
        for e in errors:
            failed += 1
            print(f"{path}: {kind}: {e.message}")
    # a placement written by the library, with alternatives declared
    out = subprocess.run([program, "search", "-p", "vshape", "-d", "4", "-m", "3",
                          "--recompute", "--offload", "2", "-n", "8", "--fast", "-q",
                          "--format", "json"], check=True, capture_output=True,
                         text=True).stdout
    placement = json.loads(out)["placement"]
    assert any("recompute" in b and "offload" in b for b in placement["blocks"]), placement
    v = jsonschema.Draft202012Validator(schemas["placement"])
    for e in v.iter_errors(placement):
        failed += 1
        print(f"written placement: {e.message}")
    checked += 1
    # broken variants must be refused
    broken = []
    b = json.loads(json.dumps(placement))
    del b["blocks"][0]["recompute"]["saves"]
    broken.append(("recompute without saves", b))
    b = json.loads(json.dumps(placement))
    b["blocks"][0]["offload"]["transfer"] = 0
    broken.append(("offload of 0 steps", b))
    b = json.loads(json.dumps(placement))
    b["blocks"][0]["span"] = 2.5
    broken.append(("a real span", b))
    b = json.loads(json.dumps(placement))
    b["blocks"][0]["duration"] = 1.0
    broken.append(("span and duration", b))
    for what, doc in broken:
        checked += 1
        if v.is_valid(doc):
            failed += 1
            print(f"the schema accepts {what}")
    print(f"{checked - failed} passed, {failed} failed ({checked} documents)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
