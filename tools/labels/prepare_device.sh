#!/usr/bin/env bash
# Make runs/device/ for tools/labels/label_on_device.sh: a clean copy of the committed packages (HEAD, so
# uncommitted edits in the working tree do not travel into the run) and the bearoff databases of this
# machine's cache, gzipped (about 27 MB: quicker to carry than to rebuild). runs/ is git-ignored; the
# device call carries the folder: run(..., carry=["runs/device"]).
# usage: tools/labels/prepare_device.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
dest=runs/device
rm -rf "$dest/code"
mkdir -p "$dest/code" "$dest/cache"
git archive HEAD engine nets cube players arena training benchmarks cli weights pyproject.toml | tar -x -C "$dest/code"
rm -rf "$dest/code/benchmarks/results" "$dest/code/benchmarks/data"
cache=${JUMPGAMMON_CACHE:-$HOME/.cache/jumpgammon}
python3 -c "from nets.bearoff import load_one_sided, load_two_sided; load_one_sided(); load_two_sided()" 2>/dev/null \
  || .venv/bin/python -c "from nets.bearoff import load_one_sided, load_two_sided; load_one_sided(); load_two_sided()"
for f in "$cache"/bearoff_*.npz; do
  [ -f "$dest/cache/$(basename "$f").gz" ] || gzip -1 -c "$f" > "$dest/cache/$(basename "$f").gz"
done
du -sh "$dest"
