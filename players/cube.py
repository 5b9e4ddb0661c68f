"""Cube strategy specs and batched cube decisions from a player's own probabilities, for money and matches.

One spec type (:class:`CubeSpec`, from :func:`parse_cube_spec`) and one decider protocol
(:class:`Decider`) serve both: a spec parsed with a match equity table names a match cube strategy
(:mod:`players.match_cube`), one parsed without names a money strategy, and a decider answers
the questions of a :class:`players.base.CubeContext` of its kind (money is the match of
unlimited length).

Money specs (``--a-cube`` and friends): ``none`` (never doubles, always takes), ``dead``, ``live``,
``janowski:X``, ``janowski:X1,X2``, ``jump:ALPHA[:linear|nonlinear|numerical]``,
``jump-local[:REMOTE_ALPHA[:std|mean_abs]]`` (the local volatility as sigma_J, the default, or
as E|J|), ``jump-net[:REMOTE_ALPHA[:FILE]]`` and ``gnubg`` (GNU Backgammon's
cube model on the player's own probabilities: :class:`GnubgModelDecider` for this project's nets,
gnubg's own cubeful evaluation for gnubg players) or ``gnubg@PLY`` (GNU Backgammon's own cube
decisions at PLY, its nets and its cubeful evaluation, whoever plays the checkers:
:class:`players.gnubg_cube.GnubgEngineDecider`; in matches too).
Janowski strategies play in the capped mode (:func:`cube.janowski` with ``capped=True``; ``jumpgammon eval`` and
the ``gnubg`` spec use gnubg's mix of the dead and live cube instead, which differs from it on a centred cube);
the jump strategies use the numerical solution unless told otherwise.

``jump-local`` needs each position's local volatility from the 441-roll lookahead. The
lookahead is run only where it can change the decision: the decision is first taken at a
ladder of volatilities spanning every value the lookahead can return (from nearly 0 to the
strategy's cap); where all of them agree, that is the decision, and only the rest get a
lookahead, batched across every game that needs one at that turn. A board met again (the two
games of a mirrored pair walk the same positions until their cube decisions part, and a
player asked both its own and its opponent's questions meets each position twice) reuses its
volatility: the lookahead runs once per distinct board, and a bounded cache remembers the
volatilities of recent boards. Where the game may end within two rolls the lookahead always runs: if it
shows the game decided, the decision is the exact one of :mod:`cube.two_roll`, not the jump model's, and if it
shows it nearly decided (at most :data:`cube.two_roll.SEARCH_CELLS` of the 441 lines open) the two rolls are
searched, with the model at the open lines only.

``jump-net`` is the same strategy with the local volatility from a learned net
(:mod:`nets.volnet`, experiment 5; ``FILE`` defaults to the shipped ``weights/volatility.jgw``) in
place of the lookahead, behind the same gate.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Generic, Protocol, TypeVar, overload

import numpy as np

from cube import (
    CubeDecisions,
    CubeStrategy,
    dead,
    janowski,
    janowski_refined,
    jump,
    jump_local,
    live,
    local_volatility,
)
from cube.errors import CubeInputError
from cube.met import MatchEquityTable
from cube.states import CubeState
from cube.strategy import JumpApproximation
from cube.two_roll import DECIDED_TOLERANCE, uncertain_cells
from cube.volatility import (  # jump-local's and jump-net's unless the spec gives one
    DEFAULT_REMOTE_ALPHA,
    VolatilityMeasure,
)
from engine.batch import phases
from engine.errors import InvalidSpec, JumpgammonError
from engine.position import GamePhase
from nets.cube_advice import money_cube_decisions
from nets.jump_tables import disk_cached_solve
from nets.volnet import DEFAULT_VOLNET
from players.base import CubeAnswers, CubeContext, check_context_kind
from players.gnubg_binding import MAX_PLIES as GNUBG_MAX_PLIES
from players.gnubg_cube import GnubgEngineDecider
from players.match_cube import MATCH_CUBE_STRATEGIES, EfficiencyMatchCube, MatchCubeStrategy, match_cube_specs

# Volatilities at which a jump-local decision is checked before paying for a lookahead: the
# strategy clips local volatility to [MIN_LOCAL_ALPHA, 0.49], so these span all it can use.
GATE_ALPHAS = (1e-3, 0.05, 0.12, 0.25, 0.49)
# Boards whose local volatility a decider remembers (a few MB); volatility depends on the board alone.
VOLATILITY_CACHE_SIZE = 65_536
# Boards whose lookahead showed the game decided or nearly, kept with it (float32, 8.8 kB each: about 36 MB at most).
NEAR_END_CACHE_SIZE = 4_096
# No row decided or nearly within two rolls: the rows and their (0, 441, 5) outcomes.
_NONE_NEAR_END = (np.zeros(0, np.intp), np.zeros((0, 441, 5)))
#: The money cube specs, as an error message or help text lists them.
CUBE_SPECS = (
    f"none, dead, live, janowski:X, janowski:X1,X2, jump:ALPHA[:{'|'.join(JumpApproximation)}], "
    "jump-local[:REMOTE_ALPHA[:std|mean_abs]], jump-net[:REMOTE_ALPHA[:FILE]], gnubg, gnubg@PLY"
)


#: The kind of strategy a spec names: a money strategy, or a match cube strategy.
StrategyT = TypeVar("StrategyT", CubeStrategy, MatchCubeStrategy)


@dataclass(frozen=True)
class CubeSpec(Generic[StrategyT]):
    """A parsed cube spec: the text it came from and the strategy it names (money or match).

    ``strategy`` is None for ``none`` (cubeless); a match spec's is a :class:`MatchCubeStrategy`.
    ``own`` marks ``gnubg``: the player decides with its own cubeful evaluation (money strategy
    None; at a match score gnubg's match cube for players without one). ``engine_plies`` marks
    ``gnubg@PLY``: GNU Backgammon's own cube decisions at that depth, whoever plays the checkers
    (strategy None). ``volatility_net`` names
    the learned volatility net file of ``jump-net`` (None: local volatility, if used, from the lookahead).
    """

    text: str
    strategy: StrategyT | None
    own: bool = False
    volatility_net: Path | None = None
    engine_plies: int | None = None

    @property
    def cubeless(self) -> bool:
        """True when this spec never doubles and always takes."""
        return self.strategy is None and not self.own and self.engine_plies is None


def _number(text: str, spec: str, low: float, high: float) -> float:
    try:
        value = float(text)
    except ValueError:
        raise InvalidSpec(f"cube spec {spec!r}: {text!r} is not a number") from None
    if not (np.isfinite(value) and low <= value <= high):
        raise InvalidSpec(f"cube spec {spec!r}: {text!r} is not in [{low:g}, {high:g}]")
    return value


def _engine_plies(name: str, spec: str) -> int:
    """The depth of ``gnubg@PLY`` (0 to 2); raises InvalidSpec naming the spec."""
    ply = name.partition("@")[2]
    if not ply.isdigit() or not 0 <= int(ply) <= GNUBG_MAX_PLIES:
        raise InvalidSpec(f"cube spec {spec!r}: ply {ply!r} is not 0 to {GNUBG_MAX_PLIES}")
    return int(ply)


#: A spec of either kind, as players take it.
AnyCubeSpec = CubeSpec[CubeStrategy] | CubeSpec[MatchCubeStrategy]


@overload
def parse_cube_spec(text: str, met: None = None) -> CubeSpec[CubeStrategy]: ...
@overload
def parse_cube_spec(text: str, met: MatchEquityTable) -> CubeSpec[MatchCubeStrategy]: ...
def parse_cube_spec(text: str, met: MatchEquityTable | None = None) -> AnyCubeSpec:
    """The cube strategy a spec names: for money, or with ``met`` for matches deciding with that table.

    Raises InvalidSpec naming the spec.
    """
    if met is not None:
        return _parse_match_spec(text, met)
    if not isinstance(text, str):
        raise InvalidSpec(f"cube spec must be a string, got {text!r}")
    name, _, rest = text.strip().partition(":")
    try:
        if name == "none" and not rest:
            return CubeSpec(text, None)
        if name == "gnubg" and not rest:
            return CubeSpec(text, None, own=True)
        if name.startswith("gnubg@") and not rest:
            return CubeSpec(text, None, engine_plies=_engine_plies(name, text))
        if name == "dead" and not rest:
            return CubeSpec(text, dead())
        if name == "live" and not rest:
            return CubeSpec(text, live(capped=True))
        if name == "janowski" and rest:
            xs = [_number(x, text, 0.0, 1.0) for x in rest.split(",")]
            if len(xs) == 1:
                return CubeSpec(text, janowski(xs[0], capped=True))
            if len(xs) == 2:
                return CubeSpec(text, janowski_refined(xs[0], xs[1], capped=True))
        if name == "jump" and rest:
            alpha_text, _, approximation = rest.partition(":")
            alpha = _number(alpha_text, text, 1e-3, 0.49)
            if approximation in ("", *JumpApproximation):
                approx = approximation or JumpApproximation.NUMERICAL
                return CubeSpec(text, jump(alpha, approx, solver=disk_cached_solve))
        if name == "jump-local":
            alpha_text, colon, measure = rest.partition(":")
            remote = _number(alpha_text, text, 1e-3, 0.49) if alpha_text else DEFAULT_REMOTE_ALPHA
            if colon and measure not in tuple(VolatilityMeasure):
                known = ", ".join(VolatilityMeasure)
                raise InvalidSpec(f"cube spec {text!r}: local measure {measure!r} is not one of {known}")
            how = VolatilityMeasure(measure or VolatilityMeasure.STD)
            strategy = jump_local(remote, JumpApproximation.NUMERICAL, solver=disk_cached_solve, local_measure=how)
            return CubeSpec(text, strategy)
        if name == "jump-net":
            alpha_text, colon, file = rest.partition(":")
            if colon and not file:
                raise InvalidSpec(f"cube spec {text!r}: the volatility net file name is empty")
            remote = _number(alpha_text, text, 1e-3, 0.49) if alpha_text else DEFAULT_REMOTE_ALPHA
            return CubeSpec(
                text,
                jump_local(remote, JumpApproximation.NUMERICAL, solver=disk_cached_solve),
                volatility_net=Path(file) if file else DEFAULT_VOLNET,
            )
    except CubeInputError as exc:
        raise InvalidSpec(f"cube spec {text!r}: {exc}") from None
    raise InvalidSpec(f"cube spec {text!r} is not one of {CUBE_SPECS}")


def _parse_match_spec(text: str, met: MatchEquityTable) -> CubeSpec[MatchCubeStrategy]:
    """The match cube strategy a spec names, deciding with ``met``; raises InvalidSpec naming the spec."""
    if not isinstance(text, str):
        raise InvalidSpec(f"match cube spec must be a string, got {text!r}")
    name, colon, arg = text.strip().partition(":")
    if name == "none" and not colon:
        return CubeSpec(text, None)
    if name == "gnubg" and not colon:  # gnubg players use their engine's own cube, nets gnubg's model
        return CubeSpec(text, EfficiencyMatchCube(met, "gnubg"), own=True)
    if name.startswith("gnubg@") and not colon:
        return CubeSpec(text, None, engine_plies=_engine_plies(name, text))
    entry = MATCH_CUBE_STRATEGIES.get(name)
    if entry is None or (colon and not arg):
        raise InvalidSpec(f"cube spec {text!r} is not a match cube strategy (in matches: {match_cube_specs()})")
    try:
        return CubeSpec(text, entry.build(arg, met))
    except CubeInputError as exc:
        raise InvalidSpec(f"match cube spec {text!r}: {exc}") from None


class Decider(Protocol):
    """Batched cube decisions from a player's probabilities, for the questions of a :class:`CubeContext`.

    ``decisions`` counts the positions judged and ``lookaheads`` those that needed a local volatility.
    """

    decisions: int
    lookaheads: int

    def decide(self, boards: np.ndarray, context: CubeContext) -> CubeAnswers:
        """The answers for boards seen by the side on roll in ``context`` (its cube state, score and rules)."""
        ...


class CubeDecider:
    """Batched decisions of one cube strategy (money or match) from a player's probabilities (side on roll's view).

    ``probabilities(boards)`` gives (n, 5) cubeless probabilities at the player's depth. Local
    volatility comes from ``local_volatility(boards)`` ((n,), e.g. a learned net) when given, else
    from ``lookahead(boards)``, (n, 441, 5) two-roll outcomes. ``decisions`` counts the positions
    judged, ``lookaheads`` those whose decision needed a local volatility (from either source) or took the
    two-roll rule's decision (exact or searched), and ``lookaheads_run`` the money lookaheads actually run
    (distinct boards not in the cache).
    With a lookahead, a local strategy's decision where the game may end within two rolls is checked against it,
    and where it shows the game decided or nearly the decision is the two-roll search's (:mod:`cube.two_roll`:
    exact where decided) unless ``two_roll_search`` is False (the jump model's own, as before that rule; money
    strategies only: a match strategy that takes the lookahead runs it for every position and always applies
    the rule). Money play looks only where the game may end within two rolls (:func:`may_end_within_two_rolls`),
    where ``eval`` looks everywhere: a contact position with half its lines decided is searched there only.
    """

    def __init__(
        self,
        strategy: CubeStrategy | MatchCubeStrategy,
        probabilities: Callable[[np.ndarray], np.ndarray],
        lookahead: Callable[[np.ndarray], np.ndarray] | None = None,
        cache_size: int = VOLATILITY_CACHE_SIZE,
        local_volatility: Callable[[np.ndarray], np.ndarray] | None = None,
        two_roll_search: bool = True,
    ) -> None:
        if isinstance(strategy, MatchCubeStrategy):
            if strategy.needs_lookahead and lookahead is None:
                raise InvalidSpec(
                    f"match cube strategy {strategy.name} needs a 441-roll lookahead, which this player lacks"
                )
        elif strategy.needs_local_volatility and lookahead is None and local_volatility is None:
            raise InvalidSpec(
                f"cube strategy {strategy.name} needs a 441-roll lookahead or a volatility net, which this player lacks"
            )
        self.strategy = strategy
        self.probabilities = probabilities
        self.lookahead = lookahead
        self.volatility_source = local_volatility
        self.two_roll_search = two_roll_search
        self.decisions = 0
        self.lookaheads = 0
        self.lookaheads_run = 0
        self._cache_size = cache_size
        self._volatility: OrderedDict[bytes, float] = OrderedDict()
        # Boards where the game may end within two rolls: their lookahead if it shows the game decided or nearly
        # (for the strategy's two-roll search), else None.
        self._near_end_cache: OrderedDict[bytes, np.ndarray | None] = OrderedDict()

    def decide(self, boards: np.ndarray, context: CubeContext) -> CubeAnswers:
        """Decisions for boards seen by the side on roll in ``context``."""
        strategy = self.strategy
        if isinstance(strategy, MatchCubeStrategy):
            check_context_kind(True, context)
            assert context.cubes is not None
            boards = np.asarray(boards, dtype=np.int8).reshape(-1, 26)
            self.decisions += len(boards)
            if strategy.needs_lookahead:
                self.lookaheads += len(boards)
            actions, responses = strategy.decide(self.probabilities(boards), context.cubes, boards, self.lookahead)
            return CubeAnswers(actions, responses)
        check_context_kind(False, context)
        return self.decide_from(boards, self.probabilities(boards), context)

    def decide_from(self, boards: np.ndarray, probs: np.ndarray, context: CubeContext) -> CubeAnswers:
        """Money decisions for boards seen by the side on roll in ``context``, from their probabilities ``probs``.

        ``probs`` (n, 5) are that side's, given instead of asked for (e.g. already computed by a move search).
        """
        strategy = self.strategy
        if isinstance(strategy, MatchCubeStrategy):
            raise JumpgammonError(f"match cube strategy {strategy.name} decides from its player's own probabilities")
        check_context_kind(False, context)
        states = np.asarray(context.states, dtype=str)
        self.decisions += len(boards)
        if not strategy.needs_local_volatility:
            d = strategy.decide(probs, states, jacoby=context.jacoby, beavers=context.beavers)
        else:
            d = self._decide_local(strategy, boards, probs, states, context.jacoby, context.beavers)
        return CubeAnswers(d.action, d.response, d.equity)

    def _decide_local(
        self,
        strategy: CubeStrategy,
        boards: np.ndarray,
        probs: np.ndarray,
        states: np.ndarray,
        jacoby: bool,
        beavers: bool,
    ) -> CubeDecisions:
        """jump-local: a lookahead only where the gate volatilities disagree on the decision, or where the game may
        end within two rolls (there a lookahead that shows it decided or nearly gives the two-roll search's
        decision, which no gate volatility need agree with)."""
        near = self._near_end(strategy, boards, probs) if self.two_roll_search else _NONE_NEAR_END
        near_rows, near_outcomes = near
        ladder = [strategy.decide(probs, states, jacoby=jacoby, beavers=beavers, local_alpha=a) for a in GATE_ALPHAS]
        first = ladder[0]
        settled = np.ones(len(boards), bool)
        for d in ladder[1:]:
            settled &= (d.action == first.action) & (d.response == first.response)
        settled[near_rows] = True
        open_ = np.flatnonzero(~settled)
        alpha = np.full(len(boards), GATE_ALPHAS[0])
        if len(open_):
            self.lookaheads += len(open_)
            alpha[open_] = self._local_volatilities(boards[open_])
        # Settled positions take the (common) decision at any gate volatility; equities follow the lowest.
        out = strategy.decide(probs, states, jacoby=jacoby, beavers=beavers, local_alpha=alpha)
        if not len(near_rows):
            return out
        self.lookaheads += len(near_rows)
        r = near_rows
        searched = strategy.decide(probs[r], states[r], jacoby=jacoby, beavers=beavers, lookahead=near_outcomes)
        return out.with_rows(r, searched)

    def _near_end(self, strategy: CubeStrategy, boards: np.ndarray, probs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The rows whose two-roll lookahead leaves at most the strategy's ``search_cells`` lines open (0: the game
        is decided), and their (k, 441, 5) outcomes.

        Only the boards :func:`may_end_within_two_rolls` picks get a lookahead, one per distinct board not in the
        caches (its volatility is kept too, for the gate); none without a lookahead.
        """
        if self.lookahead is None:
            return _NONE_NEAR_END
        candidates = np.flatnonzero(may_end_within_two_rolls(boards, probs))
        if not len(candidates):
            return _NONE_NEAR_END
        keys = [boards[k].astype(np.int8).tobytes() for k in candidates]
        missing = {key: k for key, k in zip(keys, candidates, strict=True) if key not in self._near_end_cache}
        if missing:
            found = np.asarray(self.lookahead(boards[list(missing.values())]), dtype=np.float32)  # as cached
            self.lookaheads_run += len(missing)
            if self.volatility_source is None:  # the gate may want these boards' volatility: it is here already
                self._remember_volatilities(list(missing), found)
                self._trim_volatilities()
            near = uncertain_cells(found) <= strategy.search_cells
            for key, outcomes, searched in zip(missing, found, near, strict=True):
                self._near_end_cache[key] = outcomes if searched else None
        rows: list[int] = []
        outcomes_of: list[np.ndarray] = []
        for key, k in zip(keys, candidates, strict=True):
            self._near_end_cache.move_to_end(key)
            entry = self._near_end_cache[key]
            if entry is not None:
                rows.append(int(k))
                outcomes_of.append(entry)
        while len(self._near_end_cache) > min(self._cache_size, NEAR_END_CACHE_SIZE):
            self._near_end_cache.popitem(last=False)
        if not rows:
            return _NONE_NEAR_END
        return np.array(rows, dtype=np.intp), np.stack(outcomes_of).astype(np.float64)

    def _local_volatilities(self, boards: np.ndarray) -> np.ndarray:
        """Local volatility of each board's side on roll: one lookahead per distinct board not in the cache.

        A learned volatility source, when given, answers instead (cheap enough to need no cache).
        """
        if self.volatility_source is not None:
            return np.asarray(self.volatility_source(boards), dtype=float)
        keys = [row.tobytes() for row in np.ascontiguousarray(boards, dtype=np.int8)]
        missing: dict[bytes, int] = {}
        for k, key in enumerate(keys):
            if key not in self._volatility and key not in missing:
                missing[key] = k
        if missing:
            assert self.lookahead is not None
            rows = list(missing.values())
            self._remember_volatilities(list(missing), self.lookahead(boards[rows]))
            self.lookaheads_run += len(rows)
        out = np.empty(len(keys))
        for k, key in enumerate(keys):
            out[k] = self._volatility[key]
            self._volatility.move_to_end(key)
        self._trim_volatilities()
        return out

    def _remember_volatilities(self, keys: list[bytes], outcomes: np.ndarray) -> None:
        """Keep the local volatility that the (k, 441, 5) lookahead ``outcomes`` of the boards ``keys`` measure."""
        strategy = self.strategy
        assert isinstance(strategy, CubeStrategy)  # money strategies only: match ones use their own lookahead
        measured = local_volatility(np.asarray(outcomes)[:, :, 0], measure=strategy.local_measure)
        for key, value in zip(keys, measured, strict=True):
            self._volatility[key] = float(value)

    def _trim_volatilities(self) -> None:
        """Forget the least recently used volatilities beyond the cache's size."""
        while len(self._volatility) > self._cache_size:
            self._volatility.popitem(last=False)


class GnubgModelDecider:
    """Batched money cube decisions of gnubg's model (:mod:`nets.cube_advice`) from a player's probabilities.

    The cube life follows each position's class (races by pips), and two-sided bear-offs take the
    database's exact cubeful equities: the decisions ``eval`` shows, for every position of a game.
    """

    def __init__(self, probabilities: Callable[[np.ndarray], np.ndarray]) -> None:
        self.probabilities = probabilities
        self.decisions = 0
        self.lookaheads = 0  # none needed; kept for the statistics every decider reports
        self.lookaheads_run = 0

    def decide(self, boards: np.ndarray, context: CubeContext) -> CubeAnswers:
        """Decisions for boards seen by the side on roll in the money ``context``."""
        check_context_kind(False, context)
        self.decisions += len(boards)
        states = np.asarray(context.states, dtype=str)
        d = money_cube_decisions(
            boards, self.probabilities(boards), states, jacoby=context.jacoby, beavers=context.beavers
        )
        return CubeAnswers(d.action, d.response, d.equity)


def make_decider(
    spec: AnyCubeSpec,
    probabilities: Callable[[np.ndarray], np.ndarray],
    lookahead: Callable[[np.ndarray], np.ndarray] | None = None,
    local_volatility: Callable[[np.ndarray], np.ndarray] | None = None,
) -> Decider | None:
    """The decider of ``spec`` on a player's probabilities (and lookahead or learned volatility); None for ``none``.

    Money ``gnubg`` is gnubg's model on those probabilities; at a match score gnubg's match cube.
    ``gnubg@PLY`` is GNU Backgammon's own cube at that depth, which ignores the probabilities.
    """
    if spec.engine_plies is not None:
        return GnubgEngineDecider(spec.engine_plies)
    if spec.strategy is not None:
        return CubeDecider(spec.strategy, probabilities, lookahead, local_volatility=local_volatility)
    if spec.own:
        return GnubgModelDecider(probabilities)
    return None


def may_end_within_two_rolls(boards: np.ndarray, probs: np.ndarray | None = None) -> np.ndarray:
    """Boolean (n,): the boards whose two-roll lookahead is worth running to see whether the game is decided or
    nearly (for the exact figures or the two-roll search of :mod:`cube.two_roll`).

    No contact, and a side with at most four checkers left (one roll can end the game), or both sides in
    the two-sided bear-off database (whose certain results come short of the end), or the side on roll's
    win chance in ``probs`` already 0 or 1. Other races can be decided too, with every line ending in a
    database's certainty, and contact positions where the side on roll bears off whatever it rolls; those
    found (5 checkers on the ace against 15 mostly home; a last roll against a checker on the bar) are sure
    wins, where the jump model's action ("too good") is worth what the exact one is. Contact positions with
    half their lines decided exist too (``AAAAUQAAAAAAAA``, the opponent on the bar: 192 open, double/pass
    either way); a net's contact win chance is rarely exactly 0 or 1, so they are rare.
    """
    arr = np.asarray(boards, dtype=np.int8).reshape(-1, 26)
    phase = phases(arr)
    own = np.where(arr > 0, arr, 0).sum(axis=1)
    opp = np.where(arr < 0, -arr, 0).sum(axis=1)
    no_contact = (phase != GamePhase.CONTACT) & (phase != GamePhase.OVER)
    near_end = (np.minimum(own, opp) <= 4) | (phase == GamePhase.BEAROFF_TWO_SIDED)
    if probs is not None:
        win = np.asarray(probs, dtype=np.float64).reshape(-1, 5)[:, 0]
        near_end |= (win <= DECIDED_TOLERANCE) | (win >= 1.0 - DECIDED_TOLERANCE)
    return np.asarray(no_contact & near_end, dtype=bool)


def cube_states_for(owner: np.ndarray, on_roll: np.ndarray) -> np.ndarray:
    """The side on roll's :class:`CubeState` per game from the cube owner (-1 centred, else a seat)."""
    return np.where(owner < 0, CubeState.CENTERED, np.where(owner == on_roll, CubeState.OWNED, CubeState.UNAVAILABLE))
