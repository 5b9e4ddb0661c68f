"""Output a user reads: names as given, readable files, cube actions only when one can be taken, IDs' case."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

from cli.train import _cube_line
from engine import MatchState, Position
from nets.volnet import DEFAULT_VOLNET
from tests.cli.helpers import assert_clean_error, run_cli
from weights import DEFAULT_WEIGHTS

START = "4HPwATDgc/ABMA"


def test_a_seeded_random_player_keeps_its_seed_in_its_name(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "tournament", "--a", "random:3", "--b", "random", "--games", "2", "--json")
    result = json.loads(out)
    assert code == 0 and (result["player_a"], result["player_b"]) == ("random:3", "random")


def test_weights_info_is_text_not_python(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "weights", "info", str(DEFAULT_WEIGHTS))
    assert code == 0 and "contact net" in out and "hidden layers" in out
    for python in ("{", "}", "[", "None", "True", "False"):
        assert python not in out, python


def test_weights_info_reads_the_shipped_volatility_net(capsys: pytest.CaptureFixture[str]) -> None:
    """The docs call ``weights info`` the inspector of a weights file: it refused the volatility net (225 inputs)."""
    code, out, _ = run_cli(capsys, "weights", "info", str(DEFAULT_VOLNET), "--json")
    info = json.loads(out)
    assert code == 0 and info["kind"] == "local-volatility" and set(info["nets"]) == {"contact", "race"}
    assert all(n["n_inputs"] == 225 for n in info["nets"].values()) and info["positions"]["race"]["validation"] > 0
    code, out, _ = run_cli(capsys, "weights", "info", str(DEFAULT_VOLNET))
    assert code == 0 and "target" in out and "sigma_J" in out and "None" not in out
    code, out, err = run_cli(capsys, "weights", "promote", str(DEFAULT_VOLNET), "--to", "never.jgw")
    assert_clean_error(code, out, err, "local-volatility net", as_json=False)


def test_no_cube_action_after_the_roll_or_when_the_game_is_over(capsys: pytest.CaptureFixture[str]) -> None:
    """eval showed "No double, take" with the dice rolled, and "Double, pass" for a finished game."""
    code, out, _ = run_cli(capsys, "eval", f"{START}:cAkZAAAAAAAA")  # 62 rolled
    assert code == 0 and "the dice are rolled: no cube action now" in out and "No double" not in out
    at_score = MatchState(match_length=5, dice=(3, 1), on_roll=1, turn=1).id
    code, out, _ = run_cli(capsys, "eval", f"{START}:{at_score}")
    cube_lines = out.split("Cube (")[1].split("\n\n")[0]
    assert code == 0 and "no cube action now" in cube_lines and "->" not in cube_lines
    board = np.zeros(26, np.int8)
    board[19] = -3
    code, out, _ = run_cli(capsys, "eval", Position(board).id)
    assert code == 0 and "no cube action: the game is over" in out and "Double, pass" not in out
    code, out, _ = run_cli(capsys, "eval", START)
    assert code == 0 and "No double" in out


def test_train_cube_line_rounds_like_its_figure() -> None:
    report: dict[str, object] = {"doubles": 1, "takes": 2, "passes": 0, "mean_final_cube": 1.23456}
    report["strategies"] = [{"spec": "janowski:0.7", "ppg": -0.01911, "se": 0.07902}, {"spec": "jump:0.1"}]
    line = _cube_line(report)
    assert "-0.019 ppg, SE 0.079" in line and "0.07902" not in line
    assert line.startswith("1 double, 2 takes, 0 passes, mean final cube 1.23")


@pytest.mark.parametrize("as_json", [False, True])
@pytest.mark.parametrize("text", ["4hpwatdgc/abma", f"{START}:cakaaaaaaaaa", "4hpwatdgc/abma:cAkAAAAAAAAA"])
def test_a_lowercased_id_is_refused_as_case_sensitive(
    capsys: pytest.CaptureFixture[str], text: str, as_json: bool
) -> None:
    code, out, err = run_cli(capsys, "show", text, *(["--json"] if as_json else []))
    assert_clean_error(code, out, err, "IDs are case-sensitive", as_json)


def test_one_rollout_trial_reads_in_the_singular(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "rollout", START, "--trials", "1", "--truncate", "2")
    assert code == 0 and "roll: 1 trial," in out and "\n1 trial in " in out
    assert not re.search(r"(?<![\d.])1 trials", out)  # a rate such as "226.51 trials/s" is not a count


def test_a_match_rollout_shows_mwc_in_percent(capsys: pytest.CaptureFixture[str]) -> None:
    """Its bar said "equity +0.5080 +- 0.0008" for a 50.80% match-winning chance; "1 doubles" below."""
    code, out, err = run_cli(capsys, "rollout", f"{START}:cAmgAAAAAAAA", "--trials", "36", "--truncate", "3")
    frames = err.replace("\r", "\n").splitlines()
    assert code == 0 and any("MWC " in f and "% +- " in f for f in frames) and "equity +0.5" not in err
    assert "cubeful MWC" in out and "1 doubles" not in out and "1 takes" not in out
