"""The supervised fit: each phase net fitted to the targets of the data folders, and the candidate weights file.

The fit starts from a weights file (optionally widened without changing its function), minimises
the per-position loss (plus a ranking term over decision groups) with Adam on the training games,
and stops early on the validation games' loss. The candidate's run record carries the data's
provenance and every setting, so ``jumpgammon weights promote`` accepts it.
"""

from __future__ import annotations

import enum
import hashlib
import math
import sys
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch
from tqdm import tqdm

from engine.errors import JumpgammonError
from engine.position import PhaseName
from nets.encoding import Encoding
from nets.evaluator import ALL_NETS, FALLBACK_NET, PHASE_NETS, Evaluator, load_evaluator
from nets.mlp import OUTPUTS, NetConfig, layer_shapes
from nets.model import PhaseNet, recoded_tensors
from nets.weights import remove_stale_temporaries, sha256_hex
from training.supervised.losses import Loss, choice_regret, ranking_loss
from training.supervised.shards import ExtraRows, PhaseData, load_phase_data
from weights import DEFAULT_WEIGHTS, in_shipped_folder

TRAINER = "supervised-plies"
# Each net's stream of the fit's random numbers (fixed, so that fits from before crashed nets reproduce).
NET_STREAM: dict[str, int] = {PhaseName.CONTACT: 0, PhaseName.RACE: 1, PhaseName.CRASHED: 2}


class Device(enum.Enum):
    """Where a fit runs: the nets, the batches and the validation passes."""

    CPU = "cpu"
    CUDA = "cuda"

    def torch_device(self) -> torch.device:
        """The torch device; raises JumpgammonError for cuda when torch sees no GPU."""
        if self is Device.CUDA and not torch.cuda.is_available():
            raise JumpgammonError("--device cuda: torch sees no CUDA GPU on this machine; use --device cpu")
        return torch.device(self.value)


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


def _batches(n: int, size: int, rng: np.random.Generator) -> Iterator[np.ndarray]:
    order = rng.permutation(n)
    for lo in range(0, n, size):
        yield order[lo : lo + size]


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


def check_fit_data(name: str, data: PhaseData) -> None:
    """Refuse a net with nothing to fit, or nothing to stop on: it would come back as it started."""
    if not len(data.x_train):
        raise JumpgammonError(f"--nets {name}: the data hold no {name} position to fit; leave it out of --nets")
    if not len(data.x_val):
        raise JumpgammonError(
            f"--nets {name}: none of the {len(data.x_train):,} {name} positions is held out for validation "
            "(too few games, or every held-out board met in training too); give more games or a larger --validation"
        )


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
    if in_shipped_folder(out):
        raise JumpgammonError(
            f"--out {str(out)!r} is in the shipped weights folder; write the candidate elsewhere "
            "and replace the shipped net with 'jumpgammon weights promote FILE'"
        )


def _inputs_fingerprint(cfg: FitConfig, start: Path) -> str:
    """A digest of what a fit reads besides its settings: the start net's bytes and the data, label and held-out
    folders' files (names and sizes), so that a rerun after either changed fits again instead of reporting."""
    digest = hashlib.sha256(sha256_hex(start).encode())
    for folder in (*cfg.data, *cfg.labels, *cfg.exclude):
        files = sorted(f for f in Path(folder).rglob("*") if f.is_file()) if Path(folder).is_dir() else []
        for f in files:  # manifests by content (a folder remade by another teacher), shards by size
            tag = sha256_hex(f) if f.suffix == ".json" else str(f.stat().st_size)
            digest.update(f"{folder}|{f.relative_to(folder)}|{tag}\n".encode())
    return digest.hexdigest()[:16]


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
    inputs = _inputs_fingerprint(cfg, start)
    if cfg.out.is_file():
        record = load_evaluator(cfg.out, bearoff=False).header.get("run", {})
        if record.get("trainer") != TRAINER:  # a self-play run's optimiser and games in flight would be lost
            raise JumpgammonError(
                f"--out {str(cfg.out)!r} holds nets made by {record.get('trainer') or 'an unknown trainer'}, "
                f"not a supervised fit; fit into a new file (--start {str(cfg.out)!r} to start from its nets)"
            )
        same = record.get("config") == settings and record.get("inputs") == inputs  # the same folders may grow
        if record.get("trainer") == TRAINER and same:
            return FitResult(str(cfg.out), record.get("nets", {}), record.get("seconds", 0.0))
    cfg.device.torch_device()  # a missing GPU is reported before the data load, not after
    if cfg.threads:
        torch.set_num_threads(cfg.threads)
    started = time.time()
    base = load_evaluator(start, bearoff=False)
    encoding = cfg.encoding or base.encoding
    names = [n for n in ALL_NETS if n in base.nets or n in cfg.nets]
    not_held = [n for n in cfg.widen if n not in names]
    if not_held:
        raise JumpgammonError(
            f"{', '.join('--widen-' + n for n in not_held)}: the start {str(start)!r} has no such net "
            "and --nets does not add it"
        )
    starts = {name: base.nets[name] if name in base.nets else base.nets[FALLBACK_NET[name]] for name in names}
    try:  # the start's nets in the candidate's encoding (a crashed net the start lacks: its contact net)
        recoded = {name: recoded_tensors(net.tensors(), net.config, encoding) for name, net in starts.items()}
    except ValueError as exc:
        raise JumpgammonError(f"--start {str(start)!r}: {exc}") from None
    data, provenance = load_phase_data(
        cfg.data, cfg.validation, cfg.seed, encoding.inputs, PhaseName.CRASHED in names, extra, excluded
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
        if name in cfg.nets:
            check_fit_data(name, data[name])
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
        "start": {"file": str(start), "sha256": sha256_hex(start), "run": base.header.get("run", {})},
        "data": provenance,
        "inputs": inputs,
        "nets": report,
        "seconds": seconds,
    }
    Evaluator(nets, record, encoding=encoding).save(cfg.out, record)
    return FitResult(str(cfg.out), report, seconds)
