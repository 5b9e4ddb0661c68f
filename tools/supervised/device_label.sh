#!/usr/bin/env bash
# Label 2-ply supervised data on a many-core machine (the lent device machine's 16 CPU cores): JOBS
# `supervised generate` processes, one per core, each its own data folder sup9_SEED (seeds SEED0 ..
# SEED0 + JOBS - 1), stopped after MINUTES (a shard in flight is lost; finished shards are whole),
# then packed four folders to a tar file in $OUT (or ./label_out). Each folder is a function of its
# seed and the shipped net, like every data set in docs/training.md; merge them under runs/supervised/.
# usage: tools/supervised/device_label.sh SEED0 JOBS MINUTES [GROUP_PLAYS]
set -uo pipefail
cd "$(dirname "$0")/../.."
[ $# -ge 3 ] || { echo "usage: $0 SEED0 JOBS MINUTES [GROUP_PLAYS]" >&2; exit 2; }
seed0=$1
jobs=$2
minutes=$3
group=${4:-3}
out=${OUT:-label_out}
work=${LABEL_WORK:-/tmp/label}
mkdir -p "$out" "$work"
python=${PYTHON:-python3}
export NUMBA_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 PYTHONPATH=$PWD
# build the bearoff databases once, before the jobs would race to
$python -c "from nets import load_evaluator; load_evaluator()" || exit 1
pids=()
for ((j = 0; j < jobs; j++)); do
  seed=$((seed0 + j))
  timeout --signal=TERM "$((minutes * 60))" $python -c "from cli.main import main; main()" supervised generate \
    --data "$work/sup9_$seed" --shards 1000 --shard-games 100 --parallel 100 --keep 0.05 --keep-race 0.1 \
    --decisions 0.3 --group-plays "$group" --plies 2 --seed "$seed" > "$work/gen_$seed.out" 2> "$work/gen_$seed.log" &
  pids+=($!)
done
wait "${pids[@]}"
cd "$work" || exit 1
folders=(sup9_*)
for ((i = 0; i < ${#folders[@]}; i += 4)); do
  tar czf "$out/label_$((seed0 + i)).tar.gz" "${folders[@]:i:4}"
done
for f in "${folders[@]}"; do echo "$f: $(ls "$f" | grep -c shard_) shards"; done
