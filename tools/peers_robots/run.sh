#!/bin/sh
# Runs every case of docs/bench/robots-mujoco-2026-11-27.md RUNS times (default 5), one process per
# run, alternating engines, single-threaded; the logs go to results/. From the project root:
#   tools/peers_robots/run.sh 5 && tools/peers_robots/summarize.py
# Needs build/tools/moreau-run (a release build; BUILD=dir picks another build folder) and tools/peers_robots/bench_mujoco_robots (make -C tools/peers_robots).
set -e
RUNS=${1:-5}
D=tools/peers_robots
OUT=$D/results
mkdir -p "$OUT"
rm -f "$OUT"/*.log
export OMP_NUM_THREADS=1
MJ=$D/bench_mujoco_robots
MR="${BUILD:-build}/tools/moreau-run --check --quiet"
H120=0.008333333333333333
H300=0.0033333333333333335
uptime > "$OUT/load.txt"
for r in $(seq 1 "$RUNS"); do
  $MR scenes/quadruped.lua                >> "$OUT/moreau_quadruped_h120.log" || true
  $MR scenes/quadruped.lua --set h=0.001  >> "$OUT/moreau_quadruped_h1000.log" || true
  $MR scenes/arm6.lua                     >> "$OUT/moreau_arm6_h120.log" || true
  $MR scenes/double_pendulum.lua          >> "$OUT/moreau_double_pendulum_h120.log" || true
  # semi-implicit Euler (MuJoCo's default integrator; one factorisation a step instead of the midpoint's 4-7)
  $MR scenes/quadruped.lua --set integrator=euler >> "$OUT/moreau_quadruped_h120_euler.log" || true
  $MR scenes/arm6.lua --set integrator=euler      >> "$OUT/moreau_arm6_h120_euler.log" || true
  for s in Newton PGS; do
    $MJ quadruped solver=$s h=$H120 >> "$OUT/mujoco_quadruped_h120_$s.log" || true
    $MJ quadruped solver=$s h=$H300 >> "$OUT/mujoco_quadruped_h300_$s.log" || true
    $MJ quadruped solver=$s h=0.001 >> "$OUT/mujoco_quadruped_h1000_$s.log" || true
  done
  $MJ arm6 h=$H120                           >> "$OUT/mujoco_arm6_h120_Newton.log" || true
  $MJ arm6 h=$H120 lead=1                    >> "$OUT/mujoco_arm6_h120_Newton_lead1.log" || true
  $MJ double_pendulum h=$H120                >> "$OUT/mujoco_double_pendulum_h120_Euler.log" || true
  $MJ double_pendulum h=$H120 integrator=RK4 >> "$OUT/mujoco_double_pendulum_h120_RK4.log" || true
done
uptime >> "$OUT/load.txt"
