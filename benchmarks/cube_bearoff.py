"""Cube strategies against exact play on the two-sided bearoff database.

The two-sided database (:mod:`nets.bearoff`, up to 6 checkers a side on the home points) holds
the exact cubeless win chance and the exact cubeful money equities of every position, so each
cube strategy's decisions can be scored against optimal cube play with nothing estimated.

**Positions.** Every two-sided position in which both sides still have a checker: 923 x 923 =
851,929 (finished games excluded), or a seeded uniform sample of them (``sample=``).

**Decisions** (side on roll's view, per unit of the current cube; no gammons in this region).
With ``ND_s`` the exact no-double equity in cube state ``s``, ``DT = 2 ND_unavailable`` (after a
take the opponent owns the 2-cube in the same position, side on roll still to roll),
``DP = +1`` and ``E*_s = max(ND_s, min(DT, DP))`` the exact optimal equity:

(a) *double*: the initial double with a centred cube; (b) *redouble*: the side on roll owns
the cube. A strategy that doubles gets ``min(DT, DP)`` (the opponent answers optimally), one that
does not (including ``CubeAction.TOO_GOOD``) gets ``ND_s``; its cost is ``E*_s`` minus that (>= 0).
(c) *take*: the opponent's answer to a double. Taking gives the taker ``-DT``, passing ``-1``;
the correct answer is take iff ``DT <= 1`` and a wrong answer costs ``|1 - DT|``. It is scored on
every position ("take, all") and on the positions where a centred double is exactly correct
("take, doubled": ``min(DT, DP) >= ND_centred``, where the taker meets the decision in optimal
play); the JSON also has the window ``|DT - 1| <= 0.5``.

A ``CubeAction.TOO_GOOD`` action counts as not doubling (it plays on); without gammons playing on
is worth at most +1, so too good is never right here, and the JSON's ``double_cash`` /
``redouble_cash`` score those actions as double/pass instead, to separate that from the rest of
each model.

An *error* is a decision with cost > 1e-9 (exact ties, e.g. certain wins where doubling and
playing on are both worth +1, are not errors); counts of errors costing more than 0.001 and 0.01
are reported too. Costs are averaged per decision (every position in the set) and per error.

**Strategies** see only the exact cubeless win chance (gammon rates zero). ``jump_local`` also
needs the local volatility: the 441 two-roll win chances are computed exactly from the
database (:meth:`nets.bearoff.TwoSidedDatabase.two_roll_win_chances`: each side plays the move
maximising its exact win chance; a side that bears off its last checker has won), and the
standard deviation over the 441 roll pairs is the local alpha (:func:`cube.local_volatility`).
Their weighted mean equals the database win chance exactly, which the benchmark checks.

**Models**: dead, live, Janowski x = 0.5, 0.68 (gnubg-like), 0.8 and the best x, refined
Janowski (0.6, 0.8), the jump model (double-exponential jumps) with alpha = 0.1 and the best
alpha for each of the linear, nonlinear and numerical approximations, and jump_local (linear and
numerical) with remote alpha 0.1 and the best alpha of that approximation. The best-fitting
constant ``alpha`` of the jump model (each approximation separately, on a grid) and Janowski
``x`` (grid step 0.05) are chosen on the same positions by the smallest sum of the three mean
costs (a, b, c "all"), so they are in-sample fits.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, fields
from functools import partial
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
from tqdm import tqdm

import cube
from cube.states import CubeState
from cube.strategy import CubeStrategy
from nets.bearoff import N_TWO_SIDED_SIDE, TwoSidedDatabase, load_two_sided, one_sided_points
from nets.weights import write_atomic

__all__ = [
    "ALPHA_GRID",
    "JANOWSKI_GRID",
    "CubeBearoffResult",
    "CubeBearoffSettings",
    "DecisionCosts",
    "Decisions",
    "DoubleCosts",
    "ExactReference",
    "Fits",
    "GridFit",
    "ModelScores",
    "Scores",
    "TakeCosts",
    "bench_cube_bearoff",
    "boards_from_indices",
    "exact_reference",
    "local_alphas",
    "markdown_table",
    "oracle_decisions",
    "position_indices",
    "score",
    "strategy_decisions",
    "write_results",
]

SIDE = N_TWO_SIDED_SIDE
TOL = 1e-9  # a decision costing more than this is an error
THRESHOLDS = (0.001, 0.01)
ALPHA_GRID = (0.04, 0.06, 0.08, 0.1, 0.12, 0.14, 0.16, 0.18, 0.2, 0.22, 0.25, 0.3)
JANOWSKI_GRID = tuple(round(0.05 * k, 2) for k in range(21))
DEFAULT_SEED = 20240601
CHUNK = 25_000  # positions per strategy call (bounds the numerical model's memory)


# --- positions and the exact reference -------------------------------------------------------


def position_indices(sample: int | None = None, seed: int = DEFAULT_SEED) -> tuple[np.ndarray, np.ndarray]:
    """One-sided indices ``(i, j)`` (side on roll, opponent), both >= 1: all, or a seeded sample."""
    n = SIDE - 1
    flat = np.arange(n * n, dtype=np.int64)
    if sample is not None and sample < flat.size:
        flat = np.sort(np.random.default_rng(seed).choice(flat.size, size=sample, replace=False))
    return flat // n + 1, flat % n + 1


def boards_from_indices(i: np.ndarray, j: np.ndarray) -> np.ndarray:
    """int8 ``(n, 26)`` boards, side on roll's view, of the two-sided positions ``(i, j)``."""
    pts = one_sided_points()
    boards = np.zeros((len(i), 26), np.int8)
    boards[:, 1:7] = pts[i]
    boards[:, 24:18:-1] = -pts[j]  # the opponent's ace point is our 24
    return boards


@dataclass(frozen=True)
class ExactReference:
    """Exact figures per position: win chance, no-double and optimal equities (n, 3), DT (n,)."""

    win: np.ndarray
    no_double: np.ndarray
    optimal: np.ndarray
    double_take: np.ndarray

    @property
    def double_equity(self) -> np.ndarray:
        """``min(DT, DP)``: the doubler's equity when the opponent answers optimally."""
        return np.minimum(self.double_take, 1.0)


def exact_reference(db: TwoSidedDatabase, i: np.ndarray, j: np.ndarray) -> ExactReference:
    """The exact reference of positions ``(i, j)`` (cube columns: centred, owned, unavailable)."""
    idx = np.asarray(i, np.int64) * SIDE + np.asarray(j, np.int64)
    nd = db.no_double[:, idx].T.copy()
    return ExactReference(
        win=db.win[idx].copy(),
        no_double=nd,
        optimal=db.optimal[:, idx].T.copy(),
        double_take=2.0 * nd[:, 2],
    )


# --- local volatility ------------------------------------------------------------------------


def local_alphas(db: TwoSidedDatabase, i: np.ndarray, j: np.ndarray, chunk: int = 20_000) -> tuple[np.ndarray, float]:
    """Local volatility (std over the 441 roll pairs) per position and max |P_a - win| (check).

    The 441 win chances are the database's exact lookahead (:meth:`TwoSidedDatabase.two_roll_win_chances`).
    """
    weights = cube.two_roll_weights().ravel()
    alpha = np.empty(len(i), np.float64)
    worst = 0.0
    for a in range(0, len(i), chunk):
        idx = i[a : a + chunk] * SIDE + j[a : a + chunk]
        p = db.two_roll_win_chances(idx)
        alpha[a : a + chunk] = cube.local_volatility(p)
        pa = p @ weights
        worst = max(worst, float(np.abs(pa - db.win[idx]).max(initial=0.0)))
    return alpha, worst


# --- decisions and scoring -------------------------------------------------------------------


@dataclass(frozen=True)
class Decisions:
    """Boolean cube decisions per position: double (centred), redouble (owned), take.

    ``too_good`` / ``too_good_owned`` mark the no-double actions that were ``TOO_GOOD`` (they count
    as not doubling; the ``*_cash`` scores count them as double/pass instead). None: never.
    """

    double: np.ndarray
    redouble: np.ndarray
    take: np.ndarray
    too_good: np.ndarray | None = None
    too_good_owned: np.ndarray | None = None


def oracle_decisions(ref: ExactReference) -> Decisions:
    """The exact decisions (ties double and take)."""
    d = ref.double_equity
    return Decisions(d >= ref.no_double[:, 0], d >= ref.no_double[:, 1], ref.double_take <= 1.0)


def strategy_decisions(
    strategy: CubeStrategy, win: np.ndarray, local_alpha: np.ndarray | None = None, chunk: int = CHUNK
) -> Decisions:
    """A strategy's decisions from the exact cubeless win chances (no gammons)."""
    n = len(win)
    out = Decisions(*(np.zeros(n, bool) for _ in range(5)))
    for a in range(0, n, chunk):
        sl = slice(a, a + chunk)
        probs = np.zeros((len(win[sl]), 5), np.float64)
        probs[:, 0] = win[sl]
        la = None if local_alpha is None else local_alpha[sl]
        cen = strategy.decide(probs, CubeState.CENTERED, local_alpha=la)
        own = strategy.decide(probs, CubeState.OWNED, local_alpha=la)
        out.double[sl] = cen.double
        out.redouble[sl] = own.double
        out.take[sl] = cen.take  # the answer does not depend on the state before the double
        assert out.too_good is not None and out.too_good_owned is not None
        out.too_good[sl] = cen.too_good
        out.too_good_owned[sl] = own.too_good
    return out


@dataclass(frozen=True)
class DecisionCosts:
    """Costs of one kind of decision over ``positions`` positions (equity per unit of the current cube).

    ``errors_over`` counts the errors costing more than each of :data:`THRESHOLDS`, in order.
    """

    positions: int
    errors: int
    error_rate: float
    mean_cost: float
    cost_per_error: float
    max_cost: float
    errors_over: tuple[int, ...]

    def to_json(self) -> dict[str, Any]:
        """The figures as the result file holds them (``errors_over_<threshold>`` keys)."""
        out: dict[str, Any] = {}
        for f in fields(self):
            if f.name == "errors_over":
                out.update({f"errors_over_{th:g}": n for th, n in zip(THRESHOLDS, self.errors_over, strict=True)})
            else:
                out[f.name] = getattr(self, f.name)
        return out


@dataclass(frozen=True)
class DoubleCosts(DecisionCosts):
    """A double or redouble decision's costs, with its wrong and missed doubles and its ``TOO_GOOD`` actions."""

    wrong_doubles: int
    missed_doubles: int
    optimal_doubles: int
    too_good: int


@dataclass(frozen=True)
class TakeCosts(DecisionCosts):
    """A take decision's costs, with its wrong takes and wrong passes."""

    wrong_takes: int
    wrong_passes: int


@dataclass(frozen=True)
class Scores:
    """A strategy's costs for each decision kind (see the module docstring)."""

    double: DoubleCosts
    redouble: DoubleCosts
    double_cash: DoubleCosts
    redouble_cash: DoubleCosts
    take: TakeCosts
    take_doubled: TakeCosts
    take_window: TakeCosts

    def kinds(self) -> dict[str, DecisionCosts]:
        """Each decision kind's costs by its name, in the result file's order."""
        return {f.name: getattr(self, f.name) for f in fields(self)}

    def to_json(self) -> dict[str, Any]:
        """The scores as the result file holds them."""
        return {name: costs.to_json() for name, costs in self.kinds().items()}


def _figures(cost: np.ndarray) -> dict[str, Any]:
    """The fields of :class:`DecisionCosts` from the per-position ``cost``."""
    err = cost > TOL
    n_err = int(err.sum())
    n = int(cost.size)
    return {
        "positions": n,
        "errors": n_err,
        "error_rate": n_err / n if n else 0.0,
        "mean_cost": float(cost.mean()) if n else 0.0,
        "cost_per_error": float(cost[err].mean()) if n_err else 0.0,
        "max_cost": float(cost.max(initial=0.0)),
        "errors_over": tuple(int((cost > th).sum()) for th in THRESHOLDS),
    }


def score(dec: Decisions, ref: ExactReference) -> Scores:
    """Error counts and costs of each decision kind (see the module docstring)."""
    d_eq = ref.double_equity
    none = np.zeros(len(d_eq), bool)
    tg = none if dec.too_good is None else dec.too_good
    tg_o = none if dec.too_good_owned is None else dec.too_good_owned

    def doubling(col: int, doubles: np.ndarray, too_good: np.ndarray) -> DoubleCosts:
        nd = ref.no_double[:, col]
        cost = np.maximum(ref.optimal[:, col] - np.where(doubles, d_eq, nd), 0.0)
        return DoubleCosts(
            **_figures(cost),
            wrong_doubles=int((doubles & (cost > TOL)).sum()),
            missed_doubles=int((~doubles & (cost > TOL)).sum()),
            optimal_doubles=int((d_eq >= nd).sum()),
            too_good=int(too_good.sum()),
        )

    dt = ref.double_take
    take_cost = np.where(dec.take, np.maximum(dt - 1.0, 0.0), np.maximum(1.0 - dt, 0.0))

    def taking(sel: np.ndarray) -> TakeCosts:
        c = take_cost[sel]
        t = dec.take[sel]
        return TakeCosts(
            **_figures(c), wrong_takes=int((t & (c > TOL)).sum()), wrong_passes=int((~t & (c > TOL)).sum())
        )

    return Scores(
        double=doubling(0, dec.double, tg),
        redouble=doubling(1, dec.redouble, tg_o),
        double_cash=doubling(0, dec.double | tg, none),
        redouble_cash=doubling(1, dec.redouble | tg_o, none),
        take=taking(np.ones(len(dt), bool)),
        take_doubled=taking(d_eq >= ref.no_double[:, 0]),
        take_window=taking(np.abs(dt - 1.0) <= 0.5),
    )


def _fit_cost(s: Scores) -> float:
    return float(s.double.mean_cost + s.redouble.mean_cost + s.take.mean_cost)


@dataclass(frozen=True)
class ModelScores:
    """One model's (strategy's) name and scores."""

    model: str
    scores: Scores

    def to_json(self) -> dict[str, Any]:
        """The row as the result file holds it."""
        return {"model": self.model, "scores": self.scores.to_json()}


@dataclass(frozen=True)
class GridFit:
    """A grid search: the fit cost (sum of three mean costs) of each grid value (keyed ``f"{g:g}"``) and the best."""

    grid: list[float]
    fit_cost: dict[str, float]
    best: float


@dataclass(frozen=True)
class Fits:
    """The in-sample fits (None when skipped) and the lookahead's check and local-alpha quantiles (None without it).

    ``jump_alpha`` maps each jump approximation to its alpha fit; ``local_alpha_quantiles`` is keyed by quantile.
    """

    janowski_x: GridFit | None = None
    jump_alpha: dict[str, GridFit] | None = None
    lookahead_max_abs_pa_minus_win: float | None = None
    local_alpha_quantiles: dict[str, float] | None = None

    def to_json(self) -> dict[str, Any]:
        """The fits as the result file holds them (``jump_alpha_<approximation>`` keys; what was skipped left out)."""
        out: dict[str, Any] = {}
        if self.janowski_x is not None:
            out["janowski_x"] = asdict(self.janowski_x)
        for approx, fit in (self.jump_alpha or {}).items():
            out[f"jump_alpha_{approx}"] = asdict(fit)
        if self.lookahead_max_abs_pa_minus_win is not None:
            out["lookahead_max_abs_pa_minus_win"] = self.lookahead_max_abs_pa_minus_win
        if self.local_alpha_quantiles is not None:
            out["local_alpha_quantiles"] = self.local_alpha_quantiles
        return out


@dataclass(frozen=True)
class CubeBearoffSettings:
    """What was measured: ``positions`` of the ``all_positions``, sampled with ``seed`` (None: all of them)."""

    positions: int
    all_positions: int
    sample: int | None
    seed: int | None
    error_tolerance: float
    cost_thresholds: list[float]
    take_window: str
    probabilities: str
    local_volatility: str | None
    jump_distribution: str
    fit_criterion: str | None


@dataclass(frozen=True)
class CubeBearoffResult:
    """``bench cube-bearoff``: every model's scores against exact cube play, the oracle first."""

    benchmark: ClassVar[str] = "cube-bearoff"
    settings: CubeBearoffSettings
    fits: Fits
    models: list[ModelScores]
    timings_s: dict[str, float]
    runtime_s: float

    def to_json(self) -> dict[str, Any]:
        """The result as ``cube_bearoff.json`` and ``bench cube-bearoff --json`` hold it."""
        return {
            "benchmark": self.benchmark,
            "settings": asdict(self.settings),
            "fits": self.fits.to_json(),
            "models": [row.to_json() for row in self.models],
            "timings_s": self.timings_s,
            "runtime_s": self.runtime_s,
        }


# --- the benchmark ---------------------------------------------------------------------------


def _stage(bar: tqdm, msg: str) -> None:
    """Count one finished stage on the progress bar (stderr) and log what it found."""
    bar.update(1)
    bar.set_postfix_str(msg[:60])
    if not bar.disable:
        tqdm.write(msg, file=sys.stderr)


def _jump(alpha: float, approximation: str) -> CubeStrategy:
    return cube.jump(alpha, approximation)


def _fit(
    make: Callable[[float], CubeStrategy], grid: tuple[float, ...], win: np.ndarray, ref: ExactReference
) -> tuple[float, dict[str, float]]:
    costs = {f"{g:g}": _fit_cost(score(strategy_decisions(make(g), win), ref)) for g in grid}
    best = min(grid, key=lambda g: costs[f"{g:g}"])
    return best, costs


def bench_cube_bearoff(
    sample: int | None = None,
    seed: int = DEFAULT_SEED,
    fit: bool = True,
    local: bool = True,
    progress: bool = False,
) -> CubeBearoffResult:
    """Score every model against exact cube play; returns the result (its ``to_json()`` is the result file).

    ``sample=None`` uses all 851,929 positions. ``fit=False`` skips the alpha / x search (the
    fitted rows then use alpha 0.1 and x 0.68); ``local=False`` skips the jump_local models.
    """
    t_start = time.perf_counter()
    bar = tqdm(desc="cube-bearoff", unit="stage", disable=not progress, file=sys.stderr)
    db = load_two_sided(progress=progress)
    i, j = position_indices(sample, seed)
    ref = exact_reference(db, i, j)
    win = ref.win
    timings: dict[str, float] = {}
    janowski_fit: GridFit | None = None
    alpha_fits: dict[str, GridFit] | None = None
    worst: float | None = None
    quantiles: dict[str, float] | None = None

    best_x = 0.68
    best_alpha = {a: 0.1 for a in cube.APPROXIMATIONS}
    if fit:
        t0 = time.perf_counter()
        best_x, costs = _fit(cube.janowski, JANOWSKI_GRID, win, ref)
        janowski_fit = GridFit(list(JANOWSKI_GRID), costs, best_x)
        alpha_fits = {}
        for approx in cube.APPROXIMATIONS:
            best_alpha[approx], costs = _fit(partial(_jump, approximation=approx), ALPHA_GRID, win, ref)
            alpha_fits[approx] = GridFit(list(ALPHA_GRID), costs, best_alpha[approx])
            _stage(bar, f"fit {approx}: alpha = {best_alpha[approx]:g}")
        timings["fits"] = time.perf_counter() - t0

    models: list[tuple[CubeStrategy, bool]] = [
        (cube.dead(), False),
        (cube.live(), False),
        (cube.janowski(0.5), False),
        (cube.janowski(0.68), False),
        (cube.janowski(0.8), False),
        (cube.janowski_refined(0.6, 0.8), False),
        (cube.live(capped=True), False),
        (cube.janowski(0.5, capped=True), False),
        (cube.janowski(0.68, capped=True), False),
        (cube.janowski(0.8, capped=True), False),
    ]
    if best_x not in (0.0, 0.5, 0.68, 0.8, 1.0):
        models.append((cube.janowski(best_x), False))
    for alpha in sorted({0.1, *best_alpha.values()}):
        models += [
            (cube.jump(alpha, ap), False) for ap in cube.APPROXIMATIONS if alpha == 0.1 or best_alpha[ap] == alpha
        ]
    alpha_local = None
    if local:
        t0 = time.perf_counter()
        alpha_local, worst = local_alphas(db, i, j)
        timings["lookahead"] = time.perf_counter() - t0
        quantiles = {f"{q:g}": float(np.quantile(alpha_local, q)) for q in (0.1, 0.25, 0.5, 0.75, 0.9)}
        _stage(bar, f"lookahead: {timings['lookahead']:.1f} s, max |P_a - win| = {worst:.2g}")
        for ap in ("linear", "numerical"):
            models += [(cube.jump_local(a, ap), True) for a in sorted({0.1, best_alpha[ap]})]

    bar.total = bar.n + len(models)
    bar.refresh()
    rows = [ModelScores("exact (oracle)", score(oracle_decisions(ref), ref))]
    for strategy, needs_local in models:
        t0 = time.perf_counter()
        dec = strategy_decisions(strategy, win, alpha_local if needs_local else None)
        rows.append(ModelScores(strategy.name, score(dec, ref)))
        timings[strategy.name] = time.perf_counter() - t0
        _stage(bar, f"{strategy.name}: {timings[strategy.name]:.1f} s")
    bar.close()

    total = time.perf_counter() - t_start
    settings = CubeBearoffSettings(
        positions=int(len(i)),
        all_positions=(SIDE - 1) ** 2,
        sample=sample,
        seed=seed if sample is not None else None,
        error_tolerance=TOL,
        cost_thresholds=list(THRESHOLDS),
        take_window="|DT - 1| <= 0.5",
        probabilities="exact cubeless win chance from the two-sided database, no gammons",
        local_volatility="std over the 441 exact two-roll win chances" if local else None,
        jump_distribution="double-exponential",
        fit_criterion="min of mean cost double + redouble + take (all positions)" if fit else None,
    )
    fits = Fits(janowski_fit, alpha_fits, worst, quantiles)
    return CubeBearoffResult(settings=settings, fits=fits, models=rows, timings_s=timings, runtime_s=total)


# --- output ----------------------------------------------------------------------------------


def _pct(x: float) -> str:
    return f"{100.0 * x:.2f}%"


def _mp(x: float) -> str:
    return f"{1000.0 * x:.3f}"


def markdown_table(result: CubeBearoffResult) -> str:
    """The results as a markdown table (error rate and mean cost per decision, millipoints)."""
    st = result.settings
    cols = (("double", "double"), ("redouble", "redouble"), ("take", "take, all"), ("take_doubled", "take, doubled"))
    head = ["model"]
    for _, label in cols:
        head += [f"{label}: errors", f"{label}: cost"]
    lines = [
        f"Cube actions against exact play on {st.positions:,} two-sided bearoff positions"
        + (f" (seeded sample, seed {st.seed})" if st.sample is not None else " (all, both sides on)")
        + ". Errors: share of decisions costing more than 1e-9; cost: mean equity lost per decision "
        "in millipoints (1/1000 of the current cube).",
        "",
        "| " + " | ".join(head) + " |",
        "|" + "---|" * len(head),
    ]
    for row in result.models:
        kinds = row.scores.kinds()
        cells = [row.model]
        for key, _ in cols:
            cells += [_pct(kinds[key].error_rate), _mp(kinds[key].mean_cost)]
        lines.append("| " + " | ".join(cells) + " |")
    n_dbl = result.models[0].scores.take_doubled.positions
    lines += [
        "",
        f'"take, doubled": the {n_dbl:,} positions where a centred double is exactly correct.',
    ]
    tg = [r for r in result.models if r.scores.double.too_good or r.scores.redouble.too_good]
    if tg:
        lines += [
            "",
            'Models that call positions "too good" (never right without gammons: playing on is worth '
            "at most the +1 of a cash; for most of them this is where the cost above comes from), "
            'with "too good" counted as double/pass instead:',
            "",
            "| model | too good (double / redouble) | double: errors | double: cost | "
            "redouble: errors | redouble: cost |",
            "|---|---|---|---|---|---|",
        ]
        for r in tg:
            s = r.scores
            lines.append(
                f"| {r.model} | {s.double.too_good:,} / {s.redouble.too_good:,} | "
                f"{_pct(s.double_cash.error_rate)} | {_mp(s.double_cash.mean_cost)} | "
                f"{_pct(s.redouble_cash.error_rate)} | {_mp(s.redouble_cash.mean_cost)} |"
            )
        lines.append("")
    fits = result.fits
    if fits.janowski_x is not None and fits.jump_alpha is not None:
        alphas = ", ".join(f"{ap} {fits.jump_alpha[ap].best:g}" for ap in cube.APPROXIMATIONS)
        lines.append(f"Best fits (in sample): Janowski x = {fits.janowski_x.best:g}; jump alpha: {alphas}.")
    if fits.local_alpha_quantiles is not None:
        q = fits.local_alpha_quantiles
        lines.append(
            f"Local alpha (exact 441-roll lookahead) quartiles: {q['0.25']:.3f} / {q['0.5']:.3f} / {q['0.75']:.3f}."
        )
    return "\n".join(lines) + "\n"


def write_results(result: CubeBearoffResult, out_dir: Path) -> tuple[Path, Path]:
    """Write ``cube_bearoff.json`` and ``cube_bearoff.md`` atomically; returns their paths."""
    js = out_dir / "cube_bearoff.json"
    md = out_dir / "cube_bearoff.md"
    write_atomic(js, (json.dumps(result.to_json(), indent=1) + "\n").encode("utf-8"))
    write_atomic(md, markdown_table(result).encode("utf-8"))
    return js, md
