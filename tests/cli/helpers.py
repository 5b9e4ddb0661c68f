"""Helpers of the in-process CLI tests: one call's outcome, and the check of a clean one-line error."""

from __future__ import annotations

import json

import pytest

from cli.main import main


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """Exit status, stdout and stderr of one in-process CLI call."""
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def assert_clean_error(code: int, out: str, err: str, needle: str, as_json: bool) -> None:
    """Exit 2 with one line naming ``needle``: JSON on stdout with --json, else text on stderr."""
    assert code == 2
    if as_json:
        assert out.count("\n") == 1 and needle in json.loads(out)["error"]
    else:
        lines = [line for line in err.splitlines() if line.strip()]
        assert out == "" and len(lines) == 1 and needle in lines[0]
    assert "Traceback" not in out + err
