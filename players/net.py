"""A player using this project's evaluator at 0, 1 or 2 ply, with any cube strategy."""

from __future__ import annotations

import weakref
from collections import OrderedDict

import numpy as np

from nets.evaluator import Evaluator
from nets.lookahead import best_children_plies, evaluate_plies
from nets.volatility import two_roll_outcomes_batch
from nets.volnet import load_volatility_net
from players.cube import AnyCubeSpec, make_decider
from players.strategic import StrategyPlayer

# (id of the evaluator, plies) -> (boards' bytes, probabilities) of the last call.
_LAST_PROBABILITIES: dict[tuple[int, int], tuple[bytes, np.ndarray]] = {}

#: Boards whose two-roll outcomes each evaluator remembers (18 KB a board).
TWO_ROLL_CACHE_BOARDS = 2048
# evaluator -> board bytes -> (441, 5) outcomes, least recently used first. Shared by every player on the
# evaluator, so two jump-local players on one net (say, two local measures) pay for each lookahead once.
_TWO_ROLL: weakref.WeakKeyDictionary[Evaluator, OrderedDict[bytes, np.ndarray]] = weakref.WeakKeyDictionary()


class NetPlayer(StrategyPlayer):
    """Moves best for the mover at ``plies`` (gnubg's Normal filter beyond 0-ply); cube decisions at ``cube_plies``
    (default ``plies``).

    Local volatility for ``jump-local`` (and the match strategies that need one) comes from the
    0-ply 441-roll lookahead; for ``jump-net`` from the volatility net its spec names, given this
    evaluator's 0-ply probabilities. ``cube`` is a money spec, or a match spec to play matches.
    """

    repeatable_moves = True  # the best child by cubeless equity: a function of (board, dice)

    def __init__(
        self,
        evaluator: Evaluator,
        plies: int,
        cube: AnyCubeSpec,
        name: str,
        cube_plies: int | None = None,
    ) -> None:
        self.evaluator = evaluator
        self.plies = plies
        self.cube_plies = plies if cube_plies is None else cube_plies
        self.volatility_net = load_volatility_net(cube.volatility_net) if cube.volatility_net is not None else None
        learned = self.learned_volatility if self.volatility_net is not None else None
        # money ``gnubg``: gnubg's model on this net's probabilities, as ``eval`` shows it
        decider = make_decider(cube, self.probabilities, self.two_roll_outcomes, learned)
        super().__init__(name, cube, decider)

    def choose_moves(self, boards: np.ndarray, dice: np.ndarray) -> np.ndarray:
        """The best child (opponent's view) of each (board, dice) pair at this player's depth."""
        return best_children_plies(self.evaluator, boards, dice, self.plies)

    def probabilities(self, boards: np.ndarray) -> np.ndarray:
        """Cubeless probabilities (n, 5) of each board's side on roll at this player's cube depth.

        The last answer is kept per (evaluator, depth): when both players of a game share a net,
        the second one asked about the same positions (to compare cube decisions) reuses it.
        """
        boards = np.ascontiguousarray(boards, dtype=np.int8)
        key = (id(self.evaluator), self.cube_plies, boards.tobytes())
        cached = _LAST_PROBABILITIES.get(key[:2])
        if cached is not None and cached[0] == key[2]:
            return cached[1]
        probs = evaluate_plies(self.evaluator, boards, self.cube_plies)
        _LAST_PROBABILITIES[key[:2]] = (key[2], probs)
        return probs

    def learned_volatility(self, boards: np.ndarray) -> np.ndarray:
        """(n,) local volatility of each board's side on roll from the volatility net (0-ply inputs)."""
        assert self.volatility_net is not None
        return self.volatility_net.volatility(boards, self.evaluator.evaluate_boards(boards))

    def two_roll_outcomes(self, boards: np.ndarray) -> np.ndarray:
        """(n, 441, 5) probabilities after each pair of rolls (0-ply lookahead), side on roll's view.

        One lookahead per distinct board not met lately by any player on this evaluator (whose
        weights a player never changes, so a remembered board's outcomes stay right).
        """
        boards = np.ascontiguousarray(boards, dtype=np.int8).reshape(-1, 26)
        cache = _TWO_ROLL.setdefault(self.evaluator, OrderedDict())
        keys = [row.tobytes() for row in boards]
        missing: dict[bytes, int] = {}
        for k, key in enumerate(keys):
            if key not in cache and key not in missing:
                missing[key] = k
        if missing:
            found = two_roll_outcomes_batch(self.evaluator, boards[list(missing.values())])
            for key, outcomes in zip(missing, found, strict=True):
                cache[key] = outcomes
        out = np.empty((len(keys), 441, 5))
        for k, key in enumerate(keys):
            out[k] = cache[key]
            cache.move_to_end(key)
        while len(cache) > TWO_ROLL_CACHE_BOARDS:
            cache.popitem(last=False)
        return out
