"""Batched self-play TD(0) training of the phase nets.

All games advance in lockstep (:class:`engine.selfplay.SelfPlay`): one compiled move-generation
call yields every child of every game, one batched evaluation scores them, each game takes its
greedy move, and the flipped probabilities of the chosen child become the TD target of the
position before it.

With cube specs (``TrainConfig.cube``) the games are cubeful: before each roll the side on roll
may double and the other side take or pass, decided from the probabilities the last move's
evaluation already gave (:mod:`training.selfplay_cube`; ``jump-local`` and ``jump-net`` also
take a local volatility from the net being trained). The nets still learn cubeless
probabilities and move by cubeless equity; a pass ends the game's TD chain at its last evaluated
position, which gets no update of its own (see :meth:`CubeGames.cube_turn`).
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
from tqdm import tqdm

from engine.batch import children_batch
from engine.errors import InvalidWeights, JumpgammonError
from engine.position import PhaseName
from engine.selfplay import SelfPlay
from nets.bearoff import load_databases
from nets.encoding import Encoding
from nets.evaluator import ALL_NETS, PHASE_NETS, Evaluator, load_evaluator
from nets.lookahead import segment_argmax
from nets.mlp import cubeless_equity, flip_probabilities
from nets.model import PhaseNet, new_evaluator, recoded_evaluator, torch_evaluator, torch_nets, with_net
from nets.weights import remove_stale_temporaries
from players.cube import CubeSpec, parse_cube_spec
from training.checkpoint import TRAINER, RunState, TrainState, load_checkpoint, save_checkpoint
from training.config import (
    CONTINUE_LEARNING_RATE,
    DEFAULT_HIDDEN,
    DEFAULT_PARALLEL_GAMES,
    FRESH_LEARNING_RATE,
    TrainConfig,
)
from training.selfplay_cube import CubeGames, CubeTally
from weights import in_shipped_folder


def _check_out(out: Path) -> None:
    """Refuse a run file that is a folder, lies in the shipped weights/ folder, or cannot be written."""
    if out.is_dir():
        raise JumpgammonError(f"--out {str(out)!r} is a folder; give the run's file, e.g. runs/wide.jgw")
    if in_shipped_folder(out):  # sub-folders of weights/ too
        raise JumpgammonError(
            f"--out {str(out)!r} is in the shipped weights folder; train into a run file elsewhere "
            "and replace the shipped net with 'jumpgammon weights promote RUN'"
        )
    folder = out.parent if str(out.parent) else Path(".")
    while not folder.is_dir() and folder != folder.parent:  # the folder is made once the run is known good
        folder = folder.parent
    try:
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError as exc:
        raise JumpgammonError(f"--out {str(out)!r}: cannot write there ({exc.strerror or exc})") from None


def prepare_run(cfg: TrainConfig) -> tuple[Evaluator, RunState, dict[str, Any], str]:
    """Torch nets on ``cfg.device``, state and settings to continue ``cfg.out`` from (or start it), and a first line.

    Raises JumpgammonError when the options contradict the run saved in ``cfg.out``.
    """
    _check_out(cfg.out)
    remove_stale_temporaries(cfg.out)
    settings = cfg.to_json()
    asked_cube = settings["cube"]
    if not cfg.out.is_file():
        if cfg.learning_rate is None:
            settings["learning_rate"] = CONTINUE_LEARNING_RATE if cfg.start is not None else FRESH_LEARNING_RATE
        seed = cfg.seed if cfg.seed is not None else 1
        if cfg.start is not None:
            if cfg.hidden is not None:
                raise JumpgammonError(
                    f"--hidden and --start {str(cfg.start)!r}: a run started from weights keeps their widths"
                )
            base = load_evaluator(cfg.start, bearoff=False)
            try:
                ev = recoded_evaluator(base, cfg.encoding or base.encoding, cfg.device)
            except ValueError as exc:
                raise JumpgammonError(f"--start {str(cfg.start)!r}: {exc}") from None
            if cfg.crashed_net:
                ev = with_net(ev, PhaseName.CRASHED, PhaseName.CONTACT, cfg.device)
            hidden = tuple(ev.nets[PhaseName.CONTACT].config.hidden)
            origin = f"from {cfg.start}"
        else:
            hidden = cfg.hidden if cfg.hidden is not None else DEFAULT_HIDDEN
            names = ALL_NETS if cfg.crashed_net else PHASE_NETS
            ev = new_evaluator(hidden, seed, cfg.device, cfg.encoding or Encoding.V1, names)
            origin = f"nets {list(hidden)}"
        settings.update(
            hidden=list(hidden),
            seed=seed,
            cube=asked_cube or [],
            encoding=ev.encoding.value,
            crashed_net=PhaseName.CRASHED in ev.nets,
        )
        cfg.out.parent.mkdir(parents=True, exist_ok=True)  # only now: a refused run leaves no folders behind
        return (
            ev,
            RunState(),
            settings,
            f"starting {cfg.out}: {origin} ({_net_words(ev)}), seed {seed}, {_cube_words(settings['cube'])}, "
            f"target {cfg.games:,} games",
        )
    saved_ev, run = load_checkpoint(cfg.out)
    trainer = saved_ev.header.get("run", {}).get("trainer")
    if trainer != TRAINER:  # another trainer's nets: resuming them would take over its record and settings
        raise JumpgammonError(
            f"--out {str(cfg.out)!r} holds nets made by {trainer or 'an unknown trainer'}, not a self-play run; "
            f"train into a new file with --start {str(cfg.out)!r}"
        )
    ev = torch_evaluator(saved_ev, cfg.device)
    saved = run.config
    if cfg.learning_rate is None:  # a resumed run keeps its own rate unless --lr changes it
        settings["learning_rate"] = saved.get("learning_rate", FRESH_LEARNING_RATE)
    if cfg.encoding is not None and cfg.encoding is not ev.encoding:
        raise JumpgammonError(
            f"--encoding {cfg.encoding.short} differs from the encoding of {cfg.out} ({ev.encoding.short}); "
            "a run keeps its encoding"
        )
    if cfg.crashed_net and PhaseName.CRASHED not in ev.nets:
        raise JumpgammonError(f"--crashed-net: {cfg.out} has no crashed net, and a run keeps its nets")
    widths = {name: list(net.config.hidden) for name, net in ev.nets.items()}
    if cfg.hidden is not None and any(h != list(cfg.hidden) for h in widths.values()):
        raise JumpgammonError(
            f"--hidden {','.join(map(str, cfg.hidden))} differs from the nets of {cfg.out} ({widths}); "
            "start a new run to change the architecture"
        )
    seed = saved.get("seed", 1) if saved.get("seed") is not None else (cfg.seed if cfg.seed is not None else 1)
    if cfg.seed is not None and cfg.seed != seed:
        raise JumpgammonError(f"--seed {cfg.seed} differs from the seed {seed} of {cfg.out}; a run keeps its seed")
    if run.boards is not None and cfg.parallel_games is not None and len(run.boards) != cfg.parallel_games:
        raise JumpgammonError(
            f"--parallel {cfg.parallel_games} differs from the {len(run.boards)} games in flight in {cfg.out}"
        )
    saved_cube = list(saved.get("cube") or [])  # runs from before cubeful self-play were cubeless
    if asked_cube is not None and asked_cube != saved_cube:
        raise JumpgammonError(
            f"--cube {','.join(asked_cube) or 'none'} differs from the cube of {cfg.out} ({_cube_words(saved_cube)}); "
            "a run keeps its cube strategies"
        )
    if saved_cube and run.boards is not None and run.cube_games is None:
        raise InvalidWeights(f"{cfg.out}: a cubeful run without the cube state of its games")
    saved_start = saved.get("start")
    if cfg.start is not None and str(cfg.start) != saved_start:
        raise JumpgammonError(
            f"--start {str(cfg.start)!r} differs from the start of {cfg.out} ({saved_start or 'random nets'}); "
            "a run keeps its initial nets"
        )
    settings.update(
        hidden=widths[PhaseName.CONTACT],
        seed=seed,
        cube=saved_cube,
        start=saved_start,
        encoding=ev.encoding.value,
        crashed_net=PhaseName.CRASHED in ev.nets,
    )
    changed = [
        f"{key} {saved[key]} -> {settings[key]}"
        for key in ("learning_rate", "exploration", "use_bearoff")
        if key in saved and saved[key] != settings[key]
    ]
    line = f"resuming {cfg.out} at {run.progress.games:,} games (target {cfg.games:,})"
    if run.optimizers is None:
        line += "; no optimiser state saved, Adam starts afresh"
    if changed:
        line += "; changed: " + ", ".join(changed)
    return ev, run, settings, line


def _net_words(ev: Evaluator) -> str:
    """How the start line names a run's nets and encoding, e.g. ``contact, crashed, race; encoding v2``."""
    return f"{', '.join(ev.nets)}; encoding {ev.encoding.short}"


def _cube_words(texts: list[str]) -> str:
    """How the start and resume lines name a run's cube: ``cubeless`` or ``cube A vs B``."""
    return "cube " + " vs ".join(texts) if texts else "cubeless"


@dataclass
class TrainResult:
    """What a finished :func:`train` call reports: the run's counters and, cubeful, its cube record in total."""

    state: TrainState
    cube: dict[str, Any] | None = None  # CubeTally.report of the run so far; None for a cubeless run


def _attach_bearoff(ev: Evaluator) -> None:
    ev.one_sided, ev.two_sided = load_databases()


def train(cfg: TrainConfig, progress: bool = True) -> TrainResult:
    """Run self-play TD training until ``cfg.out`` holds ``cfg.games`` games; returns the final counters.

    The first line (on stderr) says whether the run starts or resumes. Checkpoints hold the
    optimiser state, the in-flight games and the dice RNG, so a run killed at any moment and
    started again with the same command ends bit for bit where an uninterrupted one would
    (same seed and thread count).
    """
    if cfg.threads:
        torch.set_num_threads(cfg.threads)
    ev, run, settings, line = prepare_run(cfg)
    print(line, file=sys.stderr)
    state = run.progress
    specs: tuple[CubeSpec, ...] = tuple(parse_cube_spec(text) for text in settings["cube"])
    tally = CubeTally.from_json(run.cube_tally) if run.cube_tally else CubeTally(strategies=max(len(specs), 1))
    if state.games >= cfg.games:
        return TrainResult(state, tally.report(specs) if specs else None)
    if cfg.use_bearoff:
        _attach_bearoff(ev)
    seed = int(settings["seed"])
    rng = np.random.default_rng(seed if run.rng is None and state.games == 0 else seed + state.games)
    if run.rng is not None:
        rng.bit_generator.state = run.rng
    nets = torch_nets(ev)
    rate = float(settings["learning_rate"])
    optims = {name: torch.optim.Adam(net.parameters(), lr=rate) for name, net in nets.items()}
    if run.optimizers is not None:
        for name, optim in optims.items():
            optim.load_state_dict(_torch_optimizer_state(run.optimizers[name]))
            for group in optim.param_groups:
                group["lr"] = rate
    n = cfg.parallel_games or (len(run.boards) if run.boards is not None else DEFAULT_PARALLEL_GAMES)
    if run.boards is not None and run.first is not None:
        selfplay = SelfPlay(rng, n, boards=run.boards, opening=run.first)
    else:
        selfplay = SelfPlay(rng, n)
    cube_arrays = run.cube_games if run.boards is not None else None
    cube_games = CubeGames(specs, cube_arrays, n, ev) if specs else None
    logged_tally = CubeTally.from_json(tally.to_json())
    started = time.time() - state.seconds
    next_checkpoint = state.games + cfg.checkpoint_every
    bar = tqdm(total=cfg.games, initial=state.games, disable=not progress, unit="game", smoothing=0.05)
    if cfg.log:
        cfg.log.parent.mkdir(parents=True, exist_ok=True)
    log = cfg.log.open("a") if cfg.log else None
    recent_losses: list[float] = []
    try:
        for turn in selfplay:
            if cube_games is not None:
                passed = cube_games.cube_turn(turn.opening, tally, turn.boards)
                if passed.any():  # a new game starts in the slot at once; the passed position is not trained
                    turn.end(passed)
                    state.games += int(passed.sum())
                    bar.update(int(passed.sum()))
            boards = turn.boards
            kids, offsets = children_batch(boards, turn.roll())
            kid_probs = ev.evaluate_boards(kids)
            pick, targets = moves_and_targets(kid_probs, offsets, cfg.exploration, rng)
            recent_losses.append(_learn(ev, nets, optims, boards, targets))
            state.steps += 1
            state.positions += n
            chosen = kids[pick]
            over = turn.play(chosen)  # finished games start again in their slots
            if cube_games is not None:
                cube_games.moved(kid_probs[pick], chosen, over, tally)
            finished = int(over.sum())
            if finished:
                state.games += finished
                bar.update(finished)
            if state.games >= next_checkpoint or state.games >= cfg.games:
                state.seconds = time.time() - started
                next_checkpoint = state.games + cfg.checkpoint_every
                run = RunState(
                    progress=state,
                    config=settings,
                    rng=dict(rng.bit_generator.state),
                    boards=turn.boards,
                    first=turn.opening,
                    optimizers={name: _numpy_optimizer_state(optim.state_dict()) for name, optim in optims.items()},
                    cube_games=cube_games.arrays() if cube_games is not None else None,
                    cube_tally=tally.to_json() if specs else None,
                )
                save_checkpoint(cfg.out, ev, run)
                loss = float(np.mean(recent_losses)) if recent_losses else float("nan")
                recent_losses.clear()
                record: dict[str, Any] = {
                    "games": state.games,
                    "positions": state.positions,
                    "seconds": round(state.seconds, 1),
                    "td_loss": loss,
                }
                if specs:
                    record["cube"] = tally.since(logged_tally).report(specs)
                    logged_tally = CubeTally.from_json(tally.to_json())
                bar.set_postfix(loss=f"{loss:.4f}")
                if log:
                    log.write(json.dumps(record) + "\n")
                    log.flush()
            if state.games >= cfg.games:
                break
    finally:
        bar.close()
        if log:
            log.close()
    return TrainResult(state, tally.report(specs) if specs else None)


def moves_and_targets(
    kid_probs: np.ndarray, offsets: np.ndarray, exploration: float, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """The child each game plays (the best for its mover, or with chance ``exploration`` a random one) and each
    position's TD target: the best child's probabilities, flipped to the side on roll before the move.

    ``kid_probs`` are the children's probabilities from their own side on roll's view, ``offsets`` each
    game's first child. The target is the best play's value even where a random move is then played: a
    random child's value would pull every explored position's value down (exploration's bias).
    """
    greedy = segment_argmax(-cubeless_equity(kid_probs), offsets)
    pick = greedy
    if exploration > 0:
        n = len(offsets) - 1
        explore = rng.random(n) < exploration
        if explore.any():
            random_pick = offsets[:-1] + (rng.random(n) * np.diff(offsets)).astype(np.int64)
            pick = np.where(explore, random_pick, greedy)
    return pick, flip_probabilities(kid_probs[greedy])


def _numpy_optimizer_state(state: dict[str, Any]) -> dict[str, Any]:
    """A torch optimiser state dict with numpy arrays in place of its tensors (what a checkpoint stores)."""
    per_param = {index: {k: v.detach().cpu().numpy() for k, v in s.items()} for index, s in state["state"].items()}
    return {"state": per_param, "param_groups": state["param_groups"]}


def _torch_optimizer_state(state: dict[str, Any]) -> dict[str, Any]:
    """Inverse of :func:`_numpy_optimizer_state`: tensors from the checkpoint's arrays."""
    per_param = {index: {k: torch.from_numpy(v) for k, v in s.items()} for index, s in state["state"].items()}
    return {"state": per_param, "param_groups": state["param_groups"]}


def _learn(
    ev: Evaluator,
    nets: Mapping[str, PhaseNet],
    optims: Mapping[str, torch.optim.Optimizer],
    boards: np.ndarray,
    targets: np.ndarray,
) -> float:
    """One gradient step per phase net (``nets``: ``ev``'s torch nets) on the positions it judges; the mean loss."""
    losses = []
    for name, mask in ev.routes(boards).items():
        if not mask.any():
            continue
        net = nets[name]
        net.train()
        x = torch.from_numpy(ev.encoding.inputs(boards[mask])).to(net.device)
        y = torch.from_numpy(targets[mask].astype(np.float32)).to(net.device)
        pred = net(x)
        loss = torch.nn.functional.mse_loss(pred, y, reduction="sum") / len(boards)
        optims[name].zero_grad()
        loss.backward()
        optims[name].step()
        net.eval()
        losses.append(float(loss.detach()) * len(boards) / int(mask.sum()))
    return float(np.mean(losses)) if losses else 0.0
