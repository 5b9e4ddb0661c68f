"""Experiment 3 of the jump-model paper: remote jump volatility from cubeless self-play.

The paper (section 2, "Estimating remote jump volatility") plays 100,000 cubeless money games of
its bot against itself, keeps the game states where the probability of winning has passed
through 20-35% or 65-80% and then through the opposite window, takes the change of the win
probability over the next two plies from there, and reports the spread of those changes: 9.4%
overall (81k states), 14.8% when the game was a race at the first window, 9.3% in contact.

Its text calls the figure "the expected absolute value" of the jump but computes "the standard
deviation of probability changes"; both are reported here. Which states count is also not
spelled out: ``first`` takes the first state in the opposite window (one per qualifying game),
``every`` every state in the opposite window after the first window was visited. P is seat 0's
cubeless probability of winning at 0-ply before each roll (the exact result at the end), so the
windows are symmetric: a player who was at 20-35% (a taker) later stands at 65-80% (a redoubler).
"""

from __future__ import annotations

import io
import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from tqdm import tqdm

from benchmarks.experiments.plots import pyplot, save_png
from benchmarks.experiments.provenance import check_folder, claim_folder, committed_result, nothing_played
from cube import STATISTICAL_SCALE, implied_cube_life, win_loss_values
from engine.batch import phases
from engine.position import GamePhase, PhaseName, Position
from engine.selfplay import SelfPlay
from nets.evaluator import Evaluator, load_evaluator
from nets.lookahead import best_children_plies
from nets.weights import write_atomic

LOW = (0.20, 0.35)
HIGH = (0.65, 0.80)
PAPER = {"all": 0.094, PhaseName.RACE: 0.148, PhaseName.CONTACT: 0.093, "states": 81_000, "games": 100_000}
PAPER_LINEAR_ALPHA, PAPER_W = 0.113, 1.27


@dataclass
class Trajectories:
    """Per game: seat 0's win probability before each roll and whether the position was contact."""

    p: list[np.ndarray]
    contact: list[np.ndarray]
    points_seat0: np.ndarray  # signed cubeless points of each game for seat 0


BATCH = 1024  # games per lockstep batch, each saved as it finishes


def play_batch(evaluator: Evaluator, n: int, seed: int, index: int) -> Trajectories:
    """Play batch ``index`` (``n`` cubeless games of the net at 0-ply against itself); seat 0's view.

    Its dice come from ``default_rng([seed, index])``, so a batch is the same games whenever it is played.
    Raises RunawayGame when a game passes ``engine.game.MAX_PLIES`` moves.
    """
    seat = np.zeros(n, np.int64)  # per game, the seat on roll; who opens does not matter by symmetry
    p0 = evaluator.evaluate_boards(Position.initial().array[None])[0, 0]
    ps: list[list[float]] = [[float(p0)] for _ in range(n)]
    cs: list[list[bool]] = [[True] for _ in range(n)]
    result = np.zeros(n, np.int64)
    for turn in SelfPlay(np.random.default_rng([seed, index]), n, games=n):
        idx = turn.games
        kids, over = turn.move(lambda boards, dice: best_children_plies(evaluator, boards, dice, 0))
        probs = evaluator.evaluate_boards(kids)
        contact = phases(kids) == GamePhase.CONTACT
        new_seat = 1 - seat[idx]
        p_seat0 = np.where(new_seat == 0, probs[:, 0], 1.0 - probs[:, 0])
        for j, g in enumerate(idx):
            ps[g].append(float(p_seat0[j]))
            cs[g].append(bool(contact[j]))
        if over.any():
            # the side now on roll has lost; its exact probabilities say gammon or backgammon
            lost = probs[over]
            mult = 1 + (lost[:, 3] > 0.5).astype(np.int64) + (lost[:, 4] > 0.5).astype(np.int64)
            result[idx[over]] = np.where(new_seat[over] == 0, -mult, mult)
        seat[idx] = new_seat
    return Trajectories([np.array(x, np.float32) for x in ps], [np.array(x, bool) for x in cs], result)


def _save(path: Path, t: Trajectories) -> None:
    buffer = io.BytesIO()
    np.savez_compressed(
        buffer,
        p=np.concatenate(t.p),
        contact=np.concatenate(t.contact),
        lengths=np.array([len(x) for x in t.p]),
        points=t.points_seat0,
    )
    write_atomic(path, buffer.getvalue())


def _load(path: Path) -> Trajectories:
    with np.load(path) as z:
        cuts = np.cumsum(z["lengths"])[:-1]
        return Trajectories(np.split(z["p"], cuts), np.split(z["contact"], cuts), z["points"])


def play_selfplay(evaluator: Evaluator, games: int, seed: int, folder: Path, progress: bool = True) -> Trajectories:
    """All batches of the self-play set, each played once and kept in ``folder`` (a rerun resumes)."""
    folder.mkdir(parents=True, exist_ok=True)
    out = Trajectories([], [], np.zeros(0, np.int64))
    points = []
    bar = tqdm(total=games, unit="game", disable=not progress, file=sys.stderr)
    for index, start in enumerate(range(0, games, BATCH)):
        n = min(BATCH, games - start)
        path = folder / f"seed{seed}_batch{index}_{n}.npz"
        if path.exists():
            t = _load(path)
        else:
            t = play_batch(evaluator, n, seed, index)
            _save(path, t)
        out.p.extend(t.p)
        out.contact.extend(t.contact)
        points.append(t.points_seat0)
        bar.update(n)
    bar.close()
    out.points_seat0 = np.concatenate(points)
    return out


def _in(p: np.ndarray, window: tuple[float, float]) -> np.ndarray:
    return (p >= window[0]) & (p <= window[1])


def filtered_jumps(t: Trajectories, every: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(two-ply changes of P, race flag at the first window, game index) of the states passing the filter."""
    jumps, race, game = [], [], []
    for g, (p, contact) in enumerate(zip(t.p, t.contact, strict=True)):
        low, high = _in(p, LOW), _in(p, HIGH)
        first = np.flatnonzero(low | high)
        if len(first) == 0:
            continue
        s = int(first[0])
        opposite = high if low[s] else low
        later = np.flatnonzero(opposite[s + 1 :]) + s + 1
        if len(later) == 0:
            continue
        chosen = later if every else later[:1]
        end = len(p) - 1
        for k in chosen:
            jumps.append(float(p[min(k + 2, end)] - p[k]))
            race.append(not contact[s])
            game.append(g)
    return np.array(jumps), np.array(race, bool), np.array(game, np.int64)


def _spread(jumps: np.ndarray, game: np.ndarray, seed: int, replicates: int = 500) -> dict[str, float]:
    """Standard deviation and mean absolute value of the jumps, each with a bootstrap SE over games."""
    if len(jumps) < 2:
        nan = float("nan")
        return {"states": len(jumps), "games": 0, "sd": nan, "sd_se": nan, "mean_abs": nan, "mean_abs_se": nan}
    games, inverse = np.unique(game, return_inverse=True)
    rng = np.random.default_rng(seed)
    sds, abss = [], []
    for _ in range(replicates):
        w = rng.poisson(1.0, len(games))[inverse].astype(float)
        total = w.sum()
        mean = float(w @ jumps / total)
        sds.append(np.sqrt(w @ (jumps - mean) ** 2 / total))
        abss.append(w @ np.abs(jumps) / total)
    return {
        "states": int(len(jumps)),
        "games": int(len(games)),
        "sd": float(jumps.std(ddof=1)),
        "sd_se": float(np.std(sds, ddof=1)),
        "mean_abs": float(np.abs(jumps).mean()),
        "mean_abs_se": float(np.std(abss, ddof=1)),
    }


def analyse(t: Trajectories, evaluator: Evaluator, seed: int) -> dict[str, Any]:
    """The paper's statistics of a self-play set, both filter readings, with SEs and the implied Janowski x."""
    result: dict[str, Any] = {"games": len(t.p), "paper": PAPER}
    for name, every in (("first", False), ("every", True)):
        jumps, race, game = filtered_jumps(t, every)
        result[name] = {
            "all": _spread(jumps, game, seed),
            PhaseName.RACE: _spread(jumps[race], game[race], seed),
            PhaseName.CONTACT: _spread(jumps[~race], game[~race], seed),
        }
    _, w0, l0 = win_loss_values(evaluator.evaluate_boards(Position.initial().array[None])[0])
    pts = t.points_seat0
    won = np.abs(pts[pts > 0]).mean() if (pts > 0).any() else float("nan")
    lost = np.abs(pts[pts < 0]).mean() if (pts < 0).any() else float("nan")
    result["win_loss"] = {
        "W_initial": float(w0),
        "L_initial": float(l0),
        "W_played": float(won),
        "L_played": float(lost),
    }
    x_paper, _ = implied_cube_life(PAPER_W, PAPER_W, PAPER_LINEAR_ALPHA)
    w_mean = float(won + lost) / 2
    implied: dict[str, Any] = {"paper_inputs": {"alpha": PAPER_LINEAR_ALPHA, "W": PAPER_W, "x": float(x_paper)}}
    # The statistical alpha is scaled by 1.24 (the paper's 11.3/9.1) before the linear approximation uses it.
    for reading, part, stat in (("every", "all", "mean_abs"), ("first", "all", "mean_abs"), ("first", "all", "sd")):
        alpha = result[reading][part][stat] * STATISTICAL_SCALE
        x, _ = implied_cube_life(w_mean, w_mean, min(alpha, 0.49))
        implied[f"{reading}_{stat}"] = {"alpha_scaled": alpha, "W": w_mean, "x": float(x)}
    result["implied_janowski_x"] = implied
    return result


def run_remote(
    out: Path, games: int, seed: int, progress: bool = True, weights: Path | None = None, play: bool = True
) -> dict[str, Any]:
    """Play the self-play set (batches kept in ``out/batches``, so a rerun resumes), analyse, write result.json.

    The net is ``weights``' (default the shipped net). With ``play`` False nothing is played or
    written: the result is the folder's result.json (ValueError without one).
    """
    if not play:
        check_folder(out, weights)
        committed = committed_result(out)
        if committed is None:
            raise nothing_played(out)
        return committed
    claim_folder(out, weights)
    evaluator = load_evaluator(weights)
    t = play_selfplay(evaluator, games, seed, out / "batches", progress=progress)
    result = analyse(t, evaluator, seed)
    result.update({"seed": seed, "command": f"jumpgammon experiment remote --games {games} --seed {seed}"})
    write_atomic(out / "result.json", (json.dumps(result, indent=1) + "\n").encode())
    plot_jumps(t, out / "plot.png")
    return result


def plot_jumps(t: Trajectories, path: Path) -> bool:
    """Histograms of the filtered two-ply jumps (every-state reading), contact and race; False without matplotlib."""
    plt = pyplot()
    if plt is None:
        return False
    jumps, race, _ = filtered_jumps(t, every=True)
    fig, ax = plt.subplots(figsize=(7, 4.5))
    bins = [float(v) for v in np.linspace(-1, 1, 81)]
    for mask, name, paper in (
        (~race, PhaseName.CONTACT, PAPER[PhaseName.CONTACT]),
        (race, PhaseName.RACE, PAPER[PhaseName.RACE]),
    ):
        part = jumps[mask]
        label = f"{name}: {len(part):,} states, mean |jump| {np.abs(part).mean():.3f} (paper {paper})"
        ax.hist(part, bins=bins, density=True, histtype="step", lw=1.5, label=label)
    ax.set_xlabel("change of P(win) over two plies, after passing through opposite windows")
    ax.set_ylabel("density")
    ax.set_title(f"remote jump volatility, {len(t.p):,} cubeless self-play games")
    ax.legend(fontsize=8)
    save_png(plt, fig, path)
    return True
