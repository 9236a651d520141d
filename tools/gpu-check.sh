#!/usr/bin/env bash
# gpu-check.sh: the GPU half of Moreau's checks (issue 17), in one run on a
# machine with an NVIDIA GPU, stage by stage, within about 8 minutes on one
# H100 with 16 cores:
#
#   1 the machine: GPU, driver, nvcc, cores
#   2 dependencies: libccd and qhull (the engine's only required libraries),
#     Lua 5.4 (the scene files of stage 6) and pkgconf, unpacked from the .debs in .gpudeps/debs into /tmp when the
#     machine lacks them (the device machines are bare and offline: the .debs
#     travel with the tree, fetched here by --prepare)
#   3 build: -Dcuda=enabled -Dgpu_arch=90 (H100/H200), what the GPU tests, the
#     benchmark and the scenes need (no viewer, URDF or mesh importers)
#   4 tests with MOREAU_REQUIRE_GPU=1 (a skip is a failure): gpu (the module's
#     self-test), gpu_solvers (every solver on the device against the CPU on
#     the scenes and the FCLIB problems), gpu_solvers_fake, ops
#   5 moreau-bench gpu: every GPU solver against the CPU (one thread, all
#     threads) on pile:1000 and piles sized for about 10^4 and 10^5 contacts
#   6 the Newton paper's arch and heavy stack with Newton + PCR on the device
#     and on the CPU: their claims (--check) and ms per step
#   7 (only when named in GPU_CHECK_STAGES) the per-operation profile of the
#     device's solves (MOREAU_CUDA_PROFILE=1) on pile:40000, into profile.txt
#     (GPU_CHECK_PROFILE_OWN=1: with the module's own kernels)
# Stages 4 and 5 also run gpu_solvers and the benchmark's device rows with
# MOREAU_CUDA_OWN_KERNELS=1 (the module's own CSR products and one-launch
# sums, which have not yet run on a GPU; docs/gpu.md).
#
# Usage:
#   tools/gpu-check.sh --prepare   here, with Debian's apt: fetch the .debs and
#                                  copy ../shared/data/fclib into .gpudeps/
#                                  (ignored by git; carry .gpudeps to the machine)
#   tools/gpu-check.sh OUTDIR      there: summary.md and results.tar.gz (the logs,
#                                  the benchmark's gpu.csv / gpu.svg / bench.txt)
# GPU_CHECK_STAGES="4 6" runs only those of stages 4-7 after the build (default 4 5 6; "diag":
# see below). GPU_CHECK_USE_DEBS=1 unpacks the carried .debs even where the libraries are
# installed (to try that path on the CPU machine).
# Exit status: 0 when every stage passed, else 1 (all stages still run).
set -uo pipefail
cd "$(dirname "$0")/.."
root=$PWD
debs=(libccd2 libccd-dev libqhull-r8.0 libqhull-dev libqhull8.0 libqhullcpp8.0 pkgconf pkgconf-bin libpkgconf3
      liblua5.4-0 liblua5.4-dev)

if [ "${1:-}" = "--prepare" ]; then
    mkdir -p .gpudeps/debs
    (cd .gpudeps/debs && apt-get download "${debs[@]}") || { echo "gpu-check: apt-get download failed"; exit 1; }
    rm -rf .gpudeps/fclib
    if [ -d ../shared/data/fclib ]; then cp -r ../shared/data/fclib .gpudeps/fclib; fi
    du -sh .gpudeps
    exit 0
fi
if [ $# -ne 1 ]; then
    sed -n '2,30p' "$0"
    exit 2
fi
out=$1
mkdir -p "$out"
out=$(cd "$out" && pwd)
status=0
stage() { echo "=== [$(date +%H:%M:%S), ${SECONDS}s] $*"; }
summary() { echo "$*" >> "$out/summary.md"; }
: > "$out/summary.md"
# every log, CSV and SVG goes to $res and, after each stage, into OUTDIR/results.tar.gz (a device machine
# returns 8 files at most)
res=/tmp/moreau-gpu-check
rm -rf "$res" && mkdir -p "$res"
pack() { tar czf "$out/results.tar.gz" -C "$res" . 2>/dev/null; }
summary "# gpu-check $(date -u +%Y-%m-%dT%H:%MZ), commit $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)"

stage "1 machine"
gpu=$(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null | head -1)
[ -n "$gpu" ] || gpu="none found (no nvidia-smi answer)"
echo "GPU: $gpu"
export PATH="/usr/local/cuda/bin:$PATH"
nv=$(nvcc --version 2>&1 | tail -1)
echo "nvcc: $nv; cores: $(nproc)"
summary "- GPU: $gpu; nvcc: $nv; $(nproc) cores"

stage "2 dependencies"
have() { command -v pkg-config >/dev/null && pkg-config --exists "$@"; }
if [ -n "${GPU_CHECK_USE_DEBS:-}" ] || ! have ccd qhull_r lua5.4; then
    if ! ls .gpudeps/debs/*.deb >/dev/null 2>&1; then
        echo "gpu-check: libccd/qhull missing and no .gpudeps/debs (run tools/gpu-check.sh --prepare here, carry .gpudeps)"
        summary "- dependencies: missing, no .debs carried"
        exit 1
    fi
    dep=/tmp/moreau-deps
    rm -rf $dep && mkdir -p $dep
    for f in .gpudeps/debs/*.deb; do dpkg -x "$f" $dep; done
    for pc in $dep/usr/lib/x86_64-linux-gnu/pkgconfig/*.pc $dep/usr/share/pkgconfig/*.pc; do
        [ -f "$pc" ] && sed -i "s|^prefix=/usr|prefix=$dep/usr|" "$pc"
    done
    export PKG_CONFIG="$dep/usr/bin/pkgconf"
    export PKG_CONFIG_PATH="$dep/usr/lib/x86_64-linux-gnu/pkgconfig:$dep/usr/share/pkgconfig"
    export LD_LIBRARY_PATH="$dep/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    export LIBRARY_PATH="$dep/usr/lib/x86_64-linux-gnu"
    # luaconf.h includes lua5.4-deb-multiarch.h from the multiarch include folder
    export CPATH="$dep/usr/include/x86_64-linux-gnu${CPATH:+:$CPATH}"
    export PATH="$dep/usr/bin:$PATH"
    echo "unpacked $(ls .gpudeps/debs/*.deb | wc -l) .debs into $dep"
    summary "- dependencies: libccd, qhull, Lua 5.4, pkgconf from the carried Debian 12 .debs"
else
    summary "- dependencies: found on the machine"
fi
# the tests read the FCLIB problems from ../shared/data/fclib
if [ ! -d ../shared/data/fclib ] && [ -d .gpudeps/fclib ]; then
    mkdir -p ../shared/data && ln -sfn "$root/.gpudeps/fclib" ../shared/data/fclib
fi

stage "3 build (-Dcuda=enabled -Dgpu_arch=90)"
rm -rf build-gpu
if meson setup build-gpu -Dcuda=enabled -Dgpu_arch=90 -Dviewer=disabled -Dlua=enabled -Durdf=disabled \
       -Dmeshes=disabled --buildtype=release > "$res/build.log" 2>&1 && ninja -C build-gpu >> "$res/build.log" 2>&1; then
    echo "built in ${SECONDS}s"
    summary "- build: ok"
else
    tail -40 "$res/build.log"
    summary "- build: FAILED (build.log)"
    exit 1
fi

# GPU_CHECK_STAGES=diag: after the build, only per-step records of the two scenes whose device runs
# drifted from the CPU's (heavy_stack with Newton, stack20 with Jacobi), device and CPU, into
# OUTDIR/diag.tar.gz (steps.csv, trajectory.csv, residuals.csv each), to compare on a machine without one
if [ "${GPU_CHECK_STAGES:-}" = diag ]; then
    stage "diag"
    d=build-gpu/diag && rm -rf $d && mkdir -p $d
    for b in cuda cpu; do
        build-gpu/tools/moreau-run scenes/heavy_stack.lua --set solver=newton --backend $b --steps 120 --quiet \
            --csv $d/heavy-$b-steps.csv --trajectory $d/heavy-$b-traj.csv --residuals $d/heavy-$b-res.csv 2>&1 | tail -2
        build-gpu/tools/moreau-run scenes/stack20.lua --set solver=jacobi --set solver.iterations=60 --backend $b \
            --steps 60 --quiet --csv $d/stack-$b-steps.csv --trajectory $d/stack-$b-traj.csv \
            --residuals $d/stack-$b-res.csv 2>&1 | tail -2
    done
    tar czf "$out/diag.tar.gz" -C build-gpu diag
    ls -la $d
    exit 0
fi

want() { case " ${GPU_CHECK_STAGES:-4 5 6} " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }

if want 4; then
stage "4 tests (MOREAU_REQUIRE_GPU=1)"
MOREAU_REQUIRE_GPU=1 meson test -C build-gpu gpu gpu_solvers gpu_solvers_fake ops --print-errorlogs \
    > "$res/tests.log" 2>&1
trc=$?
# each test once (meson repeats the failures in its summary)
grep -E "^ *[0-9]+/[0-9]+ " "$res/tests.log" | awk '!seen[$0]++'
# the device's own lines: the agreement figures and the worlds
grep -hE "^device:|solves on the device|cuda against cpu|max_diff|self-test" build-gpu/meson-logs/testlog.txt | head -20
if [ $trc -eq 0 ]; then summary "- tests: gpu, gpu_solvers, gpu_solvers_fake, ops passed"; else
    status=1
    summary "- tests: FAILED (tests.log)"
fi
summary '```'
grep -E "^ *[0-9]+/[0-9]+ " "$res/tests.log" | awk '!seen[$0]++' >> "$out/summary.md"
grep -hE "^device:|solves on the device|cuda against cpu" build-gpu/meson-logs/testlog.txt >> "$out/summary.md"
summary '```'
# the module's own products and one-launch sums (MOREAU_CUDA_OWN_KERNELS=1), until they become the default
MOREAU_CUDA_OWN_KERNELS=1 MOREAU_REQUIRE_GPU=1 meson test -C build-gpu gpu_solvers --print-errorlogs \
    > "$res/tests-own.log" 2>&1
trc=$?
echo "with MOREAU_CUDA_OWN_KERNELS=1:"
grep -E "^ *[0-9]+/[0-9]+ " "$res/tests-own.log" | awk '!seen[$0]++'
grep -hE "solves on the device|cuda against cpu" build-gpu/meson-logs/testlog.txt | head -20
if [ $trc -eq 0 ]; then summary "- tests with MOREAU_CUDA_OWN_KERNELS=1: gpu_solvers passed"; else
    status=1
    summary "- tests with MOREAU_CUDA_OWN_KERNELS=1: FAILED (tests-own.log)"
fi
summary '```'
grep -hE "solves on the device|cuda against cpu" build-gpu/meson-logs/testlog.txt >> "$out/summary.md"
summary '```'
pack
fi

if want 5; then
stage "5 moreau-bench gpu"
if build-gpu/tools/moreau-bench gpu --spheres 1000,4000,40000 --warmup 150 --steps 3 --out "$res" \
       > "$res/bench.txt" 2> "$res/bench.err"; then
    cat "$res/bench.txt"
    summary '```'
    cat "$res/bench.txt" >> "$out/summary.md"
    summary '```'
else
    tail -20 "$res/bench.err"
    summary "- moreau-bench gpu: FAILED (bench.err)"
    status=1
fi
pack
mkdir -p "$res/own"
if MOREAU_CUDA_OWN_KERNELS=1 build-gpu/tools/moreau-bench gpu --spheres 1000,4000,40000 --warmup 150 --steps 3 \
       --backends cuda --out "$res/own" > "$res/bench-own.txt" 2> "$res/bench-own.err"; then
    echo "with MOREAU_CUDA_OWN_KERNELS=1:"
    cat "$res/bench-own.txt"
    summary "with MOREAU_CUDA_OWN_KERNELS=1:"
    summary '```'
    cat "$res/bench-own.txt" >> "$out/summary.md"
    summary '```'
else
    tail -20 "$res/bench-own.err"
    summary "- moreau-bench gpu with MOREAU_CUDA_OWN_KERNELS=1: FAILED (bench-own.err)"
    status=1
fi
pack
fi

if want 6; then
stage "6 the Newton paper's scenes on the device (Newton + PCR, --check)"
summary '```'
for sc in arch heavy_stack; do
    for b in cuda cpu; do
        line=$(build-gpu/tools/moreau-run scenes/$sc.lua --set solver=newton --backend $b --check --quiet 2>&1)
        rc=$?
        echo "$line" > "$res/scene-$sc-$b.log"
        if echo "$line" | grep -qE '^checks:'; then
            msg="$sc newton $b: $(echo "$line" | grep -E '^checks:' | head -1); $(echo "$line" | grep -oE 'ms_per_step median=[0-9.]+'); $(echo "$line" | grep -oE 'steps_solved_on_device=[0-9]+')"
            fails=$(echo "$line" | grep -E '^check FAIL' | head -3 | tr '\n' ' ')
            [ -n "$fails" ] && msg="$msg; $fails"
        else
            msg="$sc newton $b: did not run: $(echo "$line" | tail -1)"
        fi
        echo "$msg"
        summary "$msg"
        [ $rc -eq 0 ] || status=1
    done
done
summary '```'
fi

if want 7; then
stage "7 where the device's time goes (MOREAU_CUDA_PROFILE=1, cuda only, pile:40000)"
mkdir -p build-gpu/profile
if MOREAU_CUDA_PROFILE=1 MOREAU_CUDA_OWN_KERNELS=${GPU_CHECK_PROFILE_OWN:-0} build-gpu/tools/moreau-bench gpu --spheres ${GPU_CHECK_PROFILE_SPHERES:-40000} --backends cuda \
       --warmup 150 --steps 3 --out build-gpu/profile > "$res/profile.txt" 2>&1; then
    grep -E "^moreau-cuda profile|^  |^gpu: pile" "$res/profile.txt" | head -80
    summary "- profile: profile.txt"
else
    tail -20 "$res/profile.txt"
    summary "- profile: FAILED (profile.txt)"
    status=1
fi
pack
fi

pack
stage "done, status $status"
exit $status
