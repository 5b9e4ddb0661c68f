"""The doubling cube in self-play training: cube turns of the lockstep games and their statistics.

Self-play stays cubeless in what the nets learn (five cubeless probabilities) and in how the
checkers move (greedy cubeless equity); the cube only decides *when a game ends*. Before each
roll the side on roll may double (not before the opening roll is played; cube centred or its
own; no double past :data:`engine.match.MAX_CUBE`), and the other side takes or passes. Money
rules: no Jacoby rule, no beavers.

Seats: every game has two seats. With two specs, seat 0 plays spec A and seat 1 spec B; with one
spec both seats play it. Which seat makes the opening move alternates from game to game in each
lockstep slot (and from slot to slot at the start), so each strategy opens half the games.

Cube decisions reuse the probabilities the move selection already computed: the chosen child of
the last move is the next side on roll's position, and its 0-ply probabilities (the net as it
was before that move's gradient step) are kept per game, so a cube turn costs no net call --
except for the strategies that take a local volatility (``jump-local``, ``jump-net``). They decide
as :class:`players.cube.CubeDecider` does in tournaments (the same gate: the decision is taken at
the ladder :data:`players.cube.GATE_ALPHAS`, and only the positions where the ladder disagrees get
a local volatility), batched across the lockstep games: ``jump-local`` from the 441-roll
lookahead of the training net as it is at the cube turn, ``jump-net`` from the volatility net on
that net's 0-ply probabilities (both look ahead where the game may end within two rolls, and take
the exact decision where it is decided, :mod:`cube.two_roll`). The volatilities are remembered
within one cube turn (a doubled
position answered by the same strategy needs no second lookahead), never across turns: the net
changes at every move, and a resumed run must decide as an uninterrupted one would.

The cube turn is a side issue for TD: the probabilities target the cubeless outcome, which a
pass does not decide. See :meth:`CubeGames.cube_turn` for the targets at a pass.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from functools import partial
from typing import Any

import numpy as np

from cube.states import CubeAction, CubeResponse
from engine.errors import InvalidSpec, JumpgammonError
from engine.game import result_multipliers
from engine.match import MAX_CUBE
from nets.base import BoardEvaluator
from nets.volatility import two_roll_outcomes_batch
from nets.volnet import VolatilityNet, load_volatility_net
from players.base import CubeContext
from players.cube import CubeDecider, CubeSpec, cube_states_for, parse_cube_spec

#: Names of the per-game cube arrays a checkpoint keeps (see :meth:`CubeGames.arrays`).
CUBE_ARRAYS = ("cube", "owner", "on_roll", "opener", "probs")


def parse_training_cube(text: str) -> tuple[CubeSpec, ...]:
    """One or two cube specs from ``SPEC[,SPEC]``; () for a lone ``none`` (cubeless training).

    Commas also separate the two numbers of ``janowski:X1,X2``: a piece that is a bare number
    belongs to the spec before it. Raises InvalidSpec for more than two specs and for ``gnubg``
    and ``gnubg@PLY`` (not a net's cube), which training cannot play.
    """
    pieces: list[str] = []
    for piece in text.split(","):
        piece = piece.strip()
        if pieces and _is_number(piece):
            pieces[-1] += "," + piece
        else:
            pieces.append(piece)
    if not 1 <= len(pieces) <= 2:
        raise InvalidSpec(f"--cube {text!r}: give one or two cube specs, e.g. janowski:0.7,jump:0.10:linear")
    specs = tuple(parse_cube_spec(p) for p in pieces)
    for spec in specs:
        if spec.own or spec.engine_plies is not None:
            raise InvalidSpec(f"cube spec {spec.text!r}: training decides the cube with its own net, not gnubg")
    if len(specs) == 1 and specs[0].cubeless:
        return ()
    return specs


def _learned_volatility(net: VolatilityNet, evaluator: BoardEvaluator, boards: np.ndarray) -> np.ndarray:
    """(n,) local volatility of the boards' side on roll from ``net``, given the evaluator's 0-ply probabilities."""
    return net.volatility(boards, evaluator.evaluate_boards(boards))


def _count(counter: list[int], index: np.ndarray) -> None:
    """Add one to ``counter[i]`` for every ``i`` in ``index``."""
    for k, c in enumerate(np.bincount(index, minlength=len(counter))):
        counter[k] += int(c)


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


@dataclass
class CubeTally:
    """Cube counters of a run since it started (cumulative, so that a checkpoint carries them exactly).

    Per-strategy lists are indexed like the run's specs (one entry with one spec); doubles count
    the doubler's strategy, takes and passes the strategy that answered. Points are seat 0's
    (spec A's): they give A's points per game against B.
    """

    strategies: int = 1
    games: int = 0  # games decided (checkers off or a pass)
    games_passed: int = 0  # of those, decided by a pass
    final_cube_sum: int = 0
    points_a: int = 0
    points_a_squared: int = 0
    doubles: list[int] = field(default_factory=list)
    takes: list[int] = field(default_factory=list)
    passes: list[int] = field(default_factory=list)
    too_good: list[int] = field(default_factory=list)
    # positions whose decision needed a local volatility (jump-local, jump-net), and lookaheads run for them
    local_volatilities: list[int] = field(default_factory=list)
    lookaheads_run: list[int] = field(default_factory=list)

    def __post_init__(self) -> None:
        for name in ("doubles", "takes", "passes", "too_good", "local_volatilities", "lookaheads_run"):
            if not getattr(self, name):
                setattr(self, name, [0] * self.strategies)

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict (what the checkpoint's run record keeps)."""
        return asdict(self)

    @classmethod
    def from_json(cls, record: dict[str, Any]) -> CubeTally:
        """Inverse of :meth:`to_json`."""
        return cls(**record)

    def since(self, earlier: CubeTally) -> CubeTally:
        """The counts added after ``earlier`` (an earlier state of the same run)."""
        fields: dict[str, Any] = {"strategies": self.strategies}
        for key, value in asdict(self).items():
            if isinstance(value, list):
                fields[key] = [a - b for a, b in zip(value, getattr(earlier, key), strict=True)]
            elif key != "strategies":
                fields[key] = value - getattr(earlier, key)
        return CubeTally(**fields)

    def report(self, specs: tuple[CubeSpec, ...]) -> dict[str, Any]:
        """The log's cube record: totals, per-strategy counts and (two specs) each one's ppg against the other.

        A strategy that takes a local volatility also counts the positions that needed one
        (``local_volatilities``) and, ``jump-local``, the 441-roll lookaheads run for them.
        ppg is from the strategy's seat; its standard error treats the games as independent
        (each game has its own dice; the alternating opener balances the first-move edge).
        """
        n = self.games
        doubles, takes, passes = sum(self.doubles), sum(self.takes), sum(self.passes)
        out: dict[str, Any] = {
            "games": n,
            "ended_by_pass": self.games_passed,
            "doubles": doubles,
            "takes": takes,
            "passes": passes,
            "mean_final_cube": round(self.final_cube_sum / n, 4) if n else None,
        }
        ppg = se = None
        if len(specs) == 2 and n:
            mean = self.points_a / n
            var = (self.points_a_squared - n * mean * mean) / (n - 1) if n > 1 else math.nan
            ppg, se = mean, math.sqrt(max(var, 0.0) / n) if n > 1 else None
        strategies = []
        for k, spec in enumerate(specs):
            entry: dict[str, Any] = {
                "spec": spec.text,
                "doubles": self.doubles[k],
                "takes": self.takes[k],
                "passes": self.passes[k],
                "too_good": self.too_good[k],
            }
            if spec.strategy is not None and spec.strategy.needs_local_volatility:
                entry["local_volatilities"] = self.local_volatilities[k]
                entry["lookaheads_run"] = self.lookaheads_run[k]
            if ppg is not None:
                entry["ppg"] = round(ppg if k == 0 else -ppg, 5)
                entry["se"] = round(se, 5) if se is not None else None
            strategies.append(entry)
        out["strategies"] = strategies
        return out


class CubeGames:
    """The cube side of ``n`` lockstep self-play games: cube value, owner, seat on roll, opener, cached probabilities.

    Seats are 0 and 1 (spec A and spec B); ``owner`` is -1 for a centred cube, else a seat.
    ``probs`` holds each game's 0-ply probabilities of its current board, side on roll's view.
    ``evaluator`` (the net being trained) gives the local volatility of the strategies that take
    one: its 441-roll lookahead for ``jump-local``, its 0-ply probabilities as the volatility
    net's inputs for ``jump-net``; raises InvalidSpec when such a strategy has no evaluator.
    """

    def __init__(
        self,
        specs: tuple[CubeSpec, ...],
        arrays: dict[str, np.ndarray] | None,
        n: int,
        evaluator: BoardEvaluator | None = None,
    ) -> None:
        if not specs:
            raise InvalidSpec("cube self-play needs at least one cube spec")
        self.specs = specs
        self.evaluator = evaluator
        self.volatility_nets: dict[int, VolatilityNet] = {}
        for k, spec in enumerate(specs):
            if spec.strategy is None or not spec.strategy.needs_local_volatility:
                continue
            if evaluator is None:
                raise InvalidSpec(f"cube spec {spec.text!r} needs a local volatility, which needs the training net")
            if spec.volatility_net is not None:
                self.volatility_nets[k] = load_volatility_net(spec.volatility_net)
        if arrays is None:
            self.cube = np.ones(n, np.int64)
            self.owner = np.full(n, -1, np.int64)
            self.opener = np.arange(n, dtype=np.int64) % 2
            self.on_roll = self.opener.copy()
            self.probs = np.zeros((n, 5))
        else:
            self.cube = arrays["cube"].astype(np.int64)
            self.owner = arrays["owner"].astype(np.int64)
            self.on_roll = arrays["on_roll"].astype(np.int64)
            self.opener = arrays["opener"].astype(np.int64)
            self.probs = arrays["probs"].astype(np.float64)
            if any(len(a) != n for a in (self.cube, self.owner, self.on_roll, self.opener, self.probs)):
                raise InvalidSpec(f"the checkpoint's cube state is not for {n} games")

    def arrays(self) -> dict[str, np.ndarray]:
        """The per-game state a checkpoint keeps (copies), keyed by :data:`CUBE_ARRAYS`."""
        return {
            "cube": self.cube.copy(),
            "owner": self.owner.astype(np.int8),
            "on_roll": self.on_roll.astype(np.int8),
            "opener": self.opener.astype(np.int8),
            "probs": self.probs.copy(),
        }

    def _strategy_index(self, seats: np.ndarray) -> np.ndarray:
        """Which spec plays each seat: the seat itself with two specs, spec 0 with one."""
        return seats if len(self.specs) == 2 else np.zeros_like(seats)

    def deciders(self) -> list[CubeDecider | None]:
        """One decider per spec (None for ``none``) for one cube turn, deciding from given probabilities.

        Local volatility comes from the evaluator as it is now; each decider remembers the
        volatilities it found for the rest of the turn only (see the module docstring).
        """
        out: list[CubeDecider | None] = []
        for k, spec in enumerate(self.specs):
            if spec.strategy is None:
                out.append(None)
                continue
            lookahead = learned = None
            if spec.strategy.needs_local_volatility:
                evaluator = self.evaluator
                assert evaluator is not None  # checked when the games were made
                # the lookahead also shows where the game is decided within two rolls (exact decisions there)
                lookahead = partial(two_roll_outcomes_batch, evaluator)
                if k in self.volatility_nets:
                    learned = partial(_learned_volatility, self.volatility_nets[k], evaluator)
            out.append(CubeDecider(spec.strategy, self._evaluate, lookahead, local_volatility=learned))
        return out

    def _evaluate(self, boards: np.ndarray) -> np.ndarray:
        """(n, 5) 0-ply probabilities of the boards' side on roll from the evaluator (deciders' own questions)."""
        if self.evaluator is None:
            raise JumpgammonError("cube self-play without the training net decides from the probabilities it keeps")
        return self.evaluator.evaluate_boards(boards)

    def _decide(
        self,
        rows: np.ndarray,
        seats: np.ndarray,
        attribute: str,
        boards: np.ndarray,
        deciders: list[CubeDecider | None],
        tally: CubeTally,
    ) -> np.ndarray:
        """The ``attribute`` ("action" or "response") the strategy of ``seats`` gives each game of ``rows``.

        Every decision is taken from the side on roll's (doubler's) board, probabilities and cube
        state, as :class:`players.strategic` does for both the doubler and the taker.
        """
        context = CubeContext.money(cube_states_for(self.owner[rows], self.on_roll[rows]))
        which = self._strategy_index(seats)
        out = np.empty(len(rows), dtype=object)
        for k in np.unique(which):
            part = which == k
            decider = deciders[int(k)]
            if decider is None:  # "none": never doubles, always takes
                fill = CubeAction.NO_DOUBLE.value if attribute == "action" else CubeResponse.TAKE.value
                out[part] = fill
                continue
            needed, run = decider.lookaheads, decider.lookaheads_run
            answers = decider.decide_from(boards[rows[part]], self.probs[rows[part]], context.rows(part))
            tally.local_volatilities[int(k)] += decider.lookaheads - needed
            tally.lookaheads_run[int(k)] += decider.lookaheads_run - run
            out[part] = getattr(answers, attribute)
        return out.astype(str)

    def cube_turn(self, opening: np.ndarray, tally: CubeTally, boards: np.ndarray) -> np.ndarray:
        """Doubles and answers before the roll at ``boards`` (side on roll's view); the games that ended in a pass.

        TD targets at a pass: the game's last evaluated position -- the doubler's board, whose
        probabilities the decision used -- is not trained; its target would be its own 0-ply
        estimate (zero TD error), which is also the doubler's evaluation. A pass settles the
        money, not the cubeless result the nets estimate, so scoring it as a win (or using the
        cubeful equity) would teach the net that a merely strong position is certain. The
        position before it was already trained towards this estimate when its move was played,
        so the chain ends there as a bootstrap, exactly as the undecided tail of the game would
        on average have told it. The caller starts a new game in the slot. Returns a bool mask.
        """
        may = ~opening & ((self.owner < 0) | (self.owner == self.on_roll)) & (self.cube * 2 <= MAX_CUBE)
        rows = np.flatnonzero(may)
        ended = np.zeros(len(self.cube), bool)
        if len(rows) == 0:
            return ended
        seats = self.on_roll[rows]
        boards = np.ascontiguousarray(boards, dtype=np.int8).reshape(-1, 26)
        deciders = self.deciders()
        actions = self._decide(rows, seats, "action", boards, deciders, tally)
        doubler_index = self._strategy_index(seats)
        _count(tally.too_good, doubler_index[actions == CubeAction.TOO_GOOD.value])
        doubling = actions == CubeAction.DOUBLE.value
        if not doubling.any():
            return ended
        drows, dseats = rows[doubling], seats[doubling]
        _count(tally.doubles, doubler_index[doubling])
        answers = self._decide(drows, 1 - dseats, "response", boards, deciders, tally)
        taker_index = self._strategy_index(1 - dseats)
        dropped = answers == CubeResponse.PASS.value
        _count(tally.passes, taker_index[dropped])
        _count(tally.takes, taker_index[~dropped])
        took = drows[~dropped]
        self.cube[took] *= 2
        self.owner[took] = 1 - dseats[~dropped]
        gone = drows[dropped]
        if len(gone):
            self._score(gone, dseats[dropped], self.cube[gone], tally)
            tally.games_passed += len(gone)
            ended[gone] = True
            self._new_games(gone)
        return ended

    def moved(self, chosen_probs: np.ndarray, children: np.ndarray, over: np.ndarray, tally: CubeTally) -> None:
        """After every game moved: the other seat is on roll at ``children`` (probabilities ``chosen_probs``).

        ``over`` marks the finished games (their children seen by the loser): they are scored at
        the cube and a new game starts in their slot.
        """
        self.probs = chosen_probs
        finished = np.flatnonzero(over)
        if len(finished):
            multiplier = result_multipliers(children[finished])
            self._score(finished, self.on_roll[finished], self.cube[finished] * multiplier, tally)
            self._new_games(finished)
        self.on_roll[~over] ^= 1

    def _score(self, games: np.ndarray, winner: np.ndarray, points: np.ndarray, tally: CubeTally) -> None:
        signed = np.where(winner == 0, points, -points)
        tally.games += len(games)
        tally.final_cube_sum += int(self.cube[games].sum())
        tally.points_a += int(signed.sum())
        tally.points_a_squared += int((signed * signed).sum())

    def _new_games(self, games: np.ndarray) -> None:
        """Fresh cube in ``games``; the other seat opens than opened the last game there."""
        self.cube[games] = 1
        self.owner[games] = -1
        self.opener[games] ^= 1
        self.on_roll[games] = self.opener[games]
