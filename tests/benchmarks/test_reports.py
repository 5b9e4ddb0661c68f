"""``experiment ... --report`` reprints what a folder holds and writes nothing, a fresh clone's results included.

A fresh clone has each experiment's ``result.json`` (and a sweep's ``pairs.npz``) but not its
ledgers, except the ladder's 2-ply rows: these tests copy exactly that much of
``results/experiments`` and report from the copy with the net that played it.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from benchmarks.experiments import cube_sweeps
from benchmarks.experiments.cube_sweeps import run_sweep
from benchmarks.experiments.ladder import run_ladder
from benchmarks.experiments.local import run_local
from benchmarks.experiments.sweep import GAMES_PER_BLOCK, PointResult, PointSpec, SweepSettings
from cli.experiment import EXPERIMENTS
from cli.main import build_parser
from players.specs import net_spec
from tests.cli.helpers import run_cli

#: The paper's experiments, played with the TD net into results/experiments/NAME (cube-errors, a pilot of the
#: shipped net in its own folder, has its own report test in test_cube_errors.py).
TD_EXPERIMENTS = tuple(name for name in EXPERIMENTS if name != "cube-errors")
REPO = Path(__file__).resolve().parents[2]
COMMITTED = REPO / "results" / "experiments"
TD_NET = REPO / "results" / "nets" / "td_v1.jgw"
TD_DIGEST = "sha256:45a3a31b690069d4"


def _in_a_fresh_clone(path: Path) -> bool:
    """Whether git keeps ``path`` of results/experiments (see .gitignore): results, plots, and the 2-ply ledgers."""
    return path.suffix in (".json", ".npz", ".png") or path.name.startswith("net@2-")


def committed_copy(tmp_path: Path, *names: str) -> Path:
    """A copy of what a fresh clone has of the named experiment folders; returns the folder holding them."""
    for name in names:
        for source in (COMMITTED / name).iterdir():
            if source.is_file() and _in_a_fresh_clone(source):
                (tmp_path / name).mkdir(parents=True, exist_ok=True)
                shutil.copyfile(source, tmp_path / name / source.name)
    return tmp_path


def snapshot(folder: Path) -> dict[str, tuple[bytes, int]]:
    """Every file under ``folder``: its bytes and modification time (a rewrite with equal bytes still shows)."""
    return {
        str(p.relative_to(folder)): (p.read_bytes() if p.is_file() else b"", p.stat().st_mtime_ns)
        for p in sorted(folder.rglob("*"))
    }


def aged(folder: Path) -> dict[str, tuple[bytes, int]]:
    """Set every file's times to a fixed past instant, then snapshot the folder."""
    for p in folder.rglob("*"):
        os.utime(p, ns=(10**18, 10**18))
    return snapshot(folder)


def experiment_options() -> set[str]:
    """Every option string ``jumpgammon experiment`` takes."""
    (sub,) = (a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    return {s for action in sub.choices["experiment"]._actions for s in action.option_strings}


def figures(name: str, result: dict[str, Any]) -> object:
    """What a report must reproduce of an experiment's result: the figures, not the command lines."""
    if name in ("janowski", "jump"):
        return result["curves"], result["games_total"]
    if name == "ladder":
        return [(r["name"], r["games"], r["ppg"], r["se"]) for r in result["rows"]]
    return result


# --- the committed results reprint from a fresh clone -------------------------------------------


@pytest.mark.parametrize("name", ["janowski", "jump"])
def test_a_committed_sweep_reprints_from_its_result_and_pairs(tmp_path: Path, name: str) -> None:
    """No ledgers in a clone: the report reads result.json and pairs.npz, equals them, and writes nothing."""
    out = committed_copy(tmp_path, name)
    before = aged(out)
    settings = SweepSettings(checker=net_spec(0, TD_NET))
    reported = run_sweep(name, out / name, settings, progress=False, play=False, weights=TD_NET)
    committed = json.loads((COMMITTED / name / "result.json").read_text())
    assert reported.to_json()["curves"] == committed["curves"]
    assert reported.games_total == committed["games_total"] > 1_000_000
    assert reported.complete is True
    assert snapshot(out) == before  # no result, plot or empty ledger written


def test_committed_reports_through_the_command_line_write_nothing(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Every experiment's --report on a fresh clone's folder, with the net that played it: exit 0, no file touched."""
    out = committed_copy(tmp_path, *TD_EXPERIMENTS)
    before = aged(out)
    for name in TD_EXPERIMENTS:
        code, stdout, err = run_cli(capsys, "experiment", name, "--report", "--out", str(out), "--weights", str(TD_NET))
        assert code == 0, (name, err)
        assert "nothing written" in stdout, name
        code, stdout, err = run_cli(
            capsys, "experiment", name, "--report", "--out", str(out), "--weights", str(TD_NET), "--json"
        )
        assert code == 0, (name, err)
        assert figures(name, json.loads(stdout)) == figures(
            name, json.loads((COMMITTED / name / "result.json").read_text())
        )
    assert snapshot(out) == before


def test_the_ladder_report_takes_rows_without_ledgers_from_its_result(tmp_path: Path) -> None:
    out = committed_copy(tmp_path, "ladder")
    before = aged(out)
    reported = run_ladder(out / "ladder", seed=1, games=20_000, games_deep=1_024, play=False, weights=TD_NET)
    committed = {r["name"]: r for r in json.loads((COMMITTED / "ladder" / "result.json").read_text())["rows"]}
    for row in reported.rows:
        assert (row.games, row.ppg, row.se) == tuple(committed[row.name][k] for k in ("games", "ppg", "se"))
    assert {r.name for r in reported.rows if r.games == 20_000} >= {"net@0-pubeval", "gnubg0-pubeval"}
    assert snapshot(out) == before


@pytest.mark.parametrize("name", TD_EXPERIMENTS)
def test_a_report_with_another_net_names_both_nets_and_options_that_exist(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, name: str
) -> None:
    """The committed results are the TD net's: the shipped net's report is refused in one line, nothing written."""
    out = committed_copy(tmp_path, name)
    before = aged(out)
    code, stdout, err = run_cli(capsys, "experiment", name, "--report", "--out", str(out), "--json")
    assert code == 2
    message = json.loads(stdout)["error"]
    assert TD_DIGEST in message and "nothing played" not in message
    named = {word.strip("',.:;()") for word in message.split() if word.startswith("--")}
    assert named and named <= experiment_options(), named
    assert snapshot(out) == before


def test_a_report_on_an_empty_folder_writes_nothing(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    for name in EXPERIMENTS:
        code, _, err = run_cli(capsys, "experiment", name, "--report", "--out", str(tmp_path))
        last = err.replace("\r", "\n").strip().splitlines()[-1]  # after any progress bar
        assert code == 2 and "--report" in last and "Traceback" not in err, (name, err)
    assert list(tmp_path.iterdir()) == []


# --- a report reads what a run wrote, with or without its ledgers -------------------------------


def synthetic_play(
    points: list[PointSpec], settings: SweepSettings, progress: bool, log: object, play: bool = True
) -> list[PointResult]:
    """Stands in for the games of a sweep: 256 pairs a point, each scoring a half-integer (as mirrored pairs do)."""
    out = []
    for point in points:
        rng = np.random.default_rng([7, int(1000 * float(point.a_cube.split(":")[1]))])
        pp = rng.integers(-6, 5, 256) / 2
        se = float(pp.std(ddof=1) / np.sqrt(len(pp)))
        out.append(PointResult(point.label, point.a_cube, point.b_cube, float(pp.mean()), se, 512, 40, 41, pp))
    return out


def test_a_sweep_reports_from_its_result_and_refits_its_pairs(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Without ledgers a report reprints result.json, and at another degree refits pairs.npz as the games would."""
    monkeypatch.setattr(cube_sweeps, "play_points", synthetic_play)
    settings = SweepSettings(seed=3)
    played = run_sweep("janowski", tmp_path / "a", settings, progress=False)
    cubic = run_sweep("janowski", tmp_path / "b", settings, degree=3, progress=False)
    monkeypatch.undo()  # a report plays nothing: the real play_points would refuse to
    before = aged(tmp_path / "a")
    assert sorted(p.name for p in (tmp_path / "a").iterdir()) == ["net.json", "pairs.npz", "plot.png", "result.json"]
    reported = run_sweep("janowski", tmp_path / "a", settings, progress=False, play=False)
    assert reported.to_json()["curves"] == played.to_json()["curves"] and reported.complete is True
    refitted = run_sweep("janowski", tmp_path / "a", settings, degree=3, progress=False, play=False)
    assert refitted.to_json()["curves"] == cubic.to_json()["curves"] and refitted.curves[0].optimum.degree == 3
    assert snapshot(tmp_path / "a") == before


@pytest.mark.slow
def test_a_local_report_leaves_the_result_it_reads_alone(tmp_path: Path) -> None:
    """``experiment local --report`` reprints from the ledgers without rewriting result.json or the plot."""
    settings = SweepSettings(seed=6, se_target=0.5, min_games=GAMES_PER_BLOCK, max_games=GAMES_PER_BLOCK)
    player, opponents = "jump:0.15:linear", ("janowski:0.7",)
    played = run_local(tmp_path, settings, opponents, progress=False, player=player)
    before = aged(tmp_path)
    again = run_local(tmp_path, settings, opponents, progress=False, play=False, player=player)
    assert again.points == played.points
    assert snapshot(tmp_path) == before
    for ledger_file in tmp_path.glob("*.ledger.jsonl"):
        ledger_file.unlink()
    before = aged(tmp_path)
    assert run_local(tmp_path, settings, opponents, progress=False, play=False, player=player) == played
    assert snapshot(tmp_path) == before


def test_an_older_result_is_refitted_by_the_rule_and_refit_rewrites_only_the_fit(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A result.json from before the fit rule (one quadratic) reports by the rule, writing nothing; a refit writes."""
    monkeypatch.setattr(cube_sweeps, "play_points", synthetic_play)
    settings = SweepSettings(seed=3)
    played = run_sweep("janowski", tmp_path, settings, progress=False)
    monkeypatch.undo()
    older = json.loads((tmp_path / "result.json").read_text())
    quadratic = played.curves[0].optimum.fits[0].to_json()
    older["curves"][0]["optimum"] = {
        k: quadratic[k] for k in ("degree", "coefficients", "best", "best_ppg", "ci95", "bootstrap_se", "at_edge")
    } | {"replicates": 2000, "chi2": quadratic["chi2"], "dof": quadratic["dof"]}
    (tmp_path / "result.json").write_text(json.dumps(older))
    pairs = (tmp_path / "pairs.npz").read_bytes()
    before = aged(tmp_path)
    reported = run_sweep("janowski", tmp_path, settings, progress=False, play=False)
    assert reported.to_json()["curves"] == played.to_json()["curves"]  # refitted by the rule, as played
    assert snapshot(tmp_path) == before
    with pytest.raises(ValueError, match="refit plays nothing"):
        run_sweep("janowski", tmp_path, settings, progress=False, refit=True)
    refitted = run_sweep("janowski", tmp_path, SweepSettings(seed=99), progress=False, play=False, refit=True)
    assert refitted.seed == 3 and refitted.to_json()["curves"] == played.to_json()["curves"]  # the run's seed kept
    assert json.loads((tmp_path / "result.json").read_text()) == played.to_json()
    assert (tmp_path / "pairs.npz").read_bytes() == pairs


def test_a_committed_run_is_reported_only_as_the_kind_it_is() -> None:
    """A report of a finished luck-adjusted sweep without --luck printed its adjusted figures as if raw (and the
    reverse): it is refused, naming the folder and the flag."""
    luck_run = COMMITTED / "shipped-net-seed2" / "janowski"
    with pytest.raises(ValueError, match="holds a luck-adjusted run: report it with --luck"):
        run_sweep("janowski", luck_run, SweepSettings(), progress=False, play=False)
    raw_run = COMMITTED / "janowski"
    with pytest.raises(ValueError, match=r"holds a raw \(not luck-adjusted\) run: report it with no --luck"):
        run_sweep("janowski", raw_run, SweepSettings(luck_weights=""), progress=False, play=False, weights=TD_NET)
