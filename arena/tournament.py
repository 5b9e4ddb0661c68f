"""Tournaments: mirrored money games (or matches) in blocks, on one process, several, or Ray; ppg (or MWC) with SE.

Pair ``k`` of a tournament with seed ``s`` is the same two games wherever it is played, so the
result depends only on the players, the rules, the seed and the number of games: ``--workers``
and Ray split the blocks, never the games' dice. Every figure is from player A's view. The
standard error comes from the pairs (the two games of a pair share their dice, so luck largely
cancels within a pair and the pairs are independent).

With ``match_length`` the tournament plays N-point matches instead (:mod:`arena.matches`): the
"games" of the config count matches, the players' cube specs are match cube specs deciding with
the table ``met``, and the result is A's match-winning chance with its standard error. Money play
is the case of no match length: one config, one runner (:func:`run_tournament`) and one result
(:class:`TournamentResult`) serve both.
"""

from __future__ import annotations

import math
import sys
import time
from collections.abc import Callable, Generator, Iterator, Sequence
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

import numpy as np
from tqdm import tqdm

from arena import ledger
from arena.blocks import add_seat_counts, save_block_lines
from arena.games import BlockResult, Rules, play_block
from arena.luck import check_screen, reference_evaluator
from arena.matches import (
    MATCH_CUBE_COUNTERS,
    MAX_MATCH_LENGTH,
    MatchBlockResult,
    match_line,
    pair_match_wins,
    play_match_block,
)
from arena.replay import play_trajectories, replay_block
from arena.stats import Equivalence, Figure, equivalence_test, pair_statistics, paired_figure, wilson_interval
from arena.workers import connect_ray, worker_pool
from cube.met import DEFAULT_MET, MatchEquityTable, met_by_name
from engine.errors import InvalidSpec, raised_by_interrupt
from nets.base import BoardEvaluator
from players.base import Player
from players.specs import make_player, same_checker_play

BLOCK_PAIRS = 256  # pairs per lockstep block (512 games or matches)
#: Below this many mirrored pairs a match tournament's 95% interval is Wilson's, not the normal one.
FEW_MATCH_PAIRS = 30
AnyBlock = BlockResult | MatchBlockResult
_MONEY_CUBE_COUNTERS = ("doubles", "takes", "passes", "beavers", "too_good", "cube_decisions", "cube_disagreements")


@dataclass(frozen=True)
class PlayerSpec:
    """What a worker needs to build a player: its spec and cube spec."""

    spec: str
    cube: str = "none"

    def build(self, cache: dict[str, Any] | None = None, met: MatchEquityTable | None = None) -> Player:
        """The player (raises InvalidSpec or InvalidWeights naming the spec); with ``met`` a match player."""
        return make_player(self.spec, self.cube, cache, met)


@dataclass(frozen=True)
class TournamentConfig:
    """A tournament: two players, the number of games (even: mirrored pairs), the seed and the rules.

    ``match_length`` None plays money games; N plays N-point matches (``games`` then counts matches,
    the rules must be cubeful without Jacoby or beavers, and ``met`` names the players' table).
    """

    a: PlayerSpec
    b: PlayerSpec
    games: int
    seed: int = 0
    rules: Rules = field(default_factory=Rules)
    block_pairs: int = BLOCK_PAIRS
    compare_cube: bool = True  # put every cube question to both players to count their disagreements
    match_length: int | None = None
    met: str = DEFAULT_MET
    replay: bool = True  # replay blocks when both players move alike (see ``replays``); the same games either way
    #: Luck-adjust the result: the reference evaluator's weights file, "" for the shipped net; None: off.
    luck_weights: str | None = None
    #: Judge each roll's luck by the best of pubeval's top N plays (:mod:`arena.luck`); None: every play.
    luck_screen: int | None = None

    def __post_init__(self) -> None:
        games = self.games
        if isinstance(games, bool) or not isinstance(games, int) or games < 2 or games % 2:
            raise InvalidSpec(f"games {games!r}: give an even number of at least 2 (they come in mirrored pairs)")
        if check_screen(self.luck_screen) is not None and self.luck_weights is None:
            raise InvalidSpec(f"luck screen {self.luck_screen}: the games are not luck-adjusted")
        if self.match_length is not None and not 1 <= self.match_length <= MAX_MATCH_LENGTH:
            raise InvalidSpec(f"match length {self.match_length} is not 1 to {MAX_MATCH_LENGTH}")
        if self.match_length and (self.rules.jacoby or self.rules.beavers):
            raise InvalidSpec("matches are played without the Jacoby rule and beavers")
        if self.match_length and not self.rules.cubeful:
            raise InvalidSpec("matches are played with the cube (rules.cubeful)")

    def luck_evaluator(self) -> BoardEvaluator | None:
        """The reference evaluator of the luck adjustment (cached per process), None without one."""
        return None if self.luck_weights is None else reference_evaluator(self.luck_weights or None)

    def match_table(self) -> MatchEquityTable | None:
        """The players' match equity table in a match tournament, None for money games."""
        if self.match_length is None:
            return None
        met = met_by_name(self.met)
        if met.length < self.match_length:
            raise InvalidSpec(f"match equity table {self.met!r} reaches {met.length} points, not {self.match_length}")
        return met

    def build_players(self) -> tuple[Player, Player]:
        """Players A and B, sharing loaded weights (raises InvalidSpec or InvalidWeights naming a spec)."""
        cache: dict[str, Any] = {}
        met = self.match_table()
        return self.a.build(cache, met), self.b.build(cache, met)

    def play(
        self,
        players: tuple[Player, Player],
        first: int,
        count: int,
        record: bool,
        on_done: Callable[[int], None] | None = None,
    ) -> AnyBlock:
        """Play the block of pairs ``first .. first + count - 1`` (games or matches).

        ``on_done`` hears, as the block goes, how many more of its games (or matches) have ended (a
        replay counts a pair's two games when its cubeless game ends).
        """
        if self.match_length is not None:
            evaluator, met = self.luck_evaluator(), self.match_table()
            luck = None if evaluator is None or met is None else (evaluator, met)
            return play_match_block(
                players,
                self.seed,
                first,
                count,
                self.match_length,
                record,
                self.compare_cube,
                on_done,
                luck,
                self.luck_screen,
            )
        if self.replays:
            pairs_done = None if on_done is None else (lambda pairs: on_done(2 * pairs))
            trajectories = play_trajectories(players[0], self.seed, first, count, pairs_done)
            return replay_block(
                players,
                trajectories,
                self.seed,
                self.rules,
                record,
                self.compare_cube,
                self.luck_evaluator(),
                self.luck_screen,
            )
        return play_block(
            players,
            self.seed,
            first,
            count,
            self.rules,
            record,
            self.compare_cube,
            on_games_done=on_done,
            luck=self.luck_evaluator(),
            luck_screen=self.luck_screen,
        )

    @property
    def replays(self) -> bool:
        """True for money games between players that move alike (:func:`players.specs.same_checker_play`).

        Their blocks are replayed over one cubeless game per pair (:mod:`arena.replay`): the same
        games as playing both, at about half the cost of the checker play.
        """
        return self.replay and self.match_length is None and same_checker_play(self.a.spec, self.b.spec)

    def blocks(self) -> list[tuple[int, int]]:
        """(first pair, pairs) of every block, in order."""
        pairs = self.games // 2
        return [(k, min(self.block_pairs, pairs - k)) for k in range(0, pairs, self.block_pairs)]


@dataclass
class SideStats:
    """One player's counts over a tournament (in matches: games and cube actions summed over all matches)."""

    matches_won: int = 0  # matches only
    wins: int = 0  # games won
    gammons: int = 0  # games won with a gammon (or backgammon) scored
    backgammons: int = 0
    doubles: int = 0
    takes: int = 0
    passes: int = 0
    beavers: int = 0  # money only
    too_good: int = 0
    cube_decisions: int = 0
    cube_disagreements: int = (
        0  # cube questions where the other player, in the same position, would have answered otherwise
    )
    cube_evaluations: int = 0  # positions its cube strategy judged (its own questions and, to compare, the other's)
    lookaheads: int = 0  # of those, how many needed the 441-roll lookahead (jump-local)

    def to_json(self, matches: bool) -> dict[str, int]:
        """JSON-ready counts: a money tournament's, or with ``matches`` a match tournament's (no beavers)."""
        d = asdict(self)
        if not matches:
            del d["matches_won"]
            return d
        del d["beavers"]
        return {("games_won" if key == "wins" else key): value for key, value in d.items()}


# The keys of a result's JSON, in order: money games, and matches.
_MONEY_KEYS = (
    "player_a", "player_b", "games", "pairs", "seed", "rules", "ppg", "se", "ci95", "a", "b",
    "mean_final_cube", "max_final_cube", "passes_ending_games", "seconds", "games_per_second",
)  # fmt: skip
_MATCH_KEYS = (
    "player_a", "player_b", "match_length", "met", "matches", "pairs", "seed", "mwc", "se", "ci95", "games",
    "mean_games_per_match", "crawford_games", "post_crawford_games", "a", "b", "mean_final_cube",
    "max_final_cube", "passes_ending_games", "seconds", "matches_per_second", "games_per_second",
)  # fmt: skip


@dataclass
class TournamentResult:
    """Player A's points per game (money) or match-winning chance (matches) against B, its SE, and what happened.

    ``match_length`` is None for money games; the match fields (``met``, ``matches``, the Crawford
    counts, the per-match rates) are then None too.
    """

    player_a: str
    player_b: str
    games: int
    pairs: int
    seed: int
    rules: dict[str, Any]
    mean: float  # A's mean per pair: points per game, or the fraction of the matches A won
    se: float | None  # from the mirrored pairs; None with a single pair
    ci95: tuple[float, float] | None
    a: SideStats
    b: SideStats
    mean_final_cube: float  # per game
    max_final_cube: int
    passes_ending_games: int
    seconds: float
    games_per_second: float
    match_length: int | None = None
    met: str | None = None
    matches: int | None = None
    mean_games_per_match: float | None = None
    crawford_games: int | None = None
    post_crawford_games: int | None = None
    matches_per_second: float | None = None
    #: Money games played with a luck evaluator: A's luck-adjusted points per game and its SE (same pairs).
    adjusted: Figure | None = None
    #: The luck's screen (None: every play judged), with ``adjusted``.
    luck_screen: int | None = None
    #: A run told to stop at a target SE: (the target, the most games or matches it would have played).
    stopping: tuple[float, int] | None = None
    #: SHA-256 digests of the nets that played, judged the luck or gave a jump-net cube its volatility ("a",
    #: "b", "luck", "a_cube", "b_cube"; a player that is no net has None): the result names its nets by content.
    nets: dict[str, str | None] | None = None

    @property
    def ppg(self) -> float:
        """A's points per game (money tournaments)."""
        return self.mean

    @property
    def mwc(self) -> float:
        """A's match-winning chance: the fraction of the matches A won (match tournaments)."""
        return self.mean

    def to_json(self) -> dict[str, Any]:
        """JSON-ready dict (the README lists the keys): a money tournament's, or a match tournament's."""
        matches = self.match_length is not None
        values: dict[str, Any] = {
            **{f.name: getattr(self, f.name) for f in fields(self)},
            "ppg": self.mean,
            "mwc": self.mean,
            "rules": dict(self.rules),
            "ci95": list(self.ci95) if self.ci95 is not None else None,
            "a": self.a.to_json(matches),
            "b": self.b.to_json(matches),
        }
        out = {key: values[key] for key in (_MATCH_KEYS if matches else _MONEY_KEYS)}
        if self.adjusted is not None:
            se_ratio = self.se_ratio
            out["luck_adjusted"] = {
                "mwc" if matches else "ppg": self.adjusted.value,
                "se": self.adjusted.se,
                "se_ratio": None if se_ratio is None else round(se_ratio, 3),
                "luck_screen": self.luck_screen,
            }
        if self.stopping is not None:
            out["until_se"] = {"target": self.stopping[0], "most": self.stopping[1]}
        if self.nets is not None:
            out["nets"] = dict(self.nets)
        return out

    def equivalence(self, margin: float, alpha: float = 0.05) -> Equivalence | None:
        """TOST that A and B differ by less than ``margin`` (ppg, or MWC in matches), on the luck-adjusted figure
        when there is one; None without an SE."""
        value, se = (self.adjusted.value, self.adjusted.se) if self.adjusted is not None else (self.mean, self.se)
        return None if se is None or se == 0 else equivalence_test(value, se, margin, alpha)

    @property
    def se_ratio(self) -> float | None:
        """The raw SE over the luck-adjusted SE (how much the adjustment narrowed the estimate), when both exist."""
        if self.adjusted is None or self.adjusted.se is None or self.se is None or self.adjusted.se == 0:
            return None
        return self.se / self.adjusted.se


class _Tally:
    """Running totals over finished blocks, in any order; the standard error needs the pairs' sums."""

    def __init__(self) -> None:
        self.blocks: dict[int, AnyBlock] = {}

    def add(self, block: AnyBlock) -> None:
        self.blocks[block.first_pair] = block

    def ordered(self) -> list[AnyBlock]:
        """The blocks in pair order."""
        return [self.blocks[key] for key in sorted(self.blocks)]

    def pair_points(self) -> np.ndarray:
        """A's mean points (matches won, in matches) per pair, in pair order."""
        return pair_scores(self.ordered())

    def running(self) -> tuple[float, float | None]:
        """(ppg or MWC, its SE) so far; no SE before two pairs."""
        mean, se, _ = pair_statistics(self.pair_points())
        return mean, se


#: A run with a target SE stops no sooner than this many games (matches): an SE from fewer is too rough to trust.
MIN_UNITS_BEFORE_SE_STOP = 1000


def stopping_prefix(blocks: Sequence[AnyBlock], target_se: float, checked: int = 0) -> int | None:
    """How many leading blocks (in pair order, from pair 0) a run stopping at ``target_se`` keeps; None if none.

    The run stops after the first block at which A's SE (luck-adjusted where every block has its
    luck) is at most ``target_se``, once :data:`MIN_UNITS_BEFORE_SE_STOP` games (matches) are in.
    The rule looks at the SE only, never at the mean, so the estimate it leaves stays unbiased to
    first order. Blocks after a gap in the pairs are not looked at. The first ``checked`` blocks are
    known not to stop the run (a running tournament looks again only at the blocks it added).
    """
    units = 0
    expected = 0
    for count, block in enumerate(blocks, start=1):
        if block.first_pair != expected:
            return None
        units += _units(block)
        expected = block.first_pair + _units(block) // 2
        if units < MIN_UNITS_BEFORE_SE_STOP or count <= checked:
            continue
        if (se := prefix_se(blocks[:count])) is not None and se <= target_se:
            return count
    return None


def prefix_se(blocks: Sequence[AnyBlock]) -> float | None:
    """A's SE over the blocks (luck-adjusted where every block has its luck); None before two pairs."""
    scores = pair_scores(blocks)
    luck = pair_luck_of(blocks)
    if luck is not None:
        return paired_figure(scores - luck).se
    return pair_statistics(scores)[1]


def running_text(mean: float, se: float | None, matches: bool) -> str:
    """The progress bar's figure: A's ppg, or A's match-winning percentage, with its SE (n/a before two pairs)."""
    if matches:
        return f"MWC {100 * mean:.1f}% +- " + (f"{100 * se:.1f}%" if se is not None else "n/a")
    return f"ppg {mean:+.3f} +- " + (f"{se:.3f}" if se is not None else "n/a")


def plural(word: str, count: int) -> str:
    """``word`` for ``count`` things: "1 game", "2 games", "1 match", "2 matches", "1 backgammon"."""
    if count == 1:
        return word
    return word + ("es" if word.endswith(("ch", "sh", "s", "x")) else "s")


def pair_points_of(blocks: list[BlockResult]) -> np.ndarray:
    """Player A's mean points per mirrored pair over ``blocks`` (in the order given)."""
    out = []
    for r in blocks:
        pts_a = np.where(r.seat_of_a == 0, r.points_seat0, -r.points_seat0)
        out.append(pts_a.reshape(-1, 2).mean(axis=1))
    return np.concatenate(out) if out else np.zeros(0)


def pair_luck_of(blocks: Sequence[AnyBlock]) -> np.ndarray | None:
    """Player A's mean luck per mirrored pair (in the order given): points in money games, match-winning chance
    in matches; None unless every block has it."""
    out = []
    for r in blocks:
        if r.luck_seat0 is None:
            return None
        luck_a = np.where(r.seat_of_a == 0, r.luck_seat0, -r.luck_seat0)
        out.append(luck_a.reshape(-1, 2).mean(axis=1))
    return np.concatenate(out) if out else None


def pair_scores(blocks: Sequence[AnyBlock]) -> np.ndarray:
    """A's score per mirrored pair over ``blocks`` (in the order given): mean points, or share of matches won."""
    if blocks and isinstance(blocks[0], MatchBlockResult):
        return pair_match_wins([b for b in blocks if isinstance(b, MatchBlockResult)])
    return pair_points_of(money_blocks(blocks))


def money_blocks(blocks: Sequence[AnyBlock]) -> list[BlockResult]:
    """The money blocks among ``blocks`` (all of a money tournament's), in order."""
    return [b for b in blocks if isinstance(b, BlockResult)]


def _side(blocks: Sequence[AnyBlock], a_side: bool) -> SideStats:
    """Counts for A (``a_side``) or B over the blocks."""
    s = SideStats()
    for r in blocks:
        seat = r.seat_of_a if a_side else 1 - r.seat_of_a
        won = r.winner == seat
        if isinstance(r, MatchBlockResult):
            s.matches_won += int(won.sum())
            s.wins += int(r.game_wins[np.arange(r.matches), seat].sum())
            add_seat_counts(s, r, seat, a_side, ("gammons", "backgammons", *MATCH_CUBE_COUNTERS))
            continue
        s.wins += int(won.sum())
        s.gammons += int((won & (r.multiplier >= 2)).sum())
        s.backgammons += int((won & (r.multiplier == 3)).sum())
        add_seat_counts(s, r, seat, a_side, _MONEY_CUBE_COUNTERS)
    return s


def _games(block: AnyBlock) -> int:
    """Games played in a block (over all its matches)."""
    return int(block.games.sum()) if isinstance(block, MatchBlockResult) else block.games


def _units(block: AnyBlock) -> int:
    """Games (money) or matches in a block."""
    return block.matches if isinstance(block, MatchBlockResult) else block.games


def _cubes(blocks: Sequence[AnyBlock]) -> tuple[float, int, int]:
    """(mean final cube per game, largest final cube, games ended by a pass) over the blocks."""
    total = largest = passes = 0
    for b in blocks:
        if isinstance(b, MatchBlockResult):
            total += int(b.cube_total.sum())
            largest = max(largest, int(b.max_cube.max()))
            passes += int(b.passes_ending_games.sum())
        else:
            total += int(b.final_cube.sum())
            largest = max(largest, int(b.final_cube.max()))
            passes += int(b.passed.sum())
    return total / sum(_games(b) for b in blocks), largest, passes


def summarise(
    cfg: TournamentConfig,
    names: tuple[str, str],
    blocks: Sequence[AnyBlock],
    seconds: float,
    fresh: set[int] | None = None,
) -> TournamentResult:
    """The result of the finished blocks (games or matches, in pair order) from A's view.

    ``fresh`` holds the first pairs of the blocks played in ``seconds`` (default all; a resumed
    run read the others from its ledger), so the rates are those of this run.
    """
    scores = pair_scores(blocks)
    mean, se, ci95 = pair_statistics(scores)
    mean_cube, max_cube, passes = _cubes(blocks)
    games = sum(_games(b) for b in blocks)
    now = [b for b in blocks if fresh is None or b.first_pair in fresh]

    def rate(count: int) -> float:
        return count / seconds if seconds > 0 else math.inf

    result = TournamentResult(
        player_a=names[0],
        player_b=names[1],
        games=games,
        pairs=len(scores),
        seed=cfg.seed,
        rules=asdict(cfg.rules),
        mean=mean,
        se=se,
        ci95=ci95,
        a=_side(blocks, True),
        b=_side(blocks, False),
        mean_final_cube=mean_cube,
        max_final_cube=max_cube,
        passes_ending_games=passes,
        seconds=seconds,
        games_per_second=rate(sum(_games(b) for b in now)),
    )
    identity = ledger.describe(cfg)
    result.nets = dict(identity["nets"])
    if "luck_net" in identity:
        result.nets["luck"] = identity["luck_net"]
    for side, digest in identity.get("cube_nets", {}).items():
        result.nets[f"{side}_cube"] = digest
    luck = pair_luck_of(blocks)
    if luck is not None:
        result.adjusted = paired_figure(scores - luck)
        result.luck_screen = cfg.luck_screen
    if cfg.match_length is None:
        return result
    matches = [b for b in blocks if isinstance(b, MatchBlockResult)]
    if ci95 is not None:  # a share of matches: the normal interval is cut to what a share can be
        result.ci95 = (max(0.0, ci95[0]), min(1.0, ci95[1]))
    if len(scores) and (len(scores) < FEW_MATCH_PAIRS or not se):
        # a few pairs, or pairs that all scored alike (an SE of 0), say little about the spread: Wilson's
        # interval on the pairs' shares (bounded, so conservative) instead of a point or a too-narrow normal one
        result.ci95 = wilson_interval(mean, len(scores))
    result.match_length = cfg.match_length
    result.met = cfg.met
    result.matches = sum(b.matches for b in matches)
    result.mean_games_per_match = games / result.matches
    result.crawford_games = sum(int(b.crawford_games.sum()) for b in matches)
    result.post_crawford_games = sum(int(b.post_crawford_games.sum()) for b in matches)
    result.matches_per_second = rate(sum(_units(b) for b in now))
    return result


# --- where the blocks are played ------------------------------------------------------------

_WORKER_PLAYERS: tuple[Player, Player] | None = None


def _worker_init(cfg: TournamentConfig) -> None:
    """Build the two players once per worker process."""
    global _WORKER_PLAYERS
    _WORKER_PLAYERS = cfg.build_players()


def _worker_block(args: tuple[TournamentConfig, int, int, bool]) -> AnyBlock:
    cfg, first, count, record = args
    assert _WORKER_PLAYERS is not None
    return cfg.play(_WORKER_PLAYERS, first, count, record)


def _local_blocks(
    cfg: TournamentConfig,
    players: tuple[Player, Player],
    record: bool,
    todo: list[tuple[int, int]],
    on_done: Callable[[int], None] | None = None,
) -> Iterator[AnyBlock]:
    for first, count in todo:
        yield cfg.play(players, first, count, record, on_done)


def _pool_blocks(cfg: TournamentConfig, workers: int, record: bool, todo: list[tuple[int, int]]) -> Iterator[AnyBlock]:
    jobs = [(cfg, first, count, record) for first, count in todo]
    with worker_pool(workers, _worker_init, (cfg,)) as pool:
        yield from pool.imap_unordered(_worker_block, jobs)


def _ray_blocks(cfg: TournamentConfig, ray: Any, record: bool, todo: list[tuple[int, int]]) -> Iterator[AnyBlock]:

    @ray.remote
    def block_task(cfg: TournamentConfig, first: int, count: int, rec: bool) -> AnyBlock:
        return cfg.play(cfg.build_players(), first, count, rec)

    pending = [block_task.remote(cfg, f, c, record) for f, c in todo]
    while pending:
        done, pending = ray.wait(pending, num_returns=1)
        yield ray.get(done[0])


def _play_blocks(
    cfg: TournamentConfig,
    workers: int,
    ray_address: str | None,
    record: bool,
    progress: bool,
    on_block: Callable[[AnyBlock], None] | None,
    checkpoint: Path | None,
    until_se: float | None = None,
) -> tuple[tuple[str, str], list[AnyBlock], float, set[int]]:
    """Play the blocks still missing (with ``until_se``, only until :func:`stopping_prefix` stops the run).

    Returns the players' names, every block in pair order, the seconds spent playing and the
    first pairs of the blocks played in them (the blocks read back from ``checkpoint`` excluded).
    """
    players = cfg.build_players()
    names = (players[0].name, players[1].name)
    tally = _Tally()
    if checkpoint is not None:
        if record:
            raise InvalidSpec(
                "--checkpoint keeps outcomes, not game records: it cannot be combined with --save or --mat"
            )
        kept = ledger.load(checkpoint, cfg)
        ledger.start(checkpoint, cfg, kept)
        wanted = set(cfg.blocks())
        for block in kept:
            # a block of another length (the last block of a run of another size) is played again
            if (block.first_pair, _units(block) // 2) in wanted:
                tally.add(block)

    checked = 0  # leading blocks already found not to stop the run

    def kept_prefix() -> int | None:
        nonlocal checked
        if until_se is None:
            return None
        ordered = tally.ordered()
        found = stopping_prefix(ordered, until_se, checked)
        checked = next((k for k, b in enumerate(ordered) if b.first_pair != k * cfg.block_pairs), len(ordered))
        return found

    stop = kept_prefix()
    todo = [] if stop else [(first, count) for first, count in cfg.blocks() if first not in tally.blocks]
    in_block: list[int] = []  # games of the block in play already on the bar (played here, not in workers)

    def on_done(games: int) -> None:
        in_block.append(games)
        bar.update(games)

    if ray_address is not None:
        source = _ray_blocks(cfg, connect_ray(ray_address), record, todo)
    elif workers > 1:
        source = _pool_blocks(cfg, workers, record, todo)
    else:
        source = _local_blocks(cfg, players, record, todo, on_done)
    started = time.perf_counter()
    unit = "game" if cfg.match_length is None else "match"
    resumed = sum(_units(b) for b in tally.blocks.values())
    if resumed and progress:
        print(f"resuming at {resumed:,} of {cfg.games:,} {plural(unit, cfg.games)} from {checkpoint}", file=sys.stderr)
    bar = tqdm(total=cfg.games, unit=unit, disable=not progress, file=sys.stderr, smoothing=0.1, initial=resumed)
    fresh: set[int] = set()
    try:
        for block in source:
            tally.add(block)
            if checkpoint is not None:
                ledger.append(checkpoint, block)
            if on_block is not None:
                on_block(block)
            bar.update(_units(block) - sum(in_block))
            in_block.clear()
            fresh.add(block.first_pair)
            bar.set_postfix_str(running_text(*tally.running(), matches=cfg.match_length is not None))
            if (stop := kept_prefix()) is not None:
                break
    except (KeyboardInterrupt, Exception) as exc:
        if not raised_by_interrupt(exc):
            raise
        done = sum(_units(b) for b in tally.blocks.values())
        finished = f"{done:,} of {cfg.games:,} {plural(unit, cfg.games)} finished"
        if checkpoint is not None:
            raise KeyboardInterrupt(f"{finished}, kept in {checkpoint}: the same command resumes") from None
        raise KeyboardInterrupt(
            f"{finished} and not kept (--checkpoint FILE keeps finished blocks for the same command to resume)"
        ) from None
    finally:
        bar.close()
        if isinstance(source, Generator):
            source.close()  # a run stopped early: let the pool (or Ray's waiting loop) wind down now
    blocks = tally.ordered()
    return names, blocks[:stop] if stop else blocks, time.perf_counter() - started, fresh


def run_tournament(
    cfg: TournamentConfig,
    workers: int = 1,
    ray_address: str | None = None,
    record: bool = False,
    progress: bool = True,
    on_block: Callable[[AnyBlock], None] | None = None,
    checkpoint: Path | None = None,
    until_se: float | None = None,
) -> tuple[TournamentResult, list[AnyBlock]]:
    """Play the tournament (money games, or matches); returns the result (A's view) and the blocks in pair order.

    The players are built here first, so a bad spec or weights file fails before any game.
    With ``checkpoint`` (a ledger, :mod:`arena.ledger`) finished blocks are kept on disk and a
    rerun of the same tournament plays only the blocks still missing. With ``until_se`` the run
    stops early where :func:`stopping_prefix` says (``cfg.games`` is then the most it plays), and
    the result holds the blocks up to there.
    """
    if until_se is not None and not (until_se > 0 and math.isfinite(until_se)):
        raise InvalidSpec(f"target SE {until_se!r} is not a positive number")
    names, blocks, seconds, fresh = _play_blocks(
        cfg, workers, ray_address, record, progress, on_block, checkpoint, until_se
    )
    result = summarise(cfg, names, blocks, seconds, fresh)
    if until_se is not None:
        result.stopping = (until_se, cfg.games)
    return result, blocks


def save_games(path: Path, result: TournamentResult, blocks: Sequence[AnyBlock]) -> None:
    """Write every game (dice, moves as resulting position IDs, cube actions), or every match (its games: score
    before, Crawford flag, events), as JSON lines after the result, atomically."""
    header, names = result.to_json(), (result.player_a, result.player_b)
    if result.match_length is not None:
        save_block_lines(path, header, names, [b for b in blocks if isinstance(b, MatchBlockResult)], match_line)
    else:
        save_block_lines(path, header, names, money_blocks(blocks), _game_line)


def _game_line(block: BlockResult, j: int, events: object) -> dict[str, object]:
    """The saved line of game ``j`` of ``block`` after its pair and seats: its events and outcome."""
    return {
        "events": events,
        "winner": int(block.winner[j]),
        "points": int(abs(block.points_seat0[j])),
        "multiplier": int(block.multiplier[j]),
        "passed": bool(block.passed[j]),
        "cube": int(block.final_cube[j]),
    }
