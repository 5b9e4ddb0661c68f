"""``analyse --cube MODEL``: the money cube model of cubeful equities and cube decisions; gnubg's at match scores."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from analysis.cubemodel import GNUBG_MODEL, money_cube_model
from engine.errors import InvalidSpec
from engine.position import Position
from nets import load_evaluator
from players.cube import parse_cube_spec
from tests.analysis.test_inputs import MATCH_3
from tests.cli.helpers import assert_clean_error, run_cli

MONEY = Path(__file__).resolve().parents[1] / "fixtures" / "gnubg_analysis" / "arena_money_s3_pair_000000.mat"


def _report(capsys: pytest.CaptureFixture[str], *options: str) -> dict[str, Any]:
    code, out, err = run_cli(capsys, "analyse", str(MONEY), "--no-progress", "--json", *options)
    assert code == 0, err
    report: dict[str, Any] = json.loads(out)
    return report


def _cube_decisions(report: dict[str, Any]) -> list[dict[str, Any]]:
    return [c for m in report["matches"] for g in m["games"] for c in g["cube"]]


def test_default_is_gnubgs_model(capsys: pytest.CaptureFixture[str]) -> None:
    default, named = _report(capsys), _report(capsys, "--cube", "gnubg")
    for report in (default, named):
        report.pop("seconds")
    assert default == named and default["cube"] == "gnubg"
    assert money_cube_model("gnubg") is GNUBG_MODEL and GNUBG_MODEL.is_gnubg


@pytest.mark.parametrize(
    "spec",
    # the numerical jump solution costs two minutes on the whole session: in the slow set
    ["janowski:0.7", "dead", "live", "jump:0.1:linear", pytest.param("jump:0.1", marks=pytest.mark.slow)],
)
def test_cube_decisions_follow_the_named_model(capsys: pytest.CaptureFixture[str], spec: str) -> None:
    """At 0 ply each cube decision's three equities are the strategy's own on the net's probabilities."""
    report = _report(capsys, "--cube", spec)
    assert report["cube"] == spec
    strategy = parse_cube_spec(spec).strategy
    assert strategy is not None
    ev = load_evaluator(None)
    decisions = _cube_decisions(report)
    assert decisions
    boards = np.stack([Position.from_id(c["position_id"]).array for c in decisions])
    states = np.array([c["state"] for c in decisions])
    d = strategy.decide(ev.evaluate_boards(boards), states, jacoby=False, beavers=False)
    assert [c["no_double"] for c in decisions] == pytest.approx(d.no_double, abs=2e-6)
    assert [c["double_take"] for c in decisions] == pytest.approx(d.double_take, abs=2e-6)
    assert [c["double_pass"] for c in decisions] == pytest.approx(d.double_pass, abs=2e-6)


def test_models_value_plays_differently(capsys: pytest.CaptureFixture[str]) -> None:
    """Checker plays are valued under the model too: dead and live cubes give other equities after the plays."""
    after = {}
    for spec in ("gnubg", "dead", "live"):
        report = _report(capsys, "--cube", spec)
        after[spec] = [d["value_after"] for m in report["matches"] for g in m["games"] for d in g["checker"]]
    assert after["dead"] != after["gnubg"] and after["live"] != after["gnubg"] and after["dead"] != after["live"]
    assert len(after["dead"]) == len(after["gnubg"])


@pytest.mark.parametrize(
    ("spec", "needle"),
    [
        ("jump-local", "local volatility"),
        ("none", "needs a cube model"),
        ("janowski:2", "janowski:2"),
        ("wobbly", "wobbly"),
    ],
)
def test_unusable_models_are_refused(spec: str, needle: str) -> None:
    with pytest.raises(InvalidSpec, match=needle):
        money_cube_model(spec)


@pytest.mark.parametrize("as_json", [False, True])
def test_a_match_takes_only_gnubgs_model(tmp_path: Path, capsys: pytest.CaptureFixture[str], as_json: bool) -> None:
    path = tmp_path / "match.mat"
    path.write_text(MATCH_3)
    page = tmp_path / "page.html"
    argv = ["analyse", str(path), "--cube", "live", "--html", str(page), "--no-progress"]
    code, out, err = run_cli(capsys, *argv, *(["--json"] if as_json else []))
    assert_clean_error(code, out, err, "only gnubg's cube model", as_json)
    assert not page.exists()
    code, out, err = run_cli(capsys, "analyse", str(path), "--cube", "gnubg", "--no-progress")
    assert code == 0


def test_cli_bad_model_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(capsys, "analyse", str(MONEY), "--cube", "jump-net", "--no-progress")
    assert_clean_error(code, out, err, "local volatility", False)
