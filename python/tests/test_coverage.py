"""Every public name of the package (module functions, classes' methods and properties) is used by a test."""
import inspect
import os
import re

import moreau

HERE = os.path.dirname(os.path.abspath(__file__))


def public_names():
    names = set()
    for name in moreau.__all__:
        obj = getattr(moreau, name)
        names.add(name)
        if inspect.isclass(obj):
            for attr in dir(obj):
                if not attr.startswith("_") and attr not in dir(object) and attr not in dir(Exception):
                    names.add(attr)
    return names


def test_every_public_name_is_used_by_a_test():
    text = "".join(open(os.path.join(HERE, f)).read() for f in os.listdir(HERE)
                   if f.startswith("test_") and f.endswith(".py") and f != "test_coverage.py")
    missing = sorted(n for n in public_names() if not re.search(r"\b%s\b" % re.escape(n), text))
    assert missing == [], "public names no test uses: %s" % ", ".join(missing)
