# The setup every tools/*/*_on_device.sh script shares; sourced from the repository root, before its work:
#   . tools/device_setup.sh DEFAULT_OUT [PACKAGE...]
# Sets `out` (the folder $OUT, else DEFAULT_OUT; made), `python` ($PYTHON, else python3) and `code`: the
# committed copy runs/device/code (tools/labels/prepare_device.sh) where it exists and holds every
# PACKAGE folder named, else the working tree. Exports PYTHONPATH, one thread for each math library,
# unbuffered Python, and JUMPGAMMON_CACHE (default /tmp/jumpgammon-cache), filled with the gzipped
# bearoff databases of runs/device/cache. The wheels of runs/device/wheels (an extra the device image
# lacks, as tools/service/prepare_device.sh downloads them) are installed into /tmp/device-site, on
# PYTHONPATH after the code; should they not install (another Python there), it says so on stderr and
# goes on, for the scripts that need none of them. The caller then runs from "$code" (python puts the
# current folder first on its path).
out=$(realpath -m "${OUT:-$1}")
python=${PYTHON:-python3}
code=$PWD
if [ -d runs/device/code ]; then
  code=$PWD/runs/device/code
  for package in "${@:2}"; do
    [ -d "runs/device/code/$package" ] || code=$PWD
  done
fi
export PYTHONPATH=$code OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 PYTHONUNBUFFERED=1
export JUMPGAMMON_CACHE=${JUMPGAMMON_CACHE:-/tmp/jumpgammon-cache}
mkdir -p "$out" "$JUMPGAMMON_CACHE"
for f in runs/device/cache/*.npz.gz; do
  [ -f "$f" ] && gunzip -c "$f" > "$JUMPGAMMON_CACHE/$(basename "$f" .gz)"
done
if compgen -G "runs/device/wheels/*.whl" > /dev/null; then
  $python -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/device-site \
    runs/device/wheels/*.whl && export PYTHONPATH=$PYTHONPATH:/tmp/device-site \
    || echo "tools/device_setup.sh: the wheels of runs/device/wheels did not install for $python" >&2
fi
true
