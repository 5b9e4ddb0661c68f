#!/usr/bin/env bash
# Make runs/device/wheels for tools/service/load_test_on_device.sh: the serve extra (FastAPI, uvicorn and
# everything they need, at the versions installed in .venv) as wheels for the device machine's Python
# (3.12, x86-64), whose image lacks them and which reaches no package registry. tools/device_setup.sh
# installs them there. runs/ is git-ignored; the device call carries the folder:
# run(..., carry=["runs/device"]). (tools/labels/prepare_device.sh adds the bearoff databases to it.)
# usage: tools/service/prepare_device.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
dest=runs/device/wheels
mkdir -p "$dest"
# the extra's closure over the installed distributions, each pinned, markers read for Python 3.12
pins=$(.venv/bin/python - <<'PY'
from importlib import metadata

from packaging.requirements import Requirement

target = {"extra": "", "python_version": "3.12", "python_full_version": "3.12.3"}
todo, pinned = ["fastapi", "uvicorn"], {}
while todo:
    dist = metadata.distribution(todo.pop())
    name = dist.metadata["Name"].lower().replace("_", "-")
    if name not in pinned:
        pinned[name] = dist.version
        todo += [r.name for r in map(Requirement, dist.requires or []) if r.marker is None or r.marker.evaluate(target)]
print(" ".join(f"{name}=={version}" for name, version in sorted(pinned.items())))
PY
)
echo "wheels: $pins"
platforms=()
for tag in manylinux_2_28 manylinux_2_27 manylinux_2_17 manylinux2014 manylinux1; do
  platforms+=(--platform "${tag}_x86_64")
done
# shellcheck disable=SC2086  # one argument a pin
.venv/bin/python -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
  "${platforms[@]}" -d "$dest" $pins
du -sh "$dest"
