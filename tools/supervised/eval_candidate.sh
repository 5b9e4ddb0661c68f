#!/usr/bin/env bash
# Score a candidate net as the learning table of docs/training.md does: 20,000 cubeless games in mirrored pairs
# against pubeval at seeds 101 and 102, saved, then paired against the shipped net's games on the
# same dice (played first when OUTDIR lacks them). Prints benchmarks.paired's JSON.
# usage: tools/supervised/eval_candidate.sh NAME WEIGHTS [OUTDIR]   (OUTDIR defaults to runs/supervised)
set -euo pipefail
cd "$(dirname "$0")/../.."
[ $# -ge 2 ] || { echo "usage: $0 NAME WEIGHTS [OUTDIR]" >&2; exit 2; }
name=$1
weights=$2
out=${3:-runs/supervised}
mkdir -p "$out"
play() {  # play SPEC TAG SEED: one 20,000-game tournament, its games saved as OUT/games_TAG.jsonl
  OMP_NUM_THREADS=1 NUMBA_NUM_THREADS=1 .venv/bin/jumpgammon tournament --a "$1" --b pubeval --games 20000 \
    --seed "$3" --workers 1 --save "$out/games_$2.jsonl" --json > "$out/t_$2.json" 2> "$out/t_$2.log"
}
for seed in 101 102; do
  suffix=""
  [ "$seed" = 102 ] && suffix="_s102"
  [ -s "$out/games_shipped$suffix.jsonl" ] || play net@0 "shipped$suffix" "$seed"
  play "net:$weights@0" "$name$suffix" "$seed"
done
.venv/bin/python -m benchmarks.paired "$out/games_shipped.jsonl" "$out/games_$name.jsonl" \
  "$out/games_shipped_s102.jsonl" "$out/games_${name}_s102.jsonl"
