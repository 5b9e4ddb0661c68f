"""Supervised data generation: 0-ply self-play positions of a net, labelled with its own lookahead values.

:func:`generate` writes the shards of a data set (:mod:`training.supervised.shards`) into a folder;
each shard is :func:`make_shard`'s, a function of the settings, the net and the shard number alone.
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
from tqdm import tqdm

from engine.batch import children_batch, phases
from engine.errors import JumpgammonError
from engine.position import GamePhase
from engine.selfplay import SelfPlay
from nets.evaluator import Evaluator, load_evaluator
from nets.lookahead import FILTER_KEEP, evaluate_plies, filtered_candidates, segment_argmax
from nets.mlp import cubeless_equity
from nets.weights import remove_stale_temporaries, sha256_hex, write_atomic
from training.supervised.shards import (
    GAME_ID_STRIDE,
    MANIFEST,
    NET_OF_PHASE,
    SHARD_FORMAT,
    Shard,
    read_manifest,
    shard_paths,
)
from weights import DEFAULT_WEIGHTS, in_shipped_folder

LABEL_CHUNK = 1024  # positions labelled per lookahead call: the progress bar's step (the lookahead bounds memory)


@dataclass(frozen=True)
class GenerateConfig:
    """Settings of a labelled-position data set; everything but ``shards`` must match on resume."""

    data: Path  # the folder of shards and manifest
    shards: int  # the data set's target size in shards, in total
    weights: Path | None = None  # the net that plays and labels; None: the shipped one
    shard_games: int = 1_000  # self-play games per shard
    parallel_games: int = 250  # games in lockstep
    keep: float = 0.25  # chance that each contact position met is kept (thins out correlated neighbours)
    keep_race: float = 0.5  # the same for race positions, which are fewer
    plies: int = 1  # lookahead depth of the labels
    exploration: float = 0.0  # chance of a random legal move instead of the greedy one
    seed: int = 1
    # per kept position, also keep this many runner-up plays of its roll (the positions a move choice compares)
    candidates: int = 0
    # chance per position met of keeping its roll's close plays as a decision group (gnubg's Normal filter:
    # up to 8 within 0.16 at 0-ply), which the fit's ranking term compares among themselves
    decisions: float = 0.0
    # a decision group's plays: the best this many at 0-ply of those the filter keeps (fewer: more groups per label)
    group_plays: int = FILTER_KEEP

    def identity(self, weights_digest: str) -> dict[str, Any]:
        """The settings that define the data (the manifest's record): all but the folder and the target size."""
        d = asdict(self)
        del d["data"], d["shards"]
        d["weights"] = str(self.weights) if self.weights is not None else str(DEFAULT_WEIGHTS)
        d["weights_sha256"] = weights_digest
        d["trainer"] = "selfplay-0ply"
        return d


def play_positions(
    ev: Evaluator,
    games: int,
    parallel: int,
    keep: tuple[float, float],
    exploration: float,
    rng: np.random.Generator,
    candidates: int = 0,
    decisions: float = 0.0,
    group_plays: int = FILTER_KEEP,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Play ``games`` 0-ply self-play games (``parallel`` at a time); kept positions, their games and groups.

    Every position a side is about to roll in is kept with chance ``keep[0]`` in contact (the
    opening position included), ``keep[1]`` otherwise; positions are from the side on roll's view.
    With ``candidates`` > 0, each kept position also contributes the children ranked 2nd to
    ``candidates + 1``-th at 0-ply for its roll (the opponent on roll), the plays a move choice
    weighs against the one played. With ``decisions`` > 0, each position's roll is, with that
    chance, kept as a decision group: the children gnubg's Normal filter keeps at 0-ply (up to 8
    within 0.16 of the best; at most ``group_plays``), numbered by group in the third array (-1 for
    rows of no group).
    Games in flight when the target is reached play on to their
    end, so late positions are not under-represented (:class:`engine.selfplay.SelfPlay`). Raises
    RunawayGame when a game passes ``engine.game.MAX_PLIES`` moves (a net that cannot finish).
    """
    selfplay = SelfPlay(rng, parallel, games)
    kept_boards: list[np.ndarray] = []
    kept_games: list[np.ndarray] = []
    kept_groups: list[np.ndarray] = []
    groups_made = 0
    for turn in selfplay:
        boards, game_of = turn.boards, turn.games
        chance = np.where(phases(boards) == GamePhase.CONTACT, keep[0], keep[1])
        take = rng.random(len(boards)) < chance
        kept_boards.append(boards[take])
        kept_games.append(game_of[take])
        kept_groups.append(np.full(int(take.sum()), -1, np.int64))
        kids, offsets = children_batch(boards, turn.roll())
        mover_equity = -cubeless_equity(ev.evaluate_boards(kids))
        pick = segment_argmax(mover_equity, offsets)
        if candidates:
            runners = runner_up_children(mover_equity, offsets, candidates)
            runners = runners[take[np.repeat(np.arange(len(boards)), np.diff(offsets))[runners]]]
            kept_boards.append(kids[runners])
            kept_games.append(game_of[np.searchsorted(offsets, runners, side="right") - 1])
            kept_groups.append(np.full(len(runners), -1, np.int64))
        if decisions > 0:
            grouped = rng.random(len(boards)) < decisions
            close = filtered_candidates(mover_equity, offsets, group_plays)
            owner = np.searchsorted(offsets, close, side="right") - 1
            sizes = np.bincount(owner, minlength=len(boards))
            close = close[grouped[owner] & (sizes[owner] >= 2)]
            owner = np.searchsorted(offsets, close, side="right") - 1
            _, number = np.unique(owner, return_inverse=True)
            kept_boards.append(kids[close])
            kept_games.append(game_of[owner])
            kept_groups.append(groups_made + number.astype(np.int64))
            groups_made += int(number.max()) + 1 if len(number) else 0
        if exploration > 0:
            explore = rng.random(len(boards)) < exploration
            random_pick = offsets[:-1] + (rng.random(len(boards)) * np.diff(offsets)).astype(np.int64)
            pick = np.where(explore, random_pick, pick)
        turn.play(kids[pick])
    return np.concatenate(kept_boards), np.concatenate(kept_games), np.concatenate(kept_groups)


def runner_up_children(equity: np.ndarray, offsets: np.ndarray, count: int) -> np.ndarray:
    """Indices of the children ranked 2nd to ``count + 1``-th by ``equity`` within each segment, sorted."""
    seg = np.repeat(np.arange(len(offsets) - 1), np.diff(offsets))
    order = np.lexsort((-equity, seg))  # segments in order, best first inside each
    rank = np.arange(len(order)) - offsets[seg[order]]
    return np.sort(order[(rank >= 1) & (rank <= count)])


def make_shard(ev: Evaluator, cfg: GenerateConfig, index: int, progress: bool = False) -> Shard:
    """Shard ``index`` of the data set ``cfg`` describes: a function of ``(cfg.seed, index)`` and the net only."""
    rng = np.random.default_rng([cfg.seed, index])
    boards, games, groups = play_positions(
        ev,
        cfg.shard_games,
        cfg.parallel_games,
        (cfg.keep, cfg.keep_race),
        cfg.exploration,
        rng,
        cfg.candidates,
        cfg.decisions,
        cfg.group_plays,
    )
    ph = phases(boards)
    net_phase = np.isin(ph, list(NET_OF_PHASE))
    boards, games, ph, groups = boards[net_phase], games[net_phase], ph[net_phase], groups[net_phase]
    targets = np.empty((len(boards), 5), np.float32)
    bar = tqdm(total=len(boards), disable=not progress, unit="pos", leave=False, desc=f"shard {index} labels")
    for lo in range(0, len(boards), LABEL_CHUNK):
        chunk = boards[lo : lo + LABEL_CHUNK]
        targets[lo : lo + len(chunk)] = evaluate_plies(ev, chunk, cfg.plies)
        bar.update(len(chunk))
    bar.close()
    decision_ids = np.where(groups >= 0, groups + index * GAME_ID_STRIDE, -1) if cfg.decisions > 0 else None
    return Shard(boards, targets, games + index * GAME_ID_STRIDE, ph.astype(np.int8), decision_ids)


@dataclass
class GenerateResult:
    """What :func:`generate` reports: shards and positions in the folder, and the time this call took."""

    shards: int
    positions: dict[str, int]
    made: int  # shards written by this call
    seconds: float

    def to_json(self) -> dict[str, Any]:
        """JSON-ready dict."""
        return asdict(self)


def _check_data_folder(data: Path) -> None:
    if data.exists() and not data.is_dir():
        raise JumpgammonError(f"--data {str(data)!r} is a file; give a folder for the shards")
    if in_shipped_folder(data):
        raise JumpgammonError(f"--data {str(data)!r} is in the shipped weights folder; use e.g. runs/data")


def generate(cfg: GenerateConfig, progress: bool = True) -> GenerateResult:
    """Write shards ``0 .. cfg.shards - 1`` of the data set into ``cfg.data`` (existing ones are kept).

    The folder's manifest records the settings and the labelling net's digest; a folder made with
    other settings is refused rather than mixed.
    """
    _check_data_folder(cfg.data)
    weights = cfg.weights if cfg.weights is not None else DEFAULT_WEIGHTS
    ev = load_evaluator(weights)
    identity = cfg.identity(sha256_hex(weights))
    cfg.data.mkdir(parents=True, exist_ok=True)
    manifest = cfg.data / MANIFEST
    if manifest.is_file():
        saved = read_manifest(manifest)
        defaults = GenerateConfig(data=cfg.data, shards=1).identity(identity["weights_sha256"])
        for key in identity.keys() - saved.keys():  # a setting added after the folder was made had its default
            saved[key] = defaults[key]
        if saved != identity:
            diff = sorted(k for k in set(saved) | set(identity) if saved.get(k) != identity.get(k))
            raise JumpgammonError(f"{cfg.data}: the data there were made with other settings ({', '.join(diff)})")
    else:
        write_atomic(manifest, (json.dumps(identity, indent=1, sort_keys=True) + "\n").encode())
    started = time.time()
    made = 0
    bar = tqdm(total=cfg.shards, disable=not progress, unit="shard")
    for index in range(cfg.shards):
        path = cfg.data / SHARD_FORMAT.format(index)
        remove_stale_temporaries(path)
        if not path.is_file():
            write_atomic(path, make_shard(ev, cfg, index, progress).to_bytes())
            made += 1
        bar.update(1)
    bar.close()
    shards = [Shard.read(p) for p in shard_paths(cfg.data)]
    counts = {name: sum(int((s.phases == phase).sum()) for s in shards) for phase, name in NET_OF_PHASE.items()}
    return GenerateResult(len(shards), counts, made, round(time.time() - started, 1))
