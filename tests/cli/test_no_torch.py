"""Commands that only evaluate never import torch (it takes seconds to load); training does."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from weights import DEFAULT_WEIGHTS

START = "4HPwATDgc/ABMA"
REPO = Path(__file__).resolve().parents[2]

# Each command line, and whether torch may be loaded after it (the commands run in this order in one process).
COMMANDS: list[tuple[list[str], bool]] = [
    (["show", START], False),
    (["eval", f"{START}:cAkZAAAAAAAA", "--plies", "1"], False),
    (["hint", START, "--dice", "6", "2", "--plies", "1"], False),
    (["cube", "--W", "1.4", "--L", "1.0", "--model", "jump-numerical", "--alpha", "0.1", "--at", "0.5"], False),
    (["weights", "info", str(DEFAULT_WEIGHTS)], False),
    (["tournament", "--a", "net@0", "--b", "pubeval", "--games", "2"], False),
    (
        ["tournament", "--a", "net@1", "--a-cube", "jump-local", "--b", "net@0", "--b-cube", "janowski:0.7"]
        + ["--games", "2", "--cubeful"],
        False,
    ),
    (["bench", "eval", "--games", "2", "--repeats", "1"], False),
    # Training needs torch: this shows the check below sees an import when there is one.
    (["train", "--out", "RUN", "--games", "2", "--parallel", "2", "--hidden", "4", "--no-bearoff"], True),
]

SCRIPT = """
import contextlib, io, json, sys
import cli.main
report = {"after_import": "torch" in sys.modules, "commands": []}
for argv in json.loads(sys.argv[1]):
    with contextlib.redirect_stdout(io.StringIO()):
        code = cli.main.main([*argv, "--json"])
    report["commands"].append([argv, code, "torch" in sys.modules])
print(json.dumps(report))
"""


@pytest.mark.slow
def test_only_training_imports_torch(tmp_path: Path) -> None:
    argvs = [[str(tmp_path / "run.jgw") if a == "RUN" else a for a in argv] for argv, _ in COMMANDS]
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, json.dumps(argvs)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=600,
        check=True,
    )
    report = json.loads(done.stdout)
    assert report["after_import"] is False
    assert report["commands"] == [[argv, 0, torch] for argv, (_, torch) in zip(argvs, COMMANDS, strict=True)]
