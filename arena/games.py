"""Money games between two players in lockstep batches, cubeless or cubeful.

:class:`Lockstep` is the core: many games, each with its own board, side on roll, cube and
owner, advance together; every live game takes its cube turn (the side on roll may double
before rolling; the other side takes, passes or beavers), then every live game rolls and
moves, each player answering for all the games where it is on roll in one batched call. The
caller supplies the dice, so the same core plays the arena's games from the opening and
rollouts from any position (:mod:`arena.rollout`).

A *block* of mirrored pairs (:func:`play_block`) is played to its end in one lockstep batch.
Pair ``k`` draws its dice from its own generator, seeded by ``(seed, k)``; its two games are
played with the same dice and the seats swapped (player A sits in seat 0 in the first game, in
seat 1 in the second). A block gives the same games whichever process plays it, so a
tournament split across workers equals a single run.

Rules: no double before the opening roll is played; a player may double when the cube is
centred or its own; a pass ends the game at the current cube; a take doubles the cube and
hands it over; a beaver (only with ``beavers``) quadruples it and the beaverer keeps it
(raccoons are not played); under the Jacoby rule gammons and backgammons count only once the
cube has been turned. The cube's value is capped at :data:`MAX_CUBE` (no double beyond it).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from arena.luck import money_luck_seat0
from cube.match import MatchCube, MatchScore
from cube.states import CubeAction, CubeResponse, CubeState
from engine.batch import flip_boards, phases
from engine.errors import JumpgammonError
from engine.game import Dice, check_plies, result_multipliers
from engine.match import MAX_CUBE
from engine.position import GamePhase, Position
from nets.base import BoardEvaluator
from players.base import CubeContext, Player
from players.cube import cube_states_for

DICE_CHUNK = 64  # rolls drawn per game at a time; games longer than that draw more


@dataclass(frozen=True)
class Rules:
    """The rules of a money session: cube or not, Jacoby, beavers, and the largest cube."""

    cubeful: bool = False
    jacoby: bool = False
    beavers: bool = False
    max_cube: int = MAX_CUBE


@dataclass(frozen=True)
class MatchScores:
    """The match score of each game of a lockstep batch: points each seat still needs, and the Crawford flag.

    ``away`` (n, 2) is indexed by seat; in the Crawford game (``crawford``) no one may double.
    """

    away: np.ndarray
    crawford: np.ndarray

    def cubes(self, games: np.ndarray, seats: np.ndarray, values: np.ndarray, states: np.ndarray) -> list[MatchCube]:
        """The :class:`MatchCube` of ``seats`` in ``games`` (cube ``values``, ``states`` their view)."""
        out = []
        for j, (g, seat) in enumerate(zip(games.tolist(), seats.tolist(), strict=True)):
            score = MatchScore(int(self.away[g, seat]), int(self.away[g, 1 - seat]), bool(self.crawford[g]))
            out.append(MatchCube(score, int(values[j]), CubeState(states[j])))
        return out


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
    #: (n,) the summed luck of each game's rolls in points for seat 0 (:func:`arena.luck.money_luck_seat0`),
    #: when the block was played with a luck evaluator; the variance-reduced result is ``points_seat0 - luck_seat0``.
    luck_seat0: np.ndarray | None = None

    @property
    def games(self) -> int:
        """Number of games in the block."""
        return len(self.points_seat0)


class DiceStreams:
    """Dice streams, one per key: an opening roll without doubles, then any rolls.

    Stream ``k`` draws from a generator seeded by ``keys[k]`` (:meth:`for_pairs`: the money pairs').
    """

    def __init__(self, keys: list[list[int]]) -> None:
        self.generators = [np.random.default_rng(key) for key in keys]
        n_pairs = len(keys)
        opening = np.empty((n_pairs, 1, 2), np.int64)
        for k, gen in enumerate(self.generators):
            _, opening[k, 0] = Dice(gen).opening()  # seat 0's die first
        self.rolls = np.concatenate([opening, self._draw(DICE_CHUNK - 1)], axis=1)

    @classmethod
    def for_pairs(cls, seed: int, first_pair: int, n_pairs: int) -> DiceStreams:
        """The streams of money pairs ``first_pair ..``: pair ``k`` seeded by ``(seed, k)``."""
        return cls([[seed, first_pair + k] for k in range(n_pairs)])

    def _draw(self, count: int) -> np.ndarray:
        return np.stack([gen.integers(1, 7, size=(count, 2)) for gen in self.generators])

    def at(self, pairs: np.ndarray, plies: np.ndarray) -> np.ndarray:
        """The roll of each (pair, ply); draws more for every pair when a game outgrows the buffer."""
        while plies.size and plies.max() >= self.rolls.shape[1]:
            self.rolls = np.concatenate([self.rolls, self._draw(DICE_CHUNK)], axis=1)
        return self.rolls[pairs, plies]


def _by_player(
    players: tuple[Player, Player],
    who: np.ndarray,
    call: str,
    boards: np.ndarray,
    *args: object,
    max_rows: int | None = None,
) -> np.ndarray:
    """Ask each player (0 = A, 1 = B) about the rows it is responsible for; results in row order.

    One player in both seats is asked once about all rows. With ``max_rows`` a player is asked
    about at most that many rows at a time (deep lookahead holds every row's tree in memory).
    """
    groups = [np.arange(len(who))] if players[0] is players[1] else [np.flatnonzero(who == p) for p in (0, 1)]
    out: np.ndarray | None = None
    for p, rows in enumerate(groups):
        step = max_rows or max(len(rows), 1)
        for start in range(0, len(rows), step):
            part = rows[start : start + step]
            extra = [
                a.rows(part)
                if isinstance(a, CubeContext)
                else a[part]
                if isinstance(a, np.ndarray) and a.shape[:1] == who.shape
                else a
                for a in args
            ]
            got = np.asarray(getattr(players[p], call)(boards[part], *extra))
            if out is None:
                out = np.empty((len(who), *got.shape[1:]), dtype=got.dtype)
            out[part] = got
    assert out is not None
    return out


class Lockstep:
    """Games between two players advancing together; seats 0 and 1, boards seen by the side on roll.

    Player A (``players[0]``) sits in seat ``seat_of_a[g]`` of game ``g``, B in the other; the
    same player may sit in both seats. A game is *live* while its checkers move and its *cube
    game is open* until its points are decided: a finished game decides both; a pass decides
    the points, and the checkers stop too unless ``play_out_passes`` (rollouts play on to keep
    the cubeless outcome). The side on roll may double from ply ``first_cube_ply[g]`` on.
    Points, winner and multiplier are those of the cube game, from seat 0's view for points.

    With ``match`` each game is a game of a match at that score: the players answer the cube
    questions at their :class:`MatchCube` (a match :class:`CubeContext`), no one doubles in
    the Crawford game, and a side doubles only while the current cube does not already win it the
    match (the cube is dead at the end of a match). Points are the game's, not capped at the score.
    """

    def __init__(
        self,
        players: tuple[Player, Player],
        boards: np.ndarray,
        on_roll: np.ndarray,
        seat_of_a: np.ndarray,
        rules: Rules,
        *,
        cube: np.ndarray | None = None,
        owner: np.ndarray | None = None,
        first_cube_ply: int | np.ndarray = 1,
        play_out_passes: bool = False,
        compare_cube: bool = False,
        record: bool = False,
        max_rows: int | None = None,
        match: MatchScores | None = None,
    ) -> None:
        n = len(boards)
        if match is not None and (rules.jacoby or rules.beavers):
            raise JumpgammonError("matches are played without the Jacoby rule and beavers")
        self.match = match
        self.players = players
        self.rules = rules
        self.compare_cube = compare_cube
        self.play_out_passes = play_out_passes
        self.max_rows = max_rows
        self.boards = np.array(boards, dtype=np.int8).reshape(n, 26)
        self.on_roll = np.array(on_roll, dtype=np.int64)
        self.seat_of_a = np.array(seat_of_a, dtype=np.int64)
        self.cube = np.ones(n, np.int64) if cube is None else np.array(cube, dtype=np.int64)
        self.owner = np.full(n, -1, np.int64) if owner is None else np.array(owner, dtype=np.int64)
        self.first_cube_ply = np.broadcast_to(np.asarray(first_cube_ply, np.int64), (n,)).copy()
        self.ply = np.zeros(n, np.int64)
        self.live = np.ones(n, bool)
        self.cube_open = np.ones(n, bool)
        self.records: list[list[list[object]]] | None = [[] for _ in range(n)] if record else None
        self.points_seat0 = np.zeros(n, np.int64)
        self.winner = np.full(n, -1, np.int64)
        self.multiplier = np.zeros(n, np.int64)
        self.passed = np.zeros(n, bool)
        self.final_cube = self.cube.copy()
        self.plies = np.zeros(n, np.int64)
        counters = ("doubles", "takes", "passes", "beavers", "too_good", "cube_decisions", "cube_disagreements")
        self.counters = {name: np.zeros((n, 2), np.int64) for name in counters}
        over = np.flatnonzero(phases(self.boards) == GamePhase.OVER)
        if len(over):  # a game that starts finished: the side on roll has won if it has no checkers left
            roller_won = (self.boards[over] > 0).sum(axis=1) == 0
            loser_view = np.where(roller_won[:, None], flip_boards(self.boards[over]), self.boards[over])
            winner = np.where(roller_won, self.on_roll[over], 1 - self.on_roll[over])
            self._end_game(over, winner, result_multipliers(loser_view))

    @property
    def size(self) -> int:
        """Number of games."""
        return len(self.boards)

    def cube_turn(self) -> None:
        """Before rolling: doubles, and the answers to them, for every game where the side on roll may double."""
        rules = self.rules
        may = self.live & self.cube_open & (self.ply >= self.first_cube_ply)
        may &= ((self.owner < 0) | (self.owner == self.on_roll)) & (self.cube * 2 <= rules.max_cube)
        if self.match is not None:
            games = np.arange(self.size)
            may &= ~self.match.crawford & (self.match.away[games, self.on_roll] > self.cube)
        idx = np.flatnonzero(may)
        if len(idx) == 0:
            return
        c = self.counters
        states = cube_states_for(self.owner[idx], self.on_roll[idx])
        seat = self.on_roll[idx]
        who = (seat != self.seat_of_a[idx]).astype(np.int64)
        if self.match is None:
            context = CubeContext.money(states, rules.jacoby, rules.beavers)
        else:
            context = CubeContext.match(self.match.cubes(idx, seat, self.cube[idx], states))
        actions, other = self._ask_both(who, "double_actions", self.boards[idx], context)
        np.add.at(c["cube_decisions"], (idx, seat), 1)
        np.add.at(c["too_good"], (idx, seat), actions == CubeAction.TOO_GOOD)
        if other is not None:
            disagree = (other == CubeAction.DOUBLE) != (actions == CubeAction.DOUBLE)
            np.add.at(c["cube_disagreements"], (idx, seat), disagree)
        doubling = actions == CubeAction.DOUBLE
        didx = idx[doubling]
        if len(didx) == 0:
            return
        dseat = seat[doubling]
        taker = 1 - dseat
        np.add.at(c["doubles"], (didx, dseat), 1)
        taker_view = flip_boards(self.boards[didx])
        twho = 1 - who[doubling]
        answers, other = self._ask_both(twho, "double_responses", taker_view, context.rows(doubling))
        # A beaver is a take without the beaver rule, and where the beavered cube would pass the cube limit.
        no_room = self.cube[didx] * 4 > rules.max_cube
        answers = np.where(
            (answers == CubeResponse.BEAVER) & (no_room | (not rules.beavers)), CubeResponse.TAKE, answers
        )
        np.add.at(c["cube_decisions"], (didx, taker), 1)
        if other is not None:
            disagree = (other == CubeResponse.PASS) != (answers == CubeResponse.PASS)
            np.add.at(c["cube_disagreements"], (didx, taker), disagree)
        if self.records is not None:
            for j, game in enumerate(didx):
                self.records[game].append([int(dseat[j]), "double", int(self.cube[game] * 2)])
                self.records[game].append([int(taker[j]), str(answers[j])])
        dropped = answers == CubeResponse.PASS
        if dropped.any():
            gone = didx[dropped]
            np.add.at(c["passes"], (gone, taker[dropped]), 1)
            self._score(gone, dseat[dropped], self.cube[gone], np.ones(len(gone), np.int64), passed=True)
            if not self.play_out_passes:
                self.live[gone] = False
        beaver = answers == CubeResponse.BEAVER
        took = ~dropped
        np.add.at(c["takes"], (didx[took], taker[took]), 1)
        np.add.at(c["beavers"], (didx[beaver], taker[beaver]), 1)
        self.cube[didx[took]] *= np.where(beaver[took], 4, 2)
        self.owner[didx[took]] = taker[took]

    def move(self, rows: np.ndarray, rolls: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Play ``rolls`` (k, 2) in the live games ``rows``; returns the children (seen by the next side on roll)
        and which of them ended the game. Afterwards the other side is on roll in each of those games.
        Raises RunawayGame when one of those games has already played ``engine.game.MAX_PLIES`` moves.
        """
        check_plies(self.ply[rows])
        who = (self.on_roll[rows] != self.seat_of_a[rows]).astype(np.int64)
        kids = _by_player(self.players, who, "choose_moves", self.boards[rows], rolls, max_rows=self.max_rows)
        return kids, self.apply_moves(rows, rolls, kids)

    def apply_moves(self, rows: np.ndarray, rolls: np.ndarray, kids: np.ndarray) -> np.ndarray:
        """Put the children ``kids`` (seen by the next side on roll), played with ``rolls``, on the boards of
        ``rows``; returns which of them ended the game. Afterwards the other side is on roll in those games.

        :meth:`move` asks the players for the children; a replay (:mod:`arena.replay`) supplies them.
        """
        if self.records is not None:
            for j, game in enumerate(rows):
                self.records[game].append(
                    [int(self.on_roll[game]), "roll", int(rolls[j, 0]), int(rolls[j, 1]), Position(kids[j]).id]
                )
        over = phases(kids) == GamePhase.OVER
        if over.any():
            self._end_game(rows[over], self.on_roll[rows[over]], result_multipliers(kids[over]))
        self.boards[rows] = kids
        self.on_roll[rows] ^= 1
        self.ply[rows] += 1
        return over

    def stop(self, rows: np.ndarray) -> None:
        """Stop moving the checkers of ``rows`` (a truncated rollout); their cube games stay as they are."""
        self.live[rows] = False

    def seat_players(self, seats: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """Which player (0 = A, 1 = B) sits in ``seats`` of games ``rows``."""
        return (seats != self.seat_of_a[rows]).astype(np.int64)

    def _end_game(self, games: np.ndarray, winner: np.ndarray, raw_multiplier: np.ndarray) -> None:
        """The checkers of ``games`` are off: score the cube games still open (Jacoby applied) and stop them."""
        self.live[games] = False
        still = self.cube_open[games]
        if still.any():
            g = games[still]
            mult = raw_multiplier[still]
            if self.rules.jacoby:
                mult = np.where(self.cube[g] == 1, 1, mult)
            self._score(g, winner[still], self.cube[g] * mult, mult, passed=False)

    def _score(self, games: np.ndarray, winner: np.ndarray, points: np.ndarray, mult: np.ndarray, passed: bool) -> None:
        """Decide the cube games ``games``: ``winner`` seats win ``points``."""
        self.cube_open[games] = False
        self.winner[games] = winner
        self.points_seat0[games] = np.where(winner == 0, points, -points)
        self.multiplier[games] = mult
        self.passed[games] = passed
        self.final_cube[games] = self.cube[games]
        self.plies[games] = self.ply[games]

    def _ask_both(
        self, who: np.ndarray, call: str, boards: np.ndarray, *args: object
    ) -> tuple[np.ndarray, np.ndarray | None]:
        """The answers of the player responsible for each row, and (with ``compare_cube``) the other player's.

        Comparing, each player answers every row in one batch (one evaluation instead of two).
        """
        if not self.compare_cube:
            return _by_player(self.players, who, call, boards, *args, max_rows=self.max_rows), None
        answers = [np.asarray(getattr(p, call)(boards, *args)) for p in self.players]
        mine = np.where(who == 0, answers[0], answers[1])
        return mine, np.where(who == 0, answers[1], answers[0])


def play_block(
    players: tuple[Player, Player],
    seed: int,
    first_pair: int,
    n_pairs: int,
    rules: Rules,
    record: bool = False,
    compare_cube: bool = True,
    children: Callable[[np.ndarray, np.ndarray], np.ndarray] | None = None,
    on_games_done: Callable[[int], None] | None = None,
    luck: BoardEvaluator | None = None,
    judged_luck: Callable[[np.ndarray, np.ndarray], np.ndarray] | None = None,
    luck_screen: int | None = None,
    before_move: Callable[[Lockstep, np.ndarray, np.ndarray], None] | None = None,
) -> BlockResult:
    """Play pairs ``first_pair .. first_pair + n_pairs - 1`` (two mirrored games each) to the end.

    ``players[0]`` is A, ``players[1]`` is B. With ``compare_cube`` every cube question is put to
    both players, so that their disagreements on the same positions are counted. ``children``
    (pair indices within the block, plies) -> the boards after those moves replaces the players'
    checker play (a replay, :mod:`arena.replay`); the cube turns are played as always.
    ``on_games_done`` hears how many more games have ended after each turn (for a progress bar).
    With ``luck`` (a reference evaluator) each game's luck is summed (:mod:`arena.luck`), for a
    variance-reduced result; the games are the same either way (``luck_screen`` screens its plays,
    :mod:`arena.luck`). ``judged_luck`` (pair indices
    within the block, plies) -> each roll's cubeless equity luck for seat 0, judged beforehand (a
    replay's trajectories), does the same without judging the rolls again. ``before_move`` hears the
    games, the indices of the live ones and their rolls before each turn's checker play (a
    measurement over the same games, such as a second luck).
    """
    if luck is not None and judged_luck is not None:
        raise ValueError("give a luck evaluator or the judged luck, not both")
    n = 2 * n_pairs
    pair = np.arange(n) // 2
    seat_of_a = np.arange(n) % 2
    dice = DiceStreams.for_pairs(seed, first_pair, n_pairs)
    opening = dice.rolls[pair, 0]
    g = Lockstep(
        players,
        boards=np.repeat(Position.initial().array[None, :], n, axis=0),
        on_roll=(opening[:, 0] < opening[:, 1]).astype(np.int64),  # seat 0 starts when its die is higher
        seat_of_a=seat_of_a,
        rules=rules,
        first_cube_ply=1,  # no double before the opening roll is played
        compare_cube=compare_cube,
        record=record,
    )
    before = [decider_counts(p) for p in players]
    luck_seat0 = None if luck is None and judged_luck is None else np.zeros(n)
    live = n
    while g.live.any():
        if rules.cubeful:
            g.cube_turn()
        idx = np.flatnonzero(g.live)
        if len(idx) == 0:
            break
        rolls = dice.at(pair[idx], g.ply[idx])
        if luck_seat0 is not None:
            stake = np.where(g.cube_open[idx], g.cube[idx], 0)
            if luck is not None:
                # A money pair's two games share their opening roll, roller and stake, so its luck (judged
                # against all 21 rolls here, as the committed ledgers were) cancels in the pair.
                luck_seat0[idx] += money_luck_seat0(luck, g.boards[idx], rolls, g.on_roll[idx], stake, luck_screen)
            elif judged_luck is not None:
                luck_seat0[idx] += stake * judged_luck(pair[idx], g.ply[idx])
        if before_move is not None:
            before_move(g, idx, rolls)
        if children is None:
            g.move(idx, rolls)
        else:
            g.apply_moves(idx, rolls, children(pair[idx], g.ply[idx]))
        if on_games_done is not None and (still := int(g.live.sum())) < live:
            on_games_done(live - still)
            live = still
    after = [decider_counts(p) for p in players]
    return BlockResult(
        first_pair=first_pair,
        seat_of_a=seat_of_a,
        points_seat0=g.points_seat0,
        winner=g.winner,
        multiplier=g.multiplier,
        passed=g.passed,
        final_cube=g.final_cube,
        plies=g.plies,
        **g.counters,
        records=g.records,
        evaluations=np.array([after[p][0] - before[p][0] for p in (0, 1)], np.int64),
        lookaheads=np.array([after[p][1] - before[p][1] for p in (0, 1)], np.int64),
        luck_seat0=luck_seat0,
    )


def decider_counts(player: Player) -> tuple[int, int]:
    """(positions judged, lookaheads run) so far by a player's cube decider, (0, 0) without one."""
    decider = getattr(player, "decider", None)
    return (0, 0) if decider is None else (decider.decisions, decider.lookaheads)
