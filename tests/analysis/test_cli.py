"""``jumpgammon analyse``: text, --json (the result dataclasses field by field) and --html, from a .mat file."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

import analysis.deep
import cli.analyse as cli_analyse
from tests.analysis.test_inputs import MATCH_3, MONEY_PASS
from tests.cli.helpers import run_cli


@pytest.fixture
def money(tmp_path: Path) -> Path:
    path = tmp_path / "money.mat"
    path.write_text(MONEY_PASS)
    return path


def test_text_report_names_the_errors_and_the_summary(money: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(capsys, "analyse", str(money), "--no-progress")
    assert code == 0 and err == ""
    assert "money session (Jacoby off, beavers off, no cube limit), Alice against Bob" in out
    assert "pass: wrong pass very bad" in out
    assert "Overall rating" in out and "PR" in out


def test_json_holds_every_decision_with_ranked_alternatives(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "match.mat"
    path.write_text(MATCH_3)
    code, out, _ = run_cli(capsys, "analyse", str(path), "--json", "--no-progress", "--alternatives", "3")
    assert code == 0
    result = json.loads(out)
    (match,) = result["matches"]
    assert match["length"] == 3 and match["names"] == ["Alice", "Bob"]
    moves = [d for g in match["games"] for d in g["checker"]]
    assert len(moves) == 4
    for d in moves:
        equities = [c["equity"] for c in d["candidates"]]
        assert equities[: min(3, len(equities))] == sorted(equities[: min(3, len(equities))], reverse=True)
        assert d["played"] in [c["move"] for c in d["candidates"]]
        assert d["error"] == pytest.approx(
            max(equities) - next(c["equity"] for c in d["candidates"] if c["move"] == d["played"]), abs=1e-5
        )
        assert 0.0 <= d["candidates"][0]["mwc"] <= 1.0
    players = match["players"]
    # the match is not over: each result is the MWC gained since the start (gnubg's), so they sum to zero
    assert players[0]["result"] + players[1]["result"] == pytest.approx(0.0)
    assert result["met"] == "Kazaross-XG2" and result["plies"] == 0


def test_html_page_is_self_contained(money: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    page = tmp_path / "out" / "page.html"
    page.parent.mkdir()
    code, _, _ = run_cli(capsys, "analyse", str(money), "--html", str(page), "--no-progress")
    text = page.read_text()
    assert code == 0 and text.startswith("<!DOCTYPE html>")
    assert text.count("data:image/png;base64,") == 1  # one game, one graph
    assert 'class="summary"' in text and "wrong pass" in text
    assert "http" not in text.replace("http-equiv", "")  # nothing fetched from elsewhere


def test_html_into_a_missing_folder_is_refused_before_any_work(money: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(capsys, "analyse", str(money), "--html", str(money.parent / "no" / "p.html"))
    assert code == 2 and "does not exist" in err and out == ""


def _report_without_seconds(out: str) -> dict[str, object]:
    """The --json report less its timing (the only field that differs from run to run)."""
    report = json.loads(out)
    assert isinstance(report, dict)
    report.pop("seconds")
    return report


def _same_report_with_two_workers(
    path: Path, plies: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # two boards per batch, so that the few positions of a small file make many batches for the workers
    monkeypatch.setattr(analysis.deep, "DEEP_BOARDS", 2)
    command = ("analyse", str(path), "--json", "--no-progress", "--plies", plies)
    code1, one, _ = run_cli(capsys, *command, "--workers", "1")
    code2, two, _ = run_cli(capsys, *command, "--workers", "2")
    assert code1 == code2 == 0
    assert _report_without_seconds(two) == _report_without_seconds(one)


@pytest.mark.slow
def test_two_workers_give_the_report_of_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "match.mat"
    path.write_text(MATCH_3)
    _same_report_with_two_workers(path, "1", monkeypatch, capsys)


@pytest.mark.slow
def test_two_workers_give_the_report_of_one_at_2_ply(
    money: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _same_report_with_two_workers(money, "2", monkeypatch, capsys)


def test_html_without_matplotlib_is_refused_before_the_analysis(
    money: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # as if the plot extra were not installed
    analysed: list[bool] = []
    monkeypatch.setattr(cli_analyse, "analyse_file", lambda *a, **k: analysed.append(True))
    code, out, err = run_cli(capsys, "analyse", str(money), "--html", str(tmp_path / "page.html"), "--no-progress")
    assert code == 2 and "needs matplotlib" in err and not analysed
