"""``jumpgammon bench arena``: tournament speed side by side with GNU Backgammon's own 0-ply self-play.

Figures, never pass/fail thresholds. Each rate excludes a short warm-up run (compilation, caches).
GNU Backgammon's rate is the ``gnubg`` package's ``findbestmove`` in a plain Python loop of
self-play games: one call per move, the move applied to gnubg's board by a few lines of Python;
where the binding returns a tuple cut at a bear-off, the move is chosen by gnubg's evaluation of
every child instead (:class:`players.gnubg_player.GnubgPlayer`), as a player must.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass
from typing import Any, ClassVar

import numpy as np

from arena import PlayerSpec, Rules, TournamentConfig, run_tournament
from engine.position import Position
from players.cube import parse_cube_spec
from players.gnubg_binding import gnubg, gnubg_boards
from players.gnubg_player import GnubgPlayer, make_gnubg_player


@dataclass(frozen=True)
class TournamentRate:
    """One tournament's speed with A's result: ``lookahead_share`` is the share of cube judgements that looked ahead."""

    games: int
    seconds: float
    games_per_second: float
    lookahead_share: float
    ppg: float
    se: float | None


@dataclass(frozen=True)
class GnubgSelfplayRate:
    """gnubg's 0-ply self-play in a plain loop: ``bear_off_fallbacks`` moves chosen by the player instead."""

    games: int
    moves: int
    bear_off_fallbacks: int
    seconds: float
    games_per_second: float


@dataclass(frozen=True)
class ArenaSpeed:
    """``bench arena``: the tournaments' rates beside gnubg's self-play, and their ratios."""

    benchmark: ClassVar[str] = "arena"
    net0_vs_net0_cubeless: TournamentRate
    net0_vs_net0_cubeful_janowski: TournamentRate
    net0_jump_vs_janowski_replayed: TournamentRate
    net0_jump_local_vs_janowski: TournamentRate
    gnubg_0ply_selfplay_plain_loop: GnubgSelfplayRate
    cubeless_over_gnubg: float
    janowski_over_cubeless: float
    replayed_over_janowski: float

    def tournaments(self) -> dict[str, TournamentRate]:
        """The four tournaments' rates by their JSON names, in the order printed."""
        return {
            "net0_vs_net0_cubeless": self.net0_vs_net0_cubeless,
            "net0_vs_net0_cubeful_janowski": self.net0_vs_net0_cubeful_janowski,
            "net0_jump_vs_janowski_replayed": self.net0_jump_vs_janowski_replayed,
            "net0_jump_local_vs_janowski": self.net0_jump_local_vs_janowski,
        }

    def to_json(self) -> dict[str, Any]:
        """The figures as ``bench arena --json`` prints them."""
        return {"benchmark": self.benchmark, **asdict(self)}


def _rate(a: PlayerSpec, b: PlayerSpec, games: int, cubeful: bool, seed: int, replay: bool = False) -> TournamentRate:
    """Games per second of one tournament after a warm-up, with its cube statistics.

    Without ``replay`` every game's checkers are moved by the players, as against any other
    opponent; with it, players that move alike share one game per pair (:mod:`arena.replay`).
    """
    rules = Rules(cubeful=cubeful)
    warm = TournamentConfig(a, b, games=16, seed=seed + 1, rules=rules, block_pairs=8, replay=replay)
    run_tournament(warm, progress=False)
    cfg = TournamentConfig(a, b, games=games, seed=seed, rules=rules, replay=replay)
    result, _ = run_tournament(cfg, progress=False)
    judged = result.a.cube_evaluations + result.b.cube_evaluations
    return TournamentRate(
        games=result.games,
        seconds=round(result.seconds, 2),
        games_per_second=round(result.games_per_second, 1),
        lookahead_share=(result.a.lookaheads + result.b.lookaheads) / judged if judged else 0.0,
        ppg=result.ppg,
        se=result.se,
    )


def _apply_hops(board: list[list[int]], move: tuple[int, ...]) -> None:
    """Play gnubg's 1-based hops (25 = bar, <= 0 = off) on its board ``[not on roll, on roll]`` in place."""
    mine, theirs = board[1], board[0]
    for k in range(0, len(move), 2):
        src, dst = move[k], move[k + 1]
        mine[src - 1] -= 1
        if dst > 0:
            if theirs[24 - dst] == 1:  # a blot of theirs on our point dst is on their point 25 - dst
                theirs[24 - dst] = 0
                theirs[24] += 1
            mine[dst - 1] += 1


def gnubg_selfplay_rate(games: int, seed: int) -> GnubgSelfplayRate:
    """Games per second of gnubg's 0-ply self-play with findbestmove in a plain loop (cubeless money)."""
    player: GnubgPlayer = make_gnubg_player(0, parse_cube_spec("none"))
    cube_info = gnubg.cubeinfo()
    context = gnubg.evalcontext(0, 0, 1, 1, 0.0)
    rng = np.random.default_rng(seed)
    moves = fallbacks = 0
    start = time.perf_counter()
    for _ in range(games):
        board = [list(side) for side in gnubg_boards(Position.initial().array[None])[0]]
        while True:
            a, b = (int(v) for v in rng.integers(1, 7, size=2))
            move = tuple(gnubg.findbestmove(board, cube_info, context, (a, b)))
            moves += 1
            if len(move) % 2:  # cut at a bear-off: let the player choose among the children
                ours = np.array(_to_ours(board), np.int8)
                child = player.choose_moves(ours[None], np.array([[a, b]]))[0]
                fallbacks += 1
                if not (child < 0).any():
                    break
                board = [list(side) for side in gnubg_boards(child[None])[0]]
                continue
            _apply_hops(board, move)
            if sum(board[1]) == 0:
                break
            board = [board[1], board[0]]
    seconds = time.perf_counter() - start
    return GnubgSelfplayRate(
        games=games,
        moves=moves,
        bear_off_fallbacks=fallbacks,
        seconds=seconds,  # unrounded: a short run's rate is computed from it (0.01 s steps made 2 games 100/s)
        games_per_second=games / seconds,
    )


def _to_ours(board: list[list[int]]) -> list[int]:
    """This project's 26-slot board (side on roll's view) from gnubg's ``[not on roll, on roll]``."""
    mine, theirs = board[1], board[0]
    out = [0] * 26
    for i in range(24):
        out[i + 1] += mine[i]
        out[24 - i] -= theirs[i]
    out[25] = mine[24]
    out[0] = -theirs[24]
    return out


def bench_arena(games: int = 2000, seed: int = 1) -> ArenaSpeed:
    """Tournament rates beside gnubg's self-play: net@0 self-play cubeless and with Janowski cubes (every
    game's checkers moved), a jump-against-Janowski point and jump-local as tournaments play them (replayed)."""
    net = PlayerSpec("net@0")
    cubeless = _rate(net, net, games, False, seed)
    janowski_cube = PlayerSpec("net@0", "janowski:0.7")
    janowski = _rate(janowski_cube, janowski_cube, games, True, seed)
    replayed = _rate(PlayerSpec("net@0", "jump:0.1:linear"), janowski_cube, games, True, seed, True)
    local_games = max(16, games // 40 * 2)  # mirrored pairs: an even count
    local = _rate(PlayerSpec("net@0", "jump-local"), janowski_cube, local_games, True, seed, True)
    gnubg_selfplay_rate(4, seed + 1)  # warm gnubg's caches and nets
    reference = gnubg_selfplay_rate(max(50, games // 4), seed)
    return ArenaSpeed(
        net0_vs_net0_cubeless=cubeless,
        net0_vs_net0_cubeful_janowski=janowski,
        net0_jump_vs_janowski_replayed=replayed,
        net0_jump_local_vs_janowski=local,
        gnubg_0ply_selfplay_plain_loop=reference,
        cubeless_over_gnubg=cubeless.games_per_second / reference.games_per_second,
        janowski_over_cubeless=janowski.games_per_second / cubeless.games_per_second,
        replayed_over_janowski=replayed.games_per_second / janowski.games_per_second,
    )
