"""Money games between two players in lockstep batches, cubeless or cubeful.

A *block* of mirrored pairs is played to its end in one lockstep batch: every live game takes
its cube turn (the side on roll may double before rolling; the other side takes, passes or
beavers), then every live game rolls and moves, each player answering for all the games where
it is on roll in one batched call. Pair ``k`` draws its dice from its own generator, seeded
by ``(seed, k)``; its two games are played with the same dice and the seats swapped (player A
sits in seat 0 in the first game, in seat 1 in the second). A block gives the same games
whichever process plays it, so a tournament split across workers equals a single run.

Rules: no double before the opening roll is played; a player may double when the cube is
centred or its own; a pass ends the game at the current cube; a take doubles the cube and
hands it over; a beaver (only with ``beavers``) quadruples it and the beaverer keeps it
(raccoons are not played); under the Jacoby rule gammons and backgammons count only once the
cube has been turned. The cube's value is capped at :data:`MAX_CUBE` (no double beyond it).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from cube.states import CubeAction, CubeResponse
from engine.batch import flip_boards, phases
from engine.errors import JumpgammonError
from engine.game import Dice, result_multipliers
from engine.match import MAX_CUBE
from engine.position import GamePhase, Position
from players.base import Player
from players.cube import cube_states_for

DICE_CHUNK = 64  # rolls drawn per game at a time; games longer than that draw more
MAX_PLIES = 3_000  # a game this long means a player that cannot finish: refused, not looped forever


@dataclass(frozen=True)
class Rules:
    """The rules of a money session: cube or not, Jacoby, beavers, and the largest cube."""

    cubeful: bool = False
    jacoby: bool = False
    beavers: bool = False
    max_cube: int = MAX_CUBE


@dataclass
class BlockResult:
    """Per-game outcomes of one block, in game order (game ``2j`` and ``2j + 1`` are pair ``first_pair + j``).

    Signed points are from seat 0's view; per-seat counters are indexed ``[game, seat]``.
    """

    first_pair: int
    seat_of_a: np.ndarray  # (n,) seat player A sits in
    points_seat0: np.ndarray  # (n,) points won by seat 0 (negative: lost)
    winner: np.ndarray  # (n,) winning seat
    multiplier: np.ndarray  # (n,) 1 single, 2 gammon, 3 backgammon (as scored: Jacoby applied); 1 for a pass
    passed: np.ndarray  # (n,) the game ended in a pass
    final_cube: np.ndarray  # (n,)
    plies: np.ndarray  # (n,) moves played
    doubles: np.ndarray  # (n, 2) doubles offered per seat
    takes: np.ndarray  # (n, 2) takes per seat (the taker's seat)
    passes: np.ndarray  # (n, 2)
    beavers: np.ndarray  # (n, 2)
    too_good: np.ndarray  # (n, 2) turns a seat's strategy called too good to double
    cube_decisions: np.ndarray  # (n, 2) cube questions a seat answered (double or respond)
    cube_disagreements: np.ndarray  # (n, 2) of those, how many the other player would have answered otherwise
    records: list[list[list[object]]] | None = None  # per game: the events, when recording
    evaluations: np.ndarray = field(
        default_factory=lambda: np.zeros(2, np.int64)
    )  # per player (A, B): positions its cube strategy judged
    lookaheads: np.ndarray = field(
        default_factory=lambda: np.zeros(2, np.int64)
    )  # per player: of those, how many needed a 441-roll lookahead

    @property
    def games(self) -> int:
        """Number of games in the block."""
        return len(self.points_seat0)


class _Dice:
    """Each pair's own dice stream: an opening roll without doubles, then any rolls."""

    def __init__(self, seed: int, first_pair: int, n_pairs: int) -> None:
        self.generators = [np.random.default_rng([seed, first_pair + k]) for k in range(n_pairs)]
        opening = np.empty((n_pairs, 1, 2), np.int64)
        for k, gen in enumerate(self.generators):
            _, opening[k, 0] = Dice(gen).opening()  # seat 0's die first
        self.rolls = np.concatenate([opening, self._draw(DICE_CHUNK - 1)], axis=1)

    def _draw(self, count: int) -> np.ndarray:
        return np.stack([gen.integers(1, 7, size=(count, 2)) for gen in self.generators])

    def at(self, pairs: np.ndarray, plies: np.ndarray) -> np.ndarray:
        """The roll of each (pair, ply); draws more for every pair when a game outgrows the buffer."""
        while plies.size and plies.max() >= self.rolls.shape[1]:
            self.rolls = np.concatenate([self.rolls, self._draw(DICE_CHUNK)], axis=1)
        return self.rolls[pairs, plies]


def _by_player(
    players: tuple[Player, Player], who: np.ndarray, call: str, boards: np.ndarray, *args: object
) -> np.ndarray:
    """Ask each player (0 = A, 1 = B) about the rows it is responsible for; results in row order."""
    out: np.ndarray | None = None
    for p in (0, 1):
        rows = np.flatnonzero(who == p)
        if len(rows) == 0:
            continue
        extra = [a[rows] if isinstance(a, np.ndarray) and a.shape[:1] == who.shape else a for a in args]
        got = np.asarray(getattr(players[p], call)(boards[rows], *extra))
        if out is None:
            out = np.empty((len(who), *got.shape[1:]), dtype=got.dtype)
        out[rows] = got
    assert out is not None
    return out


@dataclass
class _Live:
    """The mutable state of a block's games."""

    boards: np.ndarray
    on_roll: np.ndarray
    cube: np.ndarray
    owner: np.ndarray
    ply: np.ndarray
    live: np.ndarray
    records: list[list[list[object]]] | None = field(default=None)


def play_block(
    players: tuple[Player, Player],
    seed: int,
    first_pair: int,
    n_pairs: int,
    rules: Rules,
    record: bool = False,
    compare_cube: bool = True,
) -> BlockResult:
    """Play pairs ``first_pair .. first_pair + n_pairs - 1`` (two mirrored games each) to the end.

    ``players[0]`` is A, ``players[1]`` is B. With ``compare_cube`` every cube question is put to
    both players, so that their disagreements on the same positions are counted.
    """
    n = 2 * n_pairs
    pair = np.arange(n) // 2
    seat_of_a = np.arange(n) % 2
    dice = _Dice(seed, first_pair, n_pairs)
    opening = dice.rolls[pair, 0]
    g = _Live(
        boards=np.repeat(Position.initial().array[None, :], n, axis=0),
        on_roll=(opening[:, 0] < opening[:, 1]).astype(np.int64),  # seat 0 starts when its die is higher
        cube=np.ones(n, np.int64),
        owner=np.full(n, -1, np.int64),
        ply=np.zeros(n, np.int64),
        live=np.ones(n, bool),
        records=[[] for _ in range(n)] if record else None,
    )
    res = BlockResult(
        first_pair=first_pair,
        seat_of_a=seat_of_a,
        points_seat0=np.zeros(n, np.int64),
        winner=np.full(n, -1, np.int64),
        multiplier=np.zeros(n, np.int64),
        passed=np.zeros(n, bool),
        final_cube=np.ones(n, np.int64),
        plies=np.zeros(n, np.int64),
        doubles=np.zeros((n, 2), np.int64),
        takes=np.zeros((n, 2), np.int64),
        passes=np.zeros((n, 2), np.int64),
        beavers=np.zeros((n, 2), np.int64),
        too_good=np.zeros((n, 2), np.int64),
        cube_decisions=np.zeros((n, 2), np.int64),
        cube_disagreements=np.zeros((n, 2), np.int64),
        records=g.records,
    )
    before = [_decider_counts(p) for p in players]
    while g.live.any():
        if rules.cubeful:
            _cube_turn(players, g, res, seat_of_a, rules, compare_cube)
        idx = np.flatnonzero(g.live)
        if len(idx) == 0:
            break
        if g.ply[idx].max() >= MAX_PLIES:
            raise JumpgammonError(f"a game passed {MAX_PLIES} moves: a player cannot finish")
        rolls = dice.at(pair[idx], g.ply[idx])
        who = (g.on_roll[idx] != seat_of_a[idx]).astype(np.int64)
        kids = _by_player(players, who, "choose_moves", g.boards[idx], rolls)
        if g.records is not None:
            for j, game in enumerate(idx):
                g.records[game].append(
                    [int(g.on_roll[game]), "roll", int(rolls[j, 0]), int(rolls[j, 1]), Position(kids[j]).id]
                )
        over = phases(kids) == GamePhase.OVER
        if over.any():
            done = idx[over]
            mult = result_multipliers(kids[over])
            if rules.jacoby:
                mult = np.where(g.cube[done] == 1, 1, mult)
            _finish(g, res, done, g.on_roll[done], g.cube[done] * mult, mult, passed=False)
        g.boards[idx] = kids
        g.on_roll[idx] ^= 1
        g.ply[idx] += 1
    after = [_decider_counts(p) for p in players]
    res.evaluations = np.array([after[p][0] - before[p][0] for p in (0, 1)], np.int64)
    res.lookaheads = np.array([after[p][1] - before[p][1] for p in (0, 1)], np.int64)
    return res


def _decider_counts(player: Player) -> tuple[int, int]:
    """(positions judged, lookaheads run) so far by a player's cube decider, (0, 0) without one."""
    decider = getattr(player, "decider", None)
    return (decider.decisions, decider.lookaheads) if decider is not None else (0, 0)


def _finish(
    g: _Live,
    res: BlockResult,
    games: np.ndarray,
    winner: np.ndarray,
    points: np.ndarray,
    mult: np.ndarray,
    passed: bool,
) -> None:
    """Score finished games: ``winner`` seats win ``points``."""
    g.live[games] = False
    res.winner[games] = winner
    res.points_seat0[games] = np.where(winner == 0, points, -points)
    res.multiplier[games] = mult
    res.passed[games] = passed
    res.final_cube[games] = g.cube[games]
    res.plies[games] = g.ply[games]


def _ask_both(
    players: tuple[Player, Player], who: np.ndarray, compare: bool, call: str, boards: np.ndarray, *args: object
) -> tuple[np.ndarray, np.ndarray | None]:
    """The answers of the player responsible for each row, and (with ``compare``) the other player's.

    Comparing, each player answers every row in one batch (one evaluation instead of two).
    """
    if not compare:
        return _by_player(players, who, call, boards, *args), None
    answers = [np.asarray(getattr(p, call)(boards, *args)) for p in players]
    mine = np.where(who == 0, answers[0], answers[1])
    return mine, np.where(who == 0, answers[1], answers[0])


def _cube_turn(
    players: tuple[Player, Player], g: _Live, res: BlockResult, seat_of_a: np.ndarray, rules: Rules, compare: bool
) -> None:
    """Before rolling: doubles, and the answers to them, for every live game where the side on roll may double."""
    may = g.live & (g.ply > 0) & ((g.owner < 0) | (g.owner == g.on_roll)) & (g.cube * 2 <= rules.max_cube)
    idx = np.flatnonzero(may)
    if len(idx) == 0:
        return
    states = cube_states_for(g.owner[idx], g.on_roll[idx])
    seat = g.on_roll[idx]
    who = (seat != seat_of_a[idx]).astype(np.int64)
    args = (rules.jacoby, rules.beavers)
    actions, other = _ask_both(players, who, compare, "double_actions", g.boards[idx], states, *args)
    np.add.at(res.cube_decisions, (idx, seat), 1)
    np.add.at(res.too_good, (idx, seat), actions == CubeAction.TOO_GOOD)
    if other is not None:
        np.add.at(res.cube_disagreements, (idx, seat), (other == CubeAction.DOUBLE) != (actions == CubeAction.DOUBLE))
    doubling = actions == CubeAction.DOUBLE
    didx = idx[doubling]
    if len(didx) == 0:
        return
    dseat = seat[doubling]
    taker = 1 - dseat
    np.add.at(res.doubles, (didx, dseat), 1)
    taker_view = flip_boards(g.boards[didx])
    twho = 1 - who[doubling]
    answers, other = _ask_both(players, twho, compare, "double_responses", taker_view, states[doubling], *args)
    if not rules.beavers:
        answers = np.where(answers == CubeResponse.BEAVER, CubeResponse.TAKE, answers)
    np.add.at(res.cube_decisions, (didx, taker), 1)
    if other is not None:
        np.add.at(res.cube_disagreements, (didx, taker), (other == CubeResponse.PASS) != (answers == CubeResponse.PASS))
    if g.records is not None:
        for j, game in enumerate(didx):
            g.records[game].append([int(dseat[j]), "double", int(g.cube[game] * 2)])
            g.records[game].append([int(taker[j]), str(answers[j])])
    dropped = answers == CubeResponse.PASS
    if dropped.any():
        np.add.at(res.passes, (didx[dropped], taker[dropped]), 1)
        _finish(
            g, res, didx[dropped], dseat[dropped], g.cube[didx[dropped]], np.ones(int(dropped.sum()), np.int64), True
        )
    beaver = (answers == CubeResponse.BEAVER) & (g.cube[didx] * 4 <= rules.max_cube)
    took = ~dropped
    np.add.at(res.takes, (didx[took], taker[took]), 1)
    np.add.at(res.beavers, (didx[beaver], taker[beaver]), 1)
    g.cube[didx[took]] *= np.where(beaver[took], 4, 2)
    g.owner[didx[took]] = taker[took]
