"""The ``jumpgammon`` command line: every command's JSON, its text output and its bad-input errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cli.main import main
from engine import Position

START = "4HPwATDgc/ABMA"
START_MATCH = "cAkZAAAAAAAA"


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict]:
    """Run the CLI with --json; return the exit status and the parsed JSON object."""
    code = main([*argv, "--json"])
    out = capsys.readouterr().out
    return code, json.loads(out)


def test_show_text_and_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["show", f"{START}:{START_MATCH}"]) == 0
    text = capsys.readouterr().out
    assert f"Position ID: {START}" in text and f"Match ID   : {START_MATCH}" in text
    code, js = run_json(capsys, "show", START)
    assert code == 0 and js["position_id"] == START
    main(["show", START])  # a bare ID: the JSON names the match ID the board shows (it was null)
    assert f"Match ID   : {js['match_id']}" in capsys.readouterr().out


def test_eval_json_keys_and_consistency(capsys: pytest.CaptureFixture[str]) -> None:
    code, js = run_json(capsys, "eval", f"{START}:{START_MATCH}")
    assert code == 0
    assert js["position_id"] == START and js["match_id"] == START_MATCH and js["plies"] == 0
    p = js["probabilities"]
    assert set(p) == {"win", "win_gammon", "win_backgammon", "lose_gammon", "lose_backgammon"}
    assert 0 <= p["win_backgammon"] <= p["win_gammon"] <= p["win"] <= 1
    eq = p["win"] - (1 - p["win"]) + p["win_gammon"] - p["lose_gammon"] + p["win_backgammon"] - p["lose_backgammon"]
    assert js["cubeless_equity"] == pytest.approx(eq, abs=1e-5)
    assert js["jump_volatility"]["n_pairs"] == 441
    # the dice are rolled: no cube action now; the figures are the decision before the roll
    assert "dice are rolled" in js["cube"]["note"]
    models = js["cube"]["models"]
    assert set(models) == {"gnubg", "jump_local"}
    assert models["gnubg"]["label"] == "gnubg(x=0.680: contact)" and models["gnubg"]["position_class"] == "contact"
    for d in models.values():
        assert d["double_pass"] == 1.0
        assert d["equity"] >= min(d["no_double"], d["double_take"], 1.0) - 1e-9
    # the match ID carries dice 6-2, so the moves are ranked
    assert js["moves"] and js["moves"][0]["rank"] == 1


def test_eval_text_shows_board_and_cube(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["eval", START]) == 0
    text = capsys.readouterr().out
    assert "Position ID" in text and "jump_local(" in text and "gnubg(x=0.680: contact)" in text
    assert "Money game, cube centered, Jacoby rule on, beavers off" in text


def test_hint_ranks_every_play(capsys: pytest.CaptureFixture[str]) -> None:
    code, js = run_json(capsys, "hint", START, "--dice", "6", "2")
    assert code == 0
    kids = Position.from_id(START).children((6, 2))
    assert len(js["moves"]) == len(kids)
    assert {m["position_id"] for m in js["moves"]} == {k.id for k in kids}
    eqs = [m["equity"] for m in js["moves"]]
    assert eqs == sorted(eqs, reverse=True) and js["moves"][0]["difference"] == 0


def test_money_hint_ranks_by_the_cubeful_equity_as_gnubg(capsys: pytest.CaptureFixture[str]) -> None:
    """A two-sided bear-off, 1-1: bearing two off wins most often, but leaves the opponent a cube it uses well; the
    databases' exact cubeful equities rank the safer play first (gnubg's choice, -0.179), not the cubeless order."""
    code, js = run_json(capsys, "hint", "KQEAYC4AAAAAAA", "--dice", "1", "1")
    assert code == 0
    best, second = js["moves"][:2]
    assert best["move"] == "3/2(2) 1/off(2)" and best["equity"] == pytest.approx(-0.179, abs=0.001)
    assert best["cubeless_equity"] < second["cubeless_equity"]  # cubeless, the other play would lead
    assert best["equity"] > second["equity"]


def test_cube_json(capsys: pytest.CaptureFixture[str]) -> None:
    code, js = run_json(
        capsys, "cube", "--W", "1.4", "--L", "1.0", "--alpha", "0.10", "--model", "jump-linear", "--at", "0.3,0.5,0.7"
    )
    assert code == 0
    assert set(js["equity_at"]) == {"0.3", "0.5", "0.7"} or set(js["equity_at"]) == {"0.30", "0.50", "0.70"}
    assert js["tp"] < js["cp"]


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["show", "notanid"], "notanid"),
        (["eval", "4HPwATDgc/ABMA:zzzz"], "zzzz"),
        (["hint", START, "--dice", "7", "2"], "7"),
        (["cube", "--W", "0.5", "--L", "1", "--model", "janowski", "--x", "0.7"], "0.5"),
        (["cube", "--W", "1.4", "--L", "1", "--model", "jump-linear", "--alpha", "0.7"], "--alpha"),
        (["eval", START, "--met", "Woolsey"], "money game"),
    ],
)
def test_bad_input_is_a_json_error(capsys: pytest.CaptureFixture[str], argv: list[str], needle: str) -> None:
    code, js = run_json(capsys, *argv)
    assert code == 2 and needle in js["error"]


def test_bad_input_without_json_goes_to_stderr(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["show", "notanid"]) == 2
    err = capsys.readouterr().err
    assert "jumpgammon show: error" in err and "notanid" in err


@pytest.mark.slow
def test_train_then_tournament_against_pubeval(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "tiny.jgw"
    code, js = run_json(
        capsys,
        "train",
        "--games",
        "8",
        "--parallel",
        "4",
        "--hidden",
        "8",
        "--no-bearoff",
        "--out",
        str(out),
        "--checkpoint-every",
        "4",
    )
    assert code == 0 and out.exists() and js["games"] >= 8
    code, js = run_json(capsys, "tournament", "--a", f"net:{out}@0", "--b", "pubeval", "--games", "4", "--seed", "3")
    assert code == 0 and js["games"] == 4
    assert abs(js["ppg"]) <= 3


def test_tournament_block_pairs_set_the_checkpoint_unit(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ledger_file = tmp_path / "ledger.jsonl"
    args = ["tournament", "--a", "pubeval", "--b", "random", "--games", "6", "--seed", "2"]
    code, js = run_json(capsys, *args, "--block-pairs", "1", "--checkpoint", str(ledger_file))
    assert code == 0 and js["games"] == 6
    lines = [json.loads(line) for line in ledger_file.read_text().splitlines()]
    assert lines[0]["tournament"]["block_pairs"] == 1 and len(lines) == 1 + 3  # header, then a block per pair
    # the pairs are the same games whatever the block size
    code, whole = run_json(capsys, *args)
    assert code == 0 and whole["ppg"] == js["ppg"]
