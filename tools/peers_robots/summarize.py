#!/usr/bin/env python3
"""Medians, min and max of the per-run ms/step medians in tools/peers_robots/results/*.log (run.sh),
the ms per simulated second, and the holding figures of the first run of each case."""
import glob
import os
import re
import statistics

D = os.path.join(os.path.dirname(os.path.abspath(__file__)), "results")
print("| case | runs | ms/step median | min-max | ms per simulated s | holding (first run) |")
print("|---|---|---|---|---|---|")
for path in sorted(glob.glob(os.path.join(D, "*.log"))):
    text = open(path).read()
    meds = [float(x) for x in re.findall(r"ms_per_step median=([0-9.eE+-]+)", text)]
    hs = re.findall(r" h=([0-9.]+)", text)
    if not meds or not hs:
        continue
    h = float(hs[0])
    med = statistics.median(meds)
    if os.path.basename(path).startswith("mujoco"):
        hold = re.findall(r"holding: (.*)", text)[0]
    else:
        hold = "; ".join(re.sub(r"^check (PASS|FAIL): .*? \(((max|min|tool) .*)\)$", r"\1: \2", l)
                         for l in text.splitlines()[:12] if l.startswith("check "))
    print(f"| {os.path.basename(path)[:-4]} | {len(meds)} | {med:.4f} | {min(meds):.4f}-{max(meds):.4f} | "
          f"{med / h:.2f} | {hold} |")
