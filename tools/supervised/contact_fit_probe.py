"""Probe what limits the supervised contact net: extra input features, or width.

Fits the contact net of ``--start`` to the pooled ``--data`` folders twice, with the same seed,
batches and settings as ``jumpgammon supervised fit --ranking 2``, and prints each epoch's
validation losses (per-position values and per-decision ranking):

- ``features``: the shipped encoding against the same plus 12 candidate inputs (six per side,
  below), the new inputs' weights starting at zero so both fits start from the same function;
- ``width``: the shipped width against a contact net widened to ``--hidden`` (new units silent at
  the start, :func:`training.supervised.fit.widened_tensors`); ``--save`` writes the widened
  candidate (race net of ``--start``) for a tournament.

Usage: ``python -m tools.supervised.contact_fit_probe features|width --data D [--data D] --start W``
``[--epochs 5] [--hidden 384,64] [--save FILE]``. Results of 2026-11-23 are in docs/training.md
(the learning notes).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
import torch
from numba import njit, prange

from nets.encoding import encode
from nets.evaluator import Evaluator, load_evaluator
from nets.mlp import NetConfig
from nets.model import PhaseNet, torch_net
from training.supervised.fit import FitConfig, fit_net, widened_tensors
from training.supervised.shards import load_phase_data

PER_SIDE_EXTRA = 6
EXTRA_FEATURES = (
    "escapes: rolls (of 36) on which the rearmost checker lands beyond every opponent point made within 12 pips / 36",
    "containment: the fewest such rolls for a checker on any of the points 15 to 24 / 36",
    "trapped: mean escapes of the checkers still behind the opponent's rearmost checker / 36",
    "entering: (opponent's closed home points / 6) squared, the chance one checker fails to enter",
    "contact distance: pips the checkers behind the opponent's rearmost checker need to pass it / 100",
    "buried: checkers on the 1, 2 and 3 points / 10",
)


def escape_table() -> np.ndarray:
    """Per 12-bit mask of blocked points ahead (bit d-1: d pips ahead), the rolls of 36 that pass them all."""
    table = np.zeros(1 << 12, np.int64)
    for mask in range(1 << 12):
        far = max((d for d in range(1, 13) if mask >> (d - 1) & 1), default=0)
        if far == 0:
            table[mask] = 36
            continue

        def open_point(dist: int, mask: int = mask) -> bool:
            return dist > 12 or not mask >> (dist - 1) & 1

        count = 0
        for a in range(1, 7):
            for b in range(1, 7):
                if a == b:
                    steps = [k * a for k in range(1, 5)]
                    reach = 0
                    for step in steps:  # a double hops on open points only
                        if not open_point(step):
                            break
                        reach = step
                    count += reach > far
                else:
                    count += any(
                        open_point(x) and (x > far or (open_point(x + y) and x + y > far)) for x, y in ((a, b), (b, a))
                    )
        table[mask] = count
    return table


ESCAPES = escape_table()


@njit(cache=True)
def _escapes(them: np.ndarray, p: int, table: np.ndarray) -> int:
    mask = 0
    for d in range(1, 13):
        if p - d >= 1 and them[p - d] >= 2:
            mask |= 1 << (d - 1)
    return table[mask]


@njit(cache=True)
def _side(b: np.ndarray, flip: bool, out: np.ndarray, base: int, table: np.ndarray) -> None:
    me = np.zeros(26, np.int64)
    them = np.zeros(26, np.int64)
    for p in range(1, 26):
        v = -b[25 - p] if flip else b[p]
        me[p] = max(v, 0)
    for p in range(0, 25):
        v = b[25 - p] if flip else -b[p]
        them[p] = max(v, 0)
    rear = 25
    while rear > 0 and me[rear] == 0:
        rear -= 1
    out[base] = _escapes(them, rear, table) / 36.0 if rear > 0 else 1.0
    contain = 36
    for p in range(15, 25):
        contain = min(contain, _escapes(them, p, table))
    out[base + 1] = contain / 36.0
    front = 0  # the opponent's rearmost checker, in this side's points (0: on the bar)
    while front < 25 and them[front] == 0:
        front += 1
    total = 0
    behind = 0
    distance = 0
    for p in range(front + 1, 26):
        if me[p] > 0:
            total += me[p] * _escapes(them, p, table)
            behind += me[p]
            distance += me[p] * (p - front)
    out[base + 2] = total / (36.0 * behind) if behind > 0 else 1.0
    closed = 0
    for p in range(19, 25):
        closed += them[p] >= 2
    out[base + 3] = (closed / 6.0) ** 2
    out[base + 4] = distance / 100.0
    out[base + 5] = (me[1] + me[2] + me[3]) / 10.0


@njit(cache=True, parallel=True)
def _extra_into(boards: np.ndarray, out: np.ndarray, table: np.ndarray) -> None:
    for i in prange(boards.shape[0]):
        _side(boards[i], False, out[i], 0, table)
        _side(boards[i], True, out[i], PER_SIDE_EXTRA, table)


def encode_with_extra(boards: np.ndarray) -> np.ndarray:
    """The shipped encoding of int8 (n, 26) boards followed by the 12 candidate inputs (side on roll first)."""
    arr = np.ascontiguousarray(boards, dtype=np.int8).reshape(-1, 26)
    extra = np.zeros((len(arr), 2 * PER_SIDE_EXTRA), np.float32)
    _extra_into(arr, extra, ESCAPES)
    return np.concatenate([encode(arr), extra], axis=1)


def with_zero_inputs(net: PhaseNet, n_inputs: int) -> PhaseNet:
    """``net`` with inputs added up to ``n_inputs``, their weights zero: the same function."""
    grown = PhaseNet(NetConfig(n_inputs, net.config.hidden))
    state = {}
    for key, value in net.state_dict().items():
        if key == "body.0.weight":
            wide = torch.zeros((value.shape[0], n_inputs))
            wide[:, : value.shape[1]] = value
            value = wide
        state[key] = value
    grown.load_state_dict(state)
    return grown.eval()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("probe", choices=("features", "width"))
    parser.add_argument("--data", action="append", type=Path, required=True)
    parser.add_argument("--start", type=Path, required=True)
    parser.add_argument("--epochs", type=int, default=5)
    parser.add_argument("--hidden", default="384,64")
    parser.add_argument("--save", type=Path, default=None)
    args = parser.parse_args()
    torch.set_num_threads(1)
    cfg = FitConfig(data=tuple(args.data), out=Path("unused.jgw"), max_epochs=args.epochs, ranking=2.0)
    base = load_evaluator(args.start, bearoff=False)
    frozen = base.nets["contact"]
    variants: list[tuple[str, PhaseNet, bool]] = [("shipped", torch_net(frozen), False)]
    if args.probe == "features":
        variants.append(("extra features", with_zero_inputs(torch_net(frozen), frozen.config.n_inputs + 12), True))
    else:
        hidden = tuple(int(h) for h in args.hidden.split(","))
        tensors = widened_tensors(frozen.tensors(), frozen.config, hidden, np.random.default_rng(cfg.seed))
        wide = PhaseNet(NetConfig(frozen.config.n_inputs, hidden))
        wide.load_state_dict({k: torch.from_numpy(v) for k, v in tensors.items()})
        variants.append((f"hidden {args.hidden}", wide.eval(), False))
    for label, net, extra in variants:
        data, _ = load_phase_data(cfg.data, cfg.validation, cfg.seed, encode_with_extra if extra else encode)
        net, history = fit_net(net, data["contact"], cfg, "contact", progress=False)
        for h in history:
            print(json.dumps({"variant": label, **h}), flush=True)
        if args.save is not None and label.startswith("hidden"):
            nets = dict(base.nets)
            nets["contact"] = net
            run = {"trainer": "contact_fit_probe", "config": vars(args) | {"data": [str(d) for d in args.data]}}
            Evaluator(nets, {"run": run}).save(args.save, json.loads(json.dumps(run, default=str)))


if __name__ == "__main__":
    main()
