"""``jumpgammon id``: IDs written from readable fields, and read back into the same fields.

The gnubg cases (tests/fixtures/gnubg_id_fields.json, from tools/gnubg_fixtures/gen_id_fields.py)
set the fields with gnubg's own commands; the FIBS cases are gnubg's reading of the boards of
tests/fixtures/gnubg_fibs_external.json. gnubg is not needed.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import FibsBoard, GameState, MatchState, NotSupported, Position
from engine.match import JACOBY_OFF_BIT
from tests.cli.helpers import assert_clean_error, run_cli
from tests.engine.strategies import boards

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
GNUBG_CASES: list[dict[str, Any]] = json.loads((FIXTURES / "gnubg_id_fields.json").read_text())["cases"]
FIBS_RECORDS: list[dict[str, Any]] = json.loads((FIXTURES / "gnubg_fibs_external.json").read_text())["records"]


def id_json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    """The JSON of a successful ``jumpgammon id ... --json``."""
    code, out, err = run_cli(capsys, "id", *argv, "--json")
    assert code == 0, err + out
    result: dict[str, Any] = json.loads(out)
    return result


def test_fixture_covers_the_fields() -> None:
    options = [" ".join(c["options"]) for c in GNUBG_CASES]
    assert len(GNUBG_CASES) >= 30
    for needle in ("--match-length", "--score", "--crawford", "--no-jacoby", "--cube-owner 0", "--cube-owner 1"):
        assert any(needle in o for o in options), needle
    assert any("--on-roll 0" in o for o in options) and any("--dice" in o for o in options)


@pytest.mark.parametrize("case", GNUBG_CASES, ids=[f"case{i}" for i in range(len(GNUBG_CASES))])
def test_fields_give_gnubgs_ids(capsys: pytest.CaptureFixture[str], case: dict[str, Any]) -> None:
    """The options naming what gnubg's commands set give the IDs gnubg wrote, and read back into them."""
    written = id_json(capsys, case["position"], *case["options"])
    assert (written["position_id"], written["match_id"]) == (case["position_id"], case["match_id"])
    read = id_json(capsys, f"{case['position_id']}:{case['match_id']}")
    assert read["fields"] == written["fields"]
    rebuilt = id_json(capsys, *read["options"])
    assert rebuilt["id"] == f"{case['position_id']}:{case['match_id']}"


def test_fibs_boards_read_as_gnubg_reads_them() -> None:
    """Every FIBS board of the external-mode fixture gives the IDs of gnubg's own reading (pending doubles aside)."""
    checked = 0
    for record in FIBS_RECORDS:
        board = FibsBoard.parse(record["board"])
        if board.was_doubled:
            with pytest.raises(NotSupported):
                board.match_state()
            continue
        assert board.position().id == record["gnubg_position_id"]
        assert board.match_state().id == record["gnubg_match_id"]
        checked += 1
    assert checked >= 350


def test_fibs_option(capsys: pytest.CaptureFixture[str]) -> None:
    record = next(r for r in FIBS_RECORDS if r["category"] == "game" and ":5:" in r["board"][:30])
    out = id_json(capsys, "--fibs", record["board"])
    assert out["id"] == f"{record['gnubg_position_id']}:{record['gnubg_match_id']}"
    doubled = next(r for r in FIBS_RECORDS if r["kind"] == "take")
    code, out_text, err = run_cli(capsys, "id", "--fibs", doubled["board"])
    assert_clean_error(code, out_text, err, "pending double", as_json=False)


match_states = st.builds(
    lambda length, s0, s1, cube_log, owner, on_roll, dice, crawford, jacoby_off, doubled, resigned, state: MatchState(
        cube=1 << cube_log,
        cube_owner=owner,
        on_roll=on_roll,
        crawford=crawford,
        game_state=state,
        turn=1 - on_roll if doubled else on_roll,
        doubled=doubled,
        resigned=resigned,
        dice=dice,
        match_length=length,
        score=(s0, s1),
        extra_bits=JACOBY_OFF_BIT if jacoby_off else 0,
    ),
    st.sampled_from([0, 0, 1, 3, 5, 7, 25, 32767]),
    st.integers(0, 40),
    st.integers(0, 40),
    st.integers(0, 12),
    st.sampled_from([None, 0, 1]),
    st.integers(0, 1),
    st.sampled_from([(0, 0), (6, 5), (3, 3), (1, 2)]),
    st.booleans(),
    st.booleans(),
    st.booleans(),
    st.integers(0, 3),
    st.sampled_from(list(GameState)),
)


# capsys is read after every call, so one fixture for all examples is fine.
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(board=boards(), state=match_states)
def test_an_id_reads_into_fields_that_write_it_again(
    capsys: pytest.CaptureFixture[str], board: Any, state: MatchState
) -> None:
    """Any ID pair: its fields, given back as options, write the same pair (the options printed, and the fields)."""
    pair = f"{Position.from_board(board).id}:{state.id}"
    read = id_json(capsys, pair)
    assert read["id"] == pair
    f = read["fields"]
    assert f["match_length"] == state.match_length and f["score"] == list(state.score)
    assert f["cube_value"] == state.cube and f["on_roll"] == state.on_roll and f["dice"] == list(state.dice)
    assert f["cube_owner"] == ("centered" if state.cube_owner is None else state.cube_owner)
    assert f["crawford"] == state.crawford and f["jacoby"] == state.jacoby and f["doubled"] == state.doubled
    # --dice keeps the high die first, as gnubg's ``set dice`` does: a low-first ID is rebuilt with its dice swapped
    rebuilt = pair
    if state.dice[0] < state.dice[1]:
        rebuilt = f"{Position.from_board(board).id}:{dataclasses.replace(state, dice=state.dice[::-1]).id}"
    assert id_json(capsys, *read["options"])["id"] == rebuilt
    owner = str(f["cube_owner"])
    options = [read["position_id"], "--match-length", str(f["match_length"]), "--score", "{}-{}".format(*f["score"])]
    options += ["--cube-value", str(f["cube_value"]), "--cube-owner", owner, "--on-roll", str(f["on_roll"])]
    options += ["--turn", str(f["turn"]), "--dice", *map(str, f["dice"]), "--resigned", f["resigned"]]
    options += ["--game-state", f["game_state"]]
    options += [f"--{'' if f[k] else 'no-'}{k}" for k in ("crawford", "jacoby", "doubled")]
    assert id_json(capsys, *options)["id"] == rebuilt


def test_text_output_names_the_fields_and_how_to_rebuild(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "id", "--match-length", "7", "--score", "2-4", "--dice", "2", "5")
    assert code == 0
    assert "7-point match" in out and "2-4 (player 0, then player 1)" in out and "dice          5 2" in out
    assert "the same IDs: jumpgammon id 4HPwATDgc/ABMA --match-length 7 --score 2-4 --dice 5 2" in out
    code, out, _ = run_cli(capsys, "id", "4HPwATDgc/ABMA", "--match-length", "0", "--crawford")
    assert code == 0 and "note: no game can be in this state" in out


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["--score", "2:4"], "--score"),
        (["--cube-value", "3"], "--cube-value"),
        (["--dice", "0", "3"], "dice"),
        (["--fibs", "board:x"], "FIBS board"),
        (["4HPwATDgc/ABMA", "--fibs", "board:x"], "not both"),
        (["4hpwatdgc/abma"], "case-sensitive"),
    ],
)
@pytest.mark.parametrize("as_json", [False, True])
def test_bad_fields_are_one_clean_line(
    capsys: pytest.CaptureFixture[str], argv: list[str], needle: str, as_json: bool
) -> None:
    code, out, err = run_cli(capsys, "id", *argv, *(["--json"] if as_json else []))
    assert_clean_error(code, out, err, needle, as_json)


def test_help_examples_run(capsys: pytest.CaptureFixture[str]) -> None:
    """Every example of ``jumpgammon id --help`` runs as printed (its comment starts after two blanks)."""
    from cli.id import EPILOG

    examples = [line.strip().split("  ")[0].split()[2:] for line in EPILOG.splitlines() if "  jumpgammon id " in line]
    assert len(examples) >= 5
    for argv in examples:
        code, _, err = run_cli(capsys, "id", *argv)
        assert code == 0, (argv, err)
