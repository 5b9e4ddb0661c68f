"""Supervised refinement of the phase nets on deeper targets: the net learns its own n-ply values.

Two steps, each resumable:

- :func:`generate` plays batched 0-ply self-play with a weights file and keeps a random share of the
  positions met (side on roll, before rolling) that a phase net evaluates (contact and race; the
  positions the bearoff databases cover exactly and finished games are left out). Each kept
  position is labelled with the same evaluator's ``plies``-ply probabilities
  (:func:`nets.lookahead.evaluate_plies`). The data go to a folder as numbered shards, each
  written atomically and derived from ``(seed, shard number)`` alone, so a stopped run resumes at
  the first missing shard and any shard can be rebuilt bit for bit.
- :func:`fit` starts from a weights file (optionally widened without changing its function) and
  minimises the error of each phase net's five outputs against the targets with Adam, a
  validation set split by game, and early stopping on the validation loss. The candidate is a plain
  weights file whose run record carries the data's provenance and every setting, so
  ``jumpgammon weights promote`` accepts it.
"""

from __future__ import annotations

import enum
import hashlib
import io
import json
import math
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch
from tqdm import tqdm

from arena.games import MAX_PLIES
from engine.batch import children_batch, crashed, phases
from engine.errors import JumpgammonError
from engine.position import GamePhase, Position
from nets.encoding import Encoding, encode
from nets.evaluator import ALL_NETS, FALLBACK_NET, PHASE_NETS, Evaluator, load_evaluator
from nets.lookahead import FILTER_KEEP, evaluate_plies, filtered_candidates, segment_argmax
from nets.mlp import OUTPUTS, NetConfig, cubeless_equity, layer_shapes
from nets.model import PhaseNet, recoded_tensors
from nets.weights import remove_stale_temporaries, write_atomic
from weights import DEFAULT_WEIGHTS, SHIPPED_DIR

TRAINER = "supervised-plies"
MANIFEST = "manifest.json"
SHARD_FORMAT = "shard_{:05d}.npz"
# Phases a net evaluates when the bearoff databases are loaded, with the net that does (a crashed net, where
# there is one, takes the contact positions of gnubg's crashed class).
NET_OF_PHASE = {int(GamePhase.CONTACT): "contact", int(GamePhase.RACE): "race"}
# Each net's stream of the fit's random numbers (fixed, so that fits from before crashed nets reproduce).
NET_STREAM = {"contact": 0, "race": 1, "crashed": 2}
LABEL_CHUNK = 1024  # positions labelled per lookahead call: the progress bar's step (the lookahead bounds memory)
GAME_ID_STRIDE = 1 << 32  # game ids: shard * stride + game number within the shard


def file_digest(path: Path) -> str:
    """Hex SHA-256 of a file's bytes (how provenance names a weights file)."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


# --------------------------------------------------------------------------------------------
# Data generation
# --------------------------------------------------------------------------------------------


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


@dataclass
class Shard:
    """One shard of labelled positions: boards (side on roll's view), targets, game ids and phases."""

    boards: np.ndarray  # int8 (n, 26)
    targets: np.ndarray  # float32 (n, 5): the labelling evaluator's probabilities for the side on roll
    games: np.ndarray  # int64 (n,): the game each position came from (validation splits by it)
    phases: np.ndarray  # int8 (n,): GamePhase values, CONTACT or RACE
    decisions: np.ndarray | None = None  # int64 (n,): the decision group of each row, -1 for none

    def group_ids(self) -> np.ndarray:
        """The decision group of each row (-1: none); shards from before groups existed have none."""
        return self.decisions if self.decisions is not None else np.full(len(self.boards), -1, np.int64)

    def to_bytes(self) -> bytes:
        """The shard as .npz bytes."""
        buffer = io.BytesIO()
        arrays = {"boards": self.boards, "targets": self.targets, "games": self.games, "phases": self.phases}
        if self.decisions is not None:
            arrays["decisions"] = self.decisions
        np.savez(buffer, **arrays)  # type: ignore[arg-type]
        return buffer.getvalue()

    @classmethod
    def read(cls, path: Path) -> Shard:
        """Read a shard; raises JumpgammonError if the file is not one."""
        try:
            with np.load(path, allow_pickle=False) as z:
                decisions = z["decisions"] if "decisions" in z.files else None
                shard = cls(z["boards"], z["targets"], z["games"], z["phases"], decisions)
        except (OSError, KeyError, ValueError) as exc:
            raise JumpgammonError(f"{path}: not a data shard ({exc})") from None
        n = len(shard.boards)
        if shard.boards.shape != (n, 26) or shard.targets.shape != (n, 5) or shard.games.shape != (n,):
            raise JumpgammonError(f"{path}: shard arrays of inconsistent shapes")
        return shard


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
    end, so late positions are not under-represented. Raises JumpgammonError when a game passes
    ``MAX_PLIES`` moves (a net that cannot finish).
    """
    initial = Position.initial().array
    n = min(parallel, games)
    boards = np.repeat(initial[None, :], n, axis=0)
    game_of = np.arange(n, dtype=np.int64)
    first = np.ones(n, bool)
    ply = np.zeros(n, np.int64)
    started = n
    kept_boards: list[np.ndarray] = []
    kept_games: list[np.ndarray] = []
    kept_groups: list[np.ndarray] = []
    groups_made = 0
    while len(boards):
        if ply.max() >= MAX_PLIES:
            raise JumpgammonError(f"a self-play game passed {MAX_PLIES} moves: the net cannot finish a game")
        chance = np.where(phases(boards) == GamePhase.CONTACT, keep[0], keep[1])
        take = rng.random(len(boards)) < chance
        kept_boards.append(boards[take])
        kept_games.append(game_of[take])
        kept_groups.append(np.full(int(take.sum()), -1, np.int64))
        dice = rng.integers(1, 7, size=(len(boards), 2))
        while True:  # the opening roll is never a double
            same = first & (dice[:, 0] == dice[:, 1])
            if not same.any():
                break
            dice[same] = rng.integers(1, 7, size=(int(same.sum()), 2))
        kids, offsets = children_batch(boards, dice)
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
        boards = kids[pick].copy()
        first = np.zeros(len(boards), bool)
        ply += 1
        over = phases(boards) == GamePhase.OVER
        if over.any():
            restart = np.flatnonzero(over)
            fresh = restart[: max(0, games - started)]
            boards[fresh] = initial
            game_of[fresh] = np.arange(started, started + len(fresh))
            first[fresh] = True
            ply[fresh] = 0
            started += len(fresh)
            alive = np.ones(len(boards), bool)
            alive[restart[len(fresh) :]] = False
            boards, game_of, first, ply = boards[alive], game_of[alive], first[alive], ply[alive]
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
    if data.resolve() == SHIPPED_DIR or SHIPPED_DIR in data.resolve().parents:
        raise JumpgammonError(f"--data {str(data)!r} is in the shipped weights folder; use e.g. runs/data")


def generate(cfg: GenerateConfig, progress: bool = True) -> GenerateResult:
    """Write shards ``0 .. cfg.shards - 1`` of the data set into ``cfg.data`` (existing ones are kept).

    The folder's manifest records the settings and the labelling net's digest; a folder made with
    other settings is refused rather than mixed.
    """
    _check_data_folder(cfg.data)
    weights = cfg.weights if cfg.weights is not None else DEFAULT_WEIGHTS
    ev = load_evaluator(weights)
    identity = cfg.identity(file_digest(weights))
    cfg.data.mkdir(parents=True, exist_ok=True)
    manifest = cfg.data / MANIFEST
    if manifest.is_file():
        saved = json.loads(manifest.read_text())
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


def shard_paths(data: Path) -> list[Path]:
    """The shard files of a data folder, in order."""
    return sorted(data.glob("shard_*.npz"))


# --------------------------------------------------------------------------------------------
# Fitting
# --------------------------------------------------------------------------------------------


class Device(enum.Enum):
    """Where a fit runs: the nets, the batches and the validation passes."""

    CPU = "cpu"
    CUDA = "cuda"

    def torch_device(self) -> torch.device:
        """The torch device; raises JumpgammonError for cuda when torch sees no GPU."""
        if self is Device.CUDA and not torch.cuda.is_available():
            raise JumpgammonError("--device cuda: torch sees no CUDA GPU on this machine; use --device cpu")
        return torch.device(self.value)


class Loss(enum.Enum):
    """How a net's five outputs are compared with their targets."""

    MSE = "mse"  # squared error of the probabilities (what TD training minimises)
    CROSS_ENTROPY = "xent"  # binary cross-entropy of each probability against its target

    def __call__(self, pred: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        """Per-row loss (n,) summed over the five outputs."""
        if self is Loss.MSE:
            return ((pred - target) ** 2).sum(dim=1)
        p = pred.clamp(1e-6, 1 - 1e-6)
        return -(target * torch.log(p) + (1 - target) * torch.log(1 - p)).sum(dim=1)


@dataclass(frozen=True)
class FitConfig:
    """Settings of one supervised fit of the phase nets to a data folder's targets."""

    data: tuple[Path, ...]  # data folders (their shards are pooled)
    out: Path  # the candidate weights file
    start: Path | None = None  # weights to start from; None: the shipped ones
    widen: dict[str, tuple[int, ...]] = field(default_factory=dict)  # per net: wider hidden layers to grow into
    # the nets trained; the others are copied unchanged. A crashed net the start lacks starts as its contact net.
    nets: tuple[str, ...] = PHASE_NETS
    encoding: Encoding | None = None  # the candidate's inputs; None: the start's (a v1 start grows into v2 exactly)
    loss: Loss = Loss.MSE
    learning_rate: float = 1e-4
    batch_size: int = 128
    max_epochs: int = 40
    patience: int = 3  # epochs without a better validation loss before stopping
    validation: float = 0.1  # share of the games held out
    ranking: float = 0.0  # weight of the decision groups' ranking loss (0: values only)
    listwise: float | None = None  # the ranking loss's temperature (equity) if listwise; None: squared
    seed: int = 1
    threads: int = 1
    device: Device = Device.CPU  # where the nets and batches live while fitting
    # rollout-label folders (``jumpgammon label``) pooled with the shards; read by training.label_fit
    labels: tuple[Path, ...] = ()
    label_weight: float = 1.0  # each rollout-label row's weight in the loss (a shard row's is 1)
    exclude: tuple[Path, ...] = ()  # held-out folders: no board of theirs is fitted or validated on

    def to_json(self) -> dict[str, Any]:
        """JSON-ready record of the settings."""
        return {
            "data": [str(d) for d in self.data],
            "out": str(self.out),
            "start": str(self.start) if self.start is not None else str(DEFAULT_WEIGHTS),
            "widen": {k: list(v) for k, v in self.widen.items()},
            "nets": list(self.nets),
            "encoding": self.encoding.value if self.encoding is not None else None,
            "loss": self.loss.value,
            "learning_rate": self.learning_rate,
            "batch_size": self.batch_size,
            "max_epochs": self.max_epochs,
            "patience": self.patience,
            "validation": self.validation,
            "ranking": self.ranking,
            "listwise": self.listwise,
            "seed": self.seed,
            "threads": self.threads,
            "device": self.device.value,
            "labels": [str(d) for d in self.labels],
            "label_weight": self.label_weight,
            "exclude": [str(d) for d in self.exclude],
        }


def widened_tensors(
    tensors: dict[str, np.ndarray], config: NetConfig, hidden: tuple[int, ...], rng: np.random.Generator
) -> dict[str, np.ndarray]:
    """The tensors of a net with wider ``hidden`` layers computing exactly the same function.

    New units get small random incoming weights and zero bias, and every weight leaving a new
    unit is zero, so they start silent and the gradient grows them. Raises ValueError unless
    ``hidden`` has the same depth and no narrower layer.
    """
    old = config.hidden
    if len(hidden) != len(old) or any(h < o for h, o in zip(hidden, old, strict=True)):
        raise ValueError(f"cannot widen hidden layers {list(old)} to {list(hidden)}: same depth, no narrower layer")
    shapes = layer_shapes([config.n_inputs, *hidden, len(OUTPUTS)])
    old_shapes = config.tensor_shapes()
    out: dict[str, np.ndarray] = {}
    for name, shape in shapes.items():
        grown = np.zeros(shape, np.float32)
        have = old_shapes[name]
        if name.endswith("weight"):
            rows, cols = have
            fan_in = shape[1]
            grown[rows:, :] = rng.normal(0.0, 0.1 / math.sqrt(fan_in), size=(shape[0] - rows, fan_in))
            grown[:rows, cols:] = 0.0  # weights from the new units of the layer below stay zero
            grown[:rows, :cols] = tensors[name]
        else:
            grown[: have[0]] = tensors[name]
        out[name] = grown
    return out


@dataclass(frozen=True)
class ExtraRows:
    """Labelled positions from outside the shards (rollout labels), pooled with them in a fit.

    ``targets`` are the five probabilities for the side on roll of ``boards``; ``games`` tell the
    rows' games apart within this source (validation splits by them); ``weight`` is every row's
    weight in the loss; ``provenance`` goes into the candidate's record.
    """

    boards: np.ndarray  # int8 (n, 26)
    targets: np.ndarray  # float32 (n, 5)
    games: np.ndarray  # int64 (n,)
    weight: float
    provenance: dict[str, Any]


def board_keys(boards: np.ndarray) -> set[bytes]:
    """The set of ``boards`` (int8 (n, 26)) as bytes keys, for membership tests."""
    return {row.tobytes() for row in np.ascontiguousarray(boards, dtype=np.int8)}


@dataclass
class PhaseData:
    """One net's training and validation arrays: encoded inputs, targets and decision groups.

    A group matrix holds, per decision, the row indices of its plays (padded with -1 to
    ``GROUP_WIDTH``); only groups with two or more plays in this net's phase are kept.
    """

    x_train: np.ndarray
    y_train: np.ndarray
    x_val: np.ndarray
    y_val: np.ndarray
    groups_train: np.ndarray = field(default_factory=lambda: np.zeros((0, GROUP_WIDTH), np.int64))
    groups_val: np.ndarray = field(default_factory=lambda: np.zeros((0, GROUP_WIDTH), np.int64))
    w_train: np.ndarray | None = None  # float32 row weights in the loss; None: all 1
    w_val: np.ndarray | None = None


GROUP_WIDTH = 8  # the most plays gnubg's Normal filter keeps


def group_matrix(group_ids: np.ndarray) -> np.ndarray:
    """Rows of each decision group (ids >= 0) as an (n_groups, GROUP_WIDTH) matrix padded with -1; singles dropped."""
    rows = np.flatnonzero(group_ids >= 0)
    if len(rows) == 0:
        return np.zeros((0, GROUP_WIDTH), np.int64)
    ids = group_ids[rows]
    order = np.argsort(ids, kind="stable")
    rows, ids = rows[order], ids[order]
    starts = np.flatnonzero(np.r_[True, ids[1:] != ids[:-1]])
    sizes = np.diff(np.r_[starts, len(ids)])
    slot = np.arange(len(ids)) - np.repeat(starts, sizes)
    out = np.full((len(starts), GROUP_WIDTH), -1, np.int64)
    keep = slot < GROUP_WIDTH
    out[np.repeat(np.arange(len(starts)), sizes)[keep], slot[keep]] = rows[keep]
    return out[sizes >= 2]


def load_phase_data(
    folders: tuple[Path, ...],
    validation: float,
    seed: int,
    encoder: Callable[[np.ndarray], np.ndarray] = encode,
    split_crashed: bool = False,
    extra: tuple[ExtraRows, ...] = (),
    excluded: set[bytes] | None = None,
) -> tuple[dict[str, PhaseData], dict[str, Any]]:
    """Every shard of ``folders`` and the ``extra`` rows split by game into training and validation data per net.

    Returns the data per net and their provenance. ``encoder`` turns int8 (n, 26) boards into the
    nets' float32 inputs (v1 by default). With ``split_crashed`` the contact positions of gnubg's
    crashed class go to a net of their own, "crashed". Rows whose board is in ``excluded`` are
    left out (counted in the provenance); extra rows a phase net does not evaluate are left out too.
    """
    boards, targets, games, ph, groups, weights = [], [], [], [], [], []
    provenance: list[dict[str, Any]] = []
    for folder_index, folder in enumerate(folders):
        paths = shard_paths(folder)
        if not paths:
            raise JumpgammonError(f"--data {str(folder)!r} holds no shards")
        manifest = folder / MANIFEST
        provenance.append(
            {
                "folder": str(folder),
                "shards": len(paths),
                "manifest": json.loads(manifest.read_text()) if manifest.is_file() else None,
            }
        )
        for path in paths:
            s = Shard.read(path)
            boards.append(s.boards)
            targets.append(s.targets)
            games.append(s.games + folder_index * (1 << 56))  # folders never share a game
            ph.append(s.phases)
            ids = s.group_ids()
            groups.append(np.where(ids >= 0, ids + folder_index * (1 << 56), -1))
            weights.append(np.ones(len(s.boards), np.float32))
    for extra_index, rows in enumerate(extra, start=len(folders)):
        row_phases = phases(rows.boards).astype(np.int8)
        keep = np.isin(row_phases, list(NET_OF_PHASE))
        provenance.append({**rows.provenance, "rows": len(rows.boards), "outside_the_phase_nets": int((~keep).sum())})
        boards.append(rows.boards[keep].astype(np.int8))
        targets.append(rows.targets[keep].astype(np.float32))
        games.append(rows.games[keep] + extra_index * (1 << 56))
        ph.append(row_phases[keep])
        groups.append(np.full(int(keep.sum()), -1, np.int64))
        weights.append(np.full(int(keep.sum()), rows.weight, np.float32))
    all_boards, all_targets = np.concatenate(boards), np.concatenate(targets)
    all_games, all_phases = np.concatenate(games), np.concatenate(ph)
    all_groups, all_weights = np.concatenate(groups), np.concatenate(weights)
    omitted = 0
    if excluded:
        out_rows = np.fromiter((row.tobytes() in excluded for row in all_boards), bool, len(all_boards))
        omitted = int(out_rows.sum())
        if omitted:  # group ids index rows: drop the rows' group memberships before the rows
            all_groups = np.where(out_rows, -1, all_groups)
            keep_rows = ~out_rows
            all_boards, all_targets, all_games = all_boards[keep_rows], all_targets[keep_rows], all_games[keep_rows]
            all_phases, all_groups, all_weights = all_phases[keep_rows], all_groups[keep_rows], all_weights[keep_rows]
    if len(all_boards) == 0:
        raise JumpgammonError("the data hold no position to fit once the held-out boards are left out")
    is_val = held_out(all_games, validation, seed)
    routes = {name: all_phases == phase for phase, name in NET_OF_PHASE.items()}
    if split_crashed:
        smashed = routes["contact"] & crashed(all_boards)
        routes = {"contact": routes["contact"] & ~smashed, "crashed": smashed, "race": routes["race"]}
    out = {}
    counts = {}
    for name, mask in routes.items():
        tr, va = mask & ~is_val, mask & is_val
        out[name] = PhaseData(
            encoder(all_boards[tr]),
            all_targets[tr],
            encoder(all_boards[va]),
            all_targets[va],
            group_matrix(all_groups[tr]),
            group_matrix(all_groups[va]),
            all_weights[tr],
            all_weights[va],
        )
        counts[name] = {
            "train": int(tr.sum()),
            "validation": int(va.sum()),
            "groups_train": len(out[name].groups_train),
            "groups_validation": len(out[name].groups_val),
        }
    held_games = len(np.unique(all_games[is_val]))
    return out, {
        "folders": provenance,
        "positions": counts,
        "games": len(np.unique(all_games)),
        "validation_games": held_games,
        "excluded_rows": omitted,
    }


def held_out(games: np.ndarray, validation: float, seed: int) -> np.ndarray:
    """Bool mask of the rows whose game is held out for validation (each game with chance ``validation``)."""
    unique, inverse = np.unique(games, return_inverse=True)
    held = np.random.default_rng(seed).random(len(unique)) < validation
    return held[inverse]


def _batches(n: int, size: int, rng: np.random.Generator) -> Iterator[np.ndarray]:
    order = rng.permutation(n)
    for lo in range(0, n, size):
        yield order[lo : lo + size]


def equity_of(probabilities: torch.Tensor) -> torch.Tensor:
    """Cubeless equity (n,) of (n, 5) probabilities, for their side on roll (torch, differentiable)."""
    p = probabilities
    return 2 * p[:, 0] - 1 + p[:, 1] - p[:, 3] + p[:, 2] - p[:, 4]


def ranking_loss(
    net: PhaseNet, x: torch.Tensor, y: torch.Tensor, groups: torch.Tensor, temperature: float | None = None
) -> torch.Tensor:
    """Per-group (n_groups,) loss of the plays' equities against their targets', blind to the group's level.

    Squared (``temperature`` None): each play's error is its predicted equity minus its target's,
    with the group's mean error taken out, so only the differences between the plays of one
    decision count: what move choice uses. Listwise (a temperature, in equity): ``temperature``
    times the KL divergence of the net's choice distribution from the targets', each a softmax of
    the mover's equities (minus the resulting positions') over ``temperature``, so the plays near
    the top weigh most and the plays nobody would choose hardly at all.
    """
    valid = groups >= 0
    rows = groups.clamp(min=0)
    flat = rows.reshape(-1)
    predicted = equity_of(net(x[flat])).reshape(groups.shape)
    labelled = equity_of(y[flat]).reshape(groups.shape)
    if temperature is not None:
        # group rows are the opponent's positions: the mover prefers low equity
        mask = torch.where(valid, 0.0, -torch.inf)
        target = torch.softmax(-labelled / temperature + mask, dim=1)
        log_choice = torch.log_softmax(-predicted / temperature + mask, dim=1)
        log_target = torch.log(target.clamp(min=1e-12))
        return temperature * torch.where(valid, target * (log_target - log_choice), 0.0).sum(dim=1)
    error = predicted - labelled
    weight = valid.to(error.dtype)
    mean = (error * weight).sum(dim=1, keepdim=True) / weight.sum(dim=1, keepdim=True)
    return (((error - mean) ** 2) * weight).sum(dim=1)


def choice_regrets(net: PhaseNet, x: np.ndarray, y: np.ndarray, groups: np.ndarray) -> np.ndarray:
    """Milli-equity (n_groups,) the mover loses in each group by playing the net's choice, not the labels' best.

    Group rows are the plays' resulting positions (opponent on roll), so the mover picks the lowest
    equity; the loss is measured by the labels, as ``bench moves`` measures it by gnubg's 2-ply.
    """
    if len(groups) == 0:
        return np.zeros(0)
    valid = groups >= 0
    rows = np.where(valid, groups, 0).reshape(-1)
    device = net.device
    with torch.inference_mode():
        predicted = np.concatenate(
            [
                equity_of(net(torch.from_numpy(x[rows[lo : lo + 8192]]).to(device))).cpu().numpy()
                for lo in range(0, len(rows), 8192)
            ]
        )
    labelled = equity_of(torch.from_numpy(y[rows])).numpy()
    predicted = np.where(valid, predicted.reshape(groups.shape), np.inf)
    labelled = np.where(valid, labelled.reshape(groups.shape), np.inf)
    chosen = labelled[np.arange(len(groups)), predicted.argmin(axis=1)]
    return 1000.0 * (chosen - labelled.min(axis=1)).astype(np.float64)


def choice_regret(net: PhaseNet, x: np.ndarray, y: np.ndarray, groups: np.ndarray) -> float:
    """Mean of :func:`choice_regrets` over the groups (0 for none): the mover's milli-equity lost per decision."""
    regrets = choice_regrets(net, x, y, groups)
    return float(regrets.mean()) if len(regrets) else 0.0


def _mean_losses(
    net: PhaseNet,
    loss: Loss,
    x: np.ndarray,
    y: np.ndarray,
    groups: np.ndarray,
    temperature: float | None,
    w: np.ndarray | None = None,
) -> tuple[float, float]:
    """Weighted mean per-position loss (row weights ``w``, None: 1) and mean per-group ranking loss (0 for none)."""
    total = 0.0
    ranked = 0.0
    device = net.device
    w = np.ones(len(x), np.float32) if w is None else w
    with torch.inference_mode():
        for lo in range(0, len(x), 8192):
            pred = net(torch.from_numpy(x[lo : lo + 8192]).to(device))
            per_row = loss(pred, torch.from_numpy(y[lo : lo + 8192]).to(device))
            total += float((per_row * torch.from_numpy(w[lo : lo + 8192]).to(device)).sum())
        tx, ty = torch.from_numpy(x).to(device), torch.from_numpy(y).to(device)
        for lo in range(0, len(groups), 2048):
            chunk = torch.from_numpy(groups[lo : lo + 2048]).to(device)
            ranked += float(ranking_loss(net, tx, ty, chunk, temperature).sum())
    return total / max(float(w.sum()), 1e-12) if len(x) else 0.0, ranked / max(len(groups), 1)


def fit_net(
    net: PhaseNet, data: PhaseData, cfg: FitConfig, name: str, progress: bool
) -> tuple[PhaseNet, list[dict[str, float]]]:
    """Fit ``net`` to ``data`` with early stopping; the best net by validation loss and the per-epoch record.

    The loss is the per-position loss plus ``cfg.ranking`` times the per-group ranking loss; each
    step takes ``cfg.batch_size`` positions and a quarter as many decision groups. The fit runs on
    ``cfg.device``; the net comes back on the CPU.
    """
    rng = np.random.default_rng([cfg.seed, NET_STREAM[name]])
    torch.manual_seed(cfg.seed)
    device = cfg.device.torch_device()
    net = net.to(device)
    optim = torch.optim.Adam(net.parameters(), lr=cfg.learning_rate)
    use_groups = cfg.ranking > 0 and len(data.groups_train) > 0

    def record(epoch: int) -> dict[str, float]:
        train, train_rank = _mean_losses(
            net, cfg.loss, data.x_train, data.y_train, data.groups_train, cfg.listwise, data.w_train
        )
        val, val_rank = _mean_losses(net, cfg.loss, data.x_val, data.y_val, data.groups_val, cfg.listwise, data.w_val)
        return {
            "epoch": epoch,
            "train": train,
            "validation": val + cfg.ranking * val_rank,
            "validation_values": val,
            "validation_ranking": val_rank,
            "train_ranking": train_rank,
            "validation_regret": choice_regret(net, data.x_val, data.y_val, data.groups_val),
        }

    history = [record(0)]
    best = history[0]["validation"]
    best_state = {k: v.clone() for k, v in net.state_dict().items()}
    stale = 0
    x_all, y_all = torch.from_numpy(data.x_train).to(device), torch.from_numpy(data.y_train).to(device)
    w_train = data.w_train if data.w_train is not None else np.ones(len(data.x_train), np.float32)
    w_all = torch.from_numpy(w_train).to(device)
    group_batch = max(1, cfg.batch_size // 4)
    for epoch in range(1, cfg.max_epochs + 1):
        net.train()
        group_order = rng.permutation(len(data.groups_train)) if use_groups else np.zeros(0, np.int64)
        group_at = 0
        bar = tqdm(total=len(x_all), disable=not progress, unit="pos", leave=False, desc=f"{name} epoch {epoch}")
        for idx in _batches(len(x_all), cfg.batch_size, rng):
            index = torch.from_numpy(idx).to(device)
            loss = (cfg.loss(net(x_all[index]), y_all[index]) * w_all[index]).mean()
            if use_groups:
                if group_at >= len(group_order):
                    group_order, group_at = rng.permutation(len(data.groups_train)), 0
                chosen = data.groups_train[group_order[group_at : group_at + group_batch]]
                group_at += group_batch
                ranked = ranking_loss(net, x_all, y_all, torch.from_numpy(chosen).to(device), cfg.listwise)
                loss = loss + cfg.ranking * ranked.mean()
            optim.zero_grad()
            loss.backward()
            optim.step()
            bar.update(len(idx))
        bar.close()
        net.eval()
        history.append(record(epoch))
        val = history[-1]["validation"]
        if progress:
            h = history[-1]
            print(
                f"{name} epoch {epoch}: train {h['train']:.6f} validation {h['validation_values']:.6f} "
                f"ranking {h['validation_ranking']:.6f} regret {h['validation_regret']:.2f} mEMG",
                file=sys.stderr,
            )
        if val < best:
            best, stale = val, 0
            best_state = {k: v.clone() for k, v in net.state_dict().items()}
        else:
            stale += 1
            if stale >= cfg.patience:
                break
    net.load_state_dict(best_state)
    return net.cpu().eval(), history


@dataclass
class FitResult:
    """What :func:`fit` reports: the candidate file and each net's losses before and after."""

    out: str
    nets: dict[str, dict[str, Any]]
    seconds: float

    def to_json(self) -> dict[str, Any]:
        """JSON-ready dict."""
        return asdict(self)


def _check_out(out: Path) -> None:
    if out.is_dir():
        raise JumpgammonError(f"--out {str(out)!r} is a folder; give the candidate's file, e.g. runs/sup.jgw")
    if out.resolve().parent == SHIPPED_DIR:
        raise JumpgammonError(
            f"--out {str(out)!r} is in the shipped weights folder; write the candidate elsewhere "
            "and replace the shipped net with 'jumpgammon weights promote FILE'"
        )


def fit(
    cfg: FitConfig, progress: bool = True, extra: tuple[ExtraRows, ...] = (), excluded: set[bytes] | None = None
) -> FitResult:
    """Fit the phase nets to the data and write the candidate to ``cfg.out``; a finished fit is not redone.

    ``extra`` are the rows of ``cfg.labels`` and ``excluded`` the boards of ``cfg.exclude``, both
    read by :func:`training.label_fit.fit_with_labels`. Rerunning a stopped fit starts it again (it
    takes minutes); rerunning a finished one with the same settings reports the saved record.
    """
    if (cfg.labels and not extra) or (cfg.exclude and excluded is None):
        raise JumpgammonError("rollout labels and held-out folders are read by training.label_fit.fit_with_labels")
    _check_out(cfg.out)
    remove_stale_temporaries(cfg.out)
    start = cfg.start if cfg.start is not None else DEFAULT_WEIGHTS
    unknown = [n for n in (*cfg.nets, *cfg.widen) if n not in ALL_NETS]
    if unknown:
        raise JumpgammonError(f"unknown nets {unknown}; the phase nets are {list(ALL_NETS)}")
    settings = cfg.to_json()
    if cfg.out.is_file():
        record = load_evaluator(cfg.out, bearoff=False).header.get("run", {})
        if record.get("trainer") == TRAINER and record.get("config") == settings:
            return FitResult(str(cfg.out), record.get("nets", {}), record.get("seconds", 0.0))
    cfg.device.torch_device()  # a missing GPU is reported before the data load, not after
    if cfg.threads:
        torch.set_num_threads(cfg.threads)
    started = time.time()
    base = load_evaluator(start, bearoff=False)
    encoding = cfg.encoding or base.encoding
    names = [n for n in ALL_NETS if n in base.nets or n in cfg.nets]
    starts = {name: base.nets[name] if name in base.nets else base.nets[FALLBACK_NET[name]] for name in names}
    try:  # the start's nets in the candidate's encoding (a crashed net the start lacks: its contact net)
        recoded = {name: recoded_tensors(net.tensors(), net.config, encoding) for name, net in starts.items()}
    except ValueError as exc:
        raise JumpgammonError(f"--start {str(start)!r}: {exc}") from None
    data, provenance = load_phase_data(
        cfg.data, cfg.validation, cfg.seed, encoding.inputs, "crashed" in names, extra, excluded
    )
    rng = np.random.default_rng(cfg.seed)
    nets: dict[str, Any] = {}
    report: dict[str, dict[str, Any]] = {}
    for name in names:
        tensors = recoded[name]
        config = NetConfig(encoding.n_inputs, starts[name].config.hidden)
        if name in cfg.widen:
            tensors = widened_tensors(tensors, config, cfg.widen[name], rng)
            config = NetConfig(encoding.n_inputs, cfg.widen[name])
        net = PhaseNet(config)
        net.load_state_dict({k: torch.from_numpy(v) for k, v in tensors.items()})
        net.eval()
        if name in cfg.nets and len(data[name].x_train):
            net, history = fit_net(net, data[name], cfg, name, progress)
            best = min(history, key=lambda h: h["validation"])
            report[name] = {
                "hidden": list(net.config.hidden),
                "train_positions": len(data[name].x_train),
                "validation_positions": len(data[name].x_val),
                "validation_before": history[0]["validation"],
                "validation_best": best["validation"],
                "best_epoch": best["epoch"],
                "history": history,
            }
        nets[name] = net
    seconds = round(time.time() - started, 1)
    record = {
        "trainer": TRAINER,
        "config": settings,
        "start": {"file": str(start), "sha256": file_digest(start), "run": base.header.get("run", {})},
        "data": provenance,
        "nets": report,
        "seconds": seconds,
    }
    Evaluator(nets, record, encoding=encoding).save(cfg.out, record)
    return FitResult(str(cfg.out), report, seconds)
