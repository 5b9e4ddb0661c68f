"""Experiment 3 of the jump-model paper: remote jump volatility from cubeless self-play.

The paper (section 2, "Estimating remote jump volatility") wants the remote volatility
"conditioned on first landing in a game state where one of the players would take, then
subsequently landing on a state where the same player would redouble". It plays 100,000 cubeless
money games of its bot against itself, keeps the states where the probability of winning has
passed through 20-35% or 65-80% and then through the opposite window, takes the change of the win
probability over the next two plies from there, and reports 9.4% overall (81k states), 14.8% when
the game was a race at the first window, 9.3% in contact.

Only the side on roll can turn the cube, so a take state is one where the side on roll stands at
65-80% (it could double; the other side, at 20-35%, would take), and a redouble state one where the
taker of an earlier take state is on roll at 65-80%. The headline reading,
:attr:`Reading.REDOUBLER`, follows the game from its first take state and keeps every later state
where that taker, the would-be redoubler, is on roll at 65-80%. Two readings that ignore who is on
roll are kept beside it: :attr:`Reading.EVERY`, every state in the opposite window after the first
window seat 0's P passes through, and :attr:`Reading.FIRST`, the first such state of each game;
:attr:`Reading.REDOUBLER_FIRST` is the first redoubler state of each game. The paper's text calls
its figure "the expected absolute value" of the jump but computes "the standard deviation of
probability changes"; both are reported.

P is the cubeless probability of winning at 0-ply before each roll (the exact result at the end).
Every state that passes any reading is kept, with its jump, in ``jumps.npz``
(:class:`StateJumps`), from which :func:`analyse` recomputes every figure; the games themselves
stay out of git.
"""

from __future__ import annotations

import io
import json
import sys
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any

import numpy as np
from tqdm import tqdm

from benchmarks.experiments.plots import pyplot, save_png
from benchmarks.experiments.provenance import check_folder, claim_folder, committed_result, nothing_played
from cube import STATISTICAL_SCALE, implied_cube_life
from engine.batch import phases
from engine.position import GamePhase, PhaseName, Position
from engine.selfplay import SelfPlay
from nets.evaluator import Evaluator, load_evaluator
from nets.lookahead import best_children_plies
from nets.weights import write_atomic

LOW = (0.20, 0.35)  # the taker's window, its own P(win)
HIGH = (0.65, 0.80)  # the redoubler's window, its own P(win)
PAPER = {"all": 0.094, PhaseName.RACE: 0.148, PhaseName.CONTACT: 0.093, "states": 81_000, "games": 100_000}
PAPER_LINEAR_ALPHA, PAPER_W = 0.113, 1.27
#: The factor this engine's own sweeps put between the linear and the nonlinear approximation's
#: best constant volatility (experiment 2 by the degree rule: 9.1% and 9.0%, TD net, seed 1): none,
#: so 1.0, beside the paper's 11.3/9.1 = :data:`cube.STATISTICAL_SCALE`.
ENGINE_SCALE = 1.0
JUMPS_FILE = "jumps.npz"


class Reading(StrEnum):
    """Which states of a game count as landing in the redoubler's window after the taker's."""

    REDOUBLER = "redoubler"  # every state where the game's first taker is on roll at 65-80% (the paper's filter)
    REDOUBLER_FIRST = "redoubler_first"  # the first of those in each game
    EVERY = "every"  # every state in the opposite window, whoever is on roll
    FIRST = "first"  # the first of those in each game

    @property
    def on_roll(self) -> bool:
        """Whether the reading asks who is on roll (its jumps are then the redoubler's, else seat 0's)."""
        return self in (Reading.REDOUBLER, Reading.REDOUBLER_FIRST)


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


@dataclass(frozen=True)
class StateJumps:
    """Every state that passes some reading's filter, one row each (by game, then ply), and each game's result.

    Seat 0 opens every game, so the seat on roll at a state is ``ply % 2``; ``p_before`` and
    ``jump`` (the change of P over the next two plies, or to the game's end) are that side's.
    """

    game: np.ndarray  # int32: index of the game
    ply: np.ndarray  # int16: plies played before the state
    p_before: np.ndarray  # float32: P(win) of the side on roll before its roll
    jump: np.ndarray  # float32: change of that P over two plies
    race_window: np.ndarray  # bool: a race at the game's first window (EVERY, FIRST)
    race_take: np.ndarray  # bool: a race at the game's first take state (REDOUBLER, REDOUBLER_FIRST)
    member: dict[Reading, np.ndarray]  # bool: whether the state counts in each reading
    points_seat0: np.ndarray  # int8: signed cubeless points of each game for seat 0
    seed: int  # the self-play seed, which also seeds the bootstrap


def _game_states(p: np.ndarray, contact: np.ndarray) -> dict[str, np.ndarray]:
    """One game's columns of :class:`StateJumps` at every ply (``member`` as ``in_READING``), unfiltered."""
    n = len(p)
    ply = np.arange(n)
    seat = ply % 2
    ahead = p[np.minimum(ply + 2, n - 1)] - p  # seat 0's two-ply change, float32 as the old readings took it
    cols = {
        "ply": ply,
        "p_before": np.where(seat == 0, p, np.float32(1) - p),
        "jump": np.where(seat == 0, ahead, -ahead),
        "race_window": np.zeros(n, bool),
        "race_take": np.zeros(n, bool),
    }
    member = {r: np.zeros(n, bool) for r in Reading}
    # whoever is on roll: the first window seat 0's P visits, then every later state in the other one
    low, high = _in(p, LOW), _in(p, HIGH)
    hits = np.flatnonzero(low | high)
    if len(hits):
        s = int(hits[0])
        later = np.flatnonzero((high if low[s] else low)[s + 1 :]) + s + 1
        member[Reading.EVERY][later] = True
        member[Reading.FIRST][later[:1]] = True
        cols["race_window"][:] = not contact[s]
    # the game's first take state: the side on roll at 65-80% (it could double; the other side, at
    # 20-35%, would take); then every later state where that taker is on roll at 65-80% (it could redouble)
    doubling = _in(cols["p_before"], HIGH)
    takes = np.flatnonzero(doubling)
    if len(takes):
        j = int(takes[0])
        member[Reading.REDOUBLER][np.flatnonzero(doubling & (seat != seat[j]) & (ply > j))] = True
        cols["race_take"][:] = not contact[j]
    member[Reading.REDOUBLER_FIRST][np.flatnonzero(member[Reading.REDOUBLER])[:1]] = True
    cols.update({f"in_{r.value}": m for r, m in member.items()})
    return cols


def state_jumps(t: Trajectories, seed: int) -> StateJumps:
    """The states of ``t`` that pass any reading's filter, with their jumps (the side on roll's view)."""
    parts: dict[str, list[np.ndarray]] = {}
    for g, (p, contact) in enumerate(zip(t.p, t.contact, strict=True)):
        cols = _game_states(np.asarray(p, np.float32), np.asarray(contact, bool))
        keep = np.logical_or.reduce([cols[f"in_{r.value}"] for r in Reading])
        cols["game"] = np.full(len(keep), g)
        for name, col in cols.items():
            parts.setdefault(name, []).append(col[keep])

    def column(name: str, dtype: Any) -> np.ndarray:
        return np.concatenate(parts[name]).astype(dtype) if parts else np.zeros(0, dtype)

    return StateJumps(
        game=column("game", np.int32),
        ply=column("ply", np.int16),
        p_before=column("p_before", np.float32),
        jump=column("jump", np.float32),
        race_window=column("race_window", bool),
        race_take=column("race_take", bool),
        member={r: column(f"in_{r.value}", bool) for r in Reading},
        points_seat0=np.asarray(t.points_seat0).astype(np.int8),
        seed=seed,
    )


def save_jumps(path: Path, s: StateJumps) -> None:
    """Write ``s`` to ``path`` as a compressed npz (columns as named in :class:`StateJumps`), atomically."""
    arrays: dict[str, Any] = {
        "game": s.game,
        "ply": s.ply,
        "p_before": s.p_before,
        "jump": s.jump,
        "race_window": s.race_window,
        "race_take": s.race_take,
        "points_seat0": s.points_seat0,
        "seed": np.array(s.seed, np.uint64),
        **{f"in_{r.value}": m for r, m in s.member.items()},
    }
    buffer = io.BytesIO()
    np.savez_compressed(buffer, **arrays)
    write_atomic(path, buffer.getvalue())


def load_jumps(path: Path) -> StateJumps:
    """The :class:`StateJumps` that :func:`save_jumps` wrote to ``path``; ValueError naming a file that is not one."""
    try:
        with np.load(path) as z:
            return StateJumps(
                game=z["game"],
                ply=z["ply"],
                p_before=z["p_before"],
                jump=z["jump"],
                race_window=z["race_window"],
                race_take=z["race_take"],
                member={r: z[f"in_{r.value}"] for r in Reading},
                points_seat0=z["points_seat0"],
                seed=int(z["seed"]),
            )
    except (KeyError, ValueError, OSError) as e:
        raise ValueError(f"{str(path)!r} is not a file of remote-volatility jumps ({e})") from None


def reading_jumps(s: StateJumps, reading: Reading) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(two-ply changes of P, race flag at the first window, game index) of the states ``reading`` keeps.

    The changes are the redoubler's for the readings that ask who is on roll, else seat 0's.
    """
    m = s.member[reading]
    jump = s.jump[m].astype(np.float64)
    if not reading.on_roll:
        jump = np.where(s.ply[m] % 2 == 0, jump, -jump)
    race = (s.race_take if reading.on_roll else s.race_window)[m]
    return jump, race, s.game[m]


def _spreads(
    parts: dict[tuple[Reading, str], tuple[np.ndarray, np.ndarray]], n_games: int, seed: int, replicates: int = 500
) -> dict[tuple[Reading, str], dict[str, float]]:
    """Per part (its jumps and their games' indices): SD and mean absolute value, each with a bootstrap SE.

    Every replicate draws one Poisson(1) weight per game of the self-play set, shared by all the parts.
    """
    sums: dict[tuple[Reading, str], tuple[np.ndarray, np.ndarray]] = {}
    for key, (jumps, game) in parts.items():
        games, inverse = np.unique(game, return_inverse=True)
        # per game: its states, the sum of their jumps, of the squares, of the absolute values
        columns = [
            np.bincount(inverse, weights=v, minlength=len(games)) for v in (None, jumps, jumps**2, np.abs(jumps))
        ]
        sums[key] = games, np.stack(columns)
    draws: dict[tuple[Reading, str], tuple[list[float], list[float]]] = {key: ([], []) for key in parts}
    rng = np.random.default_rng(seed)
    for _ in range(replicates):
        weights = rng.poisson(1.0, n_games).astype(float)
        for key, (games, table) in sums.items():
            # a sum of products, not a BLAS dot product, which crawls on a machine whose cores are all busy
            total, total1, total2, total_abs = (table * weights[games]).sum(axis=1)
            if total == 0:  # no game of the part drawn (a handful of games only)
                continue
            mean = total1 / total
            draws[key][0].append(float(np.sqrt(max(total2 / total - mean**2, 0.0))))
            draws[key][1].append(float(total_abs / total))
    out = {}
    for key, (jumps, game) in parts.items():
        enough = len(jumps) >= 2 and len(draws[key][0]) >= 2
        nan = float("nan")
        sds, abss = draws[key]
        out[key] = {
            "states": int(len(jumps)),
            "games": int(len(np.unique(game))),
            "sd": float(jumps.std(ddof=1)) if enough else nan,
            "sd_se": float(np.std(sds, ddof=1)) if enough else nan,
            "mean_abs": float(np.abs(jumps).mean()) if len(jumps) else nan,
            "mean_abs_se": float(np.std(abss, ddof=1)) if enough else nan,
        }
    return out


def analyse(s: StateJumps) -> dict[str, Any]:
    """Every reading's statistics (overall, race, contact) with bootstrap SEs, and the implied Janowski x.

    The implied x (linear approximation, W = L = the mean points of a won and a lost game as
    played) is given from each reading's mean |jump| scaled both by the paper's 1.24 and by
    :data:`ENGINE_SCALE`.
    """
    parts = {}
    for reading in Reading:
        jumps, race, game = reading_jumps(s, reading)
        parts[reading, "all"] = jumps, game
        parts[reading, PhaseName.RACE] = jumps[race], game[race]
        parts[reading, PhaseName.CONTACT] = jumps[~race], game[~race]
    spreads = _spreads(parts, len(s.points_seat0), s.seed)
    readings: dict[str, Any] = {r: {} for r in Reading}
    for (reading, part), spread in spreads.items():
        readings[reading][part] = spread
    pts = s.points_seat0.astype(np.int64)
    won = float(np.abs(pts[pts > 0]).mean()) if (pts > 0).any() else float("nan")
    lost = float(np.abs(pts[pts < 0]).mean()) if (pts < 0).any() else float("nan")
    w_mean = (won + lost) / 2
    x_paper, _ = implied_cube_life(PAPER_W, PAPER_W, PAPER_LINEAR_ALPHA)
    implied: dict[str, Any] = {"paper_inputs": {"alpha": PAPER_LINEAR_ALPHA, "W": PAPER_W, "x": float(x_paper)}}
    for reading in Reading:
        implied[reading] = {}
        spread = readings[reading]["all"]
        for name, scale in (("paper_scale", STATISTICAL_SCALE), ("engine_scale", ENGINE_SCALE)):
            alpha = spread["mean_abs"] * scale
            x, _ = implied_cube_life(w_mean, w_mean, min(alpha, 0.49))
            # x falls linearly with alpha, so its SE is the slope (1 - x) / alpha times alpha's
            x_se = float((1 - x) / alpha * spread["mean_abs_se"] * scale)
            implied[reading][name] = {"scale": scale, "alpha": alpha, "W": w_mean, "x": float(x), "x_se": x_se}
    return {
        "games": len(s.points_seat0),
        "seed": s.seed,
        "headline": Reading.REDOUBLER,
        "paper": PAPER,
        "readings": readings,
        "win_loss": {"W_played": won, "L_played": lost},
        "implied_janowski_x": implied,
        "command": f"jumpgammon experiment remote --games {len(s.points_seat0)} --seed {s.seed}",
    }


def run_remote(
    out: Path, games: int, seed: int, progress: bool = True, weights: Path | None = None, play: bool = True
) -> dict[str, Any]:
    """Play the self-play set (batches kept in ``out/batches``, so a rerun resumes), analyse, write the files.

    Writes ``jumps.npz`` (:func:`save_jumps`), ``result.json`` and ``plot.png`` to ``out``. The
    net is ``weights``' (default the shipped net). With ``play`` False nothing is played or
    written: the result is recomputed from the folder's ``jumps.npz``, else read from its
    result.json (ValueError without either).
    """
    if not play:
        check_folder(out, weights)
        if (out / JUMPS_FILE).exists():
            return analyse(load_jumps(out / JUMPS_FILE))
        committed = committed_result(out)
        if committed is None:
            raise nothing_played(out)
        return committed
    claim_folder(out, weights)
    evaluator = load_evaluator(weights)
    t = play_selfplay(evaluator, games, seed, out / "batches", progress=progress)
    s = state_jumps(t, seed)
    save_jumps(out / JUMPS_FILE, s)
    result = analyse(s)
    write_atomic(out / "result.json", (json.dumps(result, indent=1) + "\n").encode())
    plot_jumps(s, out / "plot.png")
    return result


def plot_jumps(s: StateJumps, path: Path) -> bool:
    """Histograms of the two-ply jumps: the headline reading by phase, every state overall; False without matplotlib."""
    plt = pyplot()
    if plt is None:
        return False
    jumps, race, _ = reading_jumps(s, Reading.REDOUBLER)
    fig, ax = plt.subplots(figsize=(7, 4.5))
    bins = [float(v) for v in np.linspace(-1, 1, 81)]
    for mask, name, paper in (
        (~race, PhaseName.CONTACT, PAPER[PhaseName.CONTACT]),
        (race, PhaseName.RACE, PAPER[PhaseName.RACE]),
    ):
        part = jumps[mask]
        label = (
            f"redoubler on roll, {name}: {len(part):,} states, mean |jump| {np.abs(part).mean():.3f} (paper {paper})"
        )
        ax.hist(part, bins=bins, density=True, histtype="step", lw=1.5, label=label)
    every, _, _ = reading_jumps(s, Reading.EVERY)
    label = f"every state, either side on roll: {len(every):,}, mean |jump| {np.abs(every).mean():.3f}"
    ax.hist(every, bins=bins, density=True, histtype="step", lw=1, ls="--", color="grey", label=label)
    ax.set_xlabel("change of P(win) over two plies, after passing through opposite windows")
    ax.set_ylabel("density")
    ax.set_title(f"remote jump volatility, {len(s.points_seat0):,} cubeless self-play games")
    ax.legend(fontsize=7)
    save_png(plt, fig, path)
    return True
