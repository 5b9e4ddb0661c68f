"""``jumpgammon weights info|promote``: inspect a weights file; judge a candidate by the promotion rule and ship it."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from benchmarks.promotion import PromotionConfig, judge
from cli.common import add_json_argument, existing_file, fill_defaults, given_options, int_range
from cli.tournament import even_games
from engine.errors import JumpgammonError
from nets.evaluator import TRAINING_PREFIX, load_evaluator
from nets.weights import decode_weights, weights_digest, write_atomic
from training.checkpoint import promote
from weights import DEFAULT_WEIGHTS

EPILOG = """\
examples:
  jumpgammon weights info weights/default.jgw
  jumpgammon weights promote runs/candidate.jgw --games 4000 --seed 1
  jumpgammon weights promote runs/candidate.jgw --write
  jumpgammon weights promote runs/td.jgw --to runs/shipped-candidate.jgw

promote without --to applies the promotion rule: the candidate must beat the shipped net head to head
(cubeless money games at 0 ply, mirrored pairs) by at least 2 paired standard errors, and its 1-ply
'bench moves' error may be no worse than the shipped net's by more than one standard error. Only then,
and only with --write, is weights/default.jgw replaced (atomically); the old net is kept in --archive.
With --to FILE the run's nets are written to FILE as they are, without the rule."""

ARCHIVE = Path("results/nets")


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``weights`` subcommand."""
    p = sub.add_parser("weights", epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument(
        "action", choices=["info", "promote"], help="info FILE, or promote CANDIDATE (the promotion rule's verdict)"
    )
    p.add_argument("file", type=existing_file, metavar="FILE")
    p.add_argument(
        "--to", type=Path, default=None, help="promote: write the nets to this file as they are, without the rule"
    )
    p.add_argument("--games", type=even_games, default=None, help="promote: head-to-head games (default 4000)")
    p.add_argument("--seed", type=int_range(0, 2**63 - 1), default=None, help="promote: the games' seed (default 1)")
    p.add_argument(
        "--plies", type=int_range(0, 2), default=None, help="promote: lookahead of the move check (default 1)"
    )
    p.add_argument(
        "--shipped",
        type=existing_file,
        default=None,
        help="promote: the net to beat and replace (default: the shipped net)",
    )
    p.add_argument("--write", action="store_true", help="promote: replace the shipped net if the rule is met")
    p.add_argument(
        "--archive", type=Path, default=None, help=f"promote --write: where the old net is kept (default {ARCHIVE})"
    )
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


def replace_shipped(candidate: Path, shipped: Path, archive: Path) -> Path:
    """Keep ``shipped`` in ``archive`` (named by its digest), then write ``candidate``'s nets over it atomically.

    Returns the archived copy's path.
    """
    old = shipped.read_bytes()
    kept = archive / f"shipped-{weights_digest(shipped).removeprefix('sha256:')}.jgw"
    if not kept.exists():
        archive.mkdir(parents=True, exist_ok=True)
        write_atomic(kept, old)
    promote(candidate, shipped)
    return kept


def _judge(args: argparse.Namespace) -> int:
    """``weights promote CANDIDATE`` without --to: print the verdict, replace the shipped net with --write; 0."""
    if args.file.resolve() == args.shipped.resolve():
        raise JumpgammonError(f"promote {str(args.file)!r}: the candidate is the shipped net itself")
    describe(args.file)  # a broken candidate fails here, before any game
    cfg = PromotionConfig(args.file, args.shipped, args.games, args.seed, args.plies)
    verdict = judge(cfg, progress=not args.json)
    out = verdict.to_json()
    out["written"] = None
    if verdict.promote and args.write:
        out["archived"] = str(replace_shipped(args.file, args.shipped, args.archive))
        out["written"] = str(args.shipped)
    if args.json:
        print(json.dumps(out))
    else:
        print(("PROMOTE" if verdict.promote else "KEEP the shipped net") + f": {args.file} against {args.shipped}")
        for reason in verdict.reasons:
            print(f"  {reason}")
        if out["written"]:
            print(f"  {args.shipped} replaced; the old net is {out['archived']}")
        elif verdict.promote:
            print("  rerun with --write to replace it")
    return 0


# promote's options, and their defaults: ``weights info`` refuses any of them given (they were ignored).
PROMOTE_DEFAULTS: dict[str, Any] = {
    "to": None,
    "games": 4000,
    "seed": 1,
    "plies": 1,
    "shipped": DEFAULT_WEIGHTS,
    "write": False,
    "archive": ARCHIVE,
}


def run(args: argparse.Namespace) -> int:
    """Print the file's description, judge a candidate, or write its nets (without run state) to ``--to``; returns 0."""
    given = given_options(args, PROMOTE_DEFAULTS)
    if args.action == "info" and given:
        raise ValueError(f"weights info takes no {' or '.join(given)} (they belong to promote)")
    fill_defaults(args, PROMOTE_DEFAULTS)
    if args.to is not None and args.write:
        raise ValueError("give --to (write the nets without the rule) or --write (replace the shipped net), not both")
    if args.action == "promote" and args.to is None:
        return _judge(args)
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
