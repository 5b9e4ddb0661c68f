"""Experiment 5's training data: positions from cubeless self-play labelled with their local volatility.

The jump-model paper suggests learning a position's local jump volatility instead of running the
441-roll lookahead for it. The label is exactly what ``jump-local`` uses
(:meth:`players.cube.CubeDecider` passes the lookahead's win chances to
:func:`cube.local_volatility`): sigma_J, the standard deviation of the side on roll's cubeless
probability of winning over the 441 pairs of rolls, in probability units (0 to 1). The mean
absolute jump and the two-roll average win chance are kept beside it.

Positions: the shipped net at 0-ply plays cubeless games against itself in lockstep batches of
:data:`GAMES_PER_BATCH`; each position before a roll (the opening position and finished games
left out) is kept with probability :data:`SAMPLE_RATE`, so consecutive positions of one game
rarely both appear. Batch ``k`` draws its dice from ``default_rng([seed, k])`` and its sample from
``default_rng([seed, k, 1])``: a batch is the same positions and labels whenever and wherever it
is computed. Every batch is written atomically to its own file as it finishes, so a stopped run
resumes with the batches it lacks.
"""

from __future__ import annotations

import io
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from tqdm import tqdm

from cube.volatility import VolatilityMeasure, local_volatility
from engine.selfplay import SelfPlay
from nets.base import BoardEvaluator
from nets.lookahead import best_children
from nets.volatility import PAIR_WEIGHTS, two_roll_outcomes_batch
from nets.weights import write_atomic

GAMES_PER_BATCH = 128
SAMPLE_RATE = 0.125  # share of the positions before a roll that are labelled (about 7 per game)
LOOKAHEAD_CHUNK = 64  # positions per batched lookahead call
DATA_VERSION = 1


@dataclass(frozen=True)
class VolatilityData:
    """Positions (side on roll's view, before it rolls) and their two-roll volatilities.

    ``sigma``: SD of the side on roll's win chance over the 441 roll pairs (what jump-local
    uses); ``mean_abs``: the mean absolute deviation of the same; ``p_average``: its mean.
    ``game`` numbers the game within its batch (for splits that keep a game's positions together).
    """

    boards: np.ndarray  # int8 (n, 26)
    sigma: np.ndarray  # float64 (n,)
    mean_abs: np.ndarray  # float64 (n,)
    p_average: np.ndarray  # float64 (n,)
    game: np.ndarray  # int64 (n,), unique across batches: batch * GAMES_PER_BATCH + game in batch

    def __len__(self) -> int:
        return len(self.sigma)

    @staticmethod
    def concatenate(parts: list[VolatilityData]) -> VolatilityData:
        """All parts' rows in order."""
        if not parts:
            empty = np.zeros(0)
            return VolatilityData(np.zeros((0, 26), np.int8), empty, empty, empty, np.zeros(0, np.int64))
        return VolatilityData(*(np.concatenate([getattr(p, f) for p in parts]) for f in _FIELDS))


_FIELDS = ("boards", "sigma", "mean_abs", "p_average", "game")


def sample_positions(
    evaluator: BoardEvaluator, seed: int, index: int, games: int = GAMES_PER_BATCH
) -> tuple[np.ndarray, np.ndarray]:
    """Positions sampled from batch ``index`` of cubeless 0-ply self-play: (int8 boards (n, 26), game numbers).

    Raises RunawayGame when a game passes ``engine.game.MAX_PLIES`` moves.
    """
    dice_rng = np.random.default_rng([seed, index])
    sample_rng = np.random.default_rng([seed, index, 1])
    kept: list[np.ndarray] = []
    kept_game: list[np.ndarray] = []
    for turn in SelfPlay(dice_rng, games, games=games):
        if turn.moves > 0:  # the opening position is left out (every game starts at once, none restarts)
            take = sample_rng.random(len(turn)) < SAMPLE_RATE
            kept.append(turn.boards[take])
            kept_game.append(turn.games[take])
        turn.move(lambda boards, dice: best_children(evaluator, boards, dice))
    return np.concatenate(kept), np.concatenate(kept_game).astype(np.int64) + index * games


def label_positions(evaluator: BoardEvaluator, boards: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(sigma, mean absolute jump, average) of each board's side on roll's win chance over the 441 roll pairs."""
    sigma, mean_abs, average = [], [], []
    for start in range(0, len(boards), LOOKAHEAD_CHUNK):
        win = two_roll_outcomes_batch(evaluator, boards[start : start + LOOKAHEAD_CHUNK])[:, :, 0]
        sigma.append(local_volatility(win))
        mean_abs.append(local_volatility(win, measure=VolatilityMeasure.MEAN_ABS))
        average.append(win @ PAIR_WEIGHTS)
    return np.concatenate(sigma), np.concatenate(mean_abs), np.concatenate(average)


def make_batch(evaluator: BoardEvaluator, seed: int, index: int) -> VolatilityData:
    """Batch ``index`` of the data set for ``seed``: sampled self-play positions with their lookahead labels."""
    boards, game = sample_positions(evaluator, seed, index)
    sigma, mean_abs, average = label_positions(evaluator, boards)
    return VolatilityData(boards, sigma, mean_abs, average, game)


def batch_path(folder: Path, seed: int, index: int) -> Path:
    """Where batch ``index`` of ``seed`` is kept."""
    return folder / f"v{DATA_VERSION}_seed{seed}_batch{index:05d}.npz"


def save_batch(path: Path, data: VolatilityData) -> None:
    """Write one batch atomically (compressed npz)."""
    buffer = io.BytesIO()
    np.savez_compressed(buffer, **{f: getattr(data, f) for f in _FIELDS})
    write_atomic(path, buffer.getvalue())


def load_batch(path: Path) -> VolatilityData:
    """Read a batch written by :func:`save_batch`."""
    with np.load(path) as z:
        return VolatilityData(*(z[f] for f in _FIELDS))


def generate(
    evaluator: BoardEvaluator, folder: Path, positions: int, seed: int, progress: bool = True, play: bool = True
) -> VolatilityData:
    """Batches 0, 1, ... of ``seed`` until they hold at least ``positions`` rows (kept in ``folder``; resumes).

    With ``play`` False nothing new is computed: the batches already in ``folder`` are read in order
    up to the first missing one, and nothing is written.
    """
    if play:
        folder.mkdir(parents=True, exist_ok=True)
    parts: list[VolatilityData] = []
    have = 0
    bar = tqdm(total=positions, unit="pos", disable=not progress, file=sys.stderr, desc="volatility data")
    index = 0
    while have < positions:
        path = batch_path(folder, seed, index)
        if path.exists():
            part = load_batch(path)
        elif play:
            part = make_batch(evaluator, seed, index)
            save_batch(path, part)
        else:
            break
        parts.append(part)
        have += len(part)
        bar.update(len(part))
        index += 1
    bar.close()
    return VolatilityData.concatenate(parts)
