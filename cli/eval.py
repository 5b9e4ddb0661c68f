"""``jumpgammon eval ID``: probabilities, equity, jump volatility, cube actions, ranked moves."""

from __future__ import annotations

import argparse
import json

from cli.common import add_evaluation_arguments, add_met_argument, check_met_is_read
from cube.met import met_by_name
from engine import board_text, parse_id_pair
from nets import load_evaluator
from nets.analysis import CubeReport, EvalReport, MatchModelAdvice, MoneyModelAdvice, analyse, format_moves

EPILOG = """\
examples:
  jumpgammon eval 4HPwATDgc/ABMA
  jumpgammon eval 4HPwATDgc/ABMA:cAkZAAAAAAAA --plies 1
  jumpgammon eval 4HPwATDgc/ABMA:cAmgAAAAAAAA

What the output names:
  Win W(g) W(bg) L(g) L(bg)   chances of the side on roll: to win, to win a gammon or a backgammon, to lose them
  P_a, sigma_J, E|jump|       the 441 two-roll sequences: mean win chance, spread and mean size of its jumps
  gnubg(x=0.680: contact)     gnubg's cube model: Janowski's cube life x for the position's class
  jump(alpha=A)               the jump model with volatility A (match play)
  jump_local(remote_alpha=A, ...)  the jump model with the position's own volatility from the 441 rolls
  no double / double/take / double/pass   the cubeful equity (money: per unit of the cube) of each action
  No double, take / Double, pass / Too good ...   the proper action, named as gnubg names it
A bare position ID is a money game, cube centred, Jacoby rule on (the match ID printed with the board).
No cube action is shown once the dice are rolled or the game is over."""


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``eval`` subcommand."""
    p = sub.add_parser("eval", epilog=EPILOG)
    add_evaluation_arguments(p)
    add_met_argument(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Evaluate and print; returns 0."""
    position, match = parse_id_pair(args.id)
    check_met_is_read(args, match)
    met = met_by_name(args.met)
    ev = load_evaluator(args.weights)
    result = analyse(ev, position, match, args.plies, met)
    if args.json:
        print(json.dumps(result.to_json()))
        return 0
    print(board_text(position, match))
    print()
    print(format_analysis(result))
    return 0


def _pct(mwc: float | None) -> str:
    return f"{100 * (0.0 if mwc is None else mwc):.2f}%"


def _eq(value: float | None) -> str:
    return f"{0.0 if value is None else value:+.3f}"


def _action(cube: CubeReport, model: MoneyModelAdvice | MatchModelAdvice) -> str:
    """``  ->  Action`` after a model's equities, or nothing when no cube action can be taken now (a note says why)."""
    return "" if cube.note is not None else f"  ->  {model.action}"


def format_analysis(r: EvalReport) -> str:
    """Human-readable report of :func:`nets.analysis.analyse`."""
    p = r.probabilities
    v = r.jump_volatility
    lines = [
        f"{r.plies}-ply evaluation for the side on roll:",
        "        Win     W(g)    W(bg)   L(g)    L(bg)",
        f"        {p.win:.3f}   {p.win_gammon:.3f}   {p.win_backgammon:.3f}   "
        f"{p.lose_gammon:.3f}   {p.lose_backgammon:.3f}",
        f"Cubeless equity{' (money)' if r.match is not None else ''}: {r.cubeless_equity:+.3f}  "
        f"(W {r.win_value:.3f}, L {r.loss_value:.3f}: the average value of a game won and of one lost, cube --W --L)",
        f"Local jump volatility (441 rolls): P_a {v.p_average:.3f}  sigma_J {v.sigma:.4f}  "
        f"E|jump| {v.mean_abs_jump:.4f}  "
        f"(equity: sigma {v.equity_sigma:.4f}, E|jump| {v.equity_mean_abs_jump:.4f})",
    ]
    cube = r.cube
    if r.match is not None:
        m = r.match
        crawford = ", Crawford game" if m.crawford else ""
        lines.append(
            f"Match to {m.length}: {m.score[0]}-{m.score[1]}, the side on roll first ({m.away}-away against "
            f"{m.opp_away}-away{crawford}), cube {m.cube}, table {m.met}"
        )
        lines.append(f"Cubeless MWC: {_pct(r.cubeless_mwc)}  (normalised equity {_eq(r.cubeless_normalised_equity)})")
        lines.append(f"Cube ({cube.state}): MWC, normalised equity in brackets")
        for d in (cube.match_models or {}).values():
            mwc, eq = d.mwc, d.equity
            parts = [f"no double {_pct(mwc.no_double)} ({_eq(eq.no_double)})"]
            if mwc.double_take is not None:
                parts.append(f"double/take {_pct(mwc.double_take)} ({_eq(eq.double_take)})")
                parts.append(f"double/pass {_pct(mwc.double_pass)} ({_eq(eq.double_pass)})")
            lines.append(f"  {d.label}: cubeful MWC {_pct(d.cubeful_mwc)}")
            lines.append(f"      {', '.join(parts)}{_action(cube, d)}")
        if cube.note is not None:
            lines.append(f"  {cube.note}")
    elif cube.money_models is not None:
        rules = f"Jacoby rule {'on' if cube.jacoby else 'off'}, beavers {'on' if cube.beavers else 'off'}"
        lines.append(f"Money game, cube {cube.state}, {rules}; equities per unit of the cube:")
        for a in cube.money_models.values():
            if a.double_take is None:
                lines.append(f"  {a.label}: no double {a.no_double:+.3f}{_action(cube, a)}")
                continue
            lines.append(
                f"  {a.label}: no double {a.no_double:+.3f}, double/take {a.double_take:+.3f}, "
                f"double/pass {_eq(a.double_pass)}{_action(cube, a)}"
            )
        if cube.note is not None:
            lines.append(f"  {cube.note}")
    else:
        lines.append(f"Cube ({cube.state}): {cube.note}")
    if r.moves is not None:
        lines.append("")
        lines.append(format_moves(r.moves))
    return "\n".join(lines)
