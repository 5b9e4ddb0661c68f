"""Matches between two players in lockstep batches: N-point matches with the Crawford rule.

A block of mirrored pairs of matches (:func:`play_match_block`) is played in *rounds*: in round
``r`` every match not yet decided plays its game ``r``, all of them in one lockstep batch
(:class:`arena.games.Lockstep` at each match's score). After each round the scores move, the
Crawford flag is set for the game after a side first reaches 1-away, and the games after it are
post-Crawford; a match ends when a side has the points it needs.

Dice: game ``r`` of pair ``k`` draws from a generator seeded by ``(seed, k, r)`` (game 0 by
``(seed, k)``, the money pair's stream), the same for both matches of the pair, where A sits in
seat 0 in the first match and in seat 1 in the second. So a pair's two matches play their game
``r`` on the same dice, and a 1-point match is the money pair's cubeless game.

Rules: the cube is in play (a player whose match cube is ``none`` never doubles); no doubling
before the opening roll is played, nor in the Crawford game, nor by a side that the current
cube already gives the match; no Jacoby rule, no beavers; gammons and backgammons count, but
points beyond what a side needs count for nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from arena.games import DiceStreams, Lockstep, MatchScores, Rules, decider_counts
from arena.luck import match_luck_seat0
from cube.met import MatchEquityTable
from engine.errors import JumpgammonError
from engine.position import Position
from nets.base import BoardEvaluator
from players.base import Player

MATCH_RULES = Rules(cubeful=True)
#: The longest match this arena plays (the published tables reach 25 points).
MAX_MATCH_LENGTH = 25
MATCH_CUBE_COUNTERS = ("doubles", "takes", "passes", "too_good", "cube_decisions", "cube_disagreements")


@dataclass
class MatchBlockResult:
    """Per-match outcomes of one block, in match order (match ``2j`` and ``2j + 1`` are pair ``first_pair + j``).

    Per-seat counters are indexed ``[match, seat]`` and summed over the match's games.
    """

    first_pair: int
    match_length: np.ndarray  # (n,) the same for every match
    seat_of_a: np.ndarray  # (n,) seat player A sits in
    winner: np.ndarray  # (n,) seat that won the match
    score: np.ndarray  # (n, 2) final score per seat (the winner's is the match length)
    games: np.ndarray  # (n,) games played
    crawford_games: np.ndarray  # (n,) 1 when a Crawford game was played
    post_crawford_games: np.ndarray  # (n,) games after the Crawford game
    plies: np.ndarray  # (n,) moves played over the match
    game_wins: np.ndarray  # (n, 2) games won per seat
    gammons: np.ndarray  # (n, 2) games won with a gammon or backgammon
    backgammons: np.ndarray  # (n, 2)
    passes_ending_games: np.ndarray  # (n,) games ended by a pass
    cube_total: np.ndarray  # (n,) sum over the games of the final cube
    max_cube: np.ndarray  # (n,) largest final cube of the match's games
    doubles: np.ndarray  # (n, 2)
    takes: np.ndarray  # (n, 2) takes per seat (the taker's seat)
    passes: np.ndarray  # (n, 2)
    too_good: np.ndarray  # (n, 2)
    cube_decisions: np.ndarray  # (n, 2)
    cube_disagreements: np.ndarray  # (n, 2)
    records: list[list[dict[str, object]]] | None = None  # per match: its games, when recording
    evaluations: np.ndarray = field(default_factory=lambda: np.zeros(2, np.int64))  # per player (A, B)
    lookaheads: np.ndarray = field(default_factory=lambda: np.zeros(2, np.int64))
    #: (n,) the summed luck of each match's rolls in seat 0's match-winning chance
    #: (:func:`arena.luck.match_luck_seat0`), when played with a luck evaluator.
    luck_seat0: np.ndarray | None = None

    @property
    def matches(self) -> int:
        """Number of matches in the block."""
        return len(self.winner)


def dice_keys(seed: int, pairs: np.ndarray, game: int) -> list[list[int]]:
    """The generator seeds of game ``game`` of each pair's matches (game 0: the money pair's)."""
    return [[seed, int(k)] + ([game] if game else []) for k in pairs]


def play_match_block(
    players: tuple[Player, Player],
    seed: int,
    first_pair: int,
    n_pairs: int,
    match_length: int,
    record: bool = False,
    compare_cube: bool = True,
    on_matches_done: Callable[[int], None] | None = None,
    luck: tuple[BoardEvaluator, MatchEquityTable] | None = None,
    luck_screen: int | None = None,
) -> MatchBlockResult:
    """Play the match pairs ``first_pair .. first_pair + n_pairs - 1`` (two mirrored matches each) to the end.

    ``players[0]`` is A, ``players[1]`` is B; with ``compare_cube`` every cube question is put to
    both players, to count their disagreements. ``on_matches_done`` hears how many more matches
    have ended after each game (for a progress bar). With ``luck`` (a reference evaluator and the
    table that prices the scores) each match's luck in seat 0's match-winning chance is summed
    (``luck_screen`` screens the luck's plays, :mod:`arena.luck`).
    """
    if not 1 <= match_length <= MAX_MATCH_LENGTH:
        raise JumpgammonError(f"match length {match_length} is not 1 to {MAX_MATCH_LENGTH}")
    n = 2 * n_pairs
    pair = first_pair + np.arange(n) // 2
    seat_of_a = np.arange(n) % 2
    away = np.full((n, 2), match_length, np.int64)
    crawford = np.zeros(n, bool)
    crawford_played = np.zeros(n, bool)
    over = np.zeros(n, bool)
    winner = np.full(n, -1, np.int64)
    per_match = {
        name: np.zeros(n, np.int64)
        for name in ("games", "crawford_games", "post_crawford_games", "plies", "passes_ending_games", "cube_total")
    }
    max_cube = np.zeros(n, np.int64)
    per_seat = {
        name: np.zeros((n, 2), np.int64) for name in ("game_wins", "gammons", "backgammons", *MATCH_CUBE_COUNTERS)
    }
    records: list[list[dict[str, object]]] | None = [[] for _ in range(n)] if record else None
    before = [decider_counts(p) for p in players]
    luck_seat0 = None if luck is None else np.zeros(n)
    game = 0
    while not over.all():
        rows = np.flatnonzero(~over)
        live_pairs, stream = np.unique(pair[rows], return_inverse=True)
        dice = DiceStreams(dice_keys(seed, live_pairs, game))
        opening = dice.rolls[stream, 0]
        post = ~crawford[rows] & crawford_played[rows]
        g = Lockstep(
            players,
            boards=np.repeat(Position.initial().array[None, :], len(rows), axis=0),
            on_roll=(opening[:, 0] < opening[:, 1]).astype(np.int64),  # seat 0 starts when its die is higher
            seat_of_a=seat_of_a[rows],
            rules=MATCH_RULES,
            first_cube_ply=1,
            compare_cube=compare_cube,
            record=record,
            match=MatchScores(away[rows].copy(), crawford[rows].copy()),
        )
        while g.live.any():
            g.cube_turn()
            idx = np.flatnonzero(g.live)
            if len(idx) == 0:
                break
            rolls = dice.at(stream[idx], g.ply[idx])
            if luck is not None and luck_seat0 is not None:
                in_match = rows[idx]
                stake = np.where(g.cube_open[idx], g.cube[idx], 0)
                luck_seat0[in_match] += match_luck_seat0(
                    luck[0],
                    g.boards[idx],
                    rolls,
                    g.on_roll[idx],
                    luck[1],
                    away[in_match],
                    crawford[in_match],
                    stake,
                    luck_screen,
                    g.ply[idx] == 0,  # each game's dice stream opens with an opening roll, never a double
                )
            g.move(idx, rolls)
        points = np.abs(g.points_seat0)
        if records is not None:
            assert g.records is not None
            for j, m in enumerate(rows):
                records[m].append(
                    {
                        "game": game,
                        "away": away[m].tolist(),
                        "crawford": bool(crawford[m]),
                        "events": g.records[j],
                        "winner": int(g.winner[j]),
                        "points": int(points[j]),
                        "multiplier": int(g.multiplier[j]),
                        "passed": bool(g.passed[j]),
                        "cube": int(g.final_cube[j]),
                    }
                )
        per_match["games"][rows] += 1
        per_match["crawford_games"][rows] += crawford[rows]
        per_match["post_crawford_games"][rows] += post
        per_match["plies"][rows] += g.plies
        per_match["passes_ending_games"][rows] += g.passed
        per_match["cube_total"][rows] += g.final_cube
        max_cube[rows] = np.maximum(max_cube[rows], g.final_cube)
        np.add.at(per_seat["game_wins"], (rows, g.winner), 1)
        np.add.at(per_seat["gammons"], (rows, g.winner), g.multiplier >= 2)
        np.add.at(per_seat["backgammons"], (rows, g.winner), g.multiplier >= 3)
        for name in MATCH_CUBE_COUNTERS:
            per_seat[name][rows] += g.counters[name]
        # the score: points beyond what the winner needs count for nothing
        away[rows, g.winner] = np.maximum(away[rows, g.winner] - points, 0)
        decided = away[rows, g.winner] == 0
        over[rows[decided]] = True
        if on_matches_done is not None and decided.any():
            on_matches_done(int(decided.sum()))
        winner[rows[decided]] = g.winner[decided]
        # the Crawford game is the game after a side first reaches 1-away (marked played once scheduled)
        crawford[rows] = ~crawford_played[rows] & ~decided & (away[rows].min(axis=1) == 1)
        crawford_played[rows] |= crawford[rows]
        game += 1
    after = [decider_counts(p) for p in players]
    score = match_length - away
    return MatchBlockResult(
        first_pair=first_pair,
        match_length=np.full(n, match_length, np.int64),
        seat_of_a=seat_of_a,
        winner=winner,
        score=score,
        **per_match,
        max_cube=max_cube,
        **per_seat,
        records=records,
        evaluations=np.array([after[p][0] - before[p][0] for p in (0, 1)], np.int64),
        lookaheads=np.array([after[p][1] - before[p][1] for p in (0, 1)], np.int64),
        luck_seat0=luck_seat0,
    )


def pair_match_wins(blocks: list[MatchBlockResult]) -> np.ndarray:
    """Player A's share of the two matches of each mirrored pair (0, 0.5 or 1) over ``blocks``, in order."""
    out = [(r.winner == r.seat_of_a).astype(np.float64).reshape(-1, 2).mean(axis=1) for r in blocks]
    return np.concatenate(out) if out else np.zeros(0)


def match_line(block: MatchBlockResult, j: int, games: object) -> dict[str, object]:
    """The saved line of match ``j`` of ``block`` after its pair and seats: its length, outcome and games."""
    return {
        "match_length": int(block.match_length[j]),
        "winner": int(block.winner[j]),
        "score": block.score[j].tolist(),
        "games": games,
    }
