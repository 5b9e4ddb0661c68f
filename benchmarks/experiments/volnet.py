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

import json
import time
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from arena import BlockResult, PlayerSpec, Rules, TournamentConfig, ledger, run_tournament
from arena.tournament import summarise
from benchmarks.experiments.plots import pyplot, save_png
from benchmarks.experiments.provenance import LEDGER_REMEDY, check_folder, claim_folder, committed_result
from benchmarks.experiments.volnet_data import GAMES_PER_BATCH, SAMPLE_RATE, VolatilityData, generate
from cube.states import CubeState
from cube.volatility import DEFAULT_REMOTE_ALPHA, local_volatility
from engine.batch import phases
from engine.position import GamePhase, PhaseName
from nets.evaluator import PHASE_NETS, Evaluator, load_evaluator
from nets.volatility import two_roll_outcomes_batch
from nets.volnet import VOLNET_TARGET, VolatilityNet, VolNetConfig, load_volatility_net, phase_routes, volnet_inputs
from nets.weights import sha256_hex, write_atomic
from players.cube import GATE_ALPHAS, parse_cube_spec
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


@dataclass(frozen=True)
class ErrorMetrics:
    """A volatility's error against the lookahead's on ``rows`` rows; the figures are None without rows.

    ``bias`` is the mean of predicted minus label; ``correlation`` is NaN where either side is constant.
    """

    rows: int
    mae: float | None = None
    rmse: float | None = None
    bias: float | None = None
    correlation: float | None = None
    label_mean: float | None = None
    label_sd: float | None = None

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> ErrorMetrics:
        """The figures as :meth:`to_json` wrote them."""
        return cls(**d)

    def to_json(self) -> dict[str, Any]:
        """The figures (only ``rows`` when there are none)."""
        return asdict(self) if self.rows else {"rows": 0}


def error_metrics(predicted: np.ndarray, label: np.ndarray) -> ErrorMetrics:
    """MAE, RMSE, bias (mean predicted minus label), correlation and the label's mean, on ``len(label)`` rows."""
    if len(label) == 0:
        return ErrorMetrics(rows=0)
    err = predicted - label
    varied = len(label) > 1 and label.std() > 0 and predicted.std() > 0
    corr = float(np.corrcoef(predicted, label)[0, 1]) if varied else float("nan")
    return ErrorMetrics(
        rows=int(len(label)),
        mae=float(np.abs(err).mean()),
        rmse=float(np.sqrt((err**2).mean())),
        bias=float(err.mean()),
        correlation=corr,
        label_mean=float(label.mean()),
        label_sd=float(label.std()),
    )


@dataclass(frozen=True)
class PartErrors:
    """On one part of the test positions: the net's error and that of a constant (the training rows' mean label)."""

    net: ErrorMetrics
    constant_train_mean: ErrorMetrics

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> PartErrors:
        """The errors as :meth:`to_json` wrote them."""
        return cls(ErrorMetrics.from_json(d["net"]), ErrorMetrics.from_json(d["constant_train_mean"]))

    def to_json(self) -> dict[str, Any]:
        """JSON-ready dict."""
        return {"net": self.net.to_json(), "constant_train_mean": self.constant_train_mean.to_json()}


@dataclass(frozen=True)
class GateAgreement:
    """In one cube state: of ``positions``, the ``open`` ones where jump-local's gate asks for a volatility, and how
    often the net's volatility gives the lookahead's decision there (share NaN when none is open)."""

    positions: int
    open: int
    same_decision: int
    same_share: float
    same_share_se: float
    error_on_open: ErrorMetrics

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> GateAgreement:
        """The agreement as :meth:`to_json` wrote it."""
        return cls(**{**d, "error_on_open": ErrorMetrics.from_json(d["error_on_open"])})

    def to_json(self) -> dict[str, Any]:
        """JSON-ready dict."""
        return {**{f.name: getattr(self, f.name) for f in fields(self)}, "error_on_open": self.error_on_open.to_json()}


def gate_agreement(
    probs: np.ndarray, sigma: np.ndarray, predicted: np.ndarray, remote_alpha: float = DEFAULT_REMOTE_ALPHA
) -> dict[str, GateAgreement]:
    """Where jump-local's gate asks for a volatility (centred and owned cube), how often the net's gives its decision.

    Returns per cube state (by its value): positions, those the gate leaves open, and of those the
    share where the action and the response taken with the net's volatility equal those with the
    lookahead's, with its binomial SE, and the error of the volatility on the open positions.
    """
    strategy = parse_cube_spec(f"jump-local:{remote_alpha}").strategy
    assert strategy is not None
    out: dict[str, GateAgreement] = {}
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
        out[state.value] = GateAgreement(
            positions=int(len(probs)),
            open=n,
            same_decision=int(same.sum()),
            same_share=share,
            same_share_se=float(np.sqrt(share * (1 - share) / n)) if n else float("nan"),
            error_on_open=error_metrics(predicted[open_], sigma[open_]),
        )
    return out


@dataclass(frozen=True)
class SpeedFigures:
    """Seconds per position of the batched lookahead and of the net, on as many positions each, and their ratio."""

    lookahead_positions: int
    lookahead_seconds_per_position: float
    net_positions: int
    net_seconds_per_position: float
    speedup: float


def measure_speed(evaluator: Evaluator, net: VolatilityNet, boards: np.ndarray) -> SpeedFigures | None:
    """Seconds per position of the batched lookahead (its sigma) and of the net (0-ply probabilities included).

    None without boards to time.
    """
    if len(boards) == 0:
        return None
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
    return SpeedFigures(
        lookahead_positions=int(len(few)),
        lookahead_seconds_per_position=lookahead,
        net_positions=int(len(many)),
        net_seconds_per_position=learned,
        speedup=lookahead / learned,
    )


@dataclass(frozen=True)
class VolnetData:
    """The labelled positions: how many, in how many batches, and the training/test split of the trained batches."""

    positions: int
    batches: int
    games_per_batch: int
    sample_rate: float
    trained_batches: int
    train_rows: int
    test_rows: int
    label_mean_train: float


@dataclass(frozen=True)
class VolnetNetInfo:
    """The trained net: its file, hash, per-phase architecture and the training records (:mod:`training.volnet`'s)."""

    file: str
    sha256_12: str
    architecture: dict[str, VolNetConfig]
    training: dict[str, Any]

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> VolnetNetInfo:
        """The net's record as :meth:`to_json` wrote it."""
        architecture = {k: VolNetConfig.from_json(c) for k, c in d["architecture"].items()}
        return cls(d["file"], d["sha256_12"], architecture, d["training"])

    def to_json(self) -> dict[str, Any]:
        """JSON-ready dict."""
        return {
            "file": self.file,
            "sha256_12": self.sha256_12,
            "architecture": {k: c.to_json() for k, c in self.architecture.items()},
            "training": self.training,
        }


@dataclass(frozen=True)
class HeadToHead:
    """jump-net (``a``) against jump-local (``b``) in ``ledger``: the tournament's record from jump-net's view.

    ``tournament`` is :meth:`arena.tournament.TournamentResult.to_json`, or ``{"games": 0}`` before any game.
    """

    a: str
    b: str
    ledger: str
    tournament: dict[str, Any]

    @property
    def games(self) -> int:
        """Games played."""
        return int(self.tournament.get("games", 0))

    @property
    def ppg(self) -> float | None:
        """jump-net's points per game (None before any game)."""
        return self.tournament.get("ppg")

    @property
    def se(self) -> float | None:
        """The SE of ``ppg`` (None before two pairs)."""
        return self.tournament.get("se")

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> HeadToHead:
        """The head-to-head as :meth:`to_json` wrote it."""
        a, b, ledger = d["a"], d["b"], d["ledger"]
        return cls(a, b, ledger, {k: v for k, v in d.items() if k not in ("a", "b", "ledger")})

    def to_json(self) -> dict[str, Any]:
        """JSON-ready dict: who played, the ledger, then the tournament's record."""
        return {"a": self.a, "b": self.b, "ledger": self.ledger, **self.tournament}


@dataclass(frozen=True)
class VolnetResult:
    """Experiment 5: the data, the net, its test errors by part, the gate agreement by cube state, the speed
    (None without contact test positions) and the head-to-head; ``complete`` for a run (not a report)."""

    experiment: ClassVar[str] = "volnet"
    seed: int
    command: str
    label: str
    data: VolnetData
    net: VolnetNetInfo
    test: dict[str, PartErrors]
    cube_decisions_where_gate_open: dict[str, GateAgreement]
    speed: SpeedFigures | None
    head_to_head: HeadToHead
    complete: bool

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> VolnetResult:
        """The result a finished run wrote to result.json."""
        return cls(
            seed=d["seed"],
            command=d["command"],
            label=d["label"],
            data=VolnetData(**d["data"]),
            net=VolnetNetInfo.from_json(d["net"]),
            test={k: PartErrors.from_json(v) for k, v in d["test"].items()},
            cube_decisions_where_gate_open={
                k: GateAgreement.from_json(v) for k, v in d["cube_decisions_where_gate_open"].items()
            },
            speed=SpeedFigures(**d["speed"]) if d["speed"] else None,
            head_to_head=HeadToHead.from_json(d["head_to_head"]),
            complete=d["complete"],
        )

    def to_json(self) -> dict[str, Any]:
        """The result as result.json and ``experiment volnet --json`` hold it."""
        return {
            "experiment": self.experiment,
            "seed": self.seed,
            "command": self.command,
            "label": self.label,
            "data": asdict(self.data),
            "net": self.net.to_json(),
            "test": {k: v.to_json() for k, v in self.test.items()},
            "cube_decisions_where_gate_open": {k: v.to_json() for k, v in self.cube_decisions_where_gate_open.items()},
            "speed": asdict(self.speed) if self.speed is not None else {},
            "head_to_head": self.head_to_head.to_json(),
            "complete": self.complete,
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
    """The first 12 hex digits of the file's SHA-256 (names the head-to-head ledger of one net).

    Twelve, not the 16 of :func:`nets.weights.weights_digest`: the committed result files store this field.
    """
    return sha256_hex(path)[:12]


def run_volnet(
    out: Path,
    positions: int,
    games: int,
    seed: int,
    workers: int = 1,
    play: bool = True,
    progress: bool = True,
    weights: Path | None = None,
) -> VolnetResult:
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
            return VolnetResult.from_json(committed)
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
        PhaseName.CONTACT: test & routes[PhaseName.CONTACT],
        PhaseName.RACE: test & routes[PhaseName.RACE],
        "bearoff": test & ((ph == GamePhase.BEAROFF_ONE_SIDED) | (ph == GamePhase.BEAROFF_TWO_SIDED)),
    }
    evaluation = {
        name: PartErrors(
            net=error_metrics(predicted[rows], data.sigma[rows]),
            constant_train_mean=error_metrics(np.full(int(rows.sum()), train_mean), data.sigma[rows]),
        )
        for name, rows in parts.items()
    }
    decisions = gate_agreement(probs[test], data.sigma[test], predicted[test])
    speed = measure_speed(evaluator, net, data.boards[test & routes[PhaseName.CONTACT]])
    ledger_path = out / f"h2h_{file_hash(net_path)}.ledger.jsonl"
    match = head_to_head(net_path, ledger_path, games, seed, workers, play, progress, weights)
    result = VolnetResult(
        seed=seed,
        command=f"jumpgammon experiment volnet --seed {seed} --positions {positions} --games {games}",
        label=VOLNET_TARGET,
        data=VolnetData(
            positions=int(len(data)),
            batches=batches,
            games_per_batch=GAMES_PER_BATCH,
            sample_rate=SAMPLE_RATE,
            trained_batches=trained_batches,
            train_rows=int(train.sum()),
            test_rows=int(test.sum()),
            label_mean_train=train_mean,
        ),
        net=VolnetNetInfo(
            file=str(net_path),
            sha256_12=file_hash(net_path),
            architecture=dict(net.configs),
            training=training,
        ),
        test=evaluation,
        cube_decisions_where_gate_open=decisions,
        speed=speed,
        head_to_head=HeadToHead(f"jump-net:{DEFAULT_REMOTE_ALPHA}", REFERENCE_CUBE, ledger_path.name, match),
        complete=play,
    )
    if play:
        write_atomic(out / "result.json", (json.dumps(result.to_json(), indent=1) + "\n").encode())
        plot_volnet(data.sigma[test], predicted[test], routes[PhaseName.CONTACT][test], out / "plot.png")
    return result


def plot_volnet(label: np.ndarray, predicted: np.ndarray, contact: np.ndarray, path: Path) -> bool:
    """Scatter of the net's volatility against the lookahead's on the test positions; False without matplotlib."""
    plt = pyplot()
    if plt is None:
        return False
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.8))
    top = float(max(label.max(initial=0.0), predicted.max(initial=0.0))) * 1.02 or 1.0
    for mask, name, color in ((contact, PhaseName.CONTACT, "C0"), (~contact, PhaseName.RACE, "C1")):
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
