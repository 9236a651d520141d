#!/bin/sh
# Joins each TetGen pair of tests/tet/data (and scenes/models/tet) into one
# fuzz_tet input: the .node text, a line "%%ele", the .ele text
# (fuzz/fuzz_tet.c splits it back). Writes fuzz/corpus/tet/NAME.tg.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
out="$root/fuzz/corpus/tet"
mkdir -p "$out"
for node in "$root"/tests/tet/data/*.node "$root"/scenes/models/tet/*.node; do
    stem=${node%.node}
    name=$(basename "$stem")
    { cat "$node"; printf '%%%%ele\n'; [ -f "$stem.ele" ] && cat "$stem.ele"; } > "$out/$name.tg"
done
