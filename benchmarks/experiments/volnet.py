"""Experiment 5: a volatility net, learned local jump volatility in place of the 441-roll lookahead.

Four stages, each kept on disk under the output folder so the same command resumes:

1. data (:mod:`benchmarks.experiments.volnet_data`): positions from cubeless self-play labelled
   with the lookahead's sigma_J (git-ignored ``data/``, deterministic from the seed);
2. training (:mod:`training.volnet`): one small net per phase on the training games, written to
   ``volnet.jgw`` (kept: a rerun reuses it; delete it to train again);
3. evaluation: its error against the lookahead on held-out games (MAE, RMSE, correlation, per
   phase), how often the jump-local decision it gives equals the one with the lookahead where
   the gate asks for a volatility, and the speed of both, batched;
4. head to head: ``jump-net`` against ``jump-local`` (both the shipped net at 0-ply, cubeful,
   mirrored pairs), kept in a ledger named by the net's hash, so a retrained net starts afresh.

It writes ``result.json`` and ``plot.png`` (net against lookahead on the test positions).
"""

from __future__ import annotations

import hashlib
import json
import time
from pathlib import Path
from typing import Any

import numpy as np

from arena import BlockResult, PlayerSpec, Rules, TournamentConfig, ledger, run_tournament
from arena.tournament import summarise
from benchmarks.experiments.plots import pyplot, save_png
from benchmarks.experiments.provenance import LEDGER_REMEDY, check_folder, claim_folder, committed_result
from benchmarks.experiments.volnet_data import GAMES_PER_BATCH, SAMPLE_RATE, VolatilityData, generate
from cube.states import CubeState
from cube.volatility import local_volatility
from engine.batch import phases
from engine.position import GamePhase
from nets.evaluator import PHASE_NETS, Evaluator, load_evaluator
from nets.volatility import two_roll_outcomes_batch
from nets.volnet import VOLNET_TARGET, VolatilityNet, load_volatility_net, phase_routes, volnet_inputs
from nets.weights import write_atomic
from players.cube import DEFAULT_REMOTE_ALPHA, GATE_ALPHAS, parse_cube_spec
from players.specs import net_spec

TEST_SHARE = 0.2  # games of the training batches held out for the test (later batches are all test)
NET_FILE = "volnet.jgw"
REFERENCE_CUBE = "jump-local"
SPEED_LOOKAHEAD_POSITIONS = 64
SPEED_NET_POSITIONS = 4096


def split_games(data: VolatilityData, seed: int, trained_batches: int) -> np.ndarray:
    """Boolean mask of the training rows: games of the first ``trained_batches`` batches not drawn for the test."""
    in_training_batches = data.game < trained_batches * GAMES_PER_BATCH
    games = np.unique(data.game[in_training_batches])
    rng = np.random.default_rng([seed, 5])
    test_games = rng.choice(games, size=int(round(TEST_SHARE * len(games))), replace=False)
    return in_training_batches & ~np.isin(data.game, test_games)


def phase_rows(evaluator: Evaluator, data: VolatilityData) -> tuple[dict[str, np.ndarray], np.ndarray]:
    """Row masks per phase net (contact, race) and the (n, 5) 0-ply probabilities of every row."""
    return phase_routes(data.boards), evaluator.evaluate_boards(data.boards)


def train_net(
    evaluator: Evaluator, data: VolatilityData, train: np.ndarray, seed: int, trained_batches: int
) -> tuple[VolatilityNet, dict[str, Any]]:
    """Fit both phase nets on the training rows; returns the frozen net and the training records."""
    import torch

    from training.volnet import VolTrainSettings, train_volatility_net

    torch.set_num_threads(1)  # the machine is shared; one core
    routes, probs = phase_rows(evaluator, data)
    inputs, targets, groups = {}, {}, {}
    for phase in PHASE_NETS:
        rows = routes[phase] & train
        inputs[phase] = volnet_inputs(data.boards[rows], probs[rows])
        targets[phase] = data.sigma[rows]
        groups[phase] = data.game[rows]
    settings = VolTrainSettings(seed=seed)
    started = time.perf_counter()
    run = {"seed": seed, "trained_batches": trained_batches, "training_rows": int(train.sum()), "target": VOLNET_TARGET}
    net, records = train_volatility_net(inputs, targets, groups, settings, run)
    for record in records.values():
        record["seconds_total"] = time.perf_counter() - started
    return net, records


def error_metrics(predicted: np.ndarray, label: np.ndarray) -> dict[str, float]:
    """MAE, RMSE, bias (mean predicted minus label), correlation and the label's mean, on ``len(label)`` rows."""
    if len(label) == 0:
        return {"rows": 0}
    err = predicted - label
    varied = len(label) > 1 and label.std() > 0 and predicted.std() > 0
    corr = float(np.corrcoef(predicted, label)[0, 1]) if varied else float("nan")
    return {
        "rows": int(len(label)),
        "mae": float(np.abs(err).mean()),
        "rmse": float(np.sqrt((err**2).mean())),
        "bias": float(err.mean()),
        "correlation": corr,
        "label_mean": float(label.mean()),
        "label_sd": float(label.std()),
    }


def gate_agreement(
    probs: np.ndarray, sigma: np.ndarray, predicted: np.ndarray, remote_alpha: float = DEFAULT_REMOTE_ALPHA
) -> dict[str, Any]:
    """Where jump-local's gate asks for a volatility (centred and owned cube), how often the net's gives its decision.

    Returns per cube state: positions, those the gate leaves open, and of those the share where
    the action and the response taken with the net's volatility equal those with the lookahead's,
    with its binomial SE, and the error of the volatility on the open positions.
    """
    strategy = parse_cube_spec(f"jump-local:{remote_alpha}").strategy
    assert strategy is not None
    out: dict[str, Any] = {}
    for state in (CubeState.CENTERED, CubeState.OWNED):
        states = np.full(len(probs), state.value)
        ladder = [strategy.decide(probs, states, local_alpha=a) for a in GATE_ALPHAS]
        settled = np.ones(len(probs), bool)
        for d in ladder[1:]:
            settled &= (d.action == ladder[0].action) & (d.response == ladder[0].response)
        open_ = ~settled
        with_lookahead = strategy.decide(probs[open_], states[open_], local_alpha=sigma[open_])
        with_net = strategy.decide(probs[open_], states[open_], local_alpha=predicted[open_])
        same = (with_lookahead.action == with_net.action) & (with_lookahead.response == with_net.response)
        n = int(open_.sum())
        share = float(same.mean()) if n else float("nan")
        out[state.value] = {
            "positions": int(len(probs)),
            "open": n,
            "same_decision": int(same.sum()),
            "same_share": share,
            "same_share_se": float(np.sqrt(share * (1 - share) / n)) if n else float("nan"),
            "error_on_open": error_metrics(predicted[open_], sigma[open_]),
        }
    return out


def measure_speed(evaluator: Evaluator, net: VolatilityNet, boards: np.ndarray) -> dict[str, float]:
    """Seconds per position of the batched lookahead (its sigma) and of the net (0-ply probabilities included).

    Empty (no figures) without boards to time.
    """
    if len(boards) == 0:
        return {}
    few = boards[:SPEED_LOOKAHEAD_POSITIONS]
    many = np.resize(boards, (SPEED_NET_POSITIONS, 26))
    net.volatility(few, evaluator.evaluate_boards(few))  # compiled kernels warm
    two_roll_outcomes_batch(evaluator, few[:2])
    started = time.perf_counter()
    local_volatility(two_roll_outcomes_batch(evaluator, few)[:, :, 0])
    lookahead = (time.perf_counter() - started) / len(few)
    started = time.perf_counter()
    net.volatility(many, evaluator.evaluate_boards(many))
    learned = (time.perf_counter() - started) / len(many)
    return {
        "lookahead_positions": int(len(few)),
        "lookahead_seconds_per_position": lookahead,
        "net_positions": int(len(many)),
        "net_seconds_per_position": learned,
        "speedup": lookahead / learned,
    }


def head_to_head_config(net_path: Path, games: int, seed: int, weights: Path | None = None) -> TournamentConfig:
    """jump-net (A, volatility from ``net_path``) against jump-local (B), both ``weights``' net at 0-ply, cubeful.

    ``weights`` defaults to the shipped net.
    """
    checker = net_spec(0, weights)
    return TournamentConfig(
        PlayerSpec(checker, f"jump-net:{DEFAULT_REMOTE_ALPHA}:{net_path}"),
        PlayerSpec(checker, REFERENCE_CUBE),
        games=games,
        seed=seed,
        rules=Rules(cubeful=True),
    )


def head_to_head(
    net_path: Path,
    ledger_path: Path,
    games: int,
    seed: int,
    workers: int,
    play: bool,
    progress: bool,
    weights: Path | None = None,
) -> dict[str, Any]:
    """Play (or, without ``play``, only read) the head-to-head up to ``games``; its result from jump-net's view."""
    cfg = head_to_head_config(net_path, games, seed, weights)
    if play:
        result, _ = run_tournament(cfg, workers=workers, progress=progress, checkpoint=ledger_path)
        return result.to_json()
    # A money tournament's ledger holds game blocks only; the filter narrows the type.
    loaded = ledger.load(ledger_path, cfg, option="ledger", remedy=LEDGER_REMEDY)
    held = [b for b in loaded if isinstance(b, BlockResult)]
    blocks = sorted(held, key=lambda b: b.first_pair)
    if not blocks:
        return {"games": 0}
    cache: dict[str, Any] = {}
    names = (cfg.a.build(cache).name, cfg.b.build(cache).name)
    return summarise(cfg, names, blocks, 0.0).to_json()


def file_hash(path: Path) -> str:
    """The first 12 hex digits of the file's SHA-256 (names the head-to-head ledger of one net)."""
    return hashlib.sha256(path.read_bytes()).hexdigest()[:12]


def run_volnet(
    out: Path,
    positions: int,
    games: int,
    seed: int,
    workers: int = 1,
    play: bool = True,
    progress: bool = True,
    weights: Path | None = None,
) -> dict[str, Any]:
    """Run (or resume) experiment 5 in ``out`` with ``weights``' net (default shipped); writes and returns result.json.

    Without ``play`` nothing is computed that is not on disk and nothing is written: the data
    batches present, the existing net and the games in the ledger; without a net or data, the
    folder's result.json (neither: an error).
    """
    if play:
        claim_folder(out, weights)
    else:
        check_folder(out, weights)
        has_data = (out / "data").is_dir() and any((out / "data").iterdir())
        committed = committed_result(out)
        if committed is not None and not ((out / NET_FILE).exists() and has_data):
            return committed
    evaluator = load_evaluator(weights)
    data = generate(evaluator, out / "data", positions, seed, progress=progress, play=play)
    batches = int(data.game.max()) // GAMES_PER_BATCH + 1 if len(data) else 0
    net_path = out / NET_FILE
    training: dict[str, Any]
    if net_path.exists():
        net = load_volatility_net(net_path)
        training = dict(net.run.get("records_summary", {}))
        trained_batches = int(net.run.get("trained_batches", batches))
    elif play:
        if len(data) == 0:
            raise ValueError("no training data: run with a positive --positions")
        trained_batches = batches
        train = split_games(data, seed, trained_batches)
        net, records = train_net(evaluator, data, train, seed, trained_batches)
        training = {
            phase: {k: v for k, v in r.items() if k != "history"} | {"final": r["history"][r["best_epoch"] - 1]}
            for phase, r in records.items()
        }
        net.run["records_summary"] = training
        net.save(net_path)
        net = load_volatility_net(net_path)  # the file is what play uses
    else:
        raise ValueError(f"{net_path} does not exist yet: run without --report to train it")
    train = split_games(data, seed, trained_batches)
    test = ~train
    routes, probs = phase_rows(evaluator, data)
    predicted = net.volatility(data.boards, probs)
    train_mean = float(data.sigma[train].mean()) if train.any() else float("nan")
    ph = phases(data.boards)
    parts = {
        "all": test,
        "contact": test & routes["contact"],
        "race": test & routes["race"],
        "bearoff": test & ((ph == GamePhase.BEAROFF_ONE_SIDED) | (ph == GamePhase.BEAROFF_TWO_SIDED)),
    }
    evaluation = {
        name: {
            "net": error_metrics(predicted[rows], data.sigma[rows]),
            "constant_train_mean": error_metrics(np.full(int(rows.sum()), train_mean), data.sigma[rows]),
        }
        for name, rows in parts.items()
    }
    decisions = gate_agreement(probs[test], data.sigma[test], predicted[test])
    speed = measure_speed(evaluator, net, data.boards[test & routes["contact"]])
    ledger_path = out / f"h2h_{file_hash(net_path)}.ledger.jsonl"
    match = head_to_head(net_path, ledger_path, games, seed, workers, play, progress, weights)
    result = {
        "experiment": "volnet",
        "seed": seed,
        "command": f"jumpgammon experiment volnet --seed {seed} --positions {positions} --games {games}",
        "label": VOLNET_TARGET,
        "data": {
            "positions": int(len(data)),
            "batches": batches,
            "games_per_batch": GAMES_PER_BATCH,
            "sample_rate": SAMPLE_RATE,
            "trained_batches": trained_batches,
            "train_rows": int(train.sum()),
            "test_rows": int(test.sum()),
            "label_mean_train": train_mean,
        },
        "net": {
            "file": str(net_path),
            "sha256_12": file_hash(net_path),
            "architecture": {k: c.to_json() for k, c in net.configs.items()},
            "training": training,
        },
        "test": evaluation,
        "cube_decisions_where_gate_open": decisions,
        "speed": speed,
        "head_to_head": {
            "a": f"jump-net:{DEFAULT_REMOTE_ALPHA}",
            "b": REFERENCE_CUBE,
            "ledger": ledger_path.name,
            **match,
        },
        "complete": play,
    }
    if play:
        write_atomic(out / "result.json", (json.dumps(result, indent=1) + "\n").encode())
        plot_volnet(data.sigma[test], predicted[test], routes["contact"][test], out / "plot.png")
    return result


def plot_volnet(label: np.ndarray, predicted: np.ndarray, contact: np.ndarray, path: Path) -> bool:
    """Scatter of the net's volatility against the lookahead's on the test positions; False without matplotlib."""
    plt = pyplot()
    if plt is None:
        return False
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.8))
    top = float(max(label.max(initial=0.0), predicted.max(initial=0.0))) * 1.02 or 1.0
    for mask, name, color in ((contact, "contact", "C0"), (~contact, "race", "C1")):
        if not mask.any():
            continue
        err = predicted[mask] - label[mask]
        mae = float(np.abs(err).mean()) if mask.any() else float("nan")
        axes[0].scatter(
            label[mask],
            predicted[mask],
            s=2,
            alpha=0.3,
            color=color,
            label=f"{name}: {int(mask.sum()):,} positions, MAE {mae:.4f}",
            rasterized=True,
        )
        axes[1].hist(
            err, bins=np.linspace(-0.06, 0.06, 121).tolist(), histtype="step", density=True, color=color, label=name
        )
    axes[0].plot([0, top], [0, top], color="k", lw=0.8)
    axes[0].set_xlim(0, top)
    axes[0].set_ylim(0, top)
    axes[0].set_xlabel("sigma_J from the 441-roll lookahead")
    axes[0].set_ylabel("sigma_J from the volatility net")
    axes[0].legend(fontsize=8, markerscale=4)
    axes[0].set_title("local volatility, held-out games")
    axes[1].set_xlabel("net minus lookahead")
    axes[1].set_ylabel("density")
    axes[1].legend(fontsize=8)
    axes[1].set_title("error")
    save_png(plt, fig, path, dpi=110)
    return True
