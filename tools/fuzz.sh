#!/usr/bin/env bash
# fuzz.sh: builds the libFuzzer targets of fuzz/ with clang under
# AddressSanitizer + UBSan and runs them (docs/fuzzing.md).
#
#   tools/fuzz.sh [--time SECONDS | --smoke SECONDS] [--jobs N] [--build DIR]
#                 [--findings DIR] [--keep-going] [TARGET...]
#
# TARGET: api scene urdf mesh tet fclib (default: every target the build has).
# --time S   fuzz each target S seconds (default 60), growing the corpus kept in
#            BUILD/fuzz-corpus/TARGET between runs
# --smoke S  the CI form: each target S seconds from its seeds alone (a fresh
#            corpus folder each time)
# --jobs N   targets run side by side (default 1)
# --build    the clang build folder (default build-fuzz; made when absent:
#            CC=clang, -Db_sanitize=address,undefined, -Dfuzz=enabled, -O1; only the
#            library and the fuzz targets are compiled)
# FUZZ_CC    the compiler (default: clang, else clang-14)
# --findings where crashes, leaks, timeouts and out-of-memory inputs go
#            (default BUILD/fuzz-findings/TARGET/)
# An input that runs over 5 s (-timeout=5) or makes the process hold over
# 1 GB (-rss_limit_mb=1024) counts as a failure. Prints libFuzzer's final
# "#N DONE cov: X ft: Y" figures per target and a summary; exits 1 when any
# target failed (or the build did), 0 otherwise.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

time_s=60
smoke=0
jobs=1
build=build-fuzz
findings=
targets=()
while [ $# -gt 0 ]; do
    case "$1" in
        --time) time_s=$2; shift 2 ;;
        --smoke) time_s=$2; smoke=1; shift 2 ;;
        --jobs) jobs=$2; shift 2 ;;
        --build) build=$2; shift 2 ;;
        --findings) findings=$2; shift 2 ;;
        -h|--help) sed -n '2,/^set -e/p' "$0" | sed '$d'; exit 0 ;;
        -*) echo "fuzz.sh: unknown option $1" >&2; exit 2 ;;
        *) targets+=("$1"); shift ;;
    esac
done
[ -n "$findings" ] || findings="$build/fuzz-findings"

# the clang build: the library and the fuzz targets only
clang=${FUZZ_CC:-}
[ -n "$clang" ] || clang=$(command -v clang || command -v clang-14 || true)
if [ -z "$clang" ]; then
    echo "fuzz.sh: clang not found (tools/install-deps.sh installs clang, clang-14 and libclang-rt-14-dev)" >&2
    exit 1
fi
t0=$(date +%s)
if [ ! -f "$build/build.ninja" ]; then
    # -O1 with line tables only (symbolised reports): compiles faster than debugoptimized's -O2 -g
    CC="$clang" meson setup "$build" -Db_sanitize=address,undefined -Db_lundef=false -Dfuzz=enabled \
        -Dbuildtype=plain -Dc_args="-O1 -gline-tables-only -fsanitize=fuzzer-no-link" \
        -Dcuda=disabled -Dviewer=disabled >"$build.setup.log" 2>&1 ||
        { cat "$build.setup.log" >&2; echo "fuzz.sh: meson setup failed" >&2; exit 1; }
fi
all=()
have=$(ninja -C "$build" -t targets all 2>/dev/null || true)
for t in api scene urdf mesh tet fclib; do
    case "$have" in *"fuzz/fuzz_$t: "*) all+=("$t") ;; esac
done
[ ${#targets[@]} -gt 0 ] || targets=("${all[@]}")
exes=()
for t in "${targets[@]}"; do
    case " ${all[*]} " in *" $t "*) exes+=("fuzz/fuzz_$t") ;;
        *) echo "fuzz.sh: no target '$t' in $build (have: ${all[*]})" >&2; exit 2 ;; esac
done
ninja -C "$build" "${exes[@]}" >"$build.ninja.log" 2>&1 || { tail -40 "$build.ninja.log" >&2; exit 1; }
t1=$(date +%s)
echo "fuzz.sh: build $build ready in $((t1 - t0)) s; targets: ${targets[*]}; ${time_s} s each$([ $smoke = 1 ] && echo ' (smoke)')"

# -entropic=0: libFuzzer 14's entropic schedule spends 60 % of the time in
# InputCorpus::UpdateFeatureFrequency on these targets (tens of thousands of
# features): fuzz_api ran 3 inputs/s with it, 37/s without (same coverage sooner)
# longest input libFuzzer makes, per target (the seeds fit: a .hdf5 seed is <= 128 KB)
max_len() {
    case "$1" in api) echo 4096 ;; fclib) echo 131072 ;; *) echo 32768 ;; esac
}

# seeds of a target into a folder: fuzz/corpus/T, fuzz/regressions/T, the files of fuzz/seeds/T.list
collect_seeds() { # $1 target, $2 folder
    local t=$1 dir=$2 f
    mkdir -p "$dir"
    for f in fuzz/corpus/"$t"/* fuzz/regressions/"$t"/*; do
        [ -f "$f" ] && case "$(basename "$f")" in README*) ;; *) cp "$f" "$dir/" ;; esac
    done
    if [ -f "fuzz/seeds/$t.list" ]; then
        while read -r f; do
            f=${f%%#*}; f=${f%"${f##*[![:space:]]}"}
            [ -n "$f" ] && [ -f "$f" ] && cp "$f" "$dir/seed_$(echo "$f" | tr '/.' '__')"
        done <"fuzz/seeds/$t.list"
    fi
    return 0
}

run_one() { # $1 target; writes $build/fuzz-logs/T.log and T.result
    local t=$1 corpus seeds log res art
    log="$build/fuzz-logs/$t.log"
    res="$build/fuzz-logs/$t.result"
    art="$findings/$t"
    mkdir -p "$art" "$build/fuzz-logs"
    seeds="$build/fuzz-seeds/$t"
    rm -rf "$seeds"
    collect_seeds "$t" "$seeds"
    if [ $smoke = 1 ]; then
        corpus=$(mktemp -d "${TMPDIR:-/tmp}/moreau-fuzz-corpus-$t.XXXXXX")
    else
        corpus="$build/fuzz-corpus/$t"
        mkdir -p "$corpus"
    fi
    local env=(ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:allocator_may_return_null=1
               UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 OMP_WAIT_POLICY=passive
               MOREAU_SCENES_DIR="$root/scenes")
    # leaks inside third-party libraries on malformed files, suppressed for one target each:
    # Assimp's ASCII STL importer (tests/import/lsan_assimp_stl_ascii.supp), libhdf5 (fuzz/lsan_hdf5.supp),
    # LLVM's OpenMP runtime's thread team at exit (fuzz/lsan_omp.supp)
    case "$t" in
        mesh) env+=(LSAN_OPTIONS=suppressions="$root/tests/import/lsan_assimp_stl_ascii.supp"
                    ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:allocator_may_return_null=1:fast_unwind_on_malloc=0) ;;
        fclib) env+=(LSAN_OPTIONS=suppressions="$root/fuzz/lsan_hdf5.supp") ;;
        api) env+=(LSAN_OPTIONS=suppressions="$root/fuzz/lsan_omp.supp") ;;
    esac
    local rc=0 start end stamp
    stamp="$build/fuzz-logs/$t.stamp"
    touch "$stamp"
    start=$(date +%s)
    env "${env[@]}" "$build/fuzz/fuzz_$t" -max_total_time="$time_s" -rss_limit_mb=1024 -timeout=5 \
        -max_len="$(max_len "$t")" -entropic=0 -close_fd_mask=1 -print_final_stats=1 -artifact_prefix="$art/" \
        "$corpus" "$seeds" >"$log" 2>&1 || rc=$?
    end=$(date +%s)
    local done_line runs cov ft ncorpus found
    done_line=$(grep -E '^#[0-9]+[[:space:]]+DONE' "$log" | tail -1 || true)
    runs=$(echo "$done_line" | sed -n 's/^#\([0-9]*\).*/\1/p')
    cov=$(echo "$done_line" | sed -n 's/.*cov: \([0-9]*\).*/\1/p')
    ft=$(echo "$done_line" | sed -n 's/.*ft: \([0-9]*\).*/\1/p')
    ncorpus=$(ls "$corpus" | wc -l)
    # the artifacts of this run (older ones stay in the folder)
    found=$(find "$art" -maxdepth 1 -type f -newer "$stamp" -printf '%f\n' 2>/dev/null |
            grep -E '^(crash|leak|timeout|oom|slow-unit)-' | head -3 | tr '\n' ' ' || true)
    [ $smoke = 1 ] && rm -rf "$corpus"
    local verdict=ok
    if [ $rc -ne 0 ] || [ -z "$done_line" ]; then verdict="FAIL (rc $rc) ${found:-see $log}"; fi
    printf '%-6s %5ss  runs %-9s cov %-6s ft %-7s corpus %-5s %s\n' "$t" "$((end - start))" "${runs:--}" \
        "${cov:--}" "${ft:--}" "$ncorpus" "$verdict" >"$res"
    echo "fuzz.sh: $(cat "$res")"
    [ "$verdict" = ok ]
}

rm -f "$build"/fuzz-logs/*.result 2>/dev/null || true
status=0
pids=()
for t in "${targets[@]}"; do
    run_one "$t" &
    pids+=($!)
    if [ ${#pids[@]} -ge "$jobs" ]; then
        wait "${pids[0]}" || status=1
        pids=("${pids[@]:1}")
    fi
done
for p in "${pids[@]}"; do wait "$p" || status=1; done
t2=$(date +%s)

echo
echo "target  time   runs            cov         ft            corpus  result"
for t in "${targets[@]}"; do cat "$build/fuzz-logs/$t.result" 2>/dev/null || echo "$t: no result"; done
echo "fuzz.sh: ${#targets[@]} targets, build $((t1 - t0)) s, fuzzing $((t2 - t1)) s; logs in $build/fuzz-logs," \
     "findings in $findings; $([ $status = 0 ] && echo 'no failure' || echo 'FAILURES')"
exit $status
