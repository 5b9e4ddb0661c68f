"""Batched self-play TD(0) training of the phase nets.

All games advance in lockstep: one compiled move-generation call yields every child of every
game, one batched evaluation scores them, each game takes its greedy move, and the flipped
probabilities of the chosen child become the TD target of the position before it.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
from tqdm import tqdm

from engine.batch import children_batch, phases
from engine.position import GamePhase, Position
from nets.encoding import encode
from nets.evaluator import Evaluator, nets_from_bytes, new_evaluator
from nets.lookahead import segment_argmax
from nets.model import cubeless_equity, flip_probabilities
from training.config import TrainConfig


@dataclass
class TrainState:
    """Progress of a run, stored in the weights header so a run can resume."""

    games: int = 0
    positions: int = 0
    steps: int = 0
    seconds: float = 0.0


def _restore(cfg: TrainConfig) -> tuple[Evaluator, TrainState]:
    """The evaluator and state to continue from ``cfg.out`` if it exists, else fresh ones."""
    if cfg.out.is_file():
        nets, header = nets_from_bytes(cfg.out.read_bytes(), str(cfg.out))
        ev = Evaluator(nets, header, device=cfg.device)
        state = TrainState(**header.get("run", {}).get("state", {}))
        return ev, state
    return new_evaluator(cfg.hidden, cfg.seed, cfg.device), TrainState()


def _attach_bearoff(ev: Evaluator) -> None:
    from nets.databases import load_databases

    ev.one_sided, ev.two_sided = load_databases()


def train(cfg: TrainConfig, progress: bool = True) -> TrainState:
    """Run self-play TD training as ``cfg`` says; returns the final state (weights in ``cfg.out``)."""
    if cfg.threads:
        torch.set_num_threads(cfg.threads)
    ev, state = _restore(cfg)
    if cfg.use_bearoff:
        _attach_bearoff(ev)
    rng = np.random.default_rng(cfg.seed + state.games)
    params = {name: list(net.parameters()) for name, net in ev.nets.items()}
    optims = {name: torch.optim.Adam(p, lr=cfg.learning_rate) for name, p in params.items()}
    n = cfg.parallel_games
    boards = np.repeat(Position.initial().array[None, :], n, axis=0)
    first = np.ones(n, bool)  # opening roll: no doubles
    target_games = state.games + cfg.games
    started = time.time() - state.seconds
    next_checkpoint = state.games + cfg.checkpoint_every
    bar = tqdm(total=cfg.games, disable=not progress, unit="game", smoothing=0.05)
    log = cfg.log.open("a") if cfg.log else None
    recent_losses: list[float] = []
    try:
        while state.games < target_games:
            dice = rng.integers(1, 7, size=(n, 2))
            while first.any():
                same = first & (dice[:, 0] == dice[:, 1])
                if not same.any():
                    break
                dice[same] = rng.integers(1, 7, size=(int(same.sum()), 2))
            kids, offsets = children_batch(boards, dice)
            kid_probs = ev.evaluate_boards(kids)
            mover_eq = -cubeless_equity(kid_probs)
            pick = segment_argmax(mover_eq, offsets)
            if cfg.exploration > 0:
                explore = rng.random(n) < cfg.exploration
                if explore.any():
                    sizes = np.diff(offsets)
                    rand_pick = offsets[:-1] + (rng.random(n) * sizes).astype(np.int64)
                    pick = np.where(explore, rand_pick, pick)
            targets = flip_probabilities(kid_probs[pick])
            recent_losses.append(_learn(ev, optims, boards, targets))
            state.steps += 1
            state.positions += n
            nxt = kids[pick].copy()
            over = phases(nxt) == GamePhase.OVER
            finished = int(over.sum())
            if finished:
                nxt[over] = Position.initial().array
                state.games += finished
                bar.update(finished)
            first = over
            boards = nxt
            if state.games >= next_checkpoint or state.games >= target_games:
                state.seconds = time.time() - started
                next_checkpoint = state.games + cfg.checkpoint_every
                _checkpoint(ev, cfg, state)
                loss = float(np.mean(recent_losses)) if recent_losses else float("nan")
                recent_losses.clear()
                record = {
                    "games": state.games,
                    "positions": state.positions,
                    "seconds": round(state.seconds, 1),
                    "td_loss": loss,
                }
                bar.set_postfix(loss=f"{loss:.4f}")
                if log:
                    log.write(json.dumps(record) + "\n")
                    log.flush()
    finally:
        bar.close()
        if log:
            log.close()
    return state


def _learn(
    ev: Evaluator, optims: Mapping[str, torch.optim.Optimizer], boards: np.ndarray, targets: np.ndarray
) -> float:
    """One gradient step per phase net on the positions of its phase; returns the mean loss."""
    ph = phases(boards)
    routes = {"contact": ph == GamePhase.CONTACT, "race": ph == GamePhase.RACE}
    if ev.two_sided is None:
        routes["race"] |= ph == GamePhase.BEAROFF_TWO_SIDED
    if ev.one_sided is None:
        routes["race"] |= ph == GamePhase.BEAROFF_ONE_SIDED
    losses = []
    for name, mask in routes.items():
        if not mask.any():
            continue
        net = ev.nets[name]
        net.train()
        x = torch.from_numpy(encode(boards[mask])).to(ev.device)
        y = torch.from_numpy(targets[mask].astype(np.float32)).to(ev.device)
        pred = net(x)
        loss = torch.nn.functional.mse_loss(pred, y, reduction="sum") / len(boards)
        optims[name].zero_grad()
        loss.backward()
        optims[name].step()
        net.eval()
        losses.append(float(loss.detach()) * len(boards) / int(mask.sum()))
    return float(np.mean(losses)) if losses else 0.0


def _checkpoint(ev: Evaluator, cfg: TrainConfig, state: TrainState) -> None:
    """Write the weights with the run's settings and progress in the header."""
    run: dict[str, Any] = {"trainer": "td0-selfplay", "config": cfg.to_json(), "state": state.__dict__.copy()}
    ev.save(cfg.out, run)
