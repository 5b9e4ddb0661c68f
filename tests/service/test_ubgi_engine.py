"""``jumpgammon ubgi``: a scripted client for every message of the protocol and for bad input.

Most cases drive :func:`service.ubgi_engine.serve` in process (a script on stdin, the replies read
back); one starts the real command. Moves must be the net's choice (as ``net@PLY`` chooses) and
legal; cube answers must be :mod:`nets.cube_advice`'s decision at the position's cube, rules and
score; anything else gets ``sorry`` and the engine goes on.
"""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cube.met import DEFAULT_MET, met_by_name
from engine import MatchState, Position, parse_id_pair
from engine.fibs import FibsBoard
from nets.analysis import cube_state_of, match_cube_of
from nets.cube_advice import match_cube_advice, money_cube_advice
from nets.evaluator import load_evaluator
from nets.lookahead import best_children_plies, evaluate_plies
from players.ubgi import UbgiWord, parse_move
from service.ubgi_engine import Engine, EngineOptions, Session, serve
from tests.engine.strategies import boards

OPENING = "XGID=-b----E-C---eE---c-e----B-:0:0:1:{dice}:0:0:0:0:10"
# X ahead in a race (49 pips against 60): X doubles and O drops; O on roll rolls, and X takes (or beavers)
RACE = "XGID=-BBCCBB-----------bbbcbbb-:0:0:{turn}:{dice}:0:0:0:0:10"
# X on the bar against O's closed board: no legal play for X with any roll
CLOSED_OUT = "XGID=-BBBBBB------------bbbbbbA:0:0:1:{dice}:0:0:0:0:10"


@pytest.fixture(scope="module")
def engine() -> Engine:
    e = Engine()
    e.handshake()
    return e


def talk(engine: Engine, *lines: str) -> tuple[list[str], Session, str]:
    """The engine's stdout lines, the session counts and its stderr for a script of lines."""
    out, err = io.StringIO(), io.StringIO()
    session = serve(io.StringIO("".join(f"{line}\n" for line in lines)), out, err, engine)
    return out.getvalue().split("\n")[:-1], session, err.getvalue()


def test_the_handshake_identifies_lists_options_and_ends_ready(engine: Engine) -> None:
    out, session, _ = talk(engine, "ubgi")
    assert out[0] == "id name jumpgammon" and out[1].startswith("id author ") and out[2].startswith("id version ")
    options = {line.split()[2] for line in out if line.startswith("option name ")}
    assert options == {"Plies", "CubeModel", "Weights", "MET", "Jacoby", "Beavers"}
    assert out[-1] == UbgiWord.READYOK and session.sorry == 0


def test_isready_newgame_stop_and_blank_lines(engine: Engine) -> None:
    out, session, _ = talk(engine, "isready", "newgame", "ubginewgame", "stop", "", "isready")
    assert out == ["readyok", "readyok"] and session.sorry == 0


def test_quit_ends_the_session_and_later_lines_are_not_read(engine: Engine) -> None:
    out, session, _ = talk(engine, "isready", "quit", "isready")
    assert out == ["readyok"] and session.lines == 2


@pytest.mark.parametrize("dice", ["52", "31", "66", "64"])
def test_a_position_with_dice_gets_the_nets_move(engine: Engine, dice: str) -> None:
    text = OPENING.format(dice=dice)
    (answer,), _, _ = talk(engine, text)
    position, match = parse_id_pair(text)
    assert match is not None
    child = parse_move(answer, position, match.dice)
    best = best_children_plies(engine.evaluator, position.array[None], np.array([match.dice]), 0)[0]
    assert np.array_equal(child.array, best)
    assert "*" not in answer and "(" not in answer


def test_o_on_roll_is_answered_in_os_own_numbering(engine: Engine) -> None:
    text = "XGID=-b----E-C---eE---c-e----B-:0:0:-1:61:0:0:0:0:10"
    (answer,), _, _ = talk(engine, text)
    assert answer == "13/7 8/7"  # the opening 6-1, pointing on the 7 (bar) point, as the net plays it
    assert parse_move(answer, Position.initial(), (6, 1)) in Position.initial().children((6, 1))


def test_no_legal_move_is_a_blank_line(engine: Engine) -> None:
    out, session, _ = talk(engine, CLOSED_OUT.format(dice="63"), "isready")
    assert out == ["", "readyok"] and session.sorry == 0


def test_the_cube_follows_cube_advice_in_money_play(engine: Engine) -> None:
    ev = engine.evaluator
    for turn, jacoby in ((1, 0), (1, 1), (-1, 0)):
        text = RACE.format(turn=turn, dice="00").replace(":0:0:10", f":{jacoby}:0:10")
        (answer,), _, _ = talk(engine, text)
        position, match = parse_id_pair(text)
        assert match is not None
        probs = evaluate_plies(ev, position.array[None], 0)[0]
        advice = money_cube_advice(position.array, probs, cube_state_of(match), jacoby=bool(jacoby), beavers=False)
        assert answer == ("double" if advice.action.doubles else "roll")
    (leader,), _, _ = talk(engine, RACE.format(turn=1, dice="00"))
    assert leader == "double"


def test_an_owned_cube_of_the_opponent_means_roll(engine: Engine) -> None:
    text = "XGID=-BBCCBB-----------bbbcbbb-:1:-1:1:00:0:0:0:0:10"  # X far ahead, O owns the 2-cube
    (answer,), _, _ = talk(engine, text)
    assert answer == "roll"


def test_a_double_is_taken_or_dropped_as_cube_advice_says(engine: Engine) -> None:
    ev = engine.evaluator
    for text in (RACE.format(turn=1, dice="D"), OPENING.format(dice="D"), RACE.format(turn=-1, dice="D")):
        (answer,), _, _ = talk(engine, text)
        position, match = parse_id_pair(text)
        assert match is not None and match.doubled
        probs = evaluate_plies(ev, position.array[None], 0)[0]
        advice = money_cube_advice(position.array, probs, cube_state_of(match), jacoby=False, beavers=False)
        assert answer == ("take" if advice.action.takes else "drop")
    assert talk(engine, RACE.format(turn=1, dice="D"))[0] == ["drop"]
    assert talk(engine, RACE.format(turn=-1, dice="D"))[0] == ["take"]


def test_a_beaver_where_the_rules_allow_one(engine: Engine) -> None:
    # O doubles while far behind in the race: X beavers when beavers are on (rules 2), takes when off
    with_beavers = RACE.format(turn=-1, dice="D").replace(":0:0:10", ":2:0:10")
    assert talk(engine, with_beavers)[0] == ["beaver"]
    assert talk(engine, RACE.format(turn=-1, dice="D"))[0] == ["take"]


def test_a_gnubg_id_takes_beavers_from_the_option() -> None:
    """A match ID has no room for beavers: the Beavers option says (the wildbg dialect's gnubg IDs never beavered)."""
    position, match = parse_id_pair(RACE.format(turn=-1, dice="D"))
    assert match is not None
    line = f"position gnubgid {position.id}:{match.id}"
    for beavers, answer in ((False, "take"), (True, "beaver")):
        engine = Engine(EngineOptions(beavers=beavers))  # its own: a position set stays set in the engine
        engine.handshake()
        assert talk(engine, line, "go role cube")[0] == [f"bestmove {answer}"]


@pytest.mark.parametrize(
    "text",
    [
        "XGID=-BBCCBB-----------bbbcbbb-:0:0:1:00:3:4:0:7:10",  # 4-away against 3-away, centred
        "XGID=-BBCCBB-----------bbbcbbb-:1:1:1:00:1:5:0:7:10",  # redouble at 6-away against 2-away
        "XGID=-BBCCBB-----------bbbcbbb-:0:0:1:D:2:2:0:5:10",  # X doubled at 3-away all: O answers
        "XGID=-BBCCBB-----------bbbcbbb-:0:0:-1:D:1:3:0:5:10",  # O doubled: X answers
    ],
)
def test_the_cube_at_a_match_score_follows_match_cube_advice(engine: Engine, text: str) -> None:
    (answer,), _, _ = talk(engine, text)
    position, match = parse_id_pair(text)
    assert match is not None
    met = met_by_name(DEFAULT_MET)
    probs = evaluate_plies(engine.evaluator, position.array[None], 0)[0]
    action = match_cube_advice(position.array, probs, met, match_cube_of(match, met)).action
    expected = ("take" if action.takes else "drop") if match.doubled else ("double" if action.doubles else "roll")
    assert answer == expected


def test_the_crawford_game_means_roll(engine: Engine) -> None:
    (answer,), _, _ = talk(engine, "XGID=-BBCCBB-----------bbbcbbb-:0:0:1:00:3:6:1:7:10")
    assert answer == "roll"


def test_a_fibs_board_is_answered_like_its_xgid(engine: Engine) -> None:
    position = Position.from_id("4HPwATDgc/ABMA")
    board = str(FibsBoard.from_position(position, dice=(4, 2)))
    xgid = position.to_xgid(MatchState(on_roll=1, turn=1, dice=(4, 2), extra_bits=1))
    out, session, _ = talk(engine, board, xgid)
    assert out[0] == out[1] == "8/4 6/4" and session.sorry == 0


def test_options_change_the_answers_and_bad_ones_are_refused(engine: Engine, tmp_path: Path) -> None:
    e = Engine(EngineOptions())
    out, session, err = talk(
        e,
        "setoption name Plies value 1",
        "setoption name CubeModel value none",
        "setoption name MET value Woolsey",
        "setoption name Jacoby value true",
        "setoption name Beavers value false",
        "isready",
    )
    assert out == ["readyok"] and session.sorry == 0
    assert (e.options.plies, e.options.cube_model, e.options.met, e.options.jacoby) == (1, "none", "Woolsey", True)
    assert talk(e, RACE.format(turn=1, dice="00"))[0] == ["roll"]  # CubeModel none never doubles
    assert talk(e, RACE.format(turn=1, dice="D"))[0] == ["take"]  # ... and always takes
    bad = [
        "setoption name Plies value 3",
        "setoption name CubeModel value janowski",
        "setoption name MET value nosuchtable",
        "setoption name Jacoby value maybe",
        "setoption name Weights value " + str(tmp_path / "missing.jgw"),
        "setoption name Hash value 16",
        "setoption name Plies",
        "setoption Plies 1",
    ]
    out, session, err = talk(e, *bad, "isready")
    assert out == ["sorry"] * len(bad) + ["readyok"] and session.sorry == len(bad)
    assert len(err.splitlines()) == len(bad) and "missing.jgw" in err and "hash" in err.lower()
    assert e.options.plies == 1  # a refused value changes nothing


@pytest.mark.parametrize(
    ("line", "needle"),
    [
        ("hello", "not a UBGI command"),
        ("go role chequer", "no position set"),
        ("XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:0", "fields"),
        ("XGID=-b----E-C---eE---c-e----B-:0:0:1:52:7:0:0:7:10", "score"),
        ("XGID=-b------------------------:0:0:1:52:0:0:0:0:10", "over"),
        ("board:You:Opponent:1:0:0:0", "FIBS board"),
        ("4HPwATDgc/ABMA:cAkZAAAAAAAA", "not a UBGI command"),
        ("\x00\xff garbage \t", "not a UBGI command"),
        ("ubgi extra", "not a UBGI command"),
    ],
)
def test_bad_input_gets_sorry_with_the_reason_on_stderr(engine: Engine, line: str, needle: str) -> None:
    out, session, err = talk(engine, line, "isready")
    assert out == ["sorry", "readyok"] and session.sorry == 1
    assert len(err.splitlines()) == 1 and needle in err


@settings(max_examples=60, deadline=None)
@given(st.lists(st.text(max_size=60).filter(lambda s: "\n" not in s and "\r" not in s), min_size=1, max_size=6))
def test_random_lines_never_end_the_engine(engine: Engine, lines: list[str]) -> None:
    script = [line for line in lines if line.strip() not in ("quit", "ubgi")]
    out, session, err = talk(engine, *script, "isready")
    assert out[-1] == "readyok" and session.lines == len(script) + 1
    assert len(err.splitlines()) == session.sorry and "internal error" not in err


@settings(max_examples=40, deadline=None)
@given(boards(), st.tuples(st.integers(1, 6), st.integers(1, 6)))
def test_any_legal_position_with_dice_gets_one_legal_move(engine: Engine, board: np.ndarray, dice: tuple) -> None:
    position = Position(board)
    d = (max(dice), min(dice))
    text = position.to_xgid(MatchState(on_roll=1, turn=1, dice=d))
    (answer,), session, _ = talk(engine, text)
    assert session.sorry == 0
    assert parse_move(answer, position, d) in position.children(d)


def test_the_command_speaks_the_protocol_on_stdin_and_stdout() -> None:
    script = "ubgi\n" + OPENING.format(dice="31") + "\nnonsense\n" + OPENING.format(dice="00") + "\nquit\n"
    done = subprocess.run(
        [sys.executable, "-m", "cli.main", "ubgi"], input=script, capture_output=True, text=True, timeout=120
    )
    lines = done.stdout.splitlines()
    assert done.returncode == 0 and lines[-4:] == ["readyok", "8/5 6/5", "sorry", "roll"]
    assert done.stderr.count("\n") == 1 and "nonsense" in done.stderr and "Traceback" not in done.stderr


def test_the_engine_uses_the_nets_weights_option() -> None:
    e = Engine(EngineOptions(weights=None))
    assert e.evaluator is not None and isinstance(load_evaluator(), type(e.evaluator))


def test_wildbgs_dialect_position_dice_go(engine: Engine) -> None:
    out, session, _ = talk(
        engine,
        "position gnubgid 4HPwATDgc/ABMA",
        "dice 5 2",
        "go",
        "go role cube",
        "position xgid " + RACE.format(turn=1, dice="D"),
        "go role cube",
        "position xgid " + CLOSED_OUT.format(dice="63"),
        "go role chequer",
    )
    best = talk(engine, OPENING.format(dice="52"))[0][0]
    assert out == [f"bestmove {best}", "bestmove roll", "bestmove drop", "bestmove pass"] and session.sorry == 0


@pytest.mark.parametrize(
    "script",
    [
        ["go"],  # no position
        ["position gnubgid 4HPwATDgc/ABMA", "go"],  # no dice
        ["position gnubgid 4HPwATDgc/ABMA", "dice 7 1"],
        ["position gnubgid 4HPwATDgc/ABMA", "dice 5"],
        ["position gnubgid nonsense"],
        ["position startpos"],
        ["position gnubgid 4HPwATDgc/ABMA", "dice 5 2", "go depth 3"],
        ["newgame", "go"],  # newgame forgets the position
    ],
)
def test_wildbgs_dialect_refuses_what_it_cannot_answer(engine: Engine, script: list[str]) -> None:
    out, session, err = talk(engine, "newgame", *script, "isready")
    assert out == ["sorry", "readyok"] and session.sorry == 1 and len(err.splitlines()) == 1


@pytest.mark.parametrize(
    "refused",
    ["XGID=bogus", "position gnubgid zzzz", "dice 7 1", "dice 5", "position startpos", "board:nonsense"],
)
def test_a_refused_position_or_dice_line_forgets_the_position_set(engine: Engine, refused: str) -> None:
    """``go`` after a refused line answered for the position (and dice) set before it: bestmove 8/5 6/5."""
    out, session, _ = talk(engine, "position gnubgid 4HPwATDgc/ABMA", "dice 3 1", refused, "go", "isready")
    assert out == ["sorry", "sorry", "readyok"] and session.sorry == 2


def test_a_refused_line_that_sets_nothing_keeps_the_position(engine: Engine) -> None:
    out, session, _ = talk(engine, "position gnubgid 4HPwATDgc/ABMA", "dice 3 1", "hello", "go")
    assert out[0] == "sorry" and out[1].startswith("bestmove ") and session.sorry == 1
