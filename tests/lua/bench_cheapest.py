#!/usr/bin/env python3
"""moreau-bench scenes --cheapest (tools/bench_cheapest.c) on two small scenes of tests/lua/data:
cheapest_claim.lua, whose claim holds from 24 sweeps per step in all, searched down from 4 substeps x
10 sweeps to exactly 3 x 8 in 6 runs (4x10 holds, 2x10 fails, 3x10 holds, 3x5 fails, 3x7 fails,
3x8 holds); failing_claim.lua, whose claim fails at the file's own setting: a row saying so, no search.
usage: bench_cheapest.py MOREAU_BENCH DATA_DIR OUT_DIR"""
import csv
import os
import subprocess
import sys

bench, data, out = sys.argv[1:4]
os.makedirs(out, exist_ok=True)
p = subprocess.run([bench, "scenes", data, "--scenes", "cheapest_claim,failing_claim", "--cheapest", "--repeat", "0",
                    "--resolution", "0", "--quiet", "--out", out], capture_output=True, text=True, timeout=120)
print(p.stdout)
if p.returncode != 0:
    print("moreau-bench failed:", p.returncode, p.stderr)
    sys.exit(1)
rows = {r["scene"]: r for r in csv.DictReader(open(os.path.join(out, "cheapest.csv")))}
want = {
    "cheapest_claim": {"solver": "pgs", "file_setting": "substeps=4 iterations=10",
                       "cheapest_setting": "substeps=3 iterations=8", "file_held": "1", "runs": "6"},
    "failing_claim": {"solver": "pgs", "file_setting": "iterations=50", "cheapest_setting": "", "file_held": "0",
                      "within_margin": "0", "runs": "1", "note": "the file's setting fails its claims"},
}
bad = 0
for scene, fields in want.items():
    row = rows.get(scene)
    if row is None:
        print("no row for", scene)
        bad += 1
        continue
    for k, v in fields.items():
        if row[k] != v:
            print("%s: %s is %r, want %r" % (scene, k, row[k], v))
            bad += 1
r = rows.get("cheapest_claim", {})
try:
    ratio = float(r["ratio"])
    ok = ratio > 0 and abs(ratio - float(r["file_ms_step"]) / float(r["cheapest_ms_step"])) < 2e-3 * ratio
except (KeyError, ValueError, ZeroDivisionError):
    ok = False
if not ok:
    print("cheapest_claim: ratio %r is not file_ms_step / cheapest_ms_step" % r.get("ratio"))
    bad += 1
for f in ("cheapest.csv", "cheapest.svg"):
    if not os.path.getsize(os.path.join(out, f)):
        print(f, "is empty")
        bad += 1
sys.exit(1 if bad else 0)
