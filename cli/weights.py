"""``jumpgammon weights info|promote``: inspect a weights file; make a run's nets the shipped ones."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from cli.common import add_json_argument, existing_file
from nets.evaluator import TRAINING_PREFIX, load_evaluator
from nets.weights import decode_weights
from training.checkpoint import promote
from weights import DEFAULT_WEIGHTS

EPILOG = """\
examples:
  jumpgammon weights info weights/default.jgw
  jumpgammon weights promote runs/td.jgw --to runs/shipped-candidate.jgw"""


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``weights`` subcommand."""
    p = sub.add_parser("weights", epilog=EPILOG)
    p.add_argument("action", choices=["info", "promote"], help="info FILE, or promote RUN (replaces the shipped net)")
    p.add_argument("file", type=existing_file, metavar="FILE")
    p.add_argument("--to", type=Path, default=DEFAULT_WEIGHTS, help="where promote writes (default: the shipped net)")
    add_json_argument(p)
    p.set_defaults(func=run)


def describe(path: Path) -> dict[str, Any]:
    """Architecture, training progress and saved run state of a weights file (validated in full)."""
    header, tensors = decode_weights(path.read_bytes(), str(path))
    load_evaluator(path, bearoff=False)  # the nets themselves must load
    run = header.get("run", {})
    return {
        "file": str(path),
        "encoding": header.get("encoding"),
        "nets": header.get("nets"),
        "games": run.get("state", {}).get("games"),
        "trainer": run.get("trainer"),
        # a supervised fit's positions per net (training, validation); None for a self-play run
        "positions": run.get("data", {}).get("positions") if isinstance(run.get("data"), dict) else None,
        "run_state_saved": any(k.startswith(TRAINING_PREFIX) for k in tensors),
    }


def run(args: argparse.Namespace) -> int:
    """Print the file's description, or write its nets (without run state) to ``--to``; returns 0."""
    info = describe(args.file)
    if args.action == "promote":
        promote(args.file, args.to)
        info["promoted_to"] = str(args.to)
    if args.json:
        print(json.dumps(info))
    elif args.action == "promote":
        made = f"{info['games'] or 0:,} games" if info["positions"] is None else f"{info['trainer']} fit"
        print(f"{args.file} ({made}) is now {args.to}")
    else:
        print(format_info(info))
    return 0


def format_info(info: dict[str, Any]) -> str:
    """The description of :func:`describe` as aligned lines of text (no Python dicts, no None)."""
    rows = [("file", info["file"]), ("encoding", info["encoding"] or "unknown")]
    for name, net in (info["nets"] or {}).items():
        widths = " x ".join(str(w) for w in net.get("hidden", []))
        rows.append((f"{name} net", f"{net.get('n_inputs', '?')} inputs, hidden layers {widths}"))
    if info["positions"] is None:
        games = info["games"]
        rows.append(("made by", f"{info['trainer'] or 'an unknown trainer'}" + (f", {games:,} games" if games else "")))
    else:
        rows.append(("made by", f"{info['trainer'] or 'an unknown trainer'} fit"))
        for name, counts in info["positions"].items():
            parts = [f"{counts[k]:,} {k.replace('_', ' ')}" for k in ("train", "validation") if k in counts]
            groups = [f"{counts[k]:,}" for k in ("groups_train", "groups_validation") if k in counts]
            text = " and ".join(parts) + " positions" + (f" ({' and '.join(groups)} decision groups)" if groups else "")
            rows.append((f"{name} data", text))
    rows.append(("run state", "saved (training can resume from this file)" if info["run_state_saved"] else "none"))
    if "promoted_to" in info:
        rows.append(("promoted to", info["promoted_to"]))
    return "\n".join(f"{label:<14} {value}" for label, value in rows)
