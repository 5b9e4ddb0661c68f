"""Match play: match-winning chances (MWC) from an evaluation, and cube decisions at a match score.

Everything is seen from the side on roll ("the player"), before it rolls: its five cumulative
probabilities (win, win gammon, win backgammon, lose gammon, lose backgammon), its MWC, its
cube actions. A :class:`MatchScore` holds the points each side still needs and whether this game
is the Crawford game; a :class:`MatchCube` adds the cube value and who holds it.

* **Results.** Winning or losing ``k`` times the cube moves the score; the MWC afterwards is the
  table's entry (:func:`game_result_mwc`): a side reaching 1-away from a pre-Crawford score
  plays the Crawford game next (the table's row 0); after the Crawford game, or a game where a
  side already was 1-away, the next game is post-Crawford. Points beyond what a side needs count
  for nothing, so gammons that cannot change the match are worth nothing here (gammon-go and
  gammon-save scores follow from the table: :func:`gammon_prices`).
* **Cubeless MWC** (seed 001): ``sum over the six results of P(result) MWC(result)``.
* **Normalised equity** (NEMG, seed 001): ``2 (MWC - MWC(lose 1 cube)) / (MWC(win 1 cube) -
  MWC(lose 1 cube)) - 1``, a linear map onto the money scale; :func:`equity_to_mwc` inverts it.
* **Live cube** (seed 004, gnubg's method): the live-cube MWC is piecewise linear in the
  winning chance p through (0, lose), (take point, opponent cashes), (cash point, player
  cashes), (1, win), "win"/"lose" weighing single games, gammons and backgammons by the
  position's own rates; owning the cube drops the take-point knot, the opponent owning it drops
  the cash-point knot. The take points come from the cube levels above:
  ``TP(live, n) = TP(dead, n) (1 - TP_opponent(live, 2n))``, starting from the first level whose
  doubled cube would end the match for a side on any win (a dead cube there, where gnubg also
  lets the side that cannot use the cube redouble at once: its "automatic redouble").
  :func:`take_point_ladder` lists the levels.
* **Cubeful MWC** (gnubg): ``(1 - x) MWC(dead) + x MWC(live)`` with the cube efficiency x
  (:mod:`cube.efficiency`). The cube is left out (cubeful = cubeless) in the Crawford game, when
  the cube already covers what both sides need (dead at the end of a match), and at 2-away
  against 2-away.
* **Cube decisions** (gnubg's ``FindBestCubeDecision``, match play): no double = the cubeful MWC
  as the cube is; double/take = the cubeful MWC with the cube doubled and owned by the opponent;
  double/pass = the MWC after winning the current cube. The side on roll may double unless it
  is the Crawford game, the cube is the opponent's, or the current cube already wins it the
  match (which covers the leader post-Crawford). Equal within 1e-5 in normalised equity counts as
  "optional"; "too good" needs some chance of a gammon, else it is double/pass.

The worked example of seed 004 (gnubg's manual; Woolsey's table; 3-0 to 7, the side on roll
7-away, probabilities 0.454 0.103 0.001 0.106 0.003) comes out as printed: take points 24.5%
and 27.3% on the 1-cube, 15% and 38.5% on the 2-cube, 0% and 41% (dead) on the 4-cube; the
live-cube knots (0, 22%), (24.5%, 24%), (72.7%, 36%); cubeless MWC 29.1%, live 29.2%, cubeful
29.17% at x = 0.68. Its last knot, (100%, 41%), is a slip of the example: 78% x 36% + 22% x 58%
takes the *opponent's* chance at 4-away against 5-away (58% in Woolsey's table) for the player's
gammon, where the player, 5-away against 4-away, has 42%: the knot is 37.4% (37.3% ignoring
backgammons, as the example does).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from cube.actions import ProperAction, proper_action
from cube.errors import CubeInputError, FloatArray, check_cube_life, check_cube_state
from cube.gamestate import _check_probabilities
from cube.met import MatchEquityTable
from cube.states import CubeAction, CubeResponse, CubeState

__all__ = [
    "MAX_CUBE",
    "OPTIONAL_TOLERANCE",
    "CubeEquities",
    "GammonPrices",
    "MatchCube",
    "MatchCubeDecision",
    "MatchScore",
    "TakePointLevel",
    "DecisionRule",
    "cube_actions",
    "cube_decision",
    "decision_from_mwcs",
    "decision_rule",
    "best_action_mwc",
    "cubeful_mwc",
    "dead_take_point",
    "cubeless_mwc",
    "equity_to_mwc",
    "game_result_mwc",
    "gammon_prices",
    "live_cash_points",
    "live_mwc",
    "mwc_to_equity",
    "outcome_mwcs",
    "take_point_ladder",
]

#: The largest cube (as the engine's match states).
MAX_CUBE = 1 << 12
#: gnubg calls a double "optional" when it changes the normalised equity by at most this.
OPTIONAL_TOLERANCE = 1e-5


def _check_away(value: int, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < 1:
        raise CubeInputError(f"{name} = {value!r} is not a whole number of points of 1 or more")
    return int(value)


@dataclass(frozen=True)
class MatchScore:
    """Points the side on roll (``away``) and its opponent (``opp_away``) still need; Crawford game or not."""

    away: int
    opp_away: int
    crawford: bool = False

    def __post_init__(self) -> None:
        _check_away(self.away, "away")
        _check_away(self.opp_away, "opp_away")
        if self.crawford and (1 not in (self.away, self.opp_away) or self.away == self.opp_away):
            raise CubeInputError(
                f"Crawford game at {self.away}-away against {self.opp_away}-away: "
                "the Crawford game needs exactly one side 1-away"
            )

    @classmethod
    def from_scores(cls, length: int, score: int, opp_score: int, crawford: bool = False) -> MatchScore:
        """The score of a ``length``-point match where the side on roll has ``score`` and the opponent ``opp_score``."""
        _check_away(length, "match length")
        for value, name in ((score, "score"), (opp_score, "opponent's score")):
            if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < 0:
                raise CubeInputError(f"{name} = {value!r} is not a whole number of points of 0 or more")
        if max(score, opp_score) >= length:
            raise CubeInputError(f"score {score}-{opp_score} is not below the match length {length}")
        return cls(int(length - score), int(length - opp_score), crawford)

    @property
    def post_crawford(self) -> bool:
        """A side is 1-away and this is not the Crawford game (double match point included)."""
        return not self.crawford and 1 in (self.away, self.opp_away)

    def flipped(self) -> MatchScore:
        """The same score seen by the opponent."""
        return MatchScore(self.opp_away, self.away, self.crawford)


@dataclass(frozen=True)
class MatchCube:
    """A match score with the cube: its value and who holds it (``state``, the side on roll's view)."""

    score: MatchScore
    value: int = 1
    state: CubeState = CubeState.CENTERED

    def __post_init__(self) -> None:
        object.__setattr__(self, "state", check_cube_state(self.state, "cube state"))
        v, s = self.value, self.score
        if isinstance(v, bool) or not isinstance(v, int | np.integer) or v < 1 or v & (v - 1) or v > MAX_CUBE:
            raise CubeInputError(f"cube {v!r} is not a power of two from 1 to {MAX_CUBE}")
        if s.crawford and (v > 1 or self.state is not CubeState.CENTERED):
            raise CubeInputError(f"cube {v} ({self.state}) in the Crawford game, where no one may double")
        if v > 1 and self.state is CubeState.CENTERED:
            raise CubeInputError(f"centred cube {v} in a match (only the 1-cube is centred)")
        if v > 1:
            owner_is_player = self.state is CubeState.OWNED
            doubler_away = s.opp_away if owner_is_player else s.away
            if doubler_away <= v // 2:
                who = "the opponent" if owner_is_player else "the side on roll"
                raise CubeInputError(
                    f"cube {v} ({self.state}) at {s.away}-away against {s.opp_away}-away: {who}, "
                    f"{doubler_away}-away, could not have doubled it from {v // 2} "
                    "(a cube above what the match can use)"
                )

    @property
    def can_double(self) -> bool:
        """Whether the side on roll may double: not the Crawford game, its cube or centred, not won on it already."""
        return not self.score.crawford and self.state is not CubeState.UNAVAILABLE and self.score.away > self.value

    @property
    def cubeful(self) -> bool:
        """Whether the cube still matters (gnubg): not the Crawford game, not dead for both, not 2-away/2-away."""
        s = self.score
        return not (s.crawford or (s.away <= self.value and s.opp_away <= self.value) or s.away == s.opp_away == 2)

    def doubled(self) -> MatchCube:
        """The cube after the side on roll doubles and the opponent takes (the opponent holds it)."""
        if not self.can_double:
            raise CubeInputError(f"the side on roll cannot double cube {self.value} ({self.state}) at this score")
        return MatchCube(self.score, 2 * self.value, CubeState.UNAVAILABLE)

    def flipped(self) -> MatchCube:
        """The same cube seen by the opponent."""
        return MatchCube(self.score.flipped(), self.value, CubeState(self.state).opponent)


# --------------------------------------------------------------------------- results


def game_result_mwc(met: MatchEquityTable, score: MatchScore, won: int = 0, lost: int = 0) -> float:
    """The side on roll's MWC after it wins ``won`` points or loses ``lost`` points in this game."""
    away, opp_away = score.away - won, score.opp_away - lost
    if away <= 0:
        return 1.0
    if opp_away <= 0:
        return 0.0
    crawford_next = not (score.crawford or score.post_crawford) and 1 in (away, opp_away)
    return met.mwc(away, opp_away, crawford=crawford_next)


def outcome_mwcs(met: MatchEquityTable, cube: MatchCube) -> FloatArray:
    """MWC after each result at the cube: win 1, 2, 3 cubes, lose 1, 2, 3 cubes (side on roll)."""
    return outcome_mwcs_at(met, cube.score, cube.value)


def outcome_mwcs_at(met: MatchEquityTable, score: MatchScore, value: int) -> FloatArray:
    """MWC after each result with the cube at ``value``: win 1, 2, 3 cubes, lose 1, 2, 3 cubes (side on roll).

    Any value, also one above what a :class:`MatchCube` at this score may hold (a redouble's, in a search).
    """
    wins = [game_result_mwc(met, score, won=k * value) for k in (1, 2, 3)]
    losses = [game_result_mwc(met, score, lost=k * value) for k in (1, 2, 3)]
    return np.array(wins + losses)


def result_probabilities(arr: FloatArray) -> FloatArray:
    """The six exclusive results (win 1, 2, 3; lose 1, 2, 3) from the five cumulative probabilities."""
    win, wg, wbg, lg, lbg = (arr[..., k] for k in range(5))
    return np.stack([win - wg, wg - wbg, wbg, (1.0 - win) - lg, lg - lbg, lbg], axis=-1)


def cubeless_mwc(probs: ArrayLike, met: MatchEquityTable, cube: MatchCube) -> FloatArray:
    """The side on roll's cubeless MWC: each result's probability times the MWC it leaves (seed 001)."""
    arr = _check_probabilities(probs)
    return np.asarray(result_probabilities(arr) @ outcome_mwcs(met, cube))


def _win_lose_one(met: MatchEquityTable, cube: MatchCube) -> tuple[float, float]:
    v = cube.value
    return game_result_mwc(met, cube.score, won=v), game_result_mwc(met, cube.score, lost=v)


def mwc_to_equity(mwc: ArrayLike, met: MatchEquityTable, cube: MatchCube) -> FloatArray:
    """Normalised money equity (NEMG) of an MWC: -1 at losing one cube, +1 at winning one (seed 001)."""
    win, lose = _win_lose_one(met, cube)
    return np.asarray(2.0 * (np.asarray(mwc, dtype=np.float64) - lose) / (win - lose) - 1.0)


def equity_to_mwc(equity: ArrayLike, met: MatchEquityTable, cube: MatchCube) -> FloatArray:
    """The MWC of a normalised money equity (inverse of :func:`mwc_to_equity`)."""
    win, lose = _win_lose_one(met, cube)
    return np.asarray(lose + (np.asarray(equity, dtype=np.float64) + 1.0) * (win - lose) / 2.0)


@dataclass(frozen=True)
class GammonPrices:
    """What a gammon or backgammon adds to a single game, in normalised equity (0: it does not count)."""

    win_gammon: float
    lose_gammon: float
    win_backgammon: float
    lose_backgammon: float


def gammon_prices(met: MatchEquityTable, cube: MatchCube) -> GammonPrices:
    """The side on roll's gammon and backgammon prices at this score and cube (money game: 1, 1, 1, 1).

    ``cubeless equity = 2 P(win) - 1 + P(wg) wg_price - P(lg) lg_price + P(wbg) wbg_price - P(lbg) lbg_price``.
    """
    w1, w2, w3, l1, l2, l3 = outcome_mwcs(met, cube)
    scale = 2.0 / (w1 - l1)
    return GammonPrices(
        win_gammon=max(scale * (w2 - w1), 0.0),
        lose_gammon=max(scale * (l1 - l2), 0.0),
        win_backgammon=max(scale * (w3 - w2), 0.0),
        lose_backgammon=max(scale * (l2 - l3), 0.0),
    )


# --------------------------------------------------------------------------- live cube


def _rates(arr: FloatArray) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray]:
    """Shares of the side on roll's wins that are gammons (not backgammons) and backgammons, then of its losses."""
    win, lose = arr[..., 0], 1.0 - arr[..., 0]
    safe_win, safe_lose = np.where(win > 0.0, win, 1.0), np.where(lose > 0.0, lose, 1.0)
    g_win = np.where(win > 0.0, (arr[..., 1] - arr[..., 2]) / safe_win, 0.0)
    bg_win = np.where(win > 0.0, arr[..., 2] / safe_win, 0.0)
    g_lose = np.where(lose > 0.0, (arr[..., 3] - arr[..., 4]) / safe_lose, 0.0)
    bg_lose = np.where(lose > 0.0, arr[..., 4] / safe_lose, 0.0)
    return g_win, bg_win, g_lose, bg_lose


def _weighted(results: Sequence[float], g: FloatArray, bg: FloatArray) -> FloatArray:
    """The MWC of a won (or lost) game: single, gammon and backgammon results weighted by their shares."""
    single, gammon, backgammon = results
    return np.asarray((1.0 - g - bg) * single + g * gammon + bg * backgammon)


def _results(met: MatchEquityTable, score: MatchScore, cube: int, won: bool) -> tuple[float, float, float]:
    """The side on roll's MWCs after a single, gammon and backgammon won (``won``) or lost at ``cube``."""
    key = "won" if won else "lost"
    a, b, c = (game_result_mwc(met, score, **{key: m * cube}) for m in (1, 2, 3))
    return a, b, c


#: A side of the ladder: (its score, the gammon and backgammon shares of its wins, then of the opponent's).
_LadderSide = tuple[MatchScore, tuple[FloatArray, FloatArray], tuple[FloatArray, FloatArray]]


def _ladder_sides(arr: FloatArray, s: MatchScore) -> tuple[_LadderSide, _LadderSide]:
    """The ladder's two sides: the side on roll at score ``s``, then the opponent."""
    g0, bg0, g1, bg1 = _rates(arr)
    return (s, (g0, bg0), (g1, bg1)), (s.flipped(), (g1, bg1), (g0, bg0))


def _ladder_levels(cube: MatchCube) -> Iterator[tuple[int, bool]]:
    """The ladder's cube levels, top first, down to ``cube``'s value, each with whether doubling it is dead.

    The top is the first level whose doubled cube is dead for a side (no redouble counted).
    """
    s = cube.score
    top = cube.value
    while s.away - 1 >= 2 * top and s.opp_away - 1 >= 2 * top:
        top *= 2
    level = top
    while level >= cube.value:
        yield level, s.away - 1 < 2 * level or s.opp_away - 1 < 2 * level
        level //= 2


def _dead_cash_point(met: MatchEquityTable, side: _LadderSide, level: int) -> FloatArray:
    """The cash point of ``side`` doubling from ``level`` to a dead cube (its own winning chance)."""
    sc, own, opp = side
    pass_value = game_result_mwc(met, sc, won=level)
    # a side that the doubled cube already wins the match while its opponent still needs more
    # redoubles at once: the game is then played for twice the doubled cube
    doubler_wins_outright = sc.away - 1 < 2 * level <= sc.opp_away - 1
    played = 2 * (2 * level if doubler_wins_outright else level)
    take_win = _weighted(_results(met, sc, played, True), *own)
    take_lose = _weighted(_results(met, sc, played, False), *opp)
    return np.asarray((take_lose - pass_value) / (take_lose - take_win))


@dataclass(frozen=True)
class TakePointLevel:
    """One cube level of the live-cube ladder: take points when doubled from ``cube`` to twice ``cube``.

    ``take_point`` is the side on roll's, ``opp_take_point`` the opponent's (each its own winning
    chance); ``dead``: the doubled cube is the top of the ladder (no redouble counted).
    """

    cube: int
    take_point: FloatArray
    opp_take_point: FloatArray
    dead: bool


def _ladder(arr: FloatArray, met: MatchEquityTable, cube: MatchCube) -> list[TakePointLevel]:
    """gnubg's cash points level by level (``GetPoints``), top level first, as take points."""
    sides = _ladder_sides(arr, cube.score)
    cash: list[dict[int, FloatArray]] = [{}, {}]  # cash point of each side per cube level
    levels: list[TakePointLevel] = []
    for level, dead in _ladder_levels(cube):
        for k, side in enumerate(sides):
            if dead:
                cash[k][level] = _dead_cash_point(met, side, level)
                continue
            sc, own, _ = side
            pass_value = game_result_mwc(met, sc, won=level)
            take_win = _weighted(_results(met, sc, 2 * level, True), *own)
            redouble_pass = game_result_mwc(met, sc, lost=2 * level)
            opp_cash_above = cash[1 - k][2 * level]
            cash[k][level] = 1.0 - opp_cash_above * (pass_value - take_win) / (redouble_pass - take_win)
        levels.append(TakePointLevel(level, 1.0 - cash[1][level], 1.0 - cash[0][level], dead))
    return levels


def take_point_ladder(probs: ArrayLike, met: MatchEquityTable, cube: MatchCube) -> list[TakePointLevel]:
    """The live-cube take points of both sides at each cube level from the top of the ladder down to ``cube``.

    Levels whose doubled cube would end the match for a side on any win are ``dead`` (the top).
    """
    return _ladder(_check_probabilities(probs), met, cube)


def dead_take_point(probs: ArrayLike, met: MatchEquityTable, cube: MatchCube) -> FloatArray:
    """The side on roll's dead-cube take point when the opponent doubles ``cube`` to twice ``cube``.

    ``(pass - lose) / (win - lose)``: passing loses ``cube``; taking plays for twice ``cube`` with
    no redouble, each side's wins weighted by its own gammon and backgammon rates.
    """
    arr = _check_probabilities(probs)
    g0, bg0, g1, bg1 = _rates(arr)
    s, doubled = cube.score, 2 * cube.value
    pass_value = game_result_mwc(met, s, lost=cube.value)
    win = _weighted(_results(met, s, doubled, True), g0, bg0)
    lose = _weighted(_results(met, s, doubled, False), g1, bg1)
    return np.asarray((pass_value - lose) / (win - lose))


def live_cash_points(probs: ArrayLike, met: MatchEquityTable, cube: MatchCube) -> tuple[FloatArray, FloatArray]:
    """The live-cube cash points (side on roll's winning chance) of the side on roll and of the opponent.

    The opponent's is in its own winning chance; the side on roll's take point is one minus it.
    """
    bottom = take_point_ladder(probs, met, cube)[-1]
    return 1.0 - bottom.opp_take_point, 1.0 - bottom.take_point


def _live(arr: FloatArray, met: MatchEquityTable, cube: MatchCube) -> FloatArray:
    p = arr[..., 0]
    g0, bg0, g1, bg1 = _rates(arr)
    w1, w2, w3, l1, l2, l3 = outcome_mwcs(met, cube)
    mwc_win, mwc_lose = _weighted((w1, w2, w3), g0, bg0), _weighted((l1, l2, l3), g1, bg1)
    bottom = _ladder(arr, met, cube)[-1]
    cash_point, take_point = 1.0 - bottom.opp_take_point, bottom.take_point
    with np.errstate(divide="ignore", invalid="ignore"):
        below_take = np.where(take_point > 0.0, mwc_lose + (l1 - mwc_lose) * p / take_point, mwc_lose)
        below_cash = np.where(cash_point > 0.0, mwc_lose + (w1 - mwc_lose) * p / cash_point, mwc_lose)
        above_cash = np.where(cash_point < 1.0, w1 + (mwc_win - w1) * (p - cash_point) / (1.0 - cash_point), mwc_win)
        above_take = np.where(take_point < 1.0, l1 + (mwc_win - l1) * (p - take_point) / (1.0 - take_point), mwc_win)
        window = l1 + (w1 - l1) * (p - take_point) / (cash_point - take_point)
    if cube.state is CubeState.OWNED:
        out = np.where(p <= cash_point, below_cash, above_cash)
    elif cube.state is CubeState.UNAVAILABLE:
        out = np.where(p <= take_point, below_take, above_take)
    else:
        out = np.where(p <= take_point, below_take, np.where((p > take_point) & (p < cash_point), window, above_cash))
    return np.asarray(out, dtype=np.float64)


def live_mwc(probs: ArrayLike, met: MatchEquityTable, cube: MatchCube) -> FloatArray:
    """The side on roll's fully live cube MWC (piecewise linear in P(win); module notes)."""
    return _live(_check_probabilities(probs), met, cube)


def cubeful_mwc(probs: ArrayLike, met: MatchEquityTable, cube: MatchCube, x: ArrayLike) -> FloatArray:
    """The side on roll's cubeful MWC ``(1 - x) cubeless + x live`` (cubeless where the cube no longer matters)."""
    arr = _check_probabilities(probs)
    dead = cubeless_mwc(arr, met, cube)
    x_ = check_cube_life(x, "x")
    if not cube.cubeful:
        return dead
    return np.asarray((1.0 - x_) * dead + x_ * _live(arr, met, cube))


def best_action_mwc(
    probs: ArrayLike, met: MatchEquityTable, cube: MatchCube, x: ArrayLike, x_doubled: ArrayLike
) -> FloatArray:
    """The side on roll's cubeful MWC after its best cube action: max(ND, min(DT, DP)), as gnubg values a
    position below the top of a search (the no-double MWC where the side on roll cannot double).

    ``x`` is the cube efficiency as the cube is, ``x_doubled`` after a double (one per position or one for all).
    """
    no_double = cubeful_mwc(probs, met, cube, x)
    if not cube.can_double:
        return no_double
    double_take = cubeful_mwc(probs, met, cube.doubled(), x_doubled)
    double_pass = game_result_mwc(met, cube.score, won=cube.value)
    return np.asarray(np.maximum(no_double, np.minimum(double_take, double_pass)))


# --------------------------------------------------------------------------- decisions


@dataclass(frozen=True)
class CubeEquities:
    """The three cube outcomes of the side on roll and the best of them, in one unit (MWC or NEMG).

    ``double_take`` and ``double_pass`` are nan where the side on roll cannot double.
    """

    no_double: float
    double_take: float
    double_pass: float
    optimal: float


@dataclass(frozen=True)
class MatchCubeDecision:
    """A cube decision at a match score, side on roll's view.

    ``response`` is the opponent's best answer to a double (None where the side on roll cannot
    double); ``optional``: doubling and not doubling are equal within :data:`OPTIONAL_TOLERANCE`
    (a double/take whose take equals no double, or a double/pass whose pass equals no double
    with gammon chances); ``mwc`` and ``equity`` hold the outcomes as MWC and as normalised
    money equity at the current cube.
    """

    action: CubeAction
    response: CubeResponse | None
    available: bool
    optional: bool
    mwc: CubeEquities
    equity: CubeEquities

    def proper(self, state: CubeState) -> ProperAction:
        """gnubg's name of this decision at cube ``state`` (side on roll's view), as its FindBestCubeDecision
        names it: a cube the side on roll cannot turn is "Cube not available" where the opponent holds it, else
        a dead cube (the Crawford game, the 1-point match, a cube that covers the side's needs)."""
        if self.available:
            return proper_action(self.action, self.response or CubeResponse.TAKE, state, optional=self.optional)
        if CubeState(state) is CubeState.UNAVAILABLE:
            return ProperAction.NOT_AVAILABLE
        return proper_action(self.action, CubeResponse.TAKE, state, dead=True)


def cube_decision(
    probs: ArrayLike,
    met: MatchEquityTable,
    cube: MatchCube,
    x: float,
    x_doubled: float | None = None,
) -> MatchCubeDecision:
    """gnubg's cube decision for one position (five probabilities of the side on roll) at ``cube``.

    ``x`` is the cube efficiency of the position as the cube is, ``x_doubled`` after a double
    (the same unless given; gnubg's two-sided bearoffs differ).
    """
    arr = _check_probabilities(probs)
    if arr.shape != (5,):
        raise CubeInputError(f"cube_decision takes one position (shape (5,)), got shape {arr.shape}")
    no_double = float(cubeful_mwc(arr, met, cube, x))
    if not cube.can_double:
        return decision_from_mwcs(no_double, None, None, bool(arr[1] > 0.0), met, cube)
    double_take = float(cubeful_mwc(arr, met, cube.doubled(), x if x_doubled is None else x_doubled))
    double_pass = game_result_mwc(met, cube.score, won=cube.value)
    return decision_from_mwcs(no_double, double_take, double_pass, bool(arr[1] > 0.0), met, cube)


def decision_from_mwcs(
    no_double: float,
    double_take: float | None,
    double_pass: float | None,
    gammons: bool,
    met: MatchEquityTable,
    cube: MatchCube,
) -> MatchCubeDecision:
    """gnubg's cube decision from the three MWCs of the side on roll (module notes), whatever the cube model.

    ``double_take`` and ``double_pass`` are None where the side on roll cannot double; ``gammons``:
    the side on roll has some chance of a gammon (else a pass is never "too good").
    """
    nd_eq = float(mwc_to_equity(no_double, met, cube))
    if double_take is None or double_pass is None:
        nan = float("nan")
        return MatchCubeDecision(
            CubeAction.NO_DOUBLE,
            None,
            False,
            False,
            CubeEquities(no_double, nan, nan, no_double),
            CubeEquities(nd_eq, nan, nan, nd_eq),
        )
    nd, dt, dp = (float(e) for e in mwc_to_equity([no_double, double_take, double_pass], met, cube))
    rule = decision_rule(np.array([nd]), np.array([dt]), np.array([dp]), np.array([gammons]))
    action, response = CubeAction(rule.action[0]), CubeResponse(rule.response[0])
    best, optional = int(rule.best[0]), bool(rule.optional[0])
    mwcs = (no_double, double_take, double_pass)
    eqs = (nd, dt, dp)
    return MatchCubeDecision(
        action,
        response,
        True,
        optional,
        CubeEquities(*mwcs, mwcs[best]),
        CubeEquities(*eqs, eqs[best]),
    )


@dataclass(frozen=True)
class DecisionRule:
    """gnubg's cube decision from the three outcomes, per position (arrays of equal length).

    ``action``: :class:`CubeAction` values; ``response``: :class:`CubeResponse` values (the
    opponent's best answer to a double); ``best``: 0 no double, 1 double/take, 2 double/pass;
    ``optional``: doubling and not doubling are equal within :data:`OPTIONAL_TOLERANCE`.
    """

    action: np.ndarray
    response: np.ndarray
    best: np.ndarray
    optional: np.ndarray


def decision_rule(nd: ArrayLike, dt: ArrayLike, dp: ArrayLike, gammons: ArrayLike) -> DecisionRule:
    """gnubg's ``FindBestCubeDecision`` on normalised equities (no double, double/take, double/pass), vectorised.

    Double when double/take and double/pass are both at least no double, the opponent then
    taking when passing is worth more to the doubler; otherwise no double, "too good" where the
    opponent would pass (or no double beats double/pass) and the side on roll has gammon chances.
    """
    nd_, dt_, dp_ = (np.asarray(v, dtype=np.float64) for v in (nd, dt, dp))
    gam = np.asarray(gammons, dtype=bool)
    doubling = (dt_ >= nd_) & (dp_ >= nd_)
    take_when_doubling = dp_ > dt_
    # not doubling: the opponent would pass exactly when double/take beats double/pass
    passes = np.where(doubling, ~take_when_doubling, (dt_ > dp_) | (nd_ <= dt_))
    too_good = ~doubling & gam & np.where(passes, True, nd_ > dp_)
    doubles = doubling | (~doubling & passes & ~gam)
    action = np.where(too_good, CubeAction.TOO_GOOD, np.where(doubles, CubeAction.DOUBLE, CubeAction.NO_DOUBLE))
    response = np.where(passes, CubeResponse.PASS, CubeResponse.TAKE)
    best = np.where(doubling, np.where(take_when_doubling, 1, 2), 0)
    optional = doubling & np.where(
        take_when_doubling, np.abs(dt_ - nd_) <= OPTIONAL_TOLERANCE, (np.abs(nd_ - dp_) <= OPTIONAL_TOLERANCE) & gam
    )
    return DecisionRule(action.astype(str), response.astype(str), best.astype(np.int64), optional)


def cube_actions(
    probs: ArrayLike, met: MatchEquityTable, cubes: Sequence[MatchCube], x: ArrayLike
) -> tuple[np.ndarray, np.ndarray]:
    """gnubg's cube action of each side on roll and its opponent's response, many positions at once.

    ``probs`` (n, 5), ``cubes`` one :class:`MatchCube` per position (side on roll's view), ``x``
    each position's cube efficiency (before and after a double). Returns (:class:`CubeAction`,
    :class:`CubeResponse`) value arrays; where the side on roll cannot double: no double, take.
    Equal to :func:`cube_decision` position by position, computed once per distinct cube.
    """
    arr = _check_probabilities(probs).reshape(-1, 5)
    x_ = np.broadcast_to(check_cube_life(x, "x"), (len(arr),))
    if len(cubes) != len(arr):
        raise CubeInputError(f"{len(cubes)} cubes for {len(arr)} positions")
    actions = np.full(len(arr), str(CubeAction.NO_DOUBLE), dtype=object)
    responses = np.full(len(arr), str(CubeResponse.TAKE), dtype=object)
    groups: dict[MatchCube, list[int]] = {}
    for i, cube in enumerate(cubes):
        if cube.can_double:
            groups.setdefault(cube, []).append(i)
    for cube, rows_list in groups.items():
        rows = np.asarray(rows_list)
        p, xs = arr[rows], x_[rows]
        no_double = cubeful_mwc(p, met, cube, xs)
        double_take = cubeful_mwc(p, met, cube.doubled(), xs)
        double_pass = np.full(len(rows), game_result_mwc(met, cube.score, won=cube.value))
        nd, dt, dp = (mwc_to_equity(v, met, cube) for v in (no_double, double_take, double_pass))
        rule = decision_rule(nd, dt, dp, p[:, 1] > 0.0)
        actions[rows], responses[rows] = rule.action, rule.response
    return actions.astype(str), responses.astype(str)
