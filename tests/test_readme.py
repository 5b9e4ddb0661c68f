"""README.md's Python examples run as written, so the front door cannot rot."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"
BLOCKS = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S)


def test_the_readme_has_examples_and_stays_short() -> None:
    """At least one example per job (evaluate, tournament, rollout); the front door stays under 250 lines."""
    assert len(BLOCKS) >= 3
    assert len(README.read_text().splitlines()) <= 250


@pytest.mark.parametrize("index", range(len(BLOCKS)))
def test_a_readme_example_runs(index: int) -> None:
    """Each ```python block runs on its own; its asserts check what the README says it shows."""
    code = compile(BLOCKS[index], f"README.md python block {index + 1}", "exec")
    exec(code, {"__name__": "readme_example"})
