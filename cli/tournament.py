"""``jumpgammon tournament --a SPEC --b SPEC --games N``: mirrored money games, cubeless or cubeful; ppg and SE.

With ``--match-length N --matches M``: mirrored N-point matches with the Crawford rule; A's match-winning
percentage and its SE.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

from arena import PlayerSpec, Rules, TournamentConfig, TournamentResult, run_tournament, save_games
from arena.luck import LUCK_SCREEN
from arena.mat import write_mat_files
from arena.matches import MAX_MATCH_LENGTH
from arena.stats import Equivalence
from arena.tournament import BLOCK_PAIRS, plural
from cli.common import (
    CUBE_SPEC_RULE,
    add_json_argument,
    check_output_file,
    float_range,
    int_range,
    path_arg,
    plays_cubeful,
)
from cube.met import DEFAULT_MET
from players import PLAYER_SPECS
from players.cube import CUBE_SPECS
from players.match_cube import match_cube_specs


def even_games(text: str) -> int:
    """An argparse type for an even number of games or matches, at least 2 (mirrored pairs)."""
    value = int_range(2, 100_000_000)(text)
    if value % 2:
        raise argparse.ArgumentTypeError(f"expected an even number (they come in mirrored pairs), got {text!r}")
    return value


DEFAULT_GAMES = 2000
DEFAULT_MATCHES = 200


EPILOG = """\
examples:
  jumpgammon tournament --a net@0 --b pubeval --games 2000
  jumpgammon tournament --a net@0 --a-cube jump-local --b net@0 --b-cube janowski:0.7 --games 2000
  jumpgammon tournament --a net@0 --b gnubg@0 --games 20000 --workers 2 --checkpoint runs/net-gnubg.ledger
  jumpgammon tournament --a net@0 --a-cube jump-match --b net@0 --b-cube janowski:0.7 --match-length 7 --matches 200

A cube spec other than none plays with the cube (as --cubeful does); --cubeful alone plays with the cube
while both specs are none (no one doubles). --jacoby and --beavers are cube rules: they need the cube.
Ctrl-C stops a run: with --checkpoint the finished blocks are kept and the same command resumes."""


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``tournament`` subcommand."""
    p = sub.add_parser(
        "tournament",
        description=(
            "Play mirrored money games (each dice sequence twice, seats swapped) between players A and B "
            f"in lockstep batches. Player specs: {PLAYER_SPECS}. Cube specs: {CUBE_SPECS}; {CUBE_SPEC_RULE}. "
            "With --match-length N: mirrored N-point matches with the Crawford rule (no Jacoby, no beavers), "
            f"the cube specs then being match cube specs: {match_cube_specs()}."
        ),
        epilog=EPILOG,
    )
    p.add_argument("--a", required=True, metavar="SPEC", help="player A, e.g. net@0, net:runs/x.jgw@2, pubeval")
    p.add_argument("--a-cube", default="none", metavar="CUBE", help="A's cube strategy")
    p.add_argument("--b", required=True, metavar="SPEC", help="player B")
    p.add_argument("--b-cube", default="none", metavar="CUBE", help="B's cube strategy")
    p.add_argument(
        "--games", type=even_games, default=None, help=f"money games, an even number (default: {DEFAULT_GAMES})"
    )
    p.add_argument(
        "--match-length",
        type=int_range(1, MAX_MATCH_LENGTH),
        default=None,
        metavar="N",
        help="play N-point matches instead of money games",
    )
    p.add_argument(
        "--matches", type=even_games, default=None, help=f"matches, an even number (default: {DEFAULT_MATCHES})"
    )
    p.add_argument(
        "--met", default=None, metavar="NAME", help=f"the players' match equity table (default: {DEFAULT_MET})"
    )
    p.add_argument("--seed", type=int_range(0, 2**63 - 1), default=0, help="seed of the dice")
    p.add_argument("--cubeful", action="store_true", help="play with the cube even when both cube specs are none")
    p.add_argument("--jacoby", action="store_true", help="Jacoby rule: gammons count only after a double")
    p.add_argument("--beavers", action="store_true", help="allow beavers")
    p.add_argument("--workers", type=int_range(1, 256), default=1, help="processes on this machine")
    p.add_argument("--ray", metavar="auto|local|ADDRESS", default=None, help="run the blocks as Ray tasks")
    p.add_argument("--no-compare-cube", action="store_true", help="do not count cube disagreements")
    p.add_argument(
        "--luck",
        nargs="?",
        const="",
        default=None,
        metavar="WEIGHTS",
        help="also report the luck-adjusted ppg (in matches: MWC), each roll's luck judged by the shipped net (or "
        "WEIGHTS) at 0 ply, as rollouts do; unbiased, with a smaller SE, at the cost of a 21-roll evaluation a move",
    )
    p.add_argument(
        "--luck-screen",
        type=int_range(0, 64),
        default=None,
        metavar="N",
        help=f"with --luck: judge each roll's best of pubeval's top N plays; 0: of every play (default {LUCK_SCREEN})",
    )
    p.add_argument(
        "--equivalence",
        type=float_range(0.0, 1.0, low_open=True, high_open=True),
        default=None,
        metavar="MARGIN",
        help="also test that A and B are level within +-MARGIN ppg (in matches: MWC) by two one-sided tests at "
        "level 0.05 (the 90%% interval inside the margin), on the luck-adjusted figure with --luck",
    )
    p.add_argument(
        "--until-se",
        type=float_range(0.0, 1.0, low_open=True, high_open=True),
        default=None,
        metavar="SE",
        help="stop after the first block at which A's SE (luck-adjusted with --luck) is at most SE ppg (in matches: "
        "MWC), once 1,000 games (matches) are in; --games is then the most played. The rule looks at the SE only",
    )
    p.add_argument(
        "--block-pairs",
        type=int_range(1, 65536),
        default=BLOCK_PAIRS,
        metavar="N",
        help="mirrored pairs per lockstep block, the unit a checkpoint keeps (smaller for slow players)",
    )
    p.add_argument(
        "--checkpoint",
        type=path_arg,
        default=None,
        metavar="FILE",
        help="keep finished blocks in FILE; the same command resumes a stopped run",
    )
    p.add_argument("--save", type=path_arg, default=None, metavar="FILE", help="write every game as JSON lines")
    p.add_argument(
        "--mat",
        type=path_arg,
        default=None,
        metavar="DIR",
        help="write every game as Jellyfish .mat files (one a pair; one a match with --match-length)",
    )
    add_json_argument(p)
    p.set_defaults(func=run)


def _check_output(path: Path | None, option: str, folder: bool) -> None:
    """Refuse an output path that cannot be written, before any game is played."""
    if path is None:
        return
    if not folder:
        check_output_file(path, option)
        return
    if path.exists() and not path.is_dir():
        raise ValueError(f"{option} {str(path)!r} is not a folder")
    parent = path if folder and path.is_dir() else path.parent
    if not parent.is_dir():
        raise ValueError(f"{option} {str(path)!r}: folder {str(parent)!r} does not exist")


def _check_match_options(args: argparse.Namespace) -> None:
    """Refuse options that do not go with money games or with matches, or the cube rules without the cube."""
    if args.match_length is None:
        for value, option in ((args.matches, "--matches"), (args.met, "--met")):
            if value is not None:
                raise ValueError(f"{option} needs --match-length")
        if not plays_cubeful(args.cubeful, args.a_cube, args.b_cube):
            for value, option in ((args.jacoby, "--jacoby"), (args.beavers, "--beavers")):
                if value:
                    raise ValueError(f"{option} is a cube rule: play with the cube (--cubeful or a cube spec)")
        return
    for value, option in (
        (args.games, "--games (money games; count matches with --matches)"),
        (args.jacoby or None, "--jacoby"),
        (args.beavers or None, "--beavers"),
    ):
        if value is not None:
            raise ValueError(f"--match-length cannot be combined with {option}")


def run(args: argparse.Namespace) -> int:
    """Play the tournament (money games, or with --match-length matches) and report from A's view; returns 0."""
    _check_match_options(args)
    _check_output(args.save, "--save", folder=False)
    _check_output(args.mat, "--mat", folder=True)
    matches = args.match_length is not None
    cfg = TournamentConfig(
        a=PlayerSpec(args.a, args.a_cube),
        b=PlayerSpec(args.b, args.b_cube),
        games=(args.matches or DEFAULT_MATCHES) if matches else (args.games or DEFAULT_GAMES),
        seed=args.seed,
        rules=Rules(cubeful=True)
        if matches
        else Rules(
            cubeful=plays_cubeful(args.cubeful, args.a_cube, args.b_cube), jacoby=args.jacoby, beavers=args.beavers
        ),
        compare_cube=not args.no_compare_cube,
        block_pairs=args.block_pairs,
        match_length=args.match_length,
        met=args.met or DEFAULT_MET,
        luck_weights=args.luck,
        luck_screen=_luck_screen(args),
    )
    cfg.luck_evaluator()  # a bad --luck weights file fails here, before any game
    margin = args.equivalence
    record = args.save is not None or args.mat is not None
    _check_output(args.checkpoint, "--checkpoint", folder=False)
    result, blocks = run_tournament(
        cfg,
        workers=args.workers,
        ray_address=args.ray,
        record=record,
        checkpoint=args.checkpoint,
        until_se=args.until_se,
    )
    started = time.perf_counter()
    if args.save is not None:
        save_games(args.save, result, blocks)
    if args.mat is not None:
        write_mat_files(args.mat, result, blocks, progress=True)
    written = _written(args, time.perf_counter() - started)
    equivalence = result.equivalence(margin) if margin is not None else None
    untested = f"the result has no SE ({NO_SE})"
    if args.json:
        extra: dict[str, Any] = {}
        if margin is not None:
            extra["equivalence"] = (
                equivalence.to_json()
                if equivalence is not None
                else {"margin": margin, "equivalent": None, "not_tested": untested}
            )
        print(json.dumps({**result.to_json(), **extra, **({"files": written} if written else {})}))
    else:
        print(format_result(result))
        if equivalence is not None:
            print(_equivalence_line(equivalence, result))
        elif margin is not None:
            print(f"  equivalence within +-{margin:g}: not tested, {untested}")
        if written:
            print(f"  {', '.join(written['paths'])} written in {written['seconds']:.1f} s")
    return 0


def _luck_screen(args: argparse.Namespace) -> int | None:
    """The luck screen asked for (None: every play, or no luck); ValueError for --luck-screen without --luck."""
    if args.luck is None:
        if args.luck_screen is not None:
            raise ValueError(f"--luck-screen {args.luck_screen} needs --luck")
        return None
    return (LUCK_SCREEN if args.luck_screen is None else args.luck_screen) or None


def _written(args: argparse.Namespace, seconds: float) -> dict[str, Any] | None:
    """The files of --save and --mat and the seconds they took to write (None when neither was asked)."""
    paths = [str(path) for path in (args.save, getattr(args, "mat", None)) if path is not None]
    return {"paths": paths, "seconds": round(seconds, 3)} if paths else None


def _count(n: int, word: str) -> str:
    """``n`` things, the word in the number it needs ("1 mirrored pair", "2 backgammons")."""
    return f"{n:,} {plural(word, n)}"


#: Why a result can have no SE, which the two one-sided tests need.
NO_SE = "a single pair, or every pair scored alike"


def _equivalence_line(e: Equivalence, r: TournamentResult) -> str:
    """The two one-sided tests' verdict, their 90% interval and p-value, in ppg or MWC points."""
    unit = "ppg" if r.match_length is None else "MWC"
    on = "luck-adjusted" if r.adjusted is not None else "raw"
    verdict = "level within the margin" if e.equivalent else "not shown level within the margin"
    return (
        f"  equivalence (two one-sided tests, {on}): {verdict} of +-{e.margin:g} {unit}; "
        f"{round(100 * (1 - 2 * e.alpha))}% interval [{e.ci[0]:+.4f}, {e.ci[1]:+.4f}], p = {e.p:.3g}"
    )


def _stopping_lines(r: TournamentResult) -> list[str]:
    """Where a run with a target SE stopped (or that it played them all without reaching it); [] without one."""
    if r.stopping is None:
        return []
    target, most = r.stopping
    played = r.matches if r.matches is not None else r.games
    se = r.adjusted.se if r.adjusted is not None else r.se
    reached = "reached" if se is not None and se <= target else "not reached"
    return [f"  --until-se {target:g}: target SE {reached} at {played:,} of at most {most:,}"]


def _luck_lines(r: TournamentResult) -> list[str]:
    """The luck-adjusted result (ppg, or A's match wins in percent) and how much narrower its SE is; [] without."""
    if r.adjusted is None:
        return []
    adjusted, se = r.adjusted, r.adjusted.se
    if r.match_length is None:
        text = f"{adjusted.value:+.3f} ppg, SE " + (f"{se:.3f}" if se is not None else "n/a")
    else:
        text = f"A wins {100 * adjusted.value:.1f}%, SE " + (f"{100 * se:.1f}%" if se is not None else "n/a")
    narrower = f", {r.se_ratio:.1f} times narrower" if r.se_ratio is not None else ""
    return [f"  luck-adjusted: {text}{narrower}"]


def _format_match_result(r: TournamentResult) -> str:
    """Human-readable summary of a match tournament from A's view."""
    assert r.matches is not None and r.matches_per_second is not None and r.crawford_games is not None
    se = f"{100 * r.se:.1f}%" if r.se is not None else "n/a"
    ci = f"[{100 * r.ci95[0]:.1f}%, {100 * r.ci95[1]:.1f}%]" if r.ci95 is not None else "n/a"
    lines = [
        f"{r.player_a} vs {r.player_b}: {r.match_length}-point matches, A wins {100 * r.mwc:.1f}%, "
        f"SE {se}, 95% interval {ci}",
        f"  {_count(r.matches, 'match')} ({_count(r.pairs, 'mirrored pair')}, seed {r.seed}, MET {r.met}) "
        f"in {r.seconds:.1f} s, {r.matches_per_second:.2f} matches/s, {r.games_per_second:.1f} games/s",
        f"  {_count(r.games, 'game')}, {r.mean_games_per_match:.2f} per match; "
        f"{_count(r.crawford_games, 'Crawford game')}, {r.post_crawford_games:,} post-Crawford",
    ]
    lines[1:1] = _luck_lines(r)
    lines += _stopping_lines(r)
    rows: list[tuple[str, Any]] = [("A", r.a), ("B", r.b)]
    for label, s in rows:
        lines.append(
            f"  {label}: {_count(s.matches_won, 'match')}, {_count(s.wins, 'game')}, "
            f"{_count(s.gammons, 'gammon')}, {_count(s.backgammons, 'backgammon')}"
        )
    for label, s in rows:
        lines.append(
            f"  {label} cube: {_count(s.doubles, 'double')}, {_count(s.takes, 'take')}, {_count(s.passes, 'pass')}, "
            f"{s.too_good:,} too good; disagreements {s.cube_disagreements:,} of {s.cube_decisions:,}"
        )
    lines.append(
        f"  final cube: mean {r.mean_final_cube:.2f}, max {r.max_final_cube}; "
        f"{_count(r.passes_ending_games, 'game')} ended by a pass"
    )
    return "\n".join(lines)


def format_result(r: TournamentResult) -> str:
    """Human-readable summary from A's view (of money games, or of matches)."""
    if r.match_length is not None:
        return _format_match_result(r)
    se = f"{r.se:.3f}" if r.se is not None else "n/a"
    ci = f"[{r.ci95[0]:+.3f}, {r.ci95[1]:+.3f}]" if r.ci95 is not None else "n/a"
    rules = ", ".join(
        ["cubeful" if r.rules["cubeful"] else "cubeless"]
        + [name for name in ("jacoby", "beavers") if r.rules.get(name)]
    )
    lines = [
        f"{r.player_a} vs {r.player_b}: {r.ppg:+.3f} ppg, SE {se}, 95% interval {ci}",
        f"  {_count(r.games, 'game')} ({_count(r.pairs, 'mirrored pair')}, seed {r.seed}, {rules}) "
        f"in {r.seconds:.1f} s, {r.games_per_second:.1f} games/s",
    ]
    lines[1:1] = _luck_lines(r)
    lines += _stopping_lines(r)
    rows: list[tuple[str, Any]] = [("A", r.a), ("B", r.b)]
    for label, s in rows:
        lines.append(
            f"  {label}: {_count(s.wins, 'win')}, {_count(s.gammons, 'gammon')}, {_count(s.backgammons, 'backgammon')}"
        )
    if r.rules["cubeful"]:
        for label, s in rows:
            lookahead = (
                f"; {s.lookaheads:,} of its {s.cube_evaluations:,} cube positions needed their local volatility"
                if s.lookaheads
                else ""
            )
            lines.append(
                f"  {label} cube: {_count(s.doubles, 'double')}, {_count(s.takes, 'take')}, "
                f"{_count(s.passes, 'pass')}, {_count(s.beavers, 'beaver')}, {s.too_good:,} too good; "
                f"disagreements {s.cube_disagreements:,} of {s.cube_decisions:,}{lookahead}"
            )
        lines.append(
            f"  final cube: mean {r.mean_final_cube:.2f}, max {r.max_final_cube}; "
            f"{_count(r.passes_ending_games, 'game')} ended by a pass"
        )
    return "\n".join(lines)
