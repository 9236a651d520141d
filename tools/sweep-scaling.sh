#!/usr/bin/env bash
# moreau-sweep over 1 and 2 MPI ranks on one grid (issue 22's target: 2 ranks in about half the wall time
# of 1), interleaved and repeated; writes one CSV line per sweep and prints the medians and their ratio.
# Also checks that both rank counts give the same rows (every column but the timings and the rank).
#   tools/sweep-scaling.sh [OUT.csv]    env: SWEEP (build-rel/tools/moreau-sweep), SCENE (scenes/pile1000.lua),
#   GRID ("solver.iterations=10,15,20,25,substeps=1,2,3,4": 16 points), TIME (1: simulated s per run),
#   REPS (3), RANKS ("1 2")
set -euo pipefail
cd "$(dirname "$0")/.."
SWEEP=${SWEEP:-build-rel/tools/moreau-sweep}
SCENE=${SCENE:-scenes/pile1000.lua}
GRID=${GRID:-solver.iterations=10,15,20,25,substeps=1,2,3,4}
TIME=${TIME:-1}
REPS=${REPS:-3}
RANKS=${RANKS:-1 2}
OUT=${1:-sweep-scaling.csv}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_WAIT_POLICY=passive
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "rep,ranks,wall_s,runs,load_before" > "$OUT"
for rep in $(seq 1 "$REPS"); do
  for np in $RANKS; do
    dir="$tmp/r$rep-n$np"
    load=$(cut -d' ' -f1 /proc/loadavg)
    t0=$(date +%s.%N)
    mpirun --oversubscribe -np "$np" "$SWEEP" "$SCENE" --grid "$GRID" --time "$TIME" --out "$dir" --quiet > "$tmp/log" 2>&1 \
      || { cat "$tmp/log"; exit 1; }
    t1=$(date +%s.%N)
    runs=$(($(wc -l < "$dir/results.csv") - 1))
    echo "$rep,$np,$(awk "BEGIN{printf \"%.3f\", $t1 - $t0}"),$runs,$load" | tee -a "$OUT"
  done
done
python3 - "$OUT" "$tmp" "$REPS" $RANKS <<'PY'
import csv, statistics, sys, os
out, tmp, reps, ranks = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4:]
rows = list(csv.DictReader(open(out)))
med = {n: statistics.median(float(r["wall_s"]) for r in rows if r["ranks"] == n) for n in ranks}
for n in ranks:
    print("ranks %s: median wall %.2f s over %d sweeps" % (n, med[n], reps))
if len(ranks) > 1:
    print("ratio %s/%s ranks: %.3f" % (ranks[-1], ranks[0], med[ranks[-1]] / med[ranks[0]]))
def stable(path):
    rs = list(csv.DictReader(open(path)))
    return [{k: v for k, v in r.items() if k not in ("ms_per_step", "wall_s", "rank")} for r in rs]
ref = stable(os.path.join(tmp, "r1-n%s" % ranks[0], "results.csv"))
same = all(stable(os.path.join(tmp, "r%d-n%s" % (k, n), "results.csv")) == ref
           for k in range(1, reps + 1) for n in ranks)
print("rows identical across rank counts and repetitions:", same)
sys.exit(0 if same else 1)
PY
