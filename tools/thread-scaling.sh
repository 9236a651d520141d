#!/usr/bin/env bash
# Threads on one world (issue 21, item 3: two threads >= 1.7x on pile:4000): moreau-run on built-in piles
# with PGS in the sequential order on 1 thread (the reference) and in the parallel order
# (solver.sweep_order=parallel) on 1 and 2 threads, interleaved and repeated. Writes one CSV line per run
# (median ms/step and the stages' medians as moreau-run prints them, the final state hash, the load before
# the run), then prints the medians of the runs, the speed-ups against the sequential order on one thread
# and against the parallel order on one thread, and whether the parallel order's hash is the same for every
# thread count (it must be; the script exits 1 otherwise).
#   tools/thread-scaling.sh [OUT.csv]   env: RUN (build-rel/tools/moreau-run), SCENES ("pile:1000 pile:4000"),
#   STEPS (120), REPS (3), THREADS ("1 2"), ITERATIONS (50: PGS sweeps)
set -euo pipefail
cd "$(dirname "$0")/.."
RUN=${RUN:-build-rel/tools/moreau-run}
SCENES=${SCENES:-pile:1000 pile:4000}
STEPS=${STEPS:-120}
REPS=${REPS:-3}
THREADS=${THREADS:-1 2}
ITERATIONS=${ITERATIONS:-50}
OUT=${1:-thread-scaling.csv}
echo "scene,rep,order,threads,ms_step,predict,collide,assemble,solve,integrate,hash,load_before" > "$OUT"
for rep in $(seq 1 "$REPS"); do
  for scene in $SCENES; do
    for cfg in "sequential 1" $(for t in $THREADS; do echo "parallel:$t"; done); do
      order=${cfg%%[ :]*}
      t=${cfg##*[ :]}
      load=$(cut -d' ' -f1 /proc/loadavg)
      log=$("$RUN" "$scene" --steps "$STEPS" --quiet --threads "$t" --hash --iterations "$ITERATIONS" \
            --set solver.sweep_order="$order")
      stages=$(echo "$log" | sed -n 's/^ms_per_step median=\([0-9.]*\) mean=[0-9.]* predict=\([0-9.]*\) collide=\([0-9.]*\) assemble=\([0-9.]*\) solve=\([0-9.]*\) integrate=\([0-9.]*\).*/\1,\2,\3,\4,\5,\6/p')
      hash=$(echo "$log" | sed -n 's/^hash \(0x[0-9a-f]*\) .*/\1/p')
      echo "$scene,$rep,$order,$t,$stages,$hash,$load" | tee -a "$OUT"
    done
  done
done
python3 - "$OUT" <<'PY'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
ok = True
for scene in dict.fromkeys(r["scene"] for r in rows):
    rs = [r for r in rows if r["scene"] == scene]
    cfgs = list(dict.fromkeys((r["order"], r["threads"]) for r in rs))
    med = {}
    for c in cfgs:
        sel = [r for r in rs if (r["order"], r["threads"]) == c]
        med[c] = {k: statistics.median(float(r[k]) for r in sel)
                  for k in ("ms_step", "predict", "collide", "assemble", "solve", "integrate")}
    ref, par1 = med[("sequential", "1")], med.get(("parallel", "1"))
    print("%s (median of %d runs each, ms/step and stage medians)" % (scene, len(rs) // len(cfgs)))
    for c in cfgs:
        m = med[c]
        line = "  %-10s %s thread(s): step %7.3f  solve %7.3f  collide %6.3f  assemble %6.3f  predict+integrate %6.3f" % (
            c[0], c[1], m["ms_step"], m["solve"], m["collide"], m["assemble"], m["predict"] + m["integrate"])
        line += "   x%.2f vs sequential 1" % (ref["ms_step"] / m["ms_step"])
        if par1:
            line += ", solve x%.2f vs parallel 1" % (par1["solve"] / m["solve"])
        print(line)
    hashes = {r["hash"] for r in rs if r["order"] == "parallel"}
    print("  parallel order, one state hash for every thread count and run:", len(hashes) == 1)
    ok = ok and len(hashes) == 1
sys.exit(0 if ok else 1)
PY
