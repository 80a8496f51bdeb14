#!/usr/bin/env python3
"""Validates every Vectors/*.json golden vector file.

Checks: the JSON Schema (Vectors/vectors.schema.json, draft 2020-12, via the `jsonschema` package),
tcIds unique within a file, at least 12 tests and at least 5 invalid ones per file, every flag a
test uses explained in the file's `notes`, and `format` matching the file name.
Exits 1 with one line per problem; 0 when all files pass.
    python3 ci/validate-vectors.py [Vectors/...json ...]
"""

import glob
import json
import os
import sys

try:
    import jsonschema
except ImportError:
    sys.exit("validate-vectors: the `jsonschema` package is missing (pip install jsonschema)")

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
SCHEMA = os.path.join(ROOT, "Vectors", "vectors.schema.json")
MIN_TESTS, MIN_INVALID = 12, 5


def check(path, validator):
    problems = []
    name = os.path.relpath(path, ROOT)
    try:
        with open(path, encoding="utf-8") as fh:
            doc = json.load(fh)
    except (OSError, ValueError) as e:
        return ["%s: cannot read JSON: %s" % (name, e)]
    for err in sorted(validator.iter_errors(doc), key=lambda e: list(e.absolute_path)):
        where = "/".join(str(p) for p in err.absolute_path) or "(root)"
        if len(err.absolute_path) >= 2 and err.absolute_path[0] == "tests":
            try:
                where += " (tcId %s)" % doc["tests"][err.absolute_path[1]].get("tcId")
            except (IndexError, AttributeError, TypeError):
                pass
        problems.append("%s: schema: at %s: %s" % (name, where, err.message))
    if not isinstance(doc, dict) or not isinstance(doc.get("tests"), list):
        return problems
    expected = os.path.basename(path)[:-len(".json")]
    if doc.get("format") != expected:
        problems.append("%s: format %r does not match the file name (%r)" % (name, doc.get("format"), expected))
    tests = [t for t in doc["tests"] if isinstance(t, dict)]
    seen = {}
    for t in tests:
        tc = t.get("tcId")
        if tc in seen:
            problems.append("%s: tcId %s used twice" % (name, tc))
        seen[tc] = True
    notes = doc.get("notes") if isinstance(doc.get("notes"), dict) else {}
    for t in tests:
        for f in t.get("flags", []) if isinstance(t.get("flags"), list) else []:
            if f not in notes:
                problems.append("%s: tcId %s: flag %r is not explained in notes" % (name, t.get("tcId"), f))
    # apps names implementations of the file's dialect: "bitchat-ios", or "camp" for its one app.
    for t in tests:
        for app in t.get("apps", {}):
            if app != doc.get("dialect") and not app.startswith(str(doc.get("dialect")) + "-"):
                problems.append("%s: tcId %s: apps names %r, not an implementation of %s" % (name, t.get("tcId"), app, doc.get("dialect")))
    if len(tests) < MIN_TESTS:
        problems.append("%s: %d tests, at least %d required" % (name, len(tests), MIN_TESTS))
    n_invalid = sum(1 for t in tests if t.get("result") == "invalid")
    if n_invalid < MIN_INVALID:
        problems.append("%s: %d invalid tests, at least %d required" % (name, n_invalid, MIN_INVALID))
    return problems


def main(argv):
    with open(SCHEMA, encoding="utf-8") as fh:
        schema = json.load(fh)
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    paths = argv or sorted(p for p in glob.glob(os.path.join(ROOT, "Vectors", "*.json"))
                           if os.path.basename(p) != "vectors.schema.json")
    if not paths:
        print("validate-vectors: no vector files found in Vectors/", file=sys.stderr)
        return 1
    problems = []
    for p in paths:
        problems += check(p, validator)
    for line in problems:
        print(line, file=sys.stderr)
    if problems:
        print("validate-vectors: %d problem(s) in %d file(s)" % (len(problems), len(paths)), file=sys.stderr)
        return 1
    print("validate-vectors: %d file(s) OK" % len(paths))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
