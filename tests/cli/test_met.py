"""``jumpgammon met``: the table as text and JSON, Keith's table, one-line errors."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from cli.main import main
from cube.met import published_met


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict]:
    code = main(["met", *argv, "--json"])
    return code, json.loads(capsys.readouterr().out)


def test_json_is_the_published_table(capsys: pytest.CaptureFixture[str]) -> None:
    code, js = run_json(capsys, "--length", "11")
    assert code == 0 and {"pre_crawford", "post_crawford", "source"} <= set(js)
    met = published_met("Kazaross-XG2")
    assert len(js["pre_crawford"]) == 11 and all(len(row) == 11 for row in js["pre_crawford"])
    assert np.array_equal(js["pre_crawford"], met.pre_crawford[:11, :11])
    assert np.array_equal(js["post_crawford"], met.post_crawford[:11])
    assert js["pre_crawford"][0][1] == 0.67736  # 1-away (Crawford game) against 2-away
    assert js["post_crawford"][1] == 0.48803  # 2-away trailer against a 1-away leader
    assert "Kazaross" in js["source"]


@pytest.mark.parametrize("name", ["Rockwell-Kazaross", "woolsey", "KAZAROSS-XG2"])
def test_other_published_tables_by_name(capsys: pytest.CaptureFixture[str], name: str) -> None:
    code, js = run_json(capsys, "--length", "7", "--met", name)
    assert code == 0 and np.array_equal(js["pre_crawford"], published_met(name).pre_crawford[:7, :7])


def test_keith_table_is_seed_002s(capsys: pytest.CaptureFixture[str]) -> None:
    code, js = run_json(capsys, "--length", "12", "--keith", "0.276,0.011")
    assert code == 0 and "Keith" in js["source"]
    eq = 2 * np.array(js["pre_crawford"]) - 1
    # a few of the note's printed equities (the full table is checked in tests/cube/test_met.py)
    assert [round(eq[0, 1], 3), round(eq[1, 2], 3), round(eq[4, 9], 3), round(eq[11, 0], 3)] == [
        0.362,
        0.189,
        0.518,
        -0.953,
    ]
    assert round(1 - 2 * js["post_crawford"][1], 3) == 0.028  # the leader's free-drop edge at 2-away


def test_text_table(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["met", "--length", "5"]) == 0
    text = capsys.readouterr().out
    assert "Kazaross" in text and "67.74" in text and "48.80" in text
    assert main(["met", "--length", "3", "--keith", "0.276,0.011", "--equity"]) == 0
    text = capsys.readouterr().out
    assert "0.362" in text and "-0.189" in text


def test_gnubg_xml_file(capsys: pytest.CaptureFixture[str]) -> None:
    path = Path("/usr/share/gnubg/met/Rockwell-Kazaross.xml")
    if not path.is_file():
        pytest.skip("GNU Backgammon's met files are not installed")
    code, js = run_json(capsys, "--length", "9", "--met", str(path))
    assert code == 0 and np.array_equal(js["pre_crawford"], published_met("Rockwell-Kazaross").pre_crawford[:9, :9])


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["--met", "nonesuch"], "unknown match equity table 'nonesuch'"),
        (["--met", "/no/such.xml"], "cannot read match equity table '/no/such.xml'"),
        (["--length", "65"], "argument --length"),
        (["--length", "0"], "argument --length"),
        (["--keith", "0.2"], "argument --keith: expected two numbers G,B"),
        (["--keith", "0.2,0.3"], "argument --keith: expected 0 <= B <= G < 1"),
        (["--keith", "0.2,0.01", "--met", "Woolsey"], "not allowed with argument"),
    ],
)
def test_errors_are_one_line(capsys: pytest.CaptureFixture[str], argv: list[str], words: str) -> None:
    assert main(["met", *argv]) == 2
    err = capsys.readouterr().err.strip()
    assert words in err and "\n" not in err
    code, js = run_json(capsys, *argv)
    assert code == 2 and words in js["error"]


def test_json_in_equities_with_equity(capsys: pytest.CaptureFixture[str]) -> None:
    """``--equity --json`` gave MWCs, silently: the JSON now says its unit and holds what the text prints."""
    assert main(["met", "--length", "4", "--json"]) == 0
    mwc = json.loads(capsys.readouterr().out)
    assert main(["met", "--length", "4", "--json", "--equity"]) == 0
    equity = json.loads(capsys.readouterr().out)
    assert (mwc["unit"], equity["unit"]) == ("mwc", "equity")
    assert np.allclose(equity["pre_crawford"], 2 * np.array(mwc["pre_crawford"]) - 1, atol=1e-12)
    assert np.allclose(equity["post_crawford"], 2 * np.array(mwc["post_crawford"]) - 1, atol=1e-12)


def test_a_table_longer_than_its_source_says_which_scores_are_extended(capsys: pytest.CaptureFixture[str]) -> None:
    code, js = run_json(capsys, "--met", "Woolsey", "--length", "17")
    assert code == 0 and js["given_length"] == 15 and js["length"] == 17
    assert main(["met", "--met", "Woolsey", "--length", "17"]) == 0
    assert "scores beyond 15-away are GNU Backgammon's extension" in capsys.readouterr().out
    assert main(["met", "--met", "Woolsey", "--length", "15"]) == 0
    assert "extension" not in capsys.readouterr().out


def test_a_value_that_looks_like_an_option_gets_a_hint(capsys: pytest.CaptureFixture[str]) -> None:
    """argparse takes ``-0.1,0.01`` for an option; the one-line error says how to pass it, and that form is checked."""
    assert main(["met", "--keith", "-0.1,0.01"]) == 2
    assert "if the value starts with '-', write --keith=VALUE" in capsys.readouterr().err
    assert main(["met", "--keith=-0.1,0.01"]) == 2
    assert "expected 0 <= B <= G < 1, got '-0.1,0.01'" in capsys.readouterr().err
