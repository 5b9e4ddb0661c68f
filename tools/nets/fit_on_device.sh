#!/usr/bin/env bash
# A supervised-fit burst on the lent device machine (16 CPU cores, one GPU): WORKERS processes label
# 1-ply self-play positions into separate folders (`supervised generate --seed i`) for GEN_SECONDS, then
# one `supervised fit --device DEVICE --encoding v2 --nets contact,crashed,race` from START on all of them.
# The candidate (cand.jgw), the fit's JSON (fit.json) and the generators' reports go to $OUT
# (./fit_out without $OUT). Uses runs/device/ from tools/labels/prepare_device.sh (the committed code and
# the bearoff databases) when there; START is a weights file grown beforehand, e.g. by
#   jumpgammon train --out runs/device/start.jgw --start weights/default.jgw --encoding v2 --crashed-net --games 2 --parallel 2
# usage: tools/nets/fit_on_device.sh START WORKERS GEN_SECONDS [fit options]
#   env: DEVICE (cuda), SHARD_GAMES (20), LABELLER (the shipped net)
set -uo pipefail
cd "$(dirname "$0")/../.."
[ $# -ge 3 ] || { echo "usage: $0 START WORKERS GEN_SECONDS [fit options]" >&2; exit 2; }
start=$(realpath "$1")
workers=$2
gen_seconds=$3
shift 3
. tools/device_setup.sh fit_out || exit 1  # out, python, code, the environment, the caches
labeller=${LABELLER:-$code/weights/default.jgw}
data=${DATA:-/tmp/fit-data}
cd "$code" || exit 1
echo "$(date +%T) cores $(nproc)"
# compile the kernels once (numba's cache) before the workers start
$python -m cli.main supervised generate --data /tmp/fit-warmup --shards 1 --shard-games 1 --parallel 1 --plies 1 \
  --json > /dev/null || exit 1
echo "$(date +%T) warm"
for i in $(seq 1 "$workers"); do
  timeout --signal=INT "$gen_seconds" $python -m cli.main supervised generate --data "$data/d_$i" --seed "$i" \
    --plies 1 --shards 1000 --shard-games "${SHARD_GAMES:-20}" --parallel "${SHARD_GAMES:-20}" \
    --weights "$labeller" --json > "$out/generate_$i.json" 2> /dev/null &
done
wait
echo "$(date +%T) generated: $(ls "$data"/d_*/shard_*.npz 2>/dev/null | wc -l) shards"
(cd "$data" && tar czf "$out/data.tar.gz" d_*)
folders=()
for d in "$data"/d_*; do
  ls "$d"/shard_*.npz > /dev/null 2>&1 && folders+=(--data "$d")
done
$python -m cli.main supervised fit "${folders[@]}" --start "$start" --out "$out/cand.jgw" \
  --device "${DEVICE:-cuda}" --encoding v2 --nets contact,crashed,race --threads 0 "$@" --json \
  > "$out/fit.json" 2> "$out/fit.log"
status=$?
echo "$(date +%T) fit exit $status"
tail -c 1500 "$out/fit.log"
head -c 1500 "$out/fit.json"
ls -la "$out"
exit $status
