"""The clean cube comparisons: the committed summary recomputes from the committed ledgers, and the docs quote it."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
from pathlib import Path

import pytest

from arena import PlayerSpec, Rules, TournamentConfig
from arena.ledger import same_tournament

REPO = Path(__file__).resolve().parents[2]
FOLDER = REPO / "results" / "tournaments" / "cube-comparisons"
TOOL = REPO / "tools" / "cube_comparisons" / "summarise.py"
DOC = REPO / "docs" / "experiments.md"


def test_the_summary_recomputes_from_the_committed_ledgers(tmp_path: Path) -> None:
    run = subprocess.run(
        [sys.executable, str(TOOL), "--ledgers", str(FOLDER), "--out", str(tmp_path)],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=300,
    )
    assert run.returncode == 0, run.stderr
    assert json.loads((tmp_path / "summary.json").read_text()) == json.loads((FOLDER / "summary.json").read_text())
    assert (tmp_path / "summary.md").read_text() == (FOLDER / "summary.md").read_text()


def test_the_docs_quote_every_row_of_the_summary() -> None:
    rows = [line for line in (FOLDER / "summary.md").read_text().splitlines() if line.startswith("| ")]
    assert len(rows) >= 3
    text = DOC.read_text()
    assert all(row in text for row in rows)


@pytest.mark.parametrize("ledger", sorted(FOLDER.glob("*.ledger.gz")), ids=lambda p: p.name)
def test_each_ledger_belongs_to_the_command_the_summary_gives(ledger: Path) -> None:
    """The ledger's header is the tournament of the quoted command (players, cube specs, seed, luck), so it reprints."""
    summary = {r["name"]: r for r in json.loads((FOLDER / "summary.json").read_text())}
    row = summary[ledger.name.removesuffix(".ledger.gz")]
    argv = row["command"].split()
    option = {argv[k]: argv[k + 1] for k in range(len(argv) - 1) if argv[k].startswith("--")}
    cfg = TournamentConfig(
        a=PlayerSpec(option["--a"], option["--a-cube"]),
        b=PlayerSpec(option["--b"], option["--b-cube"]),
        games=int(option["--games"]),
        seed=int(option["--seed"]),
        rules=Rules(cubeful=True),
        block_pairs=int(option["--block-pairs"]),
        luck_weights="",
        luck_screen=int(option["--luck-screen"]) or None,
    )
    header = json.loads(gzip.decompress(ledger.read_bytes()).decode().splitlines()[0])
    assert list(header) == ["tournament"] and same_tournament(header["tournament"], cfg)


def test_a_ledger_extended_from_a_shorter_run_counts_each_pair_once() -> None:
    """The gnubg-cube ledger holds its 40,000-game run's last 32-pair block beside the 41,000-game run's 64."""
    summary = {row["name"]: row for row in json.loads((FOLDER / "summary.json").read_text())}
    row = summary["jumplocal_vs_gnubgcube_seed3"]
    lines = gzip.decompress((FOLDER / "jumplocal_vs_gnubgcube_seed3.ledger.gz").read_bytes()).decode().splitlines()
    held = [(json.loads(line)["first_pair"], len(json.loads(line)["seat_of_a"]) // 2) for line in lines[1:]]
    assert (19968, 32) in held and (19968, 64) in held  # the overlap is there
    assert sum(pairs for _, pairs in held) * 2 > row["games"] == row["planned_games"] == 41_000


CHECK = REPO / "tools" / "cube_comparisons" / "stop_rule_check.py"


def test_the_docs_quote_the_stop_rule_check() -> None:
    """The ranges the docs give for the SEs' accuracy are what the check prints from the committed ledgers."""
    run = subprocess.run(
        [sys.executable, str(CHECK), "--replicates", "1000", "--json"],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=300,
    )
    assert run.returncode == 0, run.stderr
    checks = json.loads(run.stdout).values()
    ratios = [c["spread_milli"] / c["reported_se_milli"] for c in checks]
    coverage = [c["coverage_90"] for c in checks]
    prose = " ".join(DOC.read_text().split())
    assert f"spread is {min(ratios):.2f} to {max(ratios):.2f} times the SE" in prose
    assert f"hold the truth {100 * min(coverage):.0f}% to {100 * max(coverage):.0f}% of the time" in prose
    assert f"at most {max(abs(c['bias_in_spreads']) for c in checks):.2f} of a spread" in prose


PACKAGE_CHECK = REPO / "tools" / "gnubg_cube" / "package_cube_life.py"


def test_the_docs_quote_how_often_the_gnubg_package_leaves_gnubg_107s_cube_model() -> None:
    pytest.importorskip("gnubg")  # the optional extra the tool measures
    run = subprocess.run(
        [sys.executable, str(PACKAGE_CHECK), "--games", "200"], capture_output=True, text=True, cwd=REPO, timeout=300
    )
    assert run.returncode == 0, run.stderr
    found = json.loads(run.stdout)
    centred, owned = found["centered"], found["owned"]
    prose = " ".join(DOC.read_text().split())
    assert f"On the {found['positions']:,} pre-roll positions of 200 self-play games" in prose
    assert f"differ at {centred['double_differs']} with the cube centred and {owned['double_differs']} with it" in prose
    assert centred["package_doubles_model_not"] == owned["package_doubles_model_not"] == 0  # "every time ... holding"
    assert (
        f"its take at {centred['response_differs']} each" in prose
        and owned["response_differs"] == centred["response_differs"]
    )
