"""XGIDs: read and written as GNU Backgammon 1.07 reads them (tests/fixtures/gnubg_xgid.json), both directions.

The fixture pairs each XGID with the position and match IDs gnubg 1.07 read it into (its generator,
tools/gnubg_fixtures/gen_xgid.py, says how). Reading: the XGID must give gnubg's two IDs. Writing:
gnubg's two IDs (with the beavers and maximum cube a match ID does not hold) must give the XGID
back, the higher die first as XG writes it. Strings gnubg refuses are refused here too.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine import InvalidPositionId, InvalidXgid, MatchState, Position, parse_id_pair
from engine.errors import InvalidMatchState
from engine.xgid import Xgid, XgidPlayer, looks_like_xgid, parse_xgid
from tests.cli.helpers import assert_clean_error, run_cli
from tests.engine.strategies import boards

FIXTURE = json.loads((Path(__file__).parents[1] / "fixtures" / "gnubg_xgid.json").read_text())
VALID = [c for c in FIXTURE["cases"] if c["valid"]]
REFUSED = [c["xgid"] for c in FIXTURE["cases"] if not c["valid"]]
OPENING = "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10"


def test_the_fixture_covers_both_players_money_and_matches() -> None:
    fields = [c["xgid"].split(":") for c in VALID]
    assert {f[3] for f in fields} == {"1", "-1"}
    assert {f[2] for f in fields} == {"0", "1", "-1"}
    assert any(f[8] == "0" for f in fields) and any(f[8] != "0" for f in fields)
    assert any(f[4] == "00" for f in fields) and any(f[4] != "00" for f in fields)
    assert len(REFUSED) >= 5


@pytest.mark.parametrize("case", VALID, ids=lambda c: c["xgid"])
def test_an_xgid_reads_into_gnubgs_ids(case: dict) -> None:
    position, match = parse_id_pair(case["xgid"])
    assert match is not None
    assert (position.id, match.id) == (case["position_id"], case["match_id"])


@pytest.mark.parametrize("case", VALID, ids=lambda c: c["xgid"])
def test_gnubgs_ids_write_the_xgid(case: dict) -> None:
    position = Position.from_id(case["position_id"])
    match = MatchState.from_id(case["match_id"])
    written = position.to_xgid(match, beavers=case["beavers"], max_cube_exponent=case["max_cube_exponent"])
    assert written == case["xgid_high_die_first"]


@pytest.mark.parametrize("text", REFUSED)
def test_what_gnubg_refuses_is_refused_naming_the_string(text: str) -> None:
    with pytest.raises(InvalidPositionId) as info:
        parse_id_pair(text)
    assert text.strip() in str(info.value)
    assert "\n" not in str(info.value)


def test_the_opening_position_is_gnubgs_opening() -> None:
    assert Position.from_xgid(OPENING) == Position.initial()
    assert Position.initial().to_xgid(MatchState(on_roll=1, turn=1, extra_bits=1)) == OPENING


def test_a_double_offered_is_read_with_the_doubler_on_roll_and_the_taker_to_act() -> None:
    # O (-1) doubled to 2 in a 7-point match at 2-4 with the cube centred; X must answer
    text = "XGID=-b----E-C---eE---c-e----B-:0:0:-1:D:2:4:0:7:10"
    match = MatchState.from_xgid(text)
    assert match.doubled and match.on_roll == 0 and match.turn == 1 and match.cube == 1
    assert match.score == (4, 2) and match.dice == (0, 0)
    match.check_playable()
    assert Position.from_xgid(text).to_xgid(match) == text


def test_beavers_and_the_maximum_cube_survive_a_round_trip() -> None:
    text = "XGID=-b----E-C---eE---c-e----B-:3:-1:1:00:5:2:3:0:8"
    x = parse_xgid(text)
    assert x.beavers and x.jacoby and x.max_cube_exponent == 8 and x.cube == 8 and x.cube_owner is XgidPlayer.O
    assert x.text == text
    assert Position.from_xgid(x).to_xgid(MatchState.from_xgid(x), beavers=True, max_cube_exponent=8) == text


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0", "fields"),
        ("XGID=-b----E-C---eE---c-e----Z-:0:0:1:00:0:0:0:0:10", "position"),
        ("XGID=Ab----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10", "O's bar"),
        ("XGID=-b----E-C---eE---c-e----Ba:0:0:1:00:0:0:0:0:10", "X's bar"),
        ("XGID=-b----E-C---eE---c-e---PB-:0:0:1:00:0:0:0:0:10", "checkers"),
        ("XGID=--------------------------:0:0:1:00:0:0:0:0:10", "no checkers"),
        ("XGID=-b----E-C---eE---c-e----B-:0:2:1:00:0:0:0:0:10", "cube owner"),
        ("XGID=-b----E-C---eE---c-e----B-:0:0:0:00:0:0:0:0:10", "turn"),
        ("XGID=-b----E-C---eE---c-e----B-:0:0:1:70:0:0:0:0:10", "dice"),
        ("XGID=-b----E-C---eE---c-e----B-:0:0:1:R:0:0:0:0:10", "raccoon"),
        ("XGID=-b----E-C---eE---c-e----B-:16:0:1:00:0:0:0:0:10", "cube exponent"),
        ("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:-1:0:0:0:10", "score"),
        ("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:7:99", "maximum cube"),
    ],
)
def test_a_malformed_xgid_gets_one_line_naming_it_and_the_field(text: str, needle: str) -> None:
    with pytest.raises(InvalidXgid) as info:
        parse_id_pair(text)
    message = str(info.value)
    assert text in message and needle in message and "\n" not in message


def test_an_unplayable_match_state_is_refused_naming_the_xgid() -> None:
    text = "XGID=-b----E-C---eE---c-e----B-:0:0:1:52:7:0:0:7:10"  # X at 7 of 7
    with pytest.raises(InvalidMatchState, match="XGID 'XGID=.*score"):
        parse_id_pair(text)
    assert parse_id_pair(text, playable=False)[1] is not None


def test_an_xgid_without_its_prefix_is_read() -> None:
    assert parse_id_pair(OPENING.removeprefix("XGID="))[0] == Position.initial()


def test_gnubg_ids_are_not_taken_for_xgids() -> None:
    assert not looks_like_xgid("4HPwATDgc/ABMA:cAkZAAAAAAAA")
    assert looks_like_xgid(OPENING) and looks_like_xgid(OPENING.removeprefix("XGID="))


def test_a_resignation_has_no_xgid() -> None:
    with pytest.raises(InvalidMatchState, match="resignation"):
        Position.initial().to_xgid(MatchState(on_roll=1, turn=0, resigned=1))


# --- hypothesis round trips -------------------------------------------------------------------


@st.composite
def match_states(draw: st.DrawFn) -> MatchState:
    """A playable match state an XGID can hold (no resignation; turn follows the roller or a double)."""
    length = draw(st.sampled_from([0, 0, 1, 3, 5, 7, 11, 25]))
    on_roll = draw(st.integers(0, 1))
    doubled = draw(st.booleans()) and length != 1
    if length == 0:
        score = (draw(st.integers(0, 50)), draw(st.integers(0, 50)))
        crawford = False
        cube = 1 << draw(st.integers(0, 6))
        owner = draw(st.sampled_from([None, 0, 1])) if cube == 1 else draw(st.sampled_from([0, 1]))
        if doubled:
            owner = draw(st.sampled_from([None, on_roll])) if cube == 1 else on_roll
    else:
        score = (draw(st.integers(0, length - 1)), draw(st.integers(0, length - 1)))
        crawford = length - 1 in score and draw(st.booleans()) and score != (length - 1, length - 1)
        cube, owner = 1, None
        if not crawford and draw(st.booleans()):
            owner = draw(st.integers(0, 1))
            room = length - score[1 - owner] - 1
            cube = 1 << draw(st.integers(1, room.bit_length())) if room >= 1 else 1
            owner = owner if cube > 1 else None
        if doubled and (crawford or score[on_roll] + cube >= length or owner == 1 - on_roll):
            doubled = False
    dice = (0, 0) if doubled else draw(st.sampled_from([(0, 0), (6, 5), (3, 1), (2, 2)]))
    jacoby_off = 1 if length else draw(st.integers(0, 1))
    state = MatchState(
        cube=cube,
        cube_owner=owner,
        on_roll=on_roll,
        crawford=crawford,
        turn=1 - on_roll if doubled else on_roll,
        doubled=doubled,
        dice=dice,
        match_length=length,
        score=score,
        extra_bits=jacoby_off,
    )
    return state.check_playable()


@given(boards(), match_states(), st.booleans(), st.integers(0, 15))
def test_any_position_and_state_round_trip_through_an_xgid(
    board: np.ndarray, match: MatchState, beavers: bool, max_cube: int
) -> None:
    position = Position(board)
    text = position.to_xgid(match, beavers=beavers, max_cube_exponent=max_cube)
    back_position, back_match = parse_id_pair(text)
    assert back_position == position and back_match == match
    x = parse_xgid(text)
    assert x.text == text and x.beavers == (beavers and match.match_length == 0) and x.max_cube_exponent == max_cube


XGID_ALPHABET = "-ABCDEFabcdefP0123456789:=XGID D"


@st.composite
def xgid_like_texts(draw: st.DrawFn) -> str:
    """Random texts of an XGID's characters, real XGIDs, and real XGIDs with one character changed or dropped."""
    kind = draw(st.sampled_from(["random", "valid", "changed", "dropped"]))
    if kind == "random":
        return draw(st.text(alphabet=XGID_ALPHABET, max_size=80))
    text = Position(draw(boards())).to_xgid(draw(match_states()))
    at = draw(st.integers(0, len(text) - 1))
    if kind == "changed":
        return text[:at] + draw(st.sampled_from(XGID_ALPHABET)) + text[at + 1 :]
    return text if kind == "valid" else text[:at] + text[at + 1 :]


@given(xgid_like_texts())
def test_random_text_is_read_or_refused_with_one_line(text: str) -> None:
    try:
        position, match = parse_id_pair(text)
    except InvalidPositionId as exc:
        assert "\n" not in str(exc)
    except ValueError as exc:  # match IDs, match states
        assert "\n" not in str(exc)
    else:
        assert isinstance(position, Position)
        if match is not None and looks_like_xgid(text):
            written = position.to_xgid(match, max_cube_exponent=parse_xgid(text).max_cube_exponent)
            assert parse_id_pair(written)[1] == match


def test_xgid_fields_refuse_what_no_xgid_holds() -> None:
    with pytest.raises(InvalidXgid, match="Crawford"):
        Xgid(board=Position.initial().board, crawford=True)
    with pytest.raises(InvalidXgid, match="money-play"):
        Xgid(board=Position.initial().board, match_length=5, jacoby=True)


# --- the command line -------------------------------------------------------------------------


def test_show_writes_the_xgid_of_a_gnubg_id_pair(capsys: pytest.CaptureFixture[str]) -> None:
    case = VALID[0]
    code, out, _ = run_cli(capsys, "show", f"{case['position_id']}:{case['match_id']}", "--xgid")
    written = Position.from_id(case["position_id"]).to_xgid(MatchState.from_id(case["match_id"]))
    assert code == 0 and out.strip() == written
    assert parse_id_pair(out.strip()) == parse_id_pair(f"{case['position_id']}:{case['match_id']}")


def test_show_json_carries_the_ids_of_an_xgid(capsys: pytest.CaptureFixture[str]) -> None:
    case = VALID[1]
    code, out, _ = run_cli(capsys, "show", case["xgid"], "--json")
    data = json.loads(out)
    assert code == 0 and (data["position_id"], data["match_id"]) == (case["position_id"], case["match_id"])
    assert parse_xgid(data["xgid"]).board == parse_xgid(case["xgid"]).board


@pytest.mark.parametrize("as_json", [False, True])
def test_a_bad_xgid_on_the_command_line_is_one_line_and_exit_2(
    capsys: pytest.CaptureFixture[str], as_json: bool
) -> None:
    bad = "XGID=-b----E-C---eE---c-e----B-:0:0:1:9:0:0:0:0:10"
    argv = ["show", bad] + (["--json"] if as_json else [])
    assert_clean_error(*run_cli(capsys, *argv), needle=bad, as_json=as_json)


def test_the_higher_die_is_written_first_as_xg_writes_it() -> None:
    match = MatchState.from_id("cAkZAAAAAAAA")  # gnubg's 2-6, the lower die first
    assert match.dice == (2, 6)
    text = Position.initial().to_xgid(match)
    assert text.split(":")[4] == "62"
    assert MatchState.from_xgid(text) == match.with_(dice=(6, 2))
