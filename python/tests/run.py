#!/usr/bin/env python3
"""Runs the Python package's pytest suite; exit 77 (skip) when a piece is missing."""
import os
import sys

SKIP = 77
why = os.environ.get("MOREAU_PYTHON_SKIP")
if why:
    print("python tests skipped: " + why)
    sys.exit(SKIP)
for mod, pkg in (("numpy", "python3-numpy"), ("pytest", "python3-pytest")):
    try:
        __import__(mod)
    except ImportError:
        print("python tests skipped: no %s (%s)" % (mod, pkg))
        sys.exit(SKIP)
import pytest  # noqa: E402

here = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
sys.exit(pytest.main(["-q", "-p", "no:cacheprovider", here] + sys.argv[2:]))
