#!/bin/bash
# The race net refitted on rollout labels of race positions, and its checks (docs/net-card.md).
#
# usage: tools/nets/race_candidate.sh OUT TRAIN_SHARDS [WORKERS]
#   OUT           folder for the candidate and its figures (runs/..., not a package)
#   TRAIN_SHARDS  shards of 64 training rows (72 trials each); the held-out set is 8 shards of 64 rows at 216 trials
# Every step resumes: the label folders keep their shards, and a rerun labels only what is missing.
set -euo pipefail
OUT=${1:?usage: race_candidate.sh OUT TRAIN_SHARDS [WORKERS]}
SHARDS=${2:?usage: race_candidate.sh OUT TRAIN_SHARDS [WORKERS]}
WORKERS=${3:-1}
J=${JUMPGAMMON:-jumpgammon}
HELD=runs/labels/race-heldout-s20261127
TRAIN=runs/labels/race-s201
mkdir -p "$OUT"
$J label --out "$HELD" --shards 8 --rows 64 --trials 216 --keep 0.001 --keep-race 1 --select random=1 \
    --seed 20261127 --workers "$WORKERS" --json > "$OUT/label_heldout.json"
$J label --out "$TRAIN" --shards "$SHARDS" --rows 64 --trials 72 --keep 0.001 --keep-race 1 \
    --select random=0.7,disagree=0.3 --seed 201 --workers "$WORKERS" --json > "$OUT/label_train.json"
$J supervised fit --data "$TRAIN" --exclude "$HELD" --start weights/default.jgw --nets race --lr 1e-4 \
    --epochs 30 --patience 3 --threads 1 --out "$OUT/race-rollouts.jgw" --json > "$OUT/fit.json"
$J bench labels --labels "$HELD" --weights "$OUT/race-rollouts.jgw" --against weights/default.jgw --json \
    > "$OUT/heldout_vs_shipped.json"
$J bench labels --labels "$HELD" --weights "$OUT/race-rollouts.jgw" --json > "$OUT/heldout_vs_gnubg0.json"
$J bench labels --labels "$HELD" --json > "$OUT/heldout_shipped_vs_gnubg0.json"


