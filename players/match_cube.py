"""Match cube strategies: batched cube decisions at a match score from a player's own probabilities.

In a match (``jumpgammon tournament --match-length N``) a player's cube spec names a *match*
cube strategy from :data:`MATCH_CUBE_STRATEGIES`:

``none``
    never doubles, always takes.
``gnubg``
    GNU Backgammon's own match cube (gnubg players only; :mod:`players.gnubg_player`).
``gnubg-match``
    gnubg's 0-ply match cube (:func:`cube.match.cube_actions`): the cubeful MWC
    ``(1 - x) cubeless + x live`` with the cube efficiency x of each position's class
    (:mod:`cube.efficiency`: 0.68 in contact, 0.6 to 0.7 by pips in a race, 0.6 in bearoffs).
``janowski:X``
    the same match cube with one efficiency ``X`` for every position; ``dead`` is ``janowski:0``
    and ``live`` is ``janowski:1``.
``jump-match[:ALPHA]``
    the jump model at match scores (:mod:`cube.match_jump`) with a constant volatility
    (default 0.113, :data:`cube.match_strategy.LINEAR_ALPHA`).
``jump-match-local[:ALPHA]``
    the same with each position's local volatility, 1.24 times the mean absolute change of its
    winning chance over the 441 roll pairs (as ``jumpgammon eval`` at a match score), the remote
    volatility ``ALPHA`` constant.

So the money specs ``dead``, ``live`` and ``janowski:X`` keep their meaning (the cube's life)
at a match score; the other money specs (``janowski:X1,X2``, ``jump:...``, ``jump-local``) are
money strategies and are refused in matches.

A strategy answers for many positions at once: :meth:`MatchCubeStrategy.decide` takes the
probabilities (n, 5) of each side on roll, its :class:`cube.match.MatchCube` and the boards (for
the position class or a lookahead). A new model plugs in with one call to
:func:`register_match_cube`; :class:`ModelMatchCube` adapts a :class:`cube.match_strategy.MatchCubeModel`,
for example::

    register_match_cube("jump-match", "jump-match", lambda arg, met: ModelMatchCube(Model(met), "jump-match"))

The specs are parsed by :func:`players.cube.parse_cube_spec` with the table, and decided by
:class:`players.cube.CubeDecider`, as the money strategies are.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from cube import local_volatility
from cube.errors import CubeInputError
from cube.gnubg_model import gnubg_match_decision
from cube.jump_linear import STATISTICAL_SCALE
from cube.match import MatchCube, cube_actions
from cube.match_strategy import LINEAR_ALPHA, JumpMatchCube, MatchCubeModel
from cube.met import MatchEquityTable
from cube.states import CubeAction, CubeResponse
from cube.volatility import VolatilityMeasure
from engine.errors import InvalidSpec
from nets.cube_advice import cube_lives

Lookahead = Callable[[np.ndarray], np.ndarray]


class MatchCubeStrategy(ABC):
    """A batched match cube strategy (subclasses decide; :func:`register_match_cube` names them)."""

    #: Whether :meth:`decide` needs the 441-roll lookahead.
    needs_lookahead: bool = False

    def __init__(self, name: str) -> None:
        self.name = name

    @abstractmethod
    def decide(
        self, probs: np.ndarray, cubes: Sequence[MatchCube], boards: np.ndarray, lookahead: Lookahead | None
    ) -> tuple[np.ndarray, np.ndarray]:
        """(:class:`CubeAction`, :class:`CubeResponse`) value arrays: each side on roll's action, its opponent's answer.

        ``probs`` (n, 5) and ``cubes`` are the side on roll's; ``boards`` (n, 26) are seen by it.
        """


class EfficiencyMatchCube(MatchCubeStrategy):
    """gnubg's match cube with x from each position's class, or one fixed x (:func:`cube.match.cube_actions`)."""

    def __init__(self, met: MatchEquityTable, name: str, x: float | None = None) -> None:
        super().__init__(name)
        self.met = met
        self.x = x

    def decide(
        self, probs: np.ndarray, cubes: Sequence[MatchCube], boards: np.ndarray, lookahead: Lookahead | None
    ) -> tuple[np.ndarray, np.ndarray]:
        """gnubg's decision for each position at its cube (side on roll's view)."""
        if self.x is not None:
            return cube_actions(probs, self.met, cubes, np.full(len(probs), self.x))
        # gnubg's model: x by class; two-sided bear-offs solve their x per cube state (nets.cube_advice)
        actions = np.full(len(probs), CubeAction.NO_DOUBLE.value, dtype=object)
        responses = np.full(len(probs), CubeResponse.TAKE.value, dtype=object)
        batched: list[int] = []
        xs: list[float] = []
        for i, (life, cube) in enumerate(zip(cube_lives(boards), cubes, strict=True)):
            if not cube.can_double:
                continue
            if life.exact is None:
                batched.append(i)
                xs.append(life.x)
                continue
            d = gnubg_match_decision(probs[i], self.met, cube, life)
            actions[i], responses[i] = d.action.value, (d.response or CubeResponse.TAKE).value
        if batched:
            a, r = cube_actions(probs[batched], self.met, [cubes[i] for i in batched], np.array(xs))
            actions[batched], responses[batched] = a, r
        return actions.astype(str), responses.astype(str)


class ModelMatchCube(MatchCubeStrategy):
    """Adapts a :class:`cube.match_strategy.MatchCubeModel`; a model needing local volatility gets the lookahead's.

    The local volatility is :data:`cube.jump_linear.STATISTICAL_SCALE` times the mean absolute
    change of the side on roll's winning chance over the 441 roll pairs; where those show the game
    decided, the model takes the exact MWCs, and where nearly decided the two-roll search's (:mod:`cube.two_roll`).
    """

    def __init__(self, model: MatchCubeModel, name: str) -> None:
        super().__init__(name)
        self.model = model
        self.needs_lookahead = model.needs_volatility

    def decide(
        self, probs: np.ndarray, cubes: Sequence[MatchCube], boards: np.ndarray, lookahead: Lookahead | None
    ) -> tuple[np.ndarray, np.ndarray]:
        """The model's decisions as (:class:`CubeAction`, :class:`CubeResponse`) value arrays."""
        volatility = outcomes = None
        if self.needs_lookahead and len(boards):
            assert lookahead is not None
            outcomes = lookahead(boards)
            moves = local_volatility(outcomes[:, :, 0], measure=VolatilityMeasure.MEAN_ABS)
            volatility = STATISTICAL_SCALE * moves
        if len(probs) == 0:
            return np.zeros(0, dtype="<U16"), np.zeros(0, dtype="<U16")
        acts = self.model.decide(probs, list(cubes), volatility, outcomes)
        action = np.where(
            acts.too_good, CubeAction.TOO_GOOD, np.where(acts.double, CubeAction.DOUBLE, CubeAction.NO_DOUBLE)
        )
        return action.astype(str), np.where(acts.take, CubeResponse.TAKE, CubeResponse.PASS).astype(str)


@dataclass(frozen=True)
class MatchCubeEntry:
    """A registered match cube strategy: how its spec is written and how to build it from its argument."""

    usage: str
    build: Callable[[str, MatchEquityTable], MatchCubeStrategy]


#: Match cube strategies by spec name (the text before the first ``:``); ``none`` and ``gnubg`` are built in.
MATCH_CUBE_STRATEGIES: dict[str, MatchCubeEntry] = {}


def register_match_cube(name: str, usage: str, build: Callable[[str, MatchEquityTable], MatchCubeStrategy]) -> None:
    """Make ``name`` a match cube spec; ``build(argument, met)`` raises InvalidSpec or CubeInputError on bad input."""
    MATCH_CUBE_STRATEGIES[name] = MatchCubeEntry(usage, build)


def _no_argument(name: str, x: float | None) -> Callable[[str, MatchEquityTable], MatchCubeStrategy]:
    def build(arg: str, met: MatchEquityTable) -> MatchCubeStrategy:
        if arg:
            raise InvalidSpec(f"match cube spec {name!r} takes no argument, got {arg!r}")
        return EfficiencyMatchCube(met, name, x)

    return build


def _janowski(arg: str, met: MatchEquityTable) -> MatchCubeStrategy:
    try:
        x = float(arg)
    except ValueError:
        raise InvalidSpec(f"match cube spec 'janowski:{arg}': {arg!r} is not a number") from None
    if not (np.isfinite(x) and 0.0 <= x <= 1.0):
        raise InvalidSpec(f"match cube spec 'janowski:{arg}': {arg!r} is not in [0, 1]")
    return EfficiencyMatchCube(met, f"janowski:{arg}", x)


def _jump(local: bool) -> Callable[[str, MatchEquityTable], MatchCubeStrategy]:
    name = "jump-match-local" if local else "jump-match"

    def build(arg: str, met: MatchEquityTable) -> MatchCubeStrategy:
        try:
            alpha = float(arg) if arg else LINEAR_ALPHA
        except ValueError:
            raise InvalidSpec(f"match cube spec '{name}:{arg}': {arg!r} is not a number") from None
        try:
            model = JumpMatchCube(met, alpha, local=local)
        except CubeInputError as exc:
            raise InvalidSpec(f"match cube spec '{name}:{arg}': {exc}") from None
        return ModelMatchCube(model, f"{name}:{alpha:g}")

    return build


register_match_cube("gnubg-match", "gnubg-match", _no_argument("gnubg-match", None))
register_match_cube("janowski", "janowski:X", _janowski)
register_match_cube("dead", "dead", _no_argument("dead", 0.0))
register_match_cube("live", "live", _no_argument("live", 1.0))
register_match_cube("jump-match", "jump-match[:ALPHA]", _jump(local=False))
register_match_cube("jump-match-local", "jump-match-local[:ALPHA]", _jump(local=True))


def match_cube_specs() -> str:
    """The match cube specs, as an error message or help text lists them."""
    return ", ".join(["none", "gnubg", "gnubg@PLY", *(entry.usage for entry in MATCH_CUBE_STRATEGIES.values())])
