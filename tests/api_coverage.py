#!/usr/bin/env python3
"""api_coverage.py: every MO_API function of the public headers is called by
the misuse tests (issue 18: "the API-misuse test covers every public
function"). Prints the functions no misuse test names and fails when there
are any."""
import pathlib
import re
import sys

root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".")
headers = sorted((root / "engine/include/moreau").glob("*.h"))
tests = [root / "tests/test_misuse.c", root / "tests/test_misuse_io.c"]
text = "".join(t.read_text() for t in tests)
missing, total = [], 0
for h in headers:
    for m in re.finditer(r"^MO_API[^(;]*?\b(mo_\w+)\s*\(", h.read_text(), re.M):
        total += 1
        name = m.group(1)
        if not re.search(r"\b%s\b" % name, text):
            missing.append(f"{h.name}: {name}")
for line in missing:
    print("not called by a misuse test:", line)
print(f"{total - len(missing)} of {total} public functions called by the misuse tests")
sys.exit(1 if missing or total == 0 else 0)
