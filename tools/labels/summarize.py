"""Summarise a rollout-label folder: its manifest's net and settings, and how far the labelling net's
stored 0-ply and 1-ply equities lie from the rollout labels (mean absolute error by class and reason).

usage: python tools/labels/summarize.py DIR [--out FILE.json]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from nets.weights import write_atomic
from training.rollout_labels import MANIFEST, equity_errors, read_labels


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("folder", type=Path)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    manifest = json.loads((args.folder / MANIFEST).read_text())
    data = read_labels(args.folder)
    summary = {
        "folder": str(args.folder),
        "labelling_net_sha256": manifest["identity"]["weights_sha256"],
        "identity": manifest["identity"],
        "counts": manifest["counts"],
        "net_0ply_against_labels": equity_errors(data, data.equity0),
        "net_1ply_against_labels": equity_errors(data, data.equity1),
    }
    text = json.dumps(summary, indent=1) + "\n"
    if args.out is not None:
        write_atomic(args.out, text.encode())
    print(text, end="")


if __name__ == "__main__":
    main()
