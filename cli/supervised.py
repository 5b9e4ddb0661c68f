"""``jumpgammon supervised generate|fit``: refine the nets on their own lookahead values (see training.supervised)."""

from __future__ import annotations

import argparse
import json

from cli.common import add_json_argument, existing_file, float_range, int_range, path_arg
from cli.train import encoding_name, hidden_widths
from engine.position import PhaseName
from nets.evaluator import ALL_NETS, PHASE_NETS


def _nets(text: str) -> tuple[str, ...]:
    names = tuple(n for n in text.split(",") if n)
    if not names or any(n not in ALL_NETS for n in names):
        raise argparse.ArgumentTypeError(f"expected phase nets from {','.join(ALL_NETS)}, got {text!r}")
    return names


GENERATE = (
    "0-ply self-play with --weights, a share of the positions labelled by the same net's --plies lookahead, "
    "written as seeded shards into --data (rerun to resume or to grow to --shards)."
)
FIT = (
    "start from --start, fit the contact and race nets (and a crashed net) to the targets of --data (validation "
    "split by game, early stopping) and write the candidate weights file --out."
)
EPILOG = """\
examples:
  jumpgammon supervised generate --data runs/sup --shards 4 --plies 1
  jumpgammon supervised fit --data runs/sup --out runs/candidate.jgw"""


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``supervised`` subcommand."""
    p = sub.add_parser(
        "supervised",
        description=f"generate: {GENERATE} fit: {FIT}",
        epilog=EPILOG,
    )
    p.set_defaults(func=run)
    # one parser per action, so an option of the other is refused by argparse, not ignored
    actions = p.add_subparsers(dest="action", required=True, metavar="{generate,fit}")
    g = actions.add_parser(
        "generate", help="self-play positions labelled by a lookahead, as shards", epilog=EPILOG, description=GENERATE
    )
    g.add_argument("--data", type=path_arg, action="append", required=True, help="the data folder the shards go to")
    add_json_argument(g)
    g.add_argument("--shards", type=int_range(1, 100_000), default=1, help="the data set's size in shards, in total")
    g.add_argument(
        "--weights", type=existing_file, default=None, help="the net that plays and labels (default shipped)"
    )
    g.add_argument("--shard-games", type=int_range(1, 1_000_000), default=1_000, help="self-play games per shard")
    g.add_argument("--parallel", type=int_range(1, 1 << 16), default=250, help="games in lockstep")
    g.add_argument(
        "--keep", type=float_range(0, 1, low_open=True), default=0.25, help="share of contact positions kept"
    )
    g.add_argument(
        "--keep-race", type=float_range(0, 1, low_open=True), default=0.5, help="share of race positions kept"
    )
    g.add_argument("--plies", type=int_range(0, 2), default=1, help="lookahead of the labels")
    g.add_argument("--exploration", type=float_range(0, 1), default=0.0, help="chance of a random move")
    g.add_argument("--seed", type=int_range(0, 2**63 - 1), default=1, help="the self-play games' seed")
    g.add_argument(
        "--decisions",
        type=float_range(0, 1),
        default=0.0,
        help="chance per position of keeping its roll's close plays (up to 8 within 0.16) as a decision group",
    )
    g.add_argument(
        "--group-plays",
        type=int_range(2, 8),
        default=8,
        help="a decision group's plays: at most the best N at 0-ply of those kept (fewer: more groups per label)",
    )
    g.add_argument(
        "--candidates",
        type=int_range(0, 100),
        default=0,
        help="per kept position, also keep its roll's runner-up plays ranked 2 to N+1 at 0-ply",
    )
    f = actions.add_parser(
        "fit", help="fit the nets to data folders' targets into a candidate", epilog=EPILOG, description=FIT
    )
    f.add_argument(
        "--data",
        type=path_arg,
        action="append",
        required=True,
        help="data folder (repeat to pool; 'jumpgammon label' folders of rollout labels are pooled too)",
    )
    add_json_argument(f)
    f.add_argument("--out", type=path_arg, default=None, help="the candidate weights file (not in weights/)")
    f.add_argument("--start", type=existing_file, default=None, help="weights to start from (default shipped)")
    f.add_argument("--widen-contact", type=hidden_widths, default=None, help="grow the contact net to these widths")
    f.add_argument("--widen-race", type=hidden_widths, default=None, help="grow the race net to these widths")
    f.add_argument("--widen-crashed", type=hidden_widths, default=None, help="grow the crashed net to these widths")
    f.add_argument(
        "--nets",
        type=_nets,
        default=PHASE_NETS,
        help="nets to train (default contact,race; add crashed for a crashed net, which starts as the contact "
        "net when --start has none)",
    )
    f.add_argument(
        "--encoding",
        type=encoding_name,
        default=None,
        help="the candidate's inputs, v1 or v2 (default --start's); a v1 start grows into v2 computing the same",
    )
    f.add_argument("--loss", choices=["mse", "xent"], default="mse")
    f.add_argument("--lr", type=float_range(0, 1, low_open=True), default=1e-4, help="Adam learning rate")
    f.add_argument("--batch", type=int_range(1, 1 << 20), default=128, help="positions per gradient step")
    f.add_argument("--epochs", type=int_range(1, 10_000), default=40, help="most epochs")
    f.add_argument("--patience", type=int_range(1, 1000), default=3, help="epochs without progress before stopping")
    f.add_argument(
        "--ranking",
        type=float_range(0, 1000),
        default=0.0,
        help="weight of the ranking loss on decision groups (equity differences between a roll's plays)",
    )
    f.add_argument(
        "--listwise",
        type=float_range(0, 1, low_open=True),
        default=None,
        metavar="TEMPERATURE",
        help="make the ranking loss listwise: the KL divergence of the net's choice distribution from the "
        "labels' (softmax of equities over TEMPERATURE, e.g. 0.02), not squared equity differences",
    )
    f.add_argument("--validation", type=float_range(0, 1, low_open=True, high_open=True), default=0.1)
    f.add_argument(
        "--seed", type=int_range(0, 2**63 - 1), default=1, help="the fit's seed (validation split, shuffling)"
    )
    f.add_argument("--threads", type=int_range(0, 1024), default=1, help="torch threads (0: torch's default)")
    f.add_argument(
        "--label-weight",
        type=float_range(0, 1000, low_open=True),
        default=1.0,
        help="loss weight of each rollout-label row, a self-play shard row weighing 1 (default 1)",
    )
    f.add_argument(
        "--exclude",
        type=path_arg,
        action="append",
        default=[],
        help="held-out folder (labels or shards; repeatable): its boards are left out of the fit (default none)",
    )
    f.add_argument(
        "--device",
        choices=["cpu", "cuda"],
        default="cpu",
        help="where the nets and batches live while fitting (cuda: the GPU, an error without one; default cpu)",
    )


def run(args: argparse.Namespace) -> int:
    """Generate data or fit a candidate and report it; returns 0."""
    # Imported here so that torch loads only for this command.
    from engine.errors import JumpgammonError
    from training.label_fit import fit_with_labels, split_folders
    from training.supervised.data import GenerateConfig, generate
    from training.supervised.fit import Device, FitConfig
    from training.supervised.losses import Loss

    if args.action == "generate":
        if len(args.data) != 1:  # appended, so that a second folder is refused rather than silently kept
            raise JumpgammonError("generate writes one --data folder")
        gen = GenerateConfig(
            data=args.data[0],
            shards=args.shards,
            weights=args.weights,
            shard_games=args.shard_games,
            parallel_games=args.parallel,
            keep=args.keep,
            keep_race=args.keep_race,
            plies=args.plies,
            exploration=args.exploration,
            seed=args.seed,
            candidates=args.candidates,
            decisions=args.decisions,
            group_plays=args.group_plays,
        )
        result = generate(gen, progress=True).to_json()
        positions = result["positions"]
        text = (
            f"{gen.data}: {result['shards']} shards, {positions[PhaseName.CONTACT]:,} contact and "
            f"{positions[PhaseName.RACE]:,} race positions ({result['made']} shards made in {result['seconds']} s)"
        )
    else:
        if args.out is None:
            raise JumpgammonError("fit needs --out, the candidate weights file")
        widths = (
            (PhaseName.CONTACT, args.widen_contact),
            (PhaseName.RACE, args.widen_race),
            (PhaseName.CRASHED, args.widen_crashed),
        )
        widen: dict[str, tuple[int, ...]] = {name: w for name, w in widths if w is not None}
        shard_folders, label_folders = split_folders(tuple(args.data))
        cfg = FitConfig(
            data=shard_folders,
            out=args.out,
            start=args.start,
            widen=widen,
            nets=args.nets,
            encoding=args.encoding,
            loss=Loss(args.loss),
            learning_rate=args.lr,
            batch_size=args.batch,
            max_epochs=args.epochs,
            patience=args.patience,
            validation=args.validation,
            ranking=args.ranking,
            listwise=args.listwise,
            seed=args.seed,
            threads=args.threads,
            device=Device(args.device),
            labels=label_folders,
            label_weight=args.label_weight,
            exclude=tuple(args.exclude),
        )
        result = fit_with_labels(cfg, progress=True).to_json()
        text = f"{cfg.out}: " + "; ".join(
            f"{name} validation loss {r['validation_before']:.6f} -> {r['validation_best']:.6f} "
            f"(epoch {r['best_epoch']})"
            for name, r in result["nets"].items()
        )
    print(json.dumps(result) if args.json else text)
    return 0
