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
was before that move's gradient step) are kept per game, so a cube turn costs no net call.

The cube turn is a side issue for TD: the probabilities target the cubeless outcome, which a
pass does not decide. See :meth:`CubeGames.cube_turn` for the targets at a pass.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from cube.states import CubeAction, CubeResponse
from engine.errors import InvalidSpec
from engine.game import result_multipliers
from engine.match import MAX_CUBE
from players.cube import CubeSpec, cube_states_for, parse_cube_spec

#: Names of the per-game cube arrays a checkpoint keeps (see :meth:`CubeGames.arrays`).
CUBE_ARRAYS = ("cube", "owner", "on_roll", "opener", "probs")


def parse_training_cube(text: str) -> tuple[CubeSpec, ...]:
    """One or two cube specs from ``SPEC[,SPEC]``; () for a lone ``none`` (cubeless training).

    Commas also separate the two numbers of ``janowski:X1,X2``: a piece that is a bare number
    belongs to the spec before it. Raises InvalidSpec for more than two specs and for specs
    training cannot play (``gnubg``: not a net's cube; ``jump-local``: needs a 441-roll lookahead).
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
        if spec.own:
            raise InvalidSpec(f"cube spec {spec.text!r}: training decides the cube with its own net, not gnubg")
        if spec.strategy is not None and spec.strategy.needs_local_volatility:
            raise InvalidSpec(
                f"cube spec {spec.text!r} needs a 441-roll lookahead per cube turn, which training does not run"
            )
    if len(specs) == 1 and specs[0].cubeless:
        return ()
    return specs


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

    def __post_init__(self) -> None:
        for name in ("doubles", "takes", "passes", "too_good"):
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
    """

    def __init__(self, specs: tuple[CubeSpec, ...], arrays: dict[str, np.ndarray] | None, n: int) -> None:
        if not specs:
            raise InvalidSpec("cube self-play needs at least one cube spec")
        self.specs = specs
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

    def _decide(self, rows: np.ndarray, seats: np.ndarray, attribute: str) -> np.ndarray:
        """The ``attribute`` ("action" or "response") the strategy of ``seats`` gives each game of ``rows``.

        Every decision is taken from the side on roll's (doubler's) probabilities and cube state,
        as :class:`players.strategic` does for both the doubler and the taker.
        """
        states = cube_states_for(self.owner[rows], self.on_roll[rows])
        which = self._strategy_index(seats)
        out = np.empty(len(rows), dtype=object)
        for k in np.unique(which):
            part = which == k
            strategy = self.specs[int(k)].strategy
            if strategy is None:  # "none": never doubles, always takes
                fill = CubeAction.NO_DOUBLE.value if attribute == "action" else CubeResponse.TAKE.value
                out[part] = fill
                continue
            decisions = strategy.decide(self.probs[rows[part]], states[part])
            out[part] = getattr(decisions, attribute)
        return out.astype(str)

    def cube_turn(self, opening: np.ndarray, tally: CubeTally) -> np.ndarray:
        """Doubles and answers before the roll; the games that ended in a pass (a bool mask).

        TD targets at a pass: the game's last evaluated position -- the doubler's board, whose
        probabilities the decision used -- is not trained; its target would be its own 0-ply
        estimate (zero TD error), which is also the doubler's evaluation. A pass settles the
        money, not the cubeless result the nets estimate, so scoring it as a win (or using the
        cubeful equity) would teach the net that a merely strong position is certain. The
        position before it was already trained towards this estimate when its move was played,
        so the chain ends there as a bootstrap, exactly as the undecided tail of the game would
        on average have told it. The caller starts a new game in the slot.
        """
        may = ~opening & ((self.owner < 0) | (self.owner == self.on_roll)) & (self.cube * 2 <= MAX_CUBE)
        rows = np.flatnonzero(may)
        ended = np.zeros(len(self.cube), bool)
        if len(rows) == 0:
            return ended
        seats = self.on_roll[rows]
        actions = self._decide(rows, seats, "action")
        doubler_index = self._strategy_index(seats)
        _count(tally.too_good, doubler_index[actions == CubeAction.TOO_GOOD.value])
        doubling = actions == CubeAction.DOUBLE.value
        if not doubling.any():
            return ended
        drows, dseats = rows[doubling], seats[doubling]
        _count(tally.doubles, doubler_index[doubling])
        answers = self._decide(drows, 1 - dseats, "response")
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
