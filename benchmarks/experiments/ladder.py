"""Experiment 6 of the issue: the strength ladder of the shipped net.

The shipped net at 0 and at 2 ply against pubeval and against GNU Backgammon 0-ply (the ``gnubg``
package, in process), cubeless and cubeful, each a tournament of mirrored pairs with its own
ledger, so the ladder resumes and grows with the same command. Cubeful rows give this project's
net Janowski x = 0.70 (experiment 1's optimum); gnubg uses its own cube, and pubeval, which has
no probabilities, never doubles and always takes. gnubg 0-ply against pubeval is played too, as
the level the issue measures the net against (+0.63 in the issue's text).

Rows at 2 ply cost about a thousand times as much per game as 0-ply rows, so they have their own
game target (``games_deep``). Rows that need the ``gnubg`` package are reported as skipped, not
as measured, when it is not installed.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, ClassVar

from arena import PlayerSpec, Rules, TournamentConfig, ledger
from arena.tournament import BLOCK_PAIRS, pair_points_of, pair_statistics, run_tournament
from benchmarks.experiments.plots import pyplot, save_png
from benchmarks.experiments.provenance import (
    LEDGER_REMEDY,
    check_folder,
    claim_folder,
    committed_result,
    nothing_played,
)
from nets.weights import write_atomic
from players.specs import net_spec

NET_CUBE = "janowski:0.7"
# Pairs per checkpointed block in the 2-ply rows: 64 games, a few minutes on one core, so a
# stopped session loses little (a 0-ply row's 512-game blocks take seconds).
DEEP_BLOCK_PAIRS = 32


@dataclass(frozen=True)
class Rung:
    """One row of the ladder: A against B, cubeless or cubeful; ``deep`` rows use the smaller game target."""

    name: str
    a: PlayerSpec
    b: PlayerSpec
    cubeful: bool
    deep: bool = False

    @property
    def needs_gnubg(self) -> bool:
        """Whether either side is GNU Backgammon (the optional ``gnubg`` package)."""
        return any(p.spec.startswith("gnubg") for p in (self.a, self.b))


def _rungs(weights: Path | None = None) -> tuple[Rung, ...]:
    """The ladder's rows, the net played from ``weights`` (default the shipped net); row names say ``net@PLY``."""
    rows = []
    for plies in (0, 2):
        row, net = f"net@{plies}", net_spec(plies, weights)
        deep = plies > 0
        rows += [
            Rung(f"{row}-pubeval", PlayerSpec(net), PlayerSpec("pubeval"), False, deep),
            Rung(f"{row}-pubeval-cubeful", PlayerSpec(net, NET_CUBE), PlayerSpec("pubeval", "none"), True, deep),
            Rung(f"{row}-gnubg0", PlayerSpec(net), PlayerSpec("gnubg@0"), False, deep),
            Rung(f"{row}-gnubg0-cubeful", PlayerSpec(net, NET_CUBE), PlayerSpec("gnubg@0", "gnubg"), True, deep),
        ]
    rows.append(Rung("gnubg0-pubeval", PlayerSpec("gnubg@0"), PlayerSpec("pubeval"), False))
    return tuple(rows)


RUNGS = _rungs()
RUNG_NAMES = tuple(r.name for r in RUNGS)


def select_rungs(only: tuple[str, ...] = ()) -> list[Rung]:
    """All rows, or those named in ``only`` (in ladder order); raises ValueError naming an unknown row."""
    for name in only:
        if name not in RUNG_NAMES:
            raise ValueError(f"ladder row {name!r}: the rows are {', '.join(RUNG_NAMES)}")
    return [r for r in RUNGS if not only or r.name in only]


def _config(rung: Rung, games: int, seed: int) -> TournamentConfig:
    return TournamentConfig(
        rung.a,
        rung.b,
        games=games,
        seed=seed,
        rules=Rules(cubeful=rung.cubeful),
        block_pairs=DEEP_BLOCK_PAIRS if rung.deep else BLOCK_PAIRS,
    )


@dataclass(frozen=True)
class Held:
    """Games of a row with A's points per game and its SE over mirrored pairs (None when nothing was played)."""

    games: int = 0
    ppg: float | None = None
    se: float | None = None


@dataclass(frozen=True)
class LadderRow:
    """One row of the ladder as reported: who played whom, the command that plays it, and what it measured.

    ``skipped`` says why a row was not played; ``games_per_second`` is there for a row played this time.
    """

    name: str
    a: tuple[str, str]
    b: tuple[str, str]
    cubeful: bool
    target_games: int
    command: str
    held: Held
    skipped: str | None = None
    games_per_second: float | None = None

    @property
    def games(self) -> int:
        """Games measured."""
        return self.held.games

    @property
    def ppg(self) -> float | None:
        """A's points per game, None when nothing was played."""
        return self.held.ppg

    @property
    def se(self) -> float | None:
        """The SE of ``ppg`` over mirrored pairs, None below two pairs."""
        return self.held.se

    def to_json(self) -> dict[str, Any]:
        """The row as result.json holds it."""
        out: dict[str, Any] = {
            "name": self.name,
            "a": list(self.a),
            "b": list(self.b),
            "cubeful": self.cubeful,
            "target_games": self.target_games,
            "command": self.command,
        }
        if self.skipped is not None:
            out["skipped"] = self.skipped
        out.update(games=self.games, ppg=self.ppg, se=self.se)
        if self.games_per_second is not None:
            out["games_per_second"] = self.games_per_second
        return out


@dataclass(frozen=True)
class LadderResult:
    """The strength ladder: every row, in ladder order, played with ``seed``; the net's cube is ``net_cube``."""

    experiment: ClassVar[str] = "ladder"
    seed: int
    net_cube: str
    rows: list[LadderRow]

    def to_json(self) -> dict[str, Any]:
        """The ladder as result.json and ``experiment ladder --json`` hold it."""
        return {
            "experiment": self.experiment,
            "seed": self.seed,
            "net_cube": self.net_cube,
            "rows": [r.to_json() for r in self.rows],
        }


def _held(rung: Rung, path: Path, seed: int) -> Held:
    """What the row's ledger holds from pair 0 onwards, from A's view, without building any player."""
    cfg = _config(rung, 2, seed)
    held = ledger.load(path, cfg, option="ledger", remedy=LEDGER_REMEDY) if path.exists() else []
    blocks = sorted(held, key=lambda b: b.first_pair)
    run: list[Any] = []
    for block in blocks:
        if block.first_pair != sum(b.games // 2 for b in run):
            break
        run.append(block)
    pp = pair_points_of(run)
    if len(pp) == 0:
        return Held()
    ppg, se, _ = pair_statistics(pp)
    return Held(2 * len(pp), ppg, se)


def _committed_rows(out: Path) -> dict[str, Held]:
    """What the folder's result.json says of each row, by row name (empty without one)."""
    rows = (committed_result(out) or {}).get("rows", [])
    return {r.get("name"): Held(r.get("games", 0), r.get("ppg"), r.get("se")) for r in rows}


def run_ladder(
    out: Path,
    seed: int,
    games: int,
    games_deep: int,
    workers: int = 1,
    only: tuple[str, ...] = (),
    play: bool = True,
    progress: bool = True,
    weights: Path | None = None,
) -> LadderResult:
    """Play the rows named in ``only`` (all by default) to their game targets, resuming their ledgers.

    The net plays from ``weights`` (default the shipped net); a folder or ledger of another net is refused.

    Returns (and, when ``play``, writes as result.json) every row of the ladder: each row's ``ppg``
    and ``se`` are A's points per game against B with the standard error over mirrored pairs; rows
    not played this time (or with ``play`` False) report what their ledgers hold, or without a
    ledger what the folder's result.json says of them. With ``play`` False nothing is written, and a
    folder holding no row at all is a ValueError.
    """
    if play:
        claim_folder(out, weights)
    else:
        check_folder(out, weights)
    committed = _committed_rows(out) if not play else {}
    gnubg_installed = importlib.util.find_spec("gnubg") is not None
    rows = []
    chosen = {r.name for r in select_rungs(only)}
    for rung in _rungs(weights):
        path = out / f"{rung.name}.ledger.jsonl"
        target = games_deep if rung.deep else games
        row = LadderRow(
            name=rung.name,
            a=(rung.a.spec, rung.a.cube),
            b=(rung.b.spec, rung.b.cube),
            cubeful=rung.cubeful,
            target_games=target,
            command=(
                f"jumpgammon tournament --a {rung.a.spec} --a-cube {rung.a.cube} --b {rung.b.spec} "
                f"--b-cube {rung.b.cube} --games {target} --seed {seed}"
                + (" --cubeful" if rung.cubeful else "")
                + (f" --block-pairs {DEEP_BLOCK_PAIRS}" if rung.deep else "")
                + f" --checkpoint {path}"
            ),
            held=Held(),
        )
        if not play and not path.exists() and rung.name in committed:
            row = replace(row, held=committed[rung.name])
        elif not (play and rung.name in chosen):
            row = replace(row, held=_held(rung, path, seed))  # a row not played this time reports its ledger
        elif rung.needs_gnubg and not gnubg_installed:
            skipped = "the gnubg package is not installed (pip install -e '.[gnubg]')"
            row = replace(row, skipped=skipped, held=_held(rung, path, seed))
        else:
            if progress:
                print(f"ladder: {rung.name} to {target:,} games", file=sys.stderr, flush=True)
            played, _ = run_tournament(_config(rung, target, seed), workers=workers, progress=progress, checkpoint=path)
            held = Held(played.games, played.ppg, played.se)
            row = replace(row, held=held, games_per_second=played.games_per_second)
        rows.append(row)
    if not play and not any(row.games for row in rows):
        raise nothing_played(out)
    result = LadderResult(seed=seed, net_cube=NET_CUBE, rows=rows)
    if play:
        write_atomic(out / "result.json", (json.dumps(result.to_json(), indent=1) + "\n").encode())
        plot_ladder(result, out / "plot.png")
    return result


def plot_ladder(result: LadderResult, path: Path) -> bool:
    """Horizontal bars of each measured row's ppg with 95% intervals to ``path``; False without matplotlib."""
    plt = pyplot()
    if plt is None:
        return False
    rows = [r for r in result.rows if r.ppg is not None]
    if not rows:
        return False
    fig, ax = plt.subplots(figsize=(8.5, 0.45 * len(rows) + 1.2))
    ys = list(range(len(rows)))[::-1]
    ppg = [r.ppg or 0.0 for r in rows]
    err = [1.96 * (r.se or 0.0) for r in rows]
    colors = ["C1" if r.cubeful else "C0" for r in rows]
    ax.barh(ys, ppg, xerr=err, color=colors, capsize=3)
    ax.set_yticks(ys, [f"{r.name} ({r.games:,})" for r in rows], fontsize=8)
    ax.axvline(0, color="grey", lw=0.5)
    ax.set_xlabel("points per game of the first-named player, 95% interval (orange: cubeful)")
    ax.set_title(f"strength ladder, seed {result.seed}")
    save_png(plt, fig, path)
    return True
