"""bench labels: a net's equity error against rollout labels, paired with a reference's on the same rows."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from benchmarks.label_error import label_errors, paired_abs_difference
from nets.evaluator import load_evaluator
from nets.mlp import cubeless_equity
from training.rollout_labels import read_labels

REPO = Path(__file__).resolve().parents[2]
LABELS = REPO / "results" / "labels" / "selfplay-s101"


def test_the_net_errors_are_its_equities_against_the_labels_and_the_pairing_is_row_by_row() -> None:
    data = read_labels(LABELS)
    labels = data.equity.astype(np.float64)
    # A reference that knows the labels exactly: its error is 0, so the paired difference is the net's own error.
    result = label_errors(LABELS, load_evaluator(), 0, reference=lambda boards: labels)
    mine = np.abs(cubeless_equity(load_evaluator().evaluate_boards(data.boards)) - labels)
    assert result.rows == len(data) == 1024 and result.trials == 216 and result.labelling_net == "65e254ef9591ee54"
    assert result.net["all"]["mae"] == pytest.approx(mine.mean(), abs=1e-5)
    assert result.reference_errors is not None and result.reference_errors["all"]["mae"] == 0
    assert result.net_minus_reference is not None
    assert result.net_minus_reference["all"]["mean"] == pytest.approx(mine.mean(), abs=1e-5)
    race = result.net_minus_reference["race"]
    assert race["mean"] == pytest.approx(result.net["race"]["mae"], abs=1e-5) and race["se"] > 0
    assert set(result.to_json()) >= {"net", "reference", "reference_errors", "net_minus_reference", "plies", "rows"}


def test_a_net_against_itself_differs_by_exactly_nothing() -> None:
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "cli.main",
            "bench",
            "labels",
            "--labels",
            str(LABELS),
            "--against",
            str(REPO / "weights" / "default.jgw"),
            "--json",
        ],
        capture_output=True,
        text=True,
        cwd=REPO,
    )
    assert run.returncode == 0, run.stderr
    out = json.loads(run.stdout)
    assert out["reference"].startswith("net:") and out["net_minus_reference"]["all"] == {"mean": 0.0, "se": 0.0}


def test_a_paired_difference_has_the_se_of_the_row_differences() -> None:
    labels = np.zeros(4)
    out = paired_abs_difference(
        np.array([0.1, -0.2, 0.3, 0.0]), np.array([0.0, 0.1, -0.1, 0.2]), labels, {"all": np.ones(4, bool)}
    )
    diff = np.array([0.1, 0.1, 0.2, -0.2])
    assert out["all"]["mean"] == pytest.approx(diff.mean()) and out["all"]["se"] == pytest.approx(
        diff.std(ddof=1) / 2, abs=1e-5
    )


@pytest.mark.parametrize("folder", ["missing", "tests"])
def test_a_folder_without_labels_is_a_one_line_error(folder: str) -> None:
    run = subprocess.run(
        [sys.executable, "-m", "cli.main", "bench", "labels", "--labels", folder, "--json"],
        capture_output=True,
        text=True,
        cwd=REPO,
    )
    assert run.returncode == 2 and set(json.loads(run.stdout)) == {"error"}
