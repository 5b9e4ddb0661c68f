"""``--help``: examples that run as printed, every default visible, the summaries of ``jumpgammon --help`` current."""

from __future__ import annotations

import argparse
import importlib.metadata
from pathlib import Path

import pytest

from cli.main import COMMANDS, UsageError, build_parser
from tests.cli.helpers import run_cli

PARSER = build_parser()
(SUB,) = (a for a in PARSER._actions if isinstance(a, argparse._SubParsersAction))
SUBPARSERS: dict[str, argparse.ArgumentParser] = dict(SUB.choices)
# Examples cheap enough to run here; the others (training, tournaments, rollouts, benchmarks) are parsed.
RUN = {"show", "id", "eval", "hint", "cube", "met"}
WITH_EXAMPLES = {"show", "id", "eval", "hint", "cube", "met", "weights", "bench", "train", "supervised"}
WITH_EXAMPLES |= {"tournament", "rollout"}


def examples(epilog: str | None) -> list[list[str]]:
    """The command lines of an epilog's example lines (``  jumpgammon ...``; a comment follows two blanks)."""
    lines = [line.strip() for line in (epilog or "").splitlines() if line.startswith("  jumpgammon ")]
    return [line.split("  ")[0].split()[1:] for line in lines]


def test_the_listing_is_the_same_loaded_or_not() -> None:
    """``jumpgammon --help`` lists every command from COMMANDS without loading one: the same lines as loaded."""
    light = build_parser([])
    assert light.format_help() == PARSER.format_help()
    assert [action.dest for action in SUB._choices_actions] == list(COMMANDS)


@pytest.mark.parametrize("command", sorted(WITH_EXAMPLES))
def test_help_has_examples_that_parse(command: str) -> None:
    found = examples(SUBPARSERS[command].epilog)
    assert found, f"{command} --help has no example"
    for argv in found:
        assert argv[0] == command
        try:
            PARSER.parse_args(argv)
        except UsageError as exc:  # an input file an earlier example (or the user) makes is all it may lack
            assert "is not an existing file" in str(exc), (argv, exc)


@pytest.mark.parametrize("command", sorted(RUN & WITH_EXAMPLES))
def test_cheap_examples_run(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path, command: str
) -> None:
    monkeypatch.chdir(tmp_path)  # an example may write a file (cube --plot)
    for argv in examples(SUBPARSERS[command].epilog):
        code, _, err = run_cli(capsys, *argv)
        assert code == 0, (argv, err)


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_every_default_is_shown(command: str) -> None:
    """--seed, --workers, --plies and --checkpoint-every hid their defaults."""
    parser = SUBPARSERS[command]
    for action in parser._actions:
        if not action.option_strings or any(action.default is v for v in (None, False, argparse.SUPPRESS)):
            continue
        text = " ".join(parser._get_formatter()._format_action(action).split())
        assert "default" in text.lower(), f"{command} {action.option_strings[0]}: {text!r}"


def test_version_is_the_installed_packages(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:  # argparse's own exit, as for --help
        run_cli(capsys, "--version")
    assert exited.value.code == 0
    assert capsys.readouterr().out.strip() == f"jumpgammon {importlib.metadata.version('jumpgammon')}"
