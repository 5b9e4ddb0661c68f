"""``jumpgammon cube`` command line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from cli.main import main
from cube import POINT_NAMES, implied_cube_life


def _json(capsys: pytest.CaptureFixture[str], argv: list[str]) -> dict[str, Any]:
    assert main(["cube", *argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_issue_example(capsys: pytest.CaptureFixture[str]) -> None:
    out = _json(
        capsys,
        [
            "--W",
            "1.4",
            "--L",
            "1.0",
            "--alpha",
            "0.10",
            "--model",
            "jump-numerical",
            "--distribution",
            "double-exponential",
            "--at",
            "0.3,0.50,0.7",
            "--grid",
            "200",
        ],
    )
    for k in (*POINT_NAMES, "implied_x1", "implied_x2", "equity_at"):
        assert k in out
    assert list(out["equity_at"]) == ["0.3", "0.50", "0.7"]
    for eq in out["equity_at"].values():
        assert set(eq) == {"centered", "owned", "unavailable"}
        assert eq["owned"] >= eq["centered"] >= eq["unavailable"]
    pts = [out[k] for k in ("tg_u", "tp", "rd_u", "id_u", "id_o", "rd_o", "cp", "tg_o")]
    assert pts == sorted(pts)
    assert 0.5 < out["implied_x1"] < 1 and 0.5 < out["implied_x2"] < 1


def test_linear_implied_indices_and_janowski_nulls(capsys: pytest.CaptureFixture[str]) -> None:
    out = _json(capsys, ["--W", "1.25", "--L", "1", "--alpha", "0.1", "--model", "jump-linear"])
    x1, x2 = implied_cube_life(1.25, 1.0, 0.1)
    assert out["implied_x1"] == pytest.approx(float(x1))
    assert out["implied_x2"] == pytest.approx(float(x2))
    out = _json(capsys, ["--W", "1.2", "--L", "1.1", "--model", "janowski", "--x", "0.68", "--jacoby", "--at", "0.5"])
    assert out["implied_x1"] is None and out["tg_oc"] is None and out["tg_uc"] is None
    assert out["tp"] == pytest.approx((1.1 - 0.5) / (2.3 + 0.34))
    out = _json(capsys, ["--W", "1", "--L", "1", "--model", "dead"])
    assert out["tp"] == pytest.approx(0.25) and out["id_o"] == pytest.approx(0.5)


def test_a_jump_model_without_alpha_takes_evals_remote_alpha(capsys: pytest.CaptureFixture[str]) -> None:
    """``eval`` prints W and L "for cube --W --L": with them alone the jump model uses the 0.10 eval's models use."""
    without = _json(capsys, ["--W", "1.2", "--L", "1.1"])
    assert without["model"] == "jump-linear" and without["alpha"] == 0.1
    assert without == _json(capsys, ["--W", "1.2", "--L", "1.1", "--alpha", "0.10"])


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["--W", "0.8", "--L", "1", "--model", "live"], "--W: expected a number in [1, 3], got '0.8'"),
        (["--W", "1", "--L", "1", "--model", "janowski"], "--x"),
        (["--W", "1", "--L", "1", "--model", "janowski", "--x", "1.2"], "1.2"),
        (["--W", "1", "--L", "1", "--model", "jump-linear", "--alpha", "0"], "--alpha: expected a number in (0, 0.5)"),
        (["--W", "1", "--L", "1", "--model", "live", "--at", "1.5"], "P = 1.5"),
        (["--W", "1", "--L", "1", "--model", "live", "--x", "0.5"], "model live takes no --x"),  # was ignored
        (["--W", "1", "--L", "1", "--model", "live", "--at", ",,"], "names no P value"),
        (["--W", "1", "--L", "1", "--model", "janowski", "--x", "0.5", "--alpha", "0.1"], "takes no --alpha"),
        (["--W", "1", "--L", "1", "--model", "jump-linear", "--alpha", "0.1", "--x1", "0.5"], "takes no --x1"),
        # options only some models read were ignored by the others
        (["--W", "1", "--L", "1", "--model", "janowski", "--x", "0.5", "--grid", "100"], "takes no --grid"),
        (["--W", "1", "--L", "1", "--model", "jump-numerical", "--alpha", "0.1", "--statistical"], "--statistical"),
        (["--W", "1", "--L", "1", "--model", "jump-linear", "--alpha", "0.1", "--distribution", "gaussian"], "--distr"),
        (["--W", "1", "--L", "1", "--model", "jump-nonlinear", "--alpha", "0.1", "--grid", "100"], "takes no --grid"),
    ],
)
def test_errors(capsys: pytest.CaptureFixture[str], argv: list[str], needle: str) -> None:
    assert main(["cube", *argv, "--json"]) == 2
    assert needle in json.loads(capsys.readouterr().out)["error"]
    assert main(["cube", *argv]) == 2
    assert needle in capsys.readouterr().err


def test_human_table_and_plot(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    png = tmp_path / "fig3.png"
    assert (
        main(
            [
                "cube",
                "--W",
                "1.2",
                "--L",
                "1.1",
                "--alpha",
                "0.08",
                "--model",
                "jump-nonlinear",
                "--at",
                "0.5",
                "--plot",
                str(png),
            ]
        )
        == 0
    )
    text = capsys.readouterr().out
    assert "tp" in text and "implied Janowski" in text and "0.5" in text
    assert png.stat().st_size > 10_000 and png.read_bytes()[:4] == b"\x89PNG"


@pytest.mark.parametrize(
    ("plot", "needle"),
    [
        ("", "give a file ending in"),  # no plot was written, exit 0
        ("p.jpgx", "give a file ending in"),
        ("missing/p.png", "does not exist"),  # the message named the temporary file
        (".", "give a file ending in"),  # left a stray '.tmp' beside the folder
    ],
)
def test_a_plot_file_is_checked_before_any_work(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, plot: str, needle: str
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["cube", "--W", "1.2", "--L", "1.1", "--alpha", "0.08", "--plot", plot]) == 2
    err = capsys.readouterr().err
    assert needle in err and len(err.splitlines()) == 1
    assert list(tmp_path.iterdir()) == []  # nothing written, no temporary left


def test_an_equity_that_rounds_to_zero_prints_without_a_sign(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["cube", "--W", "1", "--L", "1", "--model", "janowski", "--x", "0.68", "--at", "0.5"]) == 0
    row = capsys.readouterr().out.strip().splitlines()[-1].split()
    assert row == ["0.5", "0.0000", "0.1700", "-0.1700"]
