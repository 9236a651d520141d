#!/usr/bin/env python3
"""moreau-run --set NAME=VALUE where NAME is no setting and the scene never reads param(NAME): a warning on
stderr with a setting it may have meant; none for a param the scene reads or for a setting.
usage: run_unread_param.py MOREAU_RUN SCENES_DIR"""
import subprocess
import sys

run, scenes = sys.argv[1:3]


def stderr(scene, *sets):
    args = [run, "%s/%s" % (scenes, scene), "--steps", "1", "--quiet"]
    for s in sets:
        args += ["--set", s]
    p = subprocess.run(args, capture_output=True, text=True, timeout=120)
    if p.returncode != 0:
        print("moreau-run failed:", p.returncode, p.stderr)
        sys.exit(1)
    return [l for l in p.stderr.splitlines() if "warning" in l]


want = [
    "moreau-run: warning: --set solver=cg: no engine setting has that name and the scene did not read "
    "param('solver') while it loaded (a callback may still read it); did you mean the setting solver.kind?",
    "moreau-run: warning: --set iterations=5: no engine setting has that name and the scene did not read "
    "param('iterations') while it loaded (a callback may still read it); did you mean the setting "
    "solver.iterations?",
    "moreau-run: warning: --set frcition=1: no engine setting has that name and the scene did not read "
    "param('frcition') while it loaded (a callback may still read it)",
]
got = stderr("stack20.lua", "solver=cg", "iterations=5", "frcition=1")
ok = got == want
# arch.lua reads param("solver"); solver.kind is a setting: no warning
quiet = stderr("arch.lua", "solver=spg", "solver.kind=spg")
ok = ok and quiet == []
print("\n".join(got + quiet))
print("ok" if ok else "FAIL")
sys.exit(0 if ok else 1)
