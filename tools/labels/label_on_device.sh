#!/usr/bin/env bash
# A rollout-labelling burst on a many-core machine (the lent device machine: 16 CPU cores; the rollouts
# run on the CPU): `jumpgammon label` with WORKERS processes, no shard started after SECONDS (those
# started finish, for GRACE seconds at most: default 150), into $OUT/labels (./label_out without $OUT).
# The shards are then packed into one tar file beside the manifest and the command's JSON report
# (label.json: rows, seconds, rows per process-second). Uses runs/device/ from
# tools/labels/prepare_device.sh when there (the committed code and the bearoff databases); else the
# working tree and a database build.
# usage: tools/labels/label_on_device.sh WORKERS SECONDS --shards N [other jumpgammon label options, --out excepted]
set -uo pipefail
cd "$(dirname "$0")/../.."
[ $# -ge 2 ] || { echo "usage: $0 WORKERS SECONDS [label options]" >&2; exit 2; }
workers=$1
seconds=$2
shift 2
. tools/device_setup.sh label_out || exit 1  # out, python, code, the environment, the caches
cd "$code" || exit 1  # python puts the current folder first on its path: run from the code that is meant
echo "$(date +%T) cores $(nproc); $($python -c 'import numpy, numba; print("numpy", numpy.__version__, "numba", numba.__version__)')"
# compile the kernels once (numba's cache), and the databases if none came along, before the workers start
$python -m cli.main label --out /tmp/label-warmup --shards 1 --rows 2 --trials 2 --truncate 1 --pool-games 2 \
  --json > /dev/null || exit 1
echo "$(date +%T) warm"
# shards in flight at the stop get GRACE seconds to finish, then the run is stopped (finished shards are whole)
timeout --signal=INT "$((seconds + ${GRACE:-150}))" $python -m cli.main label --out "$out/labels" \
  --workers "$workers" --stop-after "$seconds" "$@" --json > "$out/label.json" 2> "$out/label.log"
status=$?
echo "$(date +%T) label exit $status"
cat "$out/label.json"
tail -c 600 "$out/label.log"
cp "$out/labels/manifest.json" "$out/manifest.json" 2>/dev/null
(cd "$out/labels" && tar czf ../shards.tar.gz labels_*.npz 2>/dev/null)
rm -rf "$out/labels"
ls -la "$out"
exit $status
