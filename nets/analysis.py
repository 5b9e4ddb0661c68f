"""Position analysis for ``jumpgammon eval``: probabilities, volatility, cube actions, moves.

Everything is from the side on roll's view; the cube state follows the match ID (centred,
owned by the side on roll, or by the opponent).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from typing import Any

import numpy as np

from cube.gamestate import flip_probabilities, win_loss_values
from cube.gnubg_model import GNUBG_MODEL, match_cube_lives
from cube.jump_linear import STATISTICAL_SCALE
from cube.match import MatchCube, MatchCubeDecision, MatchScore, best_action_mwc, cubeless_mwc, mwc_to_equity
from cube.match_jump import MAX_MATCH_VOLATILITY, jump_cube_decision
from cube.match_strategy import LINEAR_ALPHA
from cube.met import MatchEquityTable
from cube.states import CubeState
from cube.strategy import JumpApproximation, jump_local
from cube.two_roll import SEARCH_CELLS, uncertain_cells
from cube.volatility import DEFAULT_REMOTE_ALPHA
from engine.match import BARE_ID_STATE, MatchState
from engine.position import Position
from nets.base import BoardEvaluator
from nets.cube_advice import CubeAdvice, cube_lives, match_cube_advice, money_cube_advice, money_cube_decisions
from nets.evaluator import Evaluator, Probabilities
from nets.lookahead import evaluate_plies, rank_moves
from nets.mlp import OUTPUTS, cubeless_equity
from nets.volatility import JumpVolatility, jump_volatility, two_roll_outcomes

# A typical remote volatility for the jump model.
REMOTE_ALPHA = DEFAULT_REMOTE_ALPHA
#: How the local jump model's label says it took exact figures: the lookahead shows the game decided (cube.two_roll).
DECIDED_NOTE = "exact: decided within two rolls"
#: How it says it searched the two rolls, the model only at the lines still open (cube.two_roll.SEARCH_CELLS).
SEARCHED_NOTE = "two rolls searched: {open} of 441 lines open"
#: Said beside the cube figures of a position whose dice are rolled.
ROLLED_NOTE = "the dice are rolled: no cube action now (the figures are for before the roll)"


def local_model_label(settings: str, open_lines: int | None = None) -> str:
    """The local jump model's row label: ``jump_local(SETTINGS)``, saying so where it took the exact figures
    (``open_lines`` 0: the lookahead shows the game decided) or searched the two rolls (``open_lines`` > 0)."""
    if open_lines is None:
        return f"jump_local({settings})"
    note = DECIDED_NOTE if open_lines == 0 else SEARCHED_NOTE.format(open=open_lines)
    return f"jump_local({settings}; {note})"


#: Beavers are not part of a match ID; ``eval`` evaluates money without them and says so.
MONEY_BEAVERS = False


def cube_state_of(match: MatchState | None) -> CubeState:
    """The cube state for the side on roll in ``match`` (centred without a match)."""
    if match is None or match.cube_owner is None:
        return CubeState.CENTERED
    return CubeState.OWNED if match.cube_owner == match.on_roll else CubeState.UNAVAILABLE


def probabilities_json(p: np.ndarray) -> dict[str, float]:
    """The five probabilities keyed by name."""
    return {name: round(float(v), 6) for name, v in zip(OUTPUTS, p, strict=True)}


def match_cube_of(match: MatchState, met: MatchEquityTable) -> MatchCube:
    """The side on roll's score, cube value and cube state in a match (``match_length`` > 0).

    Raises CubeInputError naming the match length when ``met`` does not cover the match.
    """
    me = match.on_roll
    n = match.match_length
    met.truncated(n)  # the check and its message
    score = MatchScore(n - match.score[me], n - match.score[1 - me], match.crawford)
    return MatchCube(score, match.cube, cube_state_of(match))


def match_cube_label(d: MatchCubeDecision, cube: MatchCube) -> str:
    """gnubg's text of a match cube decision at ``cube``, e.g. "Redouble, take", "Never double, take (dead cube)"."""
    return d.proper(cube.state).value


def _round(v: float | None) -> float | None:
    """``v`` to 6 decimals (None stays None)."""
    return None if v is None else round(v, 6)


def _round_nan(v: float) -> float | None:
    """``v`` to 6 decimals, None for nan."""
    return None if np.isnan(v) else round(float(v), 6)


@dataclass(frozen=True)
class CubeOutcomes:
    """A match cube decision's three outcomes and the best of them, in one unit (MWC or normalised equity).

    None where the side on roll cannot double.
    """

    no_double: float | None
    double_take: float | None
    double_pass: float | None
    optimal: float | None


def _model_json(label: str, position_class: str | None, open_lines: int | None, **figures: Any) -> dict[str, Any]:
    """A cube model's ``eval --json`` entry: its label, gnubg's position class or the two-roll rule's open lines
    where it has one, its figures."""
    out: dict[str, Any] = {"label": label}
    if position_class is not None:
        out["position_class"] = position_class
    if open_lines is not None:
        out["two_roll_open_lines"] = open_lines
    return out | figures


@dataclass(frozen=True)
class MoneyModelAdvice:
    """One cube model's money decision: equities per unit of the cube (None where the side on roll cannot double).

    ``position_class`` is the class gnubg's model took its cube life from (None for other models);
    ``open_lines`` the open lines of 441 where the local jump model took the two-roll rule's figures (0: exact,
    the game decided; more: searched), None where the model decided alone.
    """

    label: str
    action: str
    no_double: float
    double_take: float | None
    double_pass: float | None
    equity: float
    position_class: str | None = None
    open_lines: int | None = None

    def to_json(self) -> dict[str, Any]:
        """The model's entry in ``eval --json``."""
        return _model_json(
            self.label,
            self.position_class,
            self.open_lines,
            action=self.action,
            no_double=self.no_double,
            double_take=self.double_take,
            double_pass=self.double_pass,
            equity=self.equity,
        )


@dataclass(frozen=True)
class MatchModelAdvice:
    """One cube model's decision at a match score: the outcomes as MWC and as normalised equity.

    ``position_class`` is the class gnubg's model took its cube life from (None for other models);
    ``open_lines`` the open lines of 441 where the local jump model took the two-roll rule's figures (0: exact,
    the game decided; more: searched), None where the model decided alone.
    """

    label: str
    action: str
    optional: bool
    cubeful_mwc: float
    mwc: CubeOutcomes
    equity: CubeOutcomes
    position_class: str | None = None
    open_lines: int | None = None

    def to_json(self) -> dict[str, Any]:
        """The model's entry in ``eval --json``."""
        return _model_json(
            self.label,
            self.position_class,
            self.open_lines,
            action=self.action,
            optional=self.optional,
            cubeful_mwc=self.cubeful_mwc,
            mwc=asdict(self.mwc),
            equity=asdict(self.equity),
        )


def _money_advice(a: CubeAdvice) -> MoneyModelAdvice:
    """gnubg's model's money decision, rounded as ``--json`` prints it (points per unit cube)."""
    return MoneyModelAdvice(
        label=a.label,
        action=str(a.action),
        no_double=round(a.no_double, 6),
        double_take=_round(a.double_take),
        double_pass=_round(a.double_pass),
        equity=round(a.equity, 6),
        position_class=str(a.life.position_class),
    )


def _match_advice(a: CubeAdvice) -> MatchModelAdvice:
    """gnubg's model's decision at a match score, rounded as ``--json`` prints it (MWC and normalised equity)."""
    assert a.mwc is not None and a.cubeful_mwc is not None
    no_double, double_take, double_pass = a.mwc
    mwc = CubeOutcomes(_round(no_double), _round(double_take), _round(double_pass), round(a.cubeful_mwc, 6))
    equity = CubeOutcomes(_round(a.no_double), _round(a.double_take), _round(a.double_pass), round(a.equity, 6))
    return MatchModelAdvice(
        label=a.label,
        action=str(a.action),
        optional=str(a.action).startswith("Optional"),
        cubeful_mwc=round(a.cubeful_mwc, 6),
        mwc=mwc,
        equity=equity,
        position_class=str(a.life.position_class),
    )


def _outcomes(values: Any) -> CubeOutcomes:
    """Rounded :class:`CubeOutcomes` of a :class:`cube.match.CubeEquities` (nan: None)."""
    return CubeOutcomes(
        _round_nan(values.no_double),
        _round_nan(values.double_take),
        _round_nan(values.double_pass),
        _round_nan(values.optimal),
    )


def match_cube_models(
    board: np.ndarray,
    probs: np.ndarray,
    met: MatchEquityTable,
    cube: MatchCube,
    local_alpha: float,
    outcomes: np.ndarray | None = None,
) -> dict[str, MatchModelAdvice]:
    """The cube decision under gnubg's model (x by the position's class) and the jump model (constant and local).

    ``local_alpha``: the position's jump volatility for the linear approximation (already scaled);
    ``outcomes``: its (441, 5) two-roll lookahead, which gives the local model exact MWCs where it shows the game
    decided and the two-roll search's where nearly decided. Keyed by model: gnubg's, ``jump``, ``jump_local``.
    """
    open_lines = None if outcomes is None else int(uncertain_cells(outcomes))
    searched = open_lines if open_lines is not None and open_lines <= SEARCH_CELLS else None
    local_label = local_model_label(f"remote_alpha={LINEAR_ALPHA}, local_alpha={local_alpha:.4f}", searched)
    jumps = {
        "jump": (f"jump(alpha={LINEAR_ALPHA})", jump_cube_decision(probs, met, cube, LINEAR_ALPHA)),
        "jump_local": (
            local_label,
            jump_cube_decision(probs, met, cube, LINEAR_ALPHA, local_alpha, lookahead=outcomes),
        ),
    }
    out = {GNUBG_MODEL: _match_advice(match_cube_advice(board, probs, met, cube))}
    for name, (label, d) in jumps.items():
        out[name] = MatchModelAdvice(
            label=label,
            action=match_cube_label(d, cube),
            optional=d.optional,
            cubeful_mwc=round(d.mwc.optimal, 6),
            mwc=_outcomes(d.mwc),
            equity=_outcomes(d.equity),
            open_lines=searched if name == "jump_local" else None,
        )
    return out


@dataclass(frozen=True)
class MatchInfo:
    """The match of an evaluation: its length, the score (side on roll first), how far each side is from winning,
    whether this is the Crawford game, the cube value and the match equity table's name."""

    length: int
    score: tuple[int, int]
    away: int
    opp_away: int
    crawford: bool
    cube: int
    met: str


@dataclass(frozen=True)
class CubeReport:
    """The cube decisions of an evaluation, side on roll's view, by model (money or match models, as played).

    ``jacoby`` and ``beavers`` are the money rules (None at a match score); ``note`` says why no cube
    action can be taken now (the dice are rolled, or the game is over: then there are no models).
    """

    state: CubeState
    money_models: dict[str, MoneyModelAdvice] | None = None
    match_models: dict[str, MatchModelAdvice] | None = None
    jacoby: bool | None = None
    beavers: bool | None = None
    note: str | None = None

    def models(self) -> dict[str, MoneyModelAdvice | MatchModelAdvice]:
        """Every model's decision by model name (empty when the game is over)."""
        return {**(self.money_models or {}), **(self.match_models or {})}

    def to_json(self) -> dict[str, Any]:
        """The cube's entry in ``eval --json``."""
        out: dict[str, Any] = {"state": self.state}
        if self.jacoby is not None:
            out.update(jacoby=self.jacoby, beavers=self.beavers)
        if self.money_models is not None or self.match_models is not None:
            out["models"] = {name: m.to_json() for name, m in self.models().items()}
        if self.note is not None:
            out["note"] = self.note
        return out


@dataclass(frozen=True)
class EvalReport:
    """Everything ``eval`` reports of a position, side on roll's view (figures rounded to 6 decimals).

    ``win_value`` and ``loss_value`` are Janowski's W and L (the average cubeless value of a game won and of
    one lost, the inputs of ``jumpgammon cube --W --L``); ``match``, ``cubeless_mwc`` and
    ``cubeless_normalised_equity`` are there at a match score only; ``moves`` (as :func:`moves_json` or
    :func:`moves_mwc_json` give them) once the dice are rolled.
    """

    position_id: str
    match_id: str
    plies: int
    probabilities: Probabilities
    cubeless_equity: float
    win_value: float
    loss_value: float
    jump_volatility: JumpVolatility
    cube: CubeReport
    match: MatchInfo | None = None
    cubeless_mwc: float | None = None
    cubeless_normalised_equity: float | None = None
    moves: list[dict[str, Any]] | None = None

    def to_json(self) -> dict[str, Any]:
        """The report as ``eval --json`` prints it."""
        out: dict[str, Any] = {
            "position_id": self.position_id,
            "match_id": self.match_id,
            "plies": self.plies,
            "probabilities": self.probabilities._asdict(),
            "cubeless_equity": self.cubeless_equity,
            "win_value": self.win_value,
            "loss_value": self.loss_value,
            "jump_volatility": self.jump_volatility.to_json(),
        }
        if self.match is not None:
            out["match"] = {**asdict(self.match), "score": list(self.match.score)}
            out["cubeless_mwc"] = self.cubeless_mwc
            out["cubeless_normalised_equity"] = self.cubeless_normalised_equity
        out["cube"] = self.cube.to_json()
        if self.moves is not None:
            out["moves"] = self.moves
        return out


def analyse(
    ev: Evaluator, position: Position, match: MatchState | None, plies: int, met: MatchEquityTable | None = None
) -> EvalReport:
    """Everything ``eval`` reports (side on roll's view); ``met`` for a match at a score.

    Without a match ID the position is a money game in gnubg's default state (cube centred at 1,
    Jacoby rule on), the state whose match ID ``eval`` prints.
    """
    if match is None:
        match = BARE_ID_STATE
    probs = evaluate_plies(ev, position.array[None], plies)[0]
    outcomes = two_roll_outcomes(ev, position)
    vol = jump_volatility(ev, position, outcomes)
    state = cube_state_of(match)
    jacoby = bool(match.jacoby) if match.match_length == 0 else False
    rounded_vol = JumpVolatility(
        p_average=round(vol.p_average, 6),
        sigma=round(vol.sigma, 6),
        mean_abs_jump=round(vol.mean_abs_jump, 6),
        equity_average=round(vol.equity_average, 6),
        equity_sigma=round(vol.equity_sigma, 6),
        equity_mean_abs_jump=round(vol.equity_mean_abs_jump, 6),
        n_pairs=vol.n_pairs,
    )
    at_score = match.match_length > 0
    match_info: MatchInfo | None = None
    cubeless_at_score: float | None = None
    normalised: float | None = None
    if at_score:
        if met is None:
            raise ValueError("a match at a score needs a match equity table")
        cube_now = match_cube_of(match, met)
        local_alpha = min(STATISTICAL_SCALE * vol.mean_abs_jump, float(np.nextafter(MAX_MATCH_VOLATILITY, 0.0)))
        cubeless = float(cubeless_mwc(probs, met, cube_now))
        match_info = MatchInfo(
            length=match.match_length,
            score=(match.score[match.on_roll], match.score[1 - match.on_roll]),
            away=cube_now.score.away,
            opp_away=cube_now.score.opp_away,
            crawford=cube_now.score.crawford,
            cube=cube_now.value,
            met=met.name,
        )
        cubeless_at_score = round(cubeless, 6)
        normalised = round(float(mwc_to_equity(cubeless, met, cube_now)), 6)
        match_models = match_cube_models(position.array, probs, met, cube_now, local_alpha, outcomes)
        report = CubeReport(state, match_models=match_models)
    else:
        strategy = jump_local(REMOTE_ALPHA, JumpApproximation.NUMERICAL)
        open_lines = int(uncertain_cells(outcomes))
        searched = open_lines if open_lines <= strategy.search_cells else None
        jump_label = local_model_label(f"remote_alpha={REMOTE_ALPHA}, numerical", searched)
        local = strategy.decision(probs, state, jacoby=jacoby, beavers=MONEY_BEAVERS, lookahead=outcomes)
        gnubg = money_cube_advice(position.array, probs, state, jacoby=jacoby, beavers=MONEY_BEAVERS)
        can_double = state is not CubeState.UNAVAILABLE  # as gnubg's row: no double/take where it cannot be
        models = {
            GNUBG_MODEL: _money_advice(gnubg),
            "jump_local": MoneyModelAdvice(
                label=jump_label,
                action=local.label,
                no_double=round(local.no_double, 6),
                double_take=round(local.double_take, 6) if can_double else None,
                double_pass=round(local.double_pass, 6) if can_double else None,
                equity=round(local.equity, 6),
                open_lines=searched,
            ),
        }
        report = CubeReport(state, money_models=models, jacoby=jacoby, beavers=MONEY_BEAVERS)
    if position.is_over():  # no cube decision at all: the figures above would be a finished game's
        report = CubeReport(state, note="no cube action: the game is over")
    elif match.dice[0]:  # the figures are the decision before this roll; none can be taken now
        report = replace(report, note=ROLLED_NOTE)
    moves = None
    if match.dice[0] and not position.is_over():
        if at_score and met is not None:
            moves = moves_mwc_json(ev, position, match.dice, plies, met, match_cube_of(match, met))
        else:
            moves = moves_json(ev, position, match.dice, plies, state, jacoby)
    _, win_value, loss_value = win_loss_values(probs)
    return EvalReport(
        position_id=position.id,
        match_id=match.id,
        plies=plies,
        probabilities=Probabilities(*(round(float(v), 6) for v in probs)),
        cubeless_equity=round(float(cubeless_equity(probs)), 6),
        win_value=round(float(win_value), 6),
        loss_value=round(float(loss_value), 6),
        jump_volatility=rounded_vol,
        cube=report,
        match=match_info,
        cubeless_mwc=cubeless_at_score,
        cubeless_normalised_equity=normalised,
        moves=moves,
    )


def moves_json(
    ev: BoardEvaluator,
    position: Position,
    dice: tuple[int, int],
    plies: int,
    state: CubeState = CubeState.CENTERED,
    jacoby: bool = True,
) -> list[dict[str, Any]]:
    """Every legal play ranked like gnubg's hint in money play (mover's view), the mover's cube ``state``.

    ``equity`` is cubeful: minus the opponent's cubeful equity on roll after the play, gnubg's money
    model (its cube life by position class, exact in two-sided bear-offs) with ``jacoby``, per unit
    of the cube; ``cubeless_equity`` ignores the cube; ``difference`` is the cubeful one's.
    """
    theirs = CubeState(state).opponent

    def cubeful(mover: np.ndarray, kids: np.ndarray) -> np.ndarray:
        opponent = flip_probabilities(mover)
        decided = money_cube_decisions(kids, opponent, theirs, jacoby=jacoby, beavers=MONEY_BEAVERS)
        return -np.asarray(decided.equity, np.float64)

    ranked = rank_moves(ev, position, dice, plies, value=cubeful)
    best = ranked[0].equity
    return [
        {
            "rank": i + 1,
            "move": str(r.move),
            "position_id": r.position.id,
            "plies": r.plies,
            "equity": round(r.equity, 6),
            "cubeless_equity": round(float(cubeless_equity(r.probabilities[None])[0]), 6),
            "difference": round(r.equity - best, 6),
            "probabilities": probabilities_json(r.probabilities),
        }
        for i, r in enumerate(ranked)
    ]


def moves_mwc_json(
    ev: BoardEvaluator, position: Position, dice: tuple[int, int], plies: int, met: MatchEquityTable, cube: MatchCube
) -> list[dict[str, Any]]:
    """Every legal play ranked by the mover's MWC at the match score (mover's view), as gnubg's hint ranks them.

    ``mwc`` is cubeful, gnubg's model (x by each child's class) with the opponent on roll at the same cube
    taking its best cube action, as gnubg values a position below the top: one minus the opponent's
    max(ND, min(DT, DP)); ``equity`` is that MWC normalised (the figure gnubg's filter keeps plays within
    0.16 of), ``cubeless_mwc`` ignores the cube; ``difference`` is in MWC. The plays looked at deeper rank first.
    """
    theirs = cube.flipped()

    def cubeful(mover: np.ndarray, kids: np.ndarray) -> np.ndarray:
        opponent = flip_probabilities(mover)
        lives = cube_lives(kids)
        x = np.array([match_cube_lives(life, p, theirs.state) for life, p in zip(lives, opponent, strict=True)])
        return 1.0 - best_action_mwc(opponent, met, theirs, x[:, 0], x[:, 1])

    ranked = rank_moves(ev, position, dice, plies, value=lambda p, kids: mwc_to_equity(cubeful(p, kids), met, cube))
    mover = np.stack([r.probabilities for r in ranked])
    mwc = cubeful(mover, np.stack([r.position.array for r in ranked]))
    cubeless = cubeless_mwc(mover, met, cube)
    best = float(mwc[0])
    return [
        {
            "rank": k + 1,
            "move": str(r.move),
            "position_id": r.position.id,
            "plies": r.plies,
            "mwc": round(float(mwc[k]), 6),
            "cubeless_mwc": round(float(cubeless[k]), 6),
            "equity": round(r.equity, 6),
            "difference": round(float(mwc[k]) - best, 6),
            "probabilities": probabilities_json(r.probabilities),
        }
        for k, r in enumerate(ranked)
    ]


def format_moves(moves: list[dict[str, Any]]) -> str:
    """gnubg-like text of ranked moves: move, equity, difference, the five probabilities."""
    lines = []
    for m in moves:
        p = m["probabilities"]
        if "mwc" in m:
            diff = "" if m["rank"] == 1 else f" ({100 * m['difference']:+.2f}%)"
            depth = f"Cubeful {m['plies']}-ply"  # the MWC is cubeful, as gnubg labels it
            lines.append(f"{m['rank']:4d}. {depth}  {m['move']:<28} MWC: {100 * m['mwc']:.2f}%{diff}")
        else:  # ranked by the cubeful equity where the cubeless stands beside it, as gnubg labels it
            diff = "" if m["rank"] == 1 else f" ({m['difference']:+.3f})"
            depth = f"{'Cubeful ' if 'cubeless_equity' in m else ''}{m['plies']}-ply"
            lines.append(f"{m['rank']:4d}. {depth}  {m['move']:<28} Eq.: {m['equity']:+.3f}{diff}")
        lines.append(
            f"       {p['win']:.3f} {p['win_gammon']:.3f} {p['win_backgammon']:.3f} - "
            f"{1 - p['win']:.3f} {p['lose_gammon']:.3f} {p['lose_backgammon']:.3f}"
        )
    return "\n".join(lines)
