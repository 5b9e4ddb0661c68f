"""``bench rollout``: the timing harness against a stand-in for gnubg (the real one is not needed by the tests)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import benchmarks.rollout_speed as rs
from tests.cli.helpers import run_cli

# Reads the tty script gnubg would get, checks it asks for what the benchmark means, and answers as gnubg does.
FAKE_GNUBG = """#!/bin/sh
script=$(cat)
case "$script" in *"set threads 1"*"set rollout trials 36"*"set rollout cubeful on"*) ;; *) exit 3 ;; esac
case "$script" in *"rollout"*) echo "Rollout done" ;; esac
"""


@pytest.fixture
def fake_gnubg(tmp_path: Path) -> Path:
    program = tmp_path / "gnubg"
    program.write_text(FAKE_GNUBG)
    program.chmod(0o755)
    return program


def test_both_programs_are_timed_and_their_medians_compared(fake_gnubg: Path) -> None:
    result = rs.bench_rollout(trials=36, repeats=1, gnubg=fake_gnubg, progress=False)
    (run,) = result.runs
    assert set(run["gnubg"]) == {"no_double", "double_take"} and run["jumpgammon"]["cpu"] > 0
    decision = run["jumpgammon"]["cube_decision"]  # the rollout's own answer, both branches
    assert decision["no_double"]["se"] > 0 and decision["double_take"]["se"] > 0
    gnubg_cpu = run["gnubg"]["no_double"]["cpu"] + run["gnubg"]["double_take"]["cpu"]
    assert result.speed_ratio_per_core == pytest.approx(gnubg_cpu / run["jumpgammon"]["cpu"], rel=1e-3)
    record = result.to_json()
    assert (
        record["trials"] == 36
        and record["position"] == rs.POSITION
        and "--trials 36" in record["commands"]["jumpgammon"]
    )


def test_a_gnubg_that_does_not_finish_is_named(tmp_path: Path) -> None:
    silent = tmp_path / "gnubg"
    silent.write_text("#!/bin/sh\ncat > /dev/null\n")
    silent.chmod(0o755)
    with pytest.raises(RuntimeError, match="did not finish its no_double rollout"):
        rs.bench_rollout(trials=36, repeats=1, gnubg=silent, progress=False)


def test_without_gnubg_the_command_fails_in_one_line(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(rs, "GNUBG", tmp_path / "no-gnubg-here")
    code, out, err = run_cli(capsys, "bench", "rollout", "--trials", "36")
    assert code == 2 and out == "" and "no-gnubg-here" in err and len(err.strip().splitlines()) == 1


def test_the_record_is_written_where_asked(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, fake_gnubg: Path, tmp_path: Path
) -> None:
    monkeypatch.setattr(rs, "GNUBG", fake_gnubg)
    code, out, _ = run_cli(
        capsys, "bench", "rollout", "--trials", "36", "--repeats", "1", "--out", str(tmp_path / "o"), "--json"
    )
    assert code == 0
    printed, written = json.loads(out), json.loads((tmp_path / "o" / rs.RESULT_FILE).read_text())
    assert printed == written and written["measured"]["weights_sha256"].startswith("sha256:")
