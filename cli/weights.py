"""``jumpgammon weights info|promote``: inspect a weights file; judge a candidate by the promotion rule and ship it."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from benchmarks.promotion import PromotionConfig, judge
from cli.common import add_json_argument, check_output_file, existing_file, int_range, path_arg
from cli.tournament import even_games
from engine.errors import JumpgammonError
from nets.evaluator import TRAINING_PREFIX, load_evaluator
from nets.volnet import VOLNET_KIND, load_volatility_net
from nets.weights import decode_weights, weights_digest, write_atomic
from training.checkpoint import promote
from weights import DEFAULT_WEIGHTS, in_shipped_folder

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
#: ``kind`` of :func:`describe` for the evaluator's nets (a local-volatility net has its own, nets.volnet's)
EVALUATOR_KIND = "evaluator"


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``weights`` subcommand."""
    p = sub.add_parser("weights", epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.set_defaults(func=run)
    # one parser per action, so promote's options given to info are refused by argparse, not ignored
    actions = p.add_subparsers(dest="action", required=True, metavar="{info,promote}")
    info = actions.add_parser("info", help="describe a weights file (evaluator or volatility net)")
    info.add_argument("file", type=existing_file, metavar="FILE")
    add_json_argument(info)
    promote = actions.add_parser(
        "promote",
        help="the promotion rule's verdict on CANDIDATE; --write ships it, --to copies its nets",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    promote.add_argument("file", type=existing_file, metavar="CANDIDATE")
    promote.add_argument(
        "--to", type=path_arg, default=None, help="write the nets to this file as they are, without the rule"
    )
    promote.add_argument("--games", type=even_games, default=4000, help="head-to-head games (default 4000)")
    promote.add_argument("--seed", type=int_range(0, 2**63 - 1), default=1, help="the games' seed (default 1)")
    promote.add_argument("--plies", type=int_range(0, 2), default=1, help="lookahead of the move check (default 1)")
    promote.add_argument(
        "--shipped",
        type=existing_file,
        default=DEFAULT_WEIGHTS,
        help="the net to beat and replace (default: the shipped net)",
    )
    promote.add_argument("--write", action="store_true", help="replace the shipped net if the rule is met")
    promote.add_argument(
        "--archive", type=path_arg, default=ARCHIVE, help=f"with --write: where the old net is kept (default {ARCHIVE})"
    )
    add_json_argument(promote)


def describe(path: Path) -> dict[str, Any]:
    """Architecture, training progress and saved run state of a weights file (validated in full): an evaluator's
    nets, or a local-volatility net's (``kind`` says which)."""
    header, tensors = decode_weights(path.read_bytes(), str(path))
    if header.get("kind") == VOLNET_KIND:
        return _describe_volatility_net(path, header)
    load_evaluator(path, bearoff=False)  # the nets themselves must load
    run = header.get("run", {})
    return {
        "file": str(path),
        "kind": EVALUATOR_KIND,
        "encoding": header.get("encoding"),
        "nets": header.get("nets"),
        "games": run.get("state", {}).get("games"),
        "trainer": run.get("trainer"),
        # a supervised fit's positions per net (training, validation); None for a self-play run
        "positions": run.get("data", {}).get("positions") if isinstance(run.get("data"), dict) else None,
        "run_state_saved": any(k.startswith(TRAINING_PREFIX) for k in tensors),
    }


def _describe_volatility_net(path: Path, header: dict[str, Any]) -> dict[str, Any]:
    """:func:`describe` of a local-volatility net (experiment 5): its nets, target and the fit's rows per net."""
    load_volatility_net(path)  # the nets themselves must load
    run = header.get("run", {})
    summary = run.get("records_summary", {}) if isinstance(run, dict) else {}
    return {
        "file": str(path),
        "kind": VOLNET_KIND,
        "encoding": header.get("encoding"),
        "nets": header.get("nets"),
        "games": None,
        "trainer": "local-volatility",
        "target": header.get("target"),
        "positions": {
            name: {"train": rec.get("rows"), "validation": rec.get("validation_rows")}
            for name, rec in summary.items()
            if isinstance(rec, dict)
        },
        "run_state_saved": False,
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


def _check_to(to: Path, candidate: Path) -> None:
    """Refuse, before any work, a ``--to`` file that cannot be written, is the candidate itself (its run state would
    be lost) or lies in the shipped weights folder (the rule and the archive would be bypassed)."""
    check_output_file(to, "--to")
    if to.exists() and to.resolve() == candidate.resolve():
        raise ValueError(f"--to {str(to)!r} is the candidate itself; write its nets to another file")
    if in_shipped_folder(to):
        raise ValueError(
            f"--to {str(to)!r} is in the shipped weights folder; replace the shipped net with --write, "
            "which applies the promotion rule and keeps the old net"
        )


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


def run(args: argparse.Namespace) -> int:
    """Print the file's description, judge a candidate, or write its nets (without run state) to ``--to``; returns 0."""
    if args.action == "promote":
        if args.to is not None and args.write:
            raise ValueError(
                "give --to (write the nets without the rule) or --write (replace the shipped net), not both"
            )
        if args.to is not None:
            _check_to(args.to, args.file)
        if describe(args.file)["kind"] != EVALUATOR_KIND:
            raise ValueError(f"promote {str(args.file)!r}: a local-volatility net, not an evaluator's nets")
        if args.to is None:
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
    if info.get("target"):
        rows.append(("target", info["target"]))
    rows.append(("run state", "saved (training can resume from this file)" if info["run_state_saved"] else "none"))
    if "promoted_to" in info:
        rows.append(("promoted to", info["promoted_to"]))
    return "\n".join(f"{label:<14} {value}" for label, value in rows)
