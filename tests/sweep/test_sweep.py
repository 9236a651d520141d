#!/usr/bin/env python3
"""moreau-sweep (tools/moreau_sweep.c): grid errors, one process vs mpirun -np 2, a sweep killed with SIGKILL
and resumed (on another rank count) giving the same CSV, --max-runs, HDF5 beside the CSV.

usage: test_sweep.py SWEEP SCENE MPIRUN|none H5_COLUMNS|none
Exits 77 when the scene layer has no Lua. Every comparison is of the columns that do not depend on the machine
(everything but ms_per_step, wall_s and rank)."""
import csv
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

SWEEP, SCENE, MPIRUN, H5COLS = sys.argv[1:5]
GRID = "friction=0.2:0.8:4,mass=1,2"
MACHINE = ("ms_per_step", "wall_s", "rank")
failures = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        failures.append(what)


def run(args, mpi=0, timeout=300):
    cmd = ([MPIRUN, "--oversubscribe", "-np", str(mpi)] if mpi else []) + [SWEEP] + args
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=MPI_ENV if mpi else ENV)


def rows(out):
    with open(os.path.join(out, "results.csv"), newline="") as f:
        return list(csv.DictReader(f))


def stable(rs):
    return [{k: v for k, v in r.items() if k not in MACHINE} for r in rs]


ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
           OMPI_MCA_rmaps_base_oversubscribe="1", OMP_WAIT_POLICY="passive")
# Under AddressSanitizer, LeakSanitizer cannot name Open MPI's leaks (its components are unloaded at exit), so
# ranks started by mpirun run without leak detection; one-process runs (no MPI_Init) keep it.
MPI_ENV = dict(ENV, ASAN_OPTIONS=ENV.get("ASAN_OPTIONS", "") + ":detect_leaks=0")
tmp = tempfile.mkdtemp(prefix="moreau-sweep-test-")
try:
    probe = run([SCENE, "--grid", "friction=0.5", "--steps", "1", "--out", os.path.join(tmp, "probe")])
    if "without Lua" in probe.stderr:
        print("skip: no Lua")
        sys.exit(77)

    # ---- exact refusals, nothing written
    bad = {
        "friction=0.2:0.8": "moreau-sweep: --grid 'friction=0.2:0.8': 'friction=0.2:0.8': a range is A:B:N with "
                            "numbers A, B and a count N",
        "friction=0.2:0.8:2.5": "moreau-sweep: --grid 'friction=0.2:0.8:2.5': 'friction=0.2:0.8:2.5': the count N "
                                "of a range A:B:N must be a whole number from 1 to 4096",
        "1,friction=2": "moreau-sweep: --grid '1,friction=2': '1': a value before any NAME=",
        "friction=0.2,,0.4": "moreau-sweep: --grid 'friction=0.2,,0.4': an empty item (two commas, or a comma at "
                             "an end)",
        "friction=1,friction=2": "moreau-sweep: --grid 'friction=1,friction=2': 'friction': the name is given twice",
        "seed=1,2": "moreau-sweep: --grid 'seed=1,2': the seed is not a grid name: use --seeds N",
        "frcition=0.1,0.2": "moreau-sweep: --grid: 'frcition' is neither an engine setting (moreau-run "
                            "--list-settings) nor a param() the scene file '%s' reads when it loads" % SCENE,
    }
    for grid, sentence in bad.items():
        out = os.path.join(tmp, "bad")
        p = run([SCENE, "--grid", grid, "--out", out])
        check(p.returncode == 2 and p.stderr.strip() == sentence and not os.path.exists(out),
              "--grid %r refused with its sentence (got %d: %s)" % (grid, p.returncode, p.stderr.strip()))
    p = run([SCENE, "--grid", GRID, "--seeds", "0", "--out", os.path.join(tmp, "bad")])
    check(p.returncode == 2 and p.stderr.strip() == "moreau-sweep: --seeds 0: must be at least 1",
          "--seeds 0 refused (%s)" % p.stderr.strip())

    # ---- one process: 8 points x 2 seeds, every claim holds, the grid's values in the rows
    a_dir = os.path.join(tmp, "a")
    p = run([SCENE, "--grid", GRID, "--seeds", "2", "--out", a_dir])
    check(p.returncode == 0, "one process: exit 0 (%d: %s)" % (p.returncode, p.stderr.strip()))
    a = rows(a_dir)
    check(len(a) == 16 and [int(r["run"]) for r in a] == list(range(16)), "16 rows in run order")
    check([r["friction"] for r in a[::4]] == ["0.2", "0.4", "0.6", "0.8"] and
          [r["mass"] for r in a[:4]] == ["1", "1", "2", "2"] and [r["seed"] for r in a[:2]] == ["0", "1"],
          "runs count seeds fastest, then the last name (friction 0.2..0.8, mass 1,2)")
    check(all(r["status"] == "ok" and r["claims_held"] == "true" and r["checks"] == "1" for r in a),
          "every run's claim holds (Coulomb's law on the incline)")
    check(all(r["steps"] == "120" for r in a), "each run is the scene's 1 s (120 steps)")
    check(all(a[i]["hash"] != a[i + 1]["hash"] for i in range(0, 16, 2)),
          "the two seeds of a point end in different states (math.random places the block)")
    slid = [r for r in a if r["friction"] == "0.2"]
    check(all("slid" in r["details"] for r in slid) and all("stuck" in r["details"] for r in a if r["friction"] != "0.2"),
          "mu 0.2 < tan 20 deg slides, 0.4 and above stick (the details column)")
    check("16 of 16 runs done (16 this time on 1 rank" in p.stdout, "summary line (%s)" % p.stdout.strip())
    # the cheapest point whose claims held on every seed: named with its values, the smallest mean ms/step
    import re
    m = re.search(r"cheapest point whose claims held on every seed: point (\d+) \(friction=([0-9.]+), "
                  r"mass=([0-9.]+)\), ([0-9.e+-]+) ms/step", p.stdout)
    if m:
        pt = int(m.group(1))
        mean = {q: sum(float(r["ms_per_step"]) for r in a if int(r["point"]) == q) / 2 for q in range(8)}
        mine = [r for r in a if int(r["point"]) == pt]
        check(all(r["friction"] == m.group(2) and r["mass"] == m.group(3) for r in mine) and
              min(mean.values()) == mean[pt] and abs(float(m.group(4)) - mean[pt]) <= 1e-5 * mean[pt],
              "the cheapest holding point is the one with the smallest mean ms/step (%s)" % m.group(0))
    else:
        check(False, "a cheapest-point line (%s)" % p.stdout.strip())
    # a scene whose claim fails everywhere: no point held, still exit 0 (claims are data), 1 with --check
    fail_scene = os.path.join(os.path.dirname(SCENE), "..", "lua", "data", "failing_claim.lua")
    p = run([fail_scene, "--grid", "solver.iterations=5,10", "--out", os.path.join(tmp, "f")])
    check(p.returncode == 0 and "2 failed a claim" in p.stdout and
          "no point held its claims on every seed" in p.stdout, "failing claims: rows, no cheapest point, exit 0")
    p = run([fail_scene, "--grid", "solver.iterations=5,10", "--out", os.path.join(tmp, "f"), "--check"])
    check(p.returncode == 1, "failing claims with --check: exit 1 (%d)" % p.returncode)

    # the same folder with another grid is refused
    p = run([SCENE, "--grid", "friction=0.3", "--out", a_dir])
    check(p.returncode == 2 and "the folder holds another sweep's runs" in p.stderr,
          "another sweep in the same --out refused (%s)" % p.stderr.strip())
    # the same sweep again: everything from the journal, the same CSV
    p = run([SCENE, "--grid", GRID, "--seeds", "2", "--out", a_dir])
    check(p.returncode == 0 and "(0 this time" in p.stdout and "16 from the journal" in p.stdout and
          rows(a_dir) == a, "a finished sweep run again reruns nothing (%s)" % p.stdout.strip())

    # ---- HDF5 beside the CSV
    if H5COLS != "none":
        cols = ["run", "friction", "mass", "hash", "claims_held", "max_penetration_m"]
        h = subprocess.run([H5COLS, os.path.join(a_dir, "results.h5")] + cols, capture_output=True, text=True)
        want = ["%s,%s,%s,%s,%s,%s" % (r["run"], repr(float(r["friction"])), repr(float(r["mass"])), r["hash"],
                                       r["claims_held"], repr(float(r["max_penetration_m"]))) for r in a]
        got = [",".join(repr(float(x)) if i in (1, 2, 5) else (str(int(float(x))) if i == 0 else x)
                        for i, x in enumerate(line.split(","))) for line in h.stdout.splitlines()]
        check(h.returncode == 0 and got == want, "results.h5 holds the CSV's columns (%d rows)" % len(got))

    # ---- --max-runs: stops with runs left (exit 3), the next call finishes; the same rows
    m_dir = os.path.join(tmp, "m")
    p = run([SCENE, "--grid", GRID, "--seeds", "2", "--out", m_dir, "--max-runs", "5"])
    check(p.returncode == 3 and len(rows(m_dir)) == 5 and "11 runs left" in p.stdout,
          "--max-runs 5: exit 3, 5 rows, 11 left (%d: %s)" % (p.returncode, p.stdout.strip()))
    p = run([SCENE, "--grid", GRID, "--seeds", "2", "--out", m_dir])
    check(p.returncode == 0 and stable(rows(m_dir)) == stable(a), "resumed after --max-runs: the same rows")

    if MPIRUN != "none":
        # ---- two ranks: the same rows; rank 1 ran some (the runs are long enough for it to start)
        b_dir = os.path.join(tmp, "b")
        p = run([SCENE, "--grid", GRID, "--seeds", "2", "--out", b_dir], mpi=2)
        check(p.returncode == 0, "mpirun -np 2: exit 0 (%d: %s %s)" % (p.returncode, p.stdout, p.stderr))
        b = rows(b_dir)
        check(stable(b) == stable(a), "mpirun -np 2: the same rows as one process")
        check("on 2 ranks" in p.stdout, "two ranks took part (%s)" % p.stdout.strip())
        long_dir = os.path.join(tmp, "long")
        p = run([SCENE, "--grid", GRID, "--time", "20", "--out", long_dir], mpi=2)
        ranks = {r["rank"] for r in rows(long_dir)}
        check(p.returncode == 0 and ranks == {"0", "1"}, "both ranks ran runs of 20 s (ranks %s)" % sorted(ranks))

    # ---- killed with SIGKILL halfway, resumed (on two ranks when there is MPI): the same CSV as a fresh sweep
    full_dir, k_dir = os.path.join(tmp, "full"), os.path.join(tmp, "killed")
    args = ["--grid", GRID, "--seeds", "2", "--time", "30"]
    p = run([SCENE] + args + ["--out", full_dir])
    full = rows(full_dir)
    proc = subprocess.Popen([SWEEP, SCENE] + args + ["--out", k_dir], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, env=ENV)
    journal = os.path.join(k_dir, "journal.csv")
    deadline = time.time() + 240
    while time.time() < deadline and proc.poll() is None:
        if os.path.exists(journal) and sum(1 for _ in open(journal)) >= 1 + 5:
            break
        time.sleep(0.01)
    killed_running = proc.poll() is None
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    done_before = sum(1 for _ in open(journal)) - 1
    # a crash in the middle of writing a row leaves a line without its end: the resume must drop it
    with open(journal, "a") as f:
        f.write("9,4,1,0.6,1,ok,1,1,tr")
    check(killed_running and 5 <= done_before < 16 and not os.path.exists(os.path.join(k_dir, "results.csv")),
          "SIGKILL after %d of 16 runs (no results.csv yet)" % done_before)
    p = run([SCENE] + args + ["--out", k_dir], mpi=2 if MPIRUN != "none" else 0)
    check(p.returncode == 0 and ("%d from the journal" % done_before) in p.stdout,
          "resumed: %d runs skipped (%s)" % (done_before, p.stdout.strip()))
    check(stable(rows(k_dir)) == stable(full), "the resumed sweep's CSV equals a fresh one's")
    with open(journal) as f:
        lines = f.read().splitlines()
    check(len(lines) == 17 and all(l.count(",") >= 20 for l in lines[1:]), "the torn line was cut from the journal")
finally:
    shutil.rmtree(tmp, ignore_errors=True)

print("%d failures" % len(failures))
sys.exit(1 if failures else 0)
