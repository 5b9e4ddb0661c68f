"""Experiment 4 of the issue: local jump volatility, measured against constant-volatility players.

``jump-local`` (the jump model with each position's local volatility from the 441-roll lookahead,
remote volatility constant) plays Janowski x = 0.70 and the best constant-alpha jump player of
experiment 2. Both comparisons are points of one sweep (:mod:`benchmarks.experiments.sweep`),
each played until its standard error reaches the target: a block's games are played once and
both comparisons replay their cube decisions over them, and one jump-local player answers both,
so a lookahead run for one comparison serves the other from the player's volatility cache.

Every cube question is put to both players (``compare_cube``), as in the tournament that played
the first 48,128 games of the Janowski comparison: its ledger is the one continued here.
"""

from __future__ import annotations

import json
import sys
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any, ClassVar

from benchmarks.experiments.plots import pyplot, save_png
from benchmarks.experiments.provenance import check_folder, claim_folder, committed_result, nothing_played
from benchmarks.experiments.sweep import PointResult, PointSpec, SweepSettings, play_points
from nets.weights import write_atomic

LOCAL = "jump-local"
# Experiment 2's best constant-alpha player of the model jump-local uses (the numerical solution):
# its fitted optimum, alpha = 9.0% (95% interval 8.0% to 9.7%).
BEST_CONSTANT = "jump:0.09:numerical"
OPPONENTS = ("janowski:0.7", BEST_CONSTANT)


@dataclass(frozen=True)
class LocalPoint:
    """One comparison: jump-local (A) against ``b_cube``, A's ppg with its SE and 95% interval, and the doubles."""

    label: str
    a_cube: str
    b_cube: str
    ppg: float
    se: float
    games: int
    doubles_a: int
    doubles_b: int
    ci95: tuple[float, float]
    raw: tuple[float, float] | None = None  # luck-adjusted runs: the raw ppg and SE of the same games

    @classmethod
    def of(cls, r: PointResult) -> LocalPoint:
        """The comparison of a played sweep point."""
        ci95 = (r.ppg - 1.96 * r.se, r.ppg + 1.96 * r.se)
        return cls(r.label, r.a_cube, r.b_cube, r.ppg, r.se, r.games, r.doubles_a, r.doubles_b, ci95, r.raw)

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> LocalPoint:
        """The comparison as result.json holds it."""
        d = dict(d)
        raw = (d.pop("raw_ppg"), d.pop("raw_se")) if "raw_ppg" in d else None
        return cls(**{**d, "ci95": tuple(d["ci95"]), "raw": raw})

    def to_json(self) -> dict[str, Any]:
        """The comparison as result.json holds it."""
        out = {**asdict(self), "ci95": list(self.ci95)}
        del out["raw"]
        if self.raw is not None:
            out["raw_ppg"], out["raw_se"] = self.raw
        return out


@dataclass(frozen=True)
class LocalResult:
    """Experiment 4: ``player`` (jump-local) against each opponent; ``complete`` when every SE met its target."""

    experiment: ClassVar[str] = "local"
    player: str
    checker_play: str
    seed: int
    se_target: float
    complete: bool
    games_total: int
    points: list[LocalPoint]

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> LocalResult:
        """The result a finished run wrote to result.json."""
        fields = {k: v for k, v in d.items() if k != "experiment"}
        return cls(**{**fields, "points": [LocalPoint.from_json(p) for p in d["points"]]})

    def to_json(self) -> dict[str, Any]:
        """The result as result.json and ``experiment local --json`` hold it."""
        return {"experiment": self.experiment, **asdict(self), "points": [p.to_json() for p in self.points]}


def ledger_path(folder: Path, player: str, opponent: str) -> Path:
    """Where the comparison of ``player`` (jump-local) with ``opponent`` keeps its blocks."""
    return folder / f"{player.replace(':', '_')}_vs_{opponent.replace(':', '_')}.ledger.jsonl"


def run_local(
    folder: Path,
    settings: SweepSettings,
    opponents: tuple[str, ...] = OPPONENTS,
    progress: bool = True,
    play: bool = True,
    player: str = LOCAL,
    weights: Path | None = None,
) -> LocalResult:
    """Play ``player`` (jump-local) against each opponent to the SE target; writes, returns result.json (its view).

    ``weights`` is the checker play's net (default shipped), and the folder belongs to it. With
    ``play`` False nothing is played or written: the result is what the ledgers hold, or without
    them the folder's result.json (ValueError when it holds neither).
    """
    if play:
        claim_folder(folder, weights)
    else:
        check_folder(folder, weights)
    points = [PointSpec(f"{player} vs {o}", player, o, ledger_path(folder, player, o)) for o in opponents]
    if not play and not all(p.ledger.exists() for p in points):
        committed = committed_result(folder)
        if committed is None:
            raise nothing_played(folder)
        return LocalResult.from_json(committed)
    compare = replace(settings, compare_cube=True)

    def log(line: str) -> None:
        if progress:
            print(line, file=sys.stderr)

    results = play_points(points, compare, progress=progress, log=log, play=play)
    result = LocalResult(
        player=player,
        checker_play=compare.checker,
        seed=compare.seed,
        se_target=compare.se_target,
        complete=all(r.se <= compare.se_target for r in results),
        games_total=sum(r.games for r in results),
        points=[LocalPoint.of(r) for r in results],
    )
    if play:
        write_atomic(folder / "result.json", (json.dumps(result.to_json(), indent=1) + "\n").encode())
        _plot(results, folder / "plot.png")
    return result


def _plot(results: list[PointResult], path: Path) -> None:
    """Each comparison's ppg with its 95% interval, in milli-ppg."""
    plt = pyplot()
    if plt is None:
        return
    fig, ax = plt.subplots(figsize=(6.4, 1.2 + 0.7 * len(results)))
    rows = list(range(len(results)))
    ax.errorbar(
        [1000 * r.ppg for r in results], rows, xerr=[1960 * r.se for r in results], fmt="o", capsize=4, color="C0"
    )
    ax.axvline(0.0, color="grey", lw=0.8)
    ax.set_yticks(rows, [f"against {r.b_cube}\n({r.games:,} games)" for r in results])
    ax.set_xlabel("jump-local's advantage, milli-ppg (95% interval)")
    ax.set_ylim(-0.7, len(results) - 0.3)
    save_png(plt, fig, path)
