"""``jumpgammon rollout ID --trials N --plies P``: games played out from a position, with standard errors."""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from arena.luck import LUCK_SCREEN
from arena.rollout import (
    DEFAULT_CUBE,
    LEVELS,
    RolloutConfig,
    RolloutInterrupted,
    RolloutKind,
    RolloutResult,
    RolloutStart,
    SavedRollout,
    Stopper,
    StopRule,
    TrialOutcomes,
    build_player,
    headline_ses,
    is_match,
    level,
    net_digest,
    normalised,
    read_position_file,
    run_rollouts,
    stratification_warning,
)
from arena.rollout_cube import CubeDecisionRollout, branch_starts, run_cube_decisions
from arena.rollout_plays import PlayRollout, filtered_candidates, named_candidates, run_play_rollout
from arena.stats import Figure
from arena.tournament import plural
from cli.common import (
    CUBE_SPEC_RULE,
    PLIES,
    add_json_argument,
    add_met_argument,
    check_output_file,
    existing_file,
    float_range,
    int_range,
    path_arg,
    plays_cubeful,
)
from cli.interrupts import INTERRUPTED_STATUS, interrupted_line
from cube.met import DEFAULT_MET
from players.cube import CUBE_SPECS

MAX_TRIALS = 10_000_000
DEFAULT_TRIALS = 1296


EPILOG = """\
examples:
  jumpgammon rollout 4HPwATDgc/ABMA --trials 1296
  jumpgammon rollout 4HPwATDgc/ABMA --trials 1296 --cube janowski:0.68
  jumpgammon rollout 4HPwATDgc/ABMA:cAkZAAAAAAAA --plays 3 --trials 648
  jumpgammon rollout 4HPwATDgc/ABMA --cube-decision --trials 1296"""


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``rollout`` subcommand."""
    p = sub.add_parser(
        "rollout",
        help="roll out a POSITIONID[:MATCHID]: equities, a cube decision or candidate plays, with standard errors",
        description=(
            "Play trials from the position to the end of the game (or --truncate plies) in lockstep batches; "
            "report the five probabilities and the equity, with standard errors, from the view of the side on "
            "roll. Quasi-random dice stratify the first two rolls; luck adjustment (0-ply) reduces the variance. "
            "Dice in the match ID are played first. --cube-decision rolls out no double and double/take on the "
            "same dice; --plays/--moves roll out candidate plays of the match ID's dice on the same dice. "
            "At a match score (a match ID with a length) the rollout is cubeful, in MWC and normalised equity, "
            f"with --met's table. Cube specs: {CUBE_SPECS} (default {DEFAULT_CUBE} with --cubeful). "
            f"Levels: {'; '.join(f'{name}: {lv.summary}' for name, lv in LEVELS.items())}."
        ),
        epilog=EPILOG,
    )
    p.add_argument("id", metavar="POSITIONID[:MATCHID]", nargs="?", default=None)
    p.add_argument("--file", type=existing_file, default=None, help="roll out every ID in FILE (one a line)")
    p.add_argument(
        "--trials",
        type=int_range(1, MAX_TRIALS),
        default=None,
        help=f"trials per position (default {DEFAULT_TRIALS}; with --resume, the new total)",
    )
    p.add_argument("--cubeful", action="store_true", help="play with the doubling cube; report the cubeful equity")
    p.add_argument("--cube", default=None, metavar="CUBE", help=f"both sides' cube strategy; {CUBE_SPEC_RULE}")
    p.add_argument("--beavers", action="store_true", help="money: a doubled side may beaver (with a cube)")
    p.add_argument(
        "--cube-decision",
        action="store_true",
        help="roll out no double and double/take on the same dice (cubeful; --cube plays the later cube actions)",
    )
    p.add_argument(
        "--plays",
        type=int_range(1, 100),
        default=None,
        metavar="N",
        help="roll out the N best plays of the match ID's dice (by the net at --filter-plies) on the same dice",
    )
    p.add_argument(
        "--moves",
        action="append",
        default=None,
        metavar="MOVE",
        help='roll out this play of the match ID\'s dice, e.g. "24/18 13/11" (repeat for each candidate)',
    )
    p.add_argument("--filter-plies", type=PLIES, default=None, help="depth of the --plays filter, 0-2 (default 0)")
    p.add_argument("--level", default=None, choices=list(LEVELS), help="a named level (the options below override it)")
    p.add_argument("--plies", type=PLIES, default=None, help="depth of the players' move choice, 0-2 (default 0)")
    p.add_argument("--cube-plies", type=PLIES, default=None, help="depth of the cube decisions (default --plies)")
    p.add_argument("--truncate", type=int_range(1, 10_000), default=None, metavar="N", help="stop after N plies")
    p.add_argument("--truncate-plies", type=PLIES, default=None, help="depth of the evaluation at --truncate")
    p.add_argument(
        "--late-after", type=int_range(1, 10_000), default=None, metavar="M", help="plies before --late-plies"
    )
    p.add_argument("--late-plies", type=PLIES, default=None, help="checker and cube depth from ply --late-after on")
    p.add_argument("--until-se", type=POSITIVE, default=None, metavar="SE", help="stop once every SE is below SE")
    p.add_argument(
        "--settle", type=POSITIVE, default=None, metavar="K", help="stop once the best is ahead by K paired SEs"
    )
    p.add_argument("--max-seconds", type=POSITIVE, default=None, metavar="S", help="stop after about S seconds")
    p.add_argument(
        "--save", type=path_arg, default=None, metavar="FILE", help="save the rollout (every trial) to FILE (.npz)"
    )
    p.add_argument(
        "--resume", type=existing_file, default=None, metavar="FILE", help="continue a saved rollout to --trials"
    )
    p.add_argument("--seed", type=int_range(0, 2**63 - 1), default=0)
    p.add_argument(
        "--luck-screen",
        type=int_range(0, 64),
        default=LUCK_SCREEN,
        metavar="N",
        help=f"the luck adjustment judges each roll's best of pubeval's top N plays; 0: of every play "
        f"(default {LUCK_SCREEN})",
    )
    p.add_argument("--workers", type=int_range(1, 256), default=1, help="processes on this machine")
    p.add_argument(
        "--no-variance-reduction", action="store_true", help="no luck adjustment (faster; larger standard errors)"
    )
    p.add_argument("--weights", type=existing_file, default=None, help="weights file (default: the shipped net)")
    add_met_argument(p)
    add_json_argument(p)
    p.set_defaults(func=run)


POSITIVE = float_range(0.0, math.inf, low_open=True, high_open=True)
#: Options a resumed rollout takes from its file.
FROM_THE_FILE = ("id", "file", "plays", "moves", "level", "plies", "cube_plies", "truncate", "truncate_plies")
FROM_THE_FILE_TOO = ("late_after", "late_plies", "cube", "weights", "beavers")


@dataclass
class Request:
    """What to roll out: its kind, the starts (with their texts), the candidate plays, the settings, saved trials."""

    kind: RolloutKind
    texts: list[str]
    starts: list[RolloutStart]
    moves: list[str]
    config: RolloutConfig
    previous: TrialOutcomes | None = None


def new_request(args: argparse.Namespace) -> Request:
    """The rollout the command line asks for (no --resume)."""
    if (args.id is None) == (args.file is None):
        raise ValueError("give one POSITIONID[:MATCHID] or --file FILE, not both or neither")
    plays = args.plays is not None or args.moves is not None
    if plays and (args.file is not None or args.cube_decision):
        raise ValueError("--plays and --moves take one POSITIONID:MATCHID with dice, without --file or --cube-decision")
    if args.file is not None:
        try:
            lines = Path(args.file).read_text(encoding="utf-8").splitlines()
        except UnicodeDecodeError:
            raise ValueError(f"--file {str(args.file)!r} is not a text file of position IDs") from None
        starts = read_position_file(lines, str(args.file))
        texts = [s.text for s in starts]
    else:
        starts, texts = [RolloutStart.parse(args.id)], [args.id]
    cubeful = plays_cubeful(args.cubeful, args.cube) or args.cube_decision or is_match(starts)  # matches: cubeful
    config = RolloutConfig(
        trials=args.trials or DEFAULT_TRIALS,
        cubeful=cubeful,
        met=args.met if is_match(starts) else None,
        beavers=args.beavers,
        cube=args.cube if cubeful else None,  # --cube none alone: cubeless
        seed=args.seed,
        variance_reduction=not args.no_variance_reduction,
        weights=str(args.weights) if args.weights is not None else None,
        luck_screen=args.luck_screen or None,
    )
    if args.level is not None:
        config = level(args.level).apply(config)
    chosen = {
        name: getattr(args, name)
        for name in ("plies", "cube_plies", "truncate", "truncate_plies", "late_after", "late_plies")
        if getattr(args, name) is not None
    }
    config = replace(config, **chosen)
    _refuse_unread(args, config, plays)
    kind = RolloutKind.CUBE_DECISION if args.cube_decision else RolloutKind.PLAYS if plays else RolloutKind.POSITIONS
    moves: list[str] = []
    if kind is RolloutKind.PLAYS:
        if args.moves is not None:
            moves = [c.move for c in named_candidates(starts[0], args.moves)]
        else:
            evaluator = build_player(config)[1]
            moves = [c.move for c in filtered_candidates(evaluator, starts[0], args.plays, args.filter_plies or 0)]
    elif kind is RolloutKind.CUBE_DECISION:
        branch_starts(starts)  # "cube not available" before any trial
    return Request(kind, texts, starts, moves, config)


def _refuse_unread(args: argparse.Namespace, config: RolloutConfig, plays: bool) -> None:
    """Refuse an option this rollout would not read (it was ignored), naming it and what it needs."""
    unread = [
        ("--beavers", args.beavers and not config.cubeful, "a cube in play (--cubeful, --cube or --cube-decision)"),
        ("--beavers", args.beavers and config.met is not None, "a money game (no beavers in a match)"),
        ("--cube-plies", args.cube_plies is not None and not config.cubeful, "a cube in play"),
        ("--filter-plies", args.filter_plies is not None and args.plays is None, "--plays N"),
        ("--truncate-plies", args.truncate_plies is not None and config.truncate is None, "--truncate N"),
        ("--late-plies", args.late_plies is not None and config.late_after is None, "--late-after M"),
    ]
    for option, ignored, needs in unread:
        if ignored:
            raise ValueError(f"{option} needs {needs}: without it the option would be ignored")


def resumed_request(args: argparse.Namespace) -> Request:
    """The saved rollout of ``--resume``, to be continued to ``--trials``."""
    given = [name for name in (*FROM_THE_FILE, *FROM_THE_FILE_TOO) if getattr(args, name) not in (None, False)]
    given += [name for name in ("cubeful", "cube_decision", "no_variance_reduction") if getattr(args, name)]
    given += ["luck_screen"] if args.luck_screen != LUCK_SCREEN else []
    if given or args.seed != 0:
        given += ["seed"] if args.seed else []
        names = ", ".join("the ID" if n == "id" else "--" + n.replace("_", "-") for n in given)
        raise ValueError(f"--resume takes the position and the settings from the file; leave out {names}")
    saved = SavedRollout.load(args.resume)
    if args.trials is None:  # as saved: the rollout is reprinted, no trial played
        args.trials = saved.config.trials
    if args.trials < saved.config.trials:
        raise ValueError(
            f"--resume {str(args.resume)!r} holds {saved.config.trials} trials: give --trials of at least that"
        )
    if args.met != DEFAULT_MET and args.met != (saved.config.met or DEFAULT_MET):
        raise ValueError(
            f"--resume {str(args.resume)!r} was rolled out with the table {saved.config.met!r}: leave out --met"
        )
    if saved.net is not None and saved.net != (now := net_digest(saved.config)):
        raise ValueError(
            f"--resume {str(args.resume)!r} was rolled out by the net {saved.net} and its weights file now holds "
            f"{now}: its trials cannot be continued by another net"
        )
    starts = [RolloutStart.parse(text) for text in saved.starts]
    # Each start keeps the Jacoby rule it was played with (before the file kept it, a bare ID's was off).
    rules = saved.jacoby or [s.jacoby and ":" in text for s, text in zip(starts, saved.starts, strict=True)]
    starts = [replace(s, jacoby=rule) for s, rule in zip(starts, rules, strict=True)]
    config = replace(saved.config, trials=args.trials)
    return Request(saved.kind, saved.starts, starts, saved.moves, config, saved.outcomes)


def run(args: argparse.Namespace) -> int:
    """Roll out and report; returns 0."""
    check_output_file(args.save, "--save", make_folder=True)
    if args.save is not None and args.save.suffix != ".npz":  # it writes an .npz archive whatever the name says
        raise ValueError(f"--save {str(args.save)!r}: give a file name ending in .npz (the rollout is saved as one)")
    request = resumed_request(args) if args.resume is not None else new_request(args)
    config = request.config
    stop = None
    if args.until_se is not None or args.settle is not None or args.max_seconds is not None:
        if args.settle is not None and request.kind is RolloutKind.POSITIONS:
            raise ValueError("--settle needs a decision: give --cube-decision, --plays or --moves")
        stop = StopRule(args.until_se, args.settle, args.max_seconds)
    note = stratification_warning(config.trials)
    if note is not None:
        print(f"jumpgammon rollout: warning: {note}", file=sys.stderr)
    started = time.perf_counter()
    try:
        return _roll_out(args, request, stop, started)
    except RolloutInterrupted as exc:  # Ctrl-C after some trials: report (and save) them, as if asked for so many
        return _report_interrupted(args, request, exc, started)


def _roll_out(args: argparse.Namespace, request: Request, stop: StopRule | None, started: float) -> int:
    """Play ``request`` and report it; returns 0."""
    config = request.config
    workers, previous = args.workers, request.previous
    rolled: list[CubeDecisionRollout] | PlayRollout | list[RolloutResult]
    if request.kind is RolloutKind.CUBE_DECISION:
        rolled, reason = run_cube_decisions(request.starts, config, workers, stop=stop, previous=previous)
    elif request.kind is RolloutKind.PLAYS:
        candidates = named_candidates(request.starts[0], request.moves)
        rolled, reason = run_play_rollout(request.starts[0], candidates, config, workers, stop=stop, previous=previous)
    else:
        stopper = Stopper(stop, headline_ses) if stop is not None else None
        rolled = run_rollouts(request.starts, config, workers=workers, stop=stopper, previous=previous)
        reason = None if stopper is None else stopper.reason
    results = _results_of(rolled)
    _warn_if_stopped_off_the_cycle(min(r.trials for r in results), config.trials)
    return _save_and_report(args, request, rolled, reason, started)


def _results_of(rolled: list[CubeDecisionRollout] | PlayRollout | list[RolloutResult]) -> list[RolloutResult]:
    """The rollout results a cube-decision, plays or positions rollout holds, in the order it saves them."""
    if isinstance(rolled, PlayRollout):
        return rolled.results
    return [r for d in rolled for r in ((d.no_double, d.double_take) if isinstance(d, CubeDecisionRollout) else (d,))]


def _save_and_report(
    args: argparse.Namespace,
    request: Request,
    rolled: list[CubeDecisionRollout] | PlayRollout | list[RolloutResult],
    reason: str | None,
    started: float,
) -> int:
    """Write ``--save`` (if given) and print the rollout of ``request``'s kind; returns 0."""
    _save(args, request, _results_of(rolled))
    if isinstance(rolled, PlayRollout):
        return report_plays(rolled, reason, started, args)
    decisions = [r for r in rolled if isinstance(r, CubeDecisionRollout)]
    positions = [r for r in rolled if isinstance(r, RolloutResult)]
    assert len(decisions) + len(positions) == len(rolled)  # one kind or the other, whole
    if request.kind is RolloutKind.CUBE_DECISION:
        return report_cube_decisions(decisions, reason, started, args)
    return _report_positions(args, request, positions, reason, started)


def _report_interrupted(args: argparse.Namespace, request: Request, exc: RolloutInterrupted, started: float) -> int:
    """Report and save the rollout a Ctrl-C cut short, then say so on stderr; returns exit status 130."""
    reason = f"interrupted (Ctrl-C) after {exc.trials:,} of {request.config.trials:,} trials"
    _save_and_report(args, request, exc.partial, reason, started)
    kept = f"; saved to {str(args.save)!r}: --resume it to go on" if args.save is not None else ""
    print(interrupted_line("rollout", f"the rollout so far is above ({exc.trials:,} trials){kept}"), file=sys.stderr)
    return INTERRUPTED_STATUS


def _report_positions(
    args: argparse.Namespace, request: Request, results: list[RolloutResult], reason: str | None, started: float
) -> int:
    """Print the rollouts of positions (one JSON object, or a table each and a footer); returns 0."""
    total = sum(r.trials for r in results)
    timing = _timing(total, started)
    if args.json:
        extra = {**timing, "stopped": reason}
        if len(request.texts) == 1 and args.file is None:
            print(json.dumps({**results[0].to_json(), **extra}))
        else:
            print(json.dumps({"rollouts": [r.to_json() for r in results], "trials": total, **extra}))
        return 0
    for r in results:
        print(format_result(r))
        print()
    print(_footer(total, timing, reason))
    return 0


def _warn_if_stopped_off_the_cycle(played: int, asked: int) -> None:
    """The stratification warning on stderr when a stop rule ended the run at trials the asked number did not warn
    of (a stop lands on a block's end, not on a multiple of 1,296)."""
    note = stratification_warning(played)
    if played < asked and note is not None and stratification_warning(asked) is None:
        print(f"jumpgammon rollout: warning: stopped at {note}", file=sys.stderr)


def _save(args: argparse.Namespace, request: Request, results: list[RolloutResult]) -> None:
    """Write every trial played (with those resumed) to ``--save``, if given."""
    if args.save is None:
        return
    outcomes = TrialOutcomes.concatenate([r.outcomes for r in results])
    outcomes.position = np.repeat(np.arange(len(results)), [r.trials for r in results])
    config = replace(request.config, trials=results[0].trials)
    jacoby = [s.jacoby for s in request.starts]
    SavedRollout(request.kind, request.texts, request.moves, config, outcomes, jacoby, net_digest(config)).save(
        args.save
    )


def _timing(trials: int, started: float) -> dict[str, Any]:
    """Seconds since ``started`` and trials (all positions and branches together) per second."""
    seconds = time.perf_counter() - started
    return {"seconds": round(seconds, 3), "trials_per_second": round(trials / seconds, 2) if seconds else None}


def _footer(trials: int, timing: dict[str, Any], reason: str | None) -> str:
    line = f"{trials} {plural('trial', trials)} in {timing['seconds']:.1f} s ({timing['trials_per_second']} trials/s)"
    return line + (f"; stopped early: {reason}" if reason else "")


def luck_words(c: RolloutConfig) -> str:
    """How the rollout reduces its variance, in words for its header line."""
    if not c.variance_reduction:
        return "no variance reduction"
    screen = f", among pubeval's top {c.luck_screen} plays" if c.luck_screen else ""
    return f"luck-adjusted (0-ply{screen})"


def format_result(r: RolloutResult) -> str:
    """Human-readable rollout of one position, from its side on roll's view."""
    c = r.config
    depth = c.describe()
    reduction = luck_words(c)
    lines = [
        f"Rollout of {r.start.text} for the side on roll: {r.trials} {plural('trial', r.trials)}, {depth}, "
        f"seed {c.seed}, {reduction}",
        "            Win      W(g)     W(bg)    L(g)     L(bg)    Equity",
        _row("estimate", r.estimate.probabilities, r.estimate.equity, "+"),
    ]
    if r.estimate.standard_errors is not None and r.estimate.equity_se is not None:
        lines.append(_row("SE", r.estimate.standard_errors, r.estimate.equity_se, ""))
        if c.variance_reduction and r.raw.standard_errors is not None and r.raw.equity_se is not None:
            lines.append(_row("raw", r.raw.probabilities, r.raw.equity, "+"))
            lines.append(_row("raw SE", r.raw.standard_errors, r.raw.equity_se, ""))
    if c.cubeful and r.estimate.cubeful_equity is not None and r.start.score is not None:
        mwc = Figure(r.estimate.cubeful_equity, r.estimate.cubeful_equity_se)
        equity = normalised(r.start, c, mwc)
        a = r.cube_actions()
        lines.append(
            f"{_score_text(r.start)}: cubeful MWC ({c.cube_spec}) {100 * mwc.value:.2f}%"
            + (f", SE {100 * mwc.se:.2f}%" if mwc.se is not None else "")
            + f"; normalised equity {equity.value:+.4f}"
            + (f", SE {equity.se:.4f}" if equity.se is not None else "")
            + f"; {_cube_counts(a)}"
        )
    elif c.cubeful and r.estimate.cubeful_equity is not None:
        se = r.estimate.cubeful_equity_se
        raw_se = r.raw.cubeful_equity_se
        a = r.cube_actions()
        lines.append(
            f"Cubeful equity ({c.cube_spec}, Jacoby rule {'on' if r.start.jacoby else 'off'}): "
            f"{r.estimate.cubeful_equity:+.4f}"
            + (f", SE {se:.4f}" if se is not None else "")
            + (f" (raw SE {raw_se:.4f})" if c.variance_reduction and raw_se is not None else "")
            + f"; {_cube_counts(a)}"
        )
    return "\n".join(lines)


def _score_text(start: RolloutStart) -> str:
    """ "5-away against 3-away (post-Crawford)" for a start at a match score."""
    score = start.score
    assert score is not None
    kind = " (Crawford game)" if score.crawford else " (post-Crawford)" if score.post_crawford else ""
    return f"{score.away}-away against {score.opp_away}-away{kind}"


def _cube_counts(actions: dict[str, int]) -> str:
    """The doubles, takes and passes of a rollout's cube actions, each word in the number it needs."""
    return ", ".join(
        f"{actions[k]} {plural(w, actions[k])}"
        for k, w in (("doubles", "double"), ("takes", "take"), ("passes", "pass"))
    )


def _row(label: str, values: np.ndarray, equity: float, sign: str) -> str:
    cells = "".join(f"{float(v):<9.4f}" for v in values)
    return f"  {label:<9} {cells}{equity:{sign}.4f}"


def report_cube_decisions(
    decisions: list[CubeDecisionRollout], reason: str | None, started: float, args: argparse.Namespace
) -> int:
    """Print the cube-decision rollouts (JSON or text); returns 0. Trials count both branches."""
    total = sum(2 * d.trials for d in decisions)
    timing = _timing(total, started)
    if args.json:
        rollouts = [{**d.no_double.to_json(), "cube_decision": d.to_json()} for d in decisions]
        extra = {**timing, "stopped": reason}
        if len(decisions) == 1 and args.file is None:
            print(json.dumps({**rollouts[0], **extra}))
        else:
            print(json.dumps({"rollouts": rollouts, "trials": total, **extra}))
        return 0
    for d in decisions:
        print(format_cube_decision(d))
        print()
    print(_footer(total, timing, reason) + " (both branches)")
    return 0


def format_cube_decision(d: CubeDecisionRollout) -> str:
    """Human-readable cube-decision rollout, from the doubler's view, in points per initial cube."""
    r, c = d.no_double, d.config
    depth = c.describe()
    reduction = luck_words(c)
    nd, dt, dp = d.figures
    margin, take = d.margin, d.take_margin
    mwcs = d.mwc_figures()

    def se(value: float | None) -> str:
        return "" if value is None else f"  SE {value:.4f}"

    def mwc(k: int) -> str:
        if mwcs is None:
            return ""
        figure = mwcs[k]
        if isinstance(figure, float):
            return f"   MWC {100 * figure:6.2f}%"
        return f"   MWC {100 * figure.value:6.2f}%" + ("" if figure.se is None else f" SE {100 * figure.se:.2f}%")

    jacoby = f", Jacoby rule {'on' if d.start.jacoby else 'off'}" if mwcs is None else ""
    units = "points per initial cube" if mwcs is None else f"{_score_text(d.start)}, normalised equity"
    lines = [
        f"Cube decision rollout of {d.start.text} for the side on roll: {d.trials} trials a branch, {depth}, "
        f"seed {c.seed}, {reduction}, later cube actions by {c.cube_spec}{jacoby}",
        "  cubeless   Win      W(g)     W(bg)    L(g)     L(bg)    Equity",
        _row("estimate", r.estimate.probabilities, r.estimate.equity, "+"),
        f"Cubeful ({units}):",
        f"  No double     {nd.value:+.4f}{se(nd.se)}{mwc(0)}",
        f"  Double/take   {dt.value:+.4f}{se(dt.se)}{mwc(1)}",
        f"  Double/pass   {dp:+.4f}{mwc(2)}",
        f"Proper cube action: {d.action}",
        f"  double minus no double {margin.value:+.4f}{se(margin.se)} (paired);"
        f" pass minus take {take.value:+.4f}{se(take.se)}",
    ]
    return "\n".join(lines)


def report_plays(rollout: PlayRollout, reason: str | None, started: float, args: argparse.Namespace) -> int:
    """Print the candidate plays best first (JSON or text); returns 0."""
    total = rollout.trials * len(rollout.candidates)
    timing = _timing(total, started)
    if args.json:
        print(json.dumps({**rollout.to_json(), **timing, "stopped": reason}))
        return 0
    print(format_plays(rollout))
    print()
    print(_footer(total, timing, reason))
    return 0


def format_plays(rollout: PlayRollout) -> str:
    """Human-readable ranking of the rolled-out plays, from the mover's view."""
    c, start = rollout.config, rollout.start
    depth = c.describe()
    kind = f"cubeful ({c.cube_spec})" if c.cubeful else "cubeless"
    dice = f"{start.dice[0]}-{start.dice[1]}" if start.dice else "?"
    lines = [
        f"Plays of {dice} in {start.text} rolled out for the mover: {rollout.trials} trials each on the same dice, "
        f"{depth}, seed {c.seed}, {kind} equity",
        f"     {'Move':<24} Equity    SE       Diff      paired SE",
    ]
    for k, p in enumerate(rollout.ranked(), 1):
        se = "" if p.equity.se is None else f"{p.equity.se:.4f}"
        dse = "" if p.difference.se is None else f"{p.difference.se:.4f}"
        lines.append(f"  {k:>2}. {p.move:<24} {p.equity.value:+.4f}   {se:<8} {p.difference.value:+.4f}   {dse}")
    return "\n".join(lines)
