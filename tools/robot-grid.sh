#!/usr/bin/env bash
# robot-grid.sh: issue 19's robustness grid, the long form of test robot_scenes.
# Every robot scene (quadruped standing + trotting, double pendulum, arm6, the
# hand with the 0.1 kg and the 7.5 kg ball) under PGS 10/20/50/100, Jacobi,
# APGD and P-SPG-FB (50 iterations) and the Newton step, at h = 1/120 and
# 1/1000, each run to its scene's full length with its claims (moreau-run
# --check). The CI test runs the 1/120 half and a few 1/1000 cases; this runs
# all of them (a few minutes on 2 cores).
#
#   tools/robot-grid.sh [OUT.csv]     (default robot-grid.csv)
#   RUN=build-rel/tools/moreau-run tools/robot-grid.sh   (the moreau-run to use; default build/tools/moreau-run)
#
# CSV: scene,params,solver,iterations,h,passed,failed,seconds,failures
# (failures: the FAIL lines' check names and figures, ' | ' between them).
# Exit status 1 when any claim failed.
set -u
RUN=${RUN:-build/tools/moreau-run}
OUT=${1:-robot-grid.csv}
if [ ! -x "$RUN" ]; then
    echo "robot-grid.sh: $RUN is not built (ninja -C build tools/moreau-run)" >&2
    exit 2
fi
scenes=("quadruped.lua|" "double_pendulum.lua|" "arm6.lua|" "hand_grasp.lua|" "hand_grasp.lua|ball_mass=7.5")
solvers=("pgs:10" "pgs:20" "pgs:50" "pgs:100" "jacobi:50" "apgd:50" "spg:50" "newton:50")
steps=("0.008333333333333333" "0.001")
echo "scene,params,solver,iterations,h,passed,failed,seconds,failures" > "$OUT"
total=$(( ${#scenes[@]} * ${#solvers[@]} * ${#steps[@]} ))
n=0
bad=0
for sc in "${scenes[@]}"; do
    file=${sc%%|*}
    params=${sc#*|}
    for sv in "${solvers[@]}"; do
        kind=${sv%%:*}
        iters=${sv#*:}
        for h in "${steps[@]}"; do
            n=$((n + 1))
            args=(scenes/"$file" --check --quiet --solver "$kind" --iterations "$iters" --set "h=$h")
            [ -n "$params" ] && args+=(--set "$params")
            t0=$(date +%s.%N)
            log=$("$RUN" "${args[@]}" 2>&1)
            t1=$(date +%s.%N)
            secs=$(echo "$t1 - $t0" | bc)
            passed=$(echo "$log" | sed -n 's/^checks: \([0-9]*\) passed, \([0-9]*\) failed.*/\1/p')
            failed=$(echo "$log" | sed -n 's/^checks: \([0-9]*\) passed, \([0-9]*\) failed.*/\2/p')
            [ -z "$passed" ] && passed=0 && failed=-1
            fails=$(echo "$log" | grep '^check FAIL' | sed 's/^check FAIL: //; s/"/'"'"'/g' | paste -sd'|' - | sed 's/|/ | /g')
            [ "$failed" != 0 ] && bad=$((bad + 1))
            printf '%s,%s,%s,%s,%s,%s,%s,%.2f,"%s"\n' "$file" "$params" "$kind" "$iters" "$h" "$passed" "$failed" \
                "$secs" "$fails" >> "$OUT"
            printf '[%d/%d] %s %s %s %s h=%s: %s passed, %s failed (%.1f s)\n' "$n" "$total" "$file" "$params" "$kind" \
                "$iters" "$h" "$passed" "$failed" "$secs" >&2
        done
    done
done
echo "robot-grid.sh: $n runs, $bad with a failed claim; $OUT" >&2
[ "$bad" = 0 ]
