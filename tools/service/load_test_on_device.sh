#!/usr/bin/env bash
# The service load test (docs/interop.md, "Load test") on the lent device machine's 16 CPU cores, in one
# call: `python -m benchmarks.service_load` with the batched and the unbatched server as WORKERS processes
# (default: the cores this process may use; 16 should a sandbox report 1) and their 64 clients split over
# CLIENT_PROCESSES processes (default 4), SECONDS a run (default 30); the one-at-a-time baseline stays one
# process. Writes $OUT/load_test.json and load_test.md (./load_test_out without $OUT), with the log.
# The device image lacks the serve extra: run tools/service/prepare_device.sh here first, then
#   run(command="tools/service/load_test_on_device.sh", carry=["runs/device"], timeout_s=420)
# usage: tools/service/load_test_on_device.sh [WORKERS [CLIENT_PROCESSES [SECONDS]]]   env: CLIENTS (64)
set -uo pipefail
cd "$(dirname "$0")/../.."
. tools/device_setup.sh load_test_out service || exit 1  # out, python, code, the environment, the wheels
cd "$code" || exit 1
cores=$($python -c 'import os; print(len(os.sched_getaffinity(0)))') || exit 1
default_workers=$cores
[ "$cores" -gt 1 ] || default_workers=16  # the device machine's cores, should its sandbox report one
workers=${1:-$default_workers}
client_processes=${2:-4}
seconds=${3:-30}
echo "$(date +%T) cores $cores (nproc says $(nproc) under OMP_NUM_THREADS=1); workers $workers, client processes $client_processes"
$python -c 'import fastapi, uvicorn, numba; print("fastapi", fastapi.__version__, "uvicorn", uvicorn.__version__, "numba", numba.__version__)' \
  || { echo "the serve extra is missing: run tools/service/prepare_device.sh and carry runs/device" >&2; exit 1; }
# the bearoff databases and numba's compiled kernels, once, before WORKERS processes would race to make them
$python -c "from nets.evaluator import load_evaluator; load_evaluator()" || exit 1
echo "$(date +%T) warm"
$python -m benchmarks.service_load --workers "$workers" --client-processes "$client_processes" \
  --clients "${CLIENTS:-64}" --seconds "$seconds" --out "$out" > "$out/load_test.log" 2>&1
status=$?
echo "$(date +%T) load test exit $status"
cat "$out/load_test.md" 2>/dev/null || tail -c 3000 "$out/load_test.log"
exit $status
