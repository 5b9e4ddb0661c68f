"""``jumpgammon rollout``: its JSON keys, text output, --file, the stratification warning and bad-input errors."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from engine import MatchState
from nets.mlp import OUTPUTS
from tests.cli.helpers import assert_clean_error, run_cli

START = "4HPwATDgc/ABMA"
SCORED = f"{START}:{MatchState(match_length=7, score=(2, 3)).id}"
FAST = ["--trials", "36", "--truncate", "2"]


def test_json_keys_of_one_position(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(capsys, "rollout", START, *FAST, "--json")
    assert code == 0 and out.count("\n") == 1
    js = json.loads(out)
    assert js["trials"] == 36 and js["position_id"] == START and js["perspective"].startswith("side on roll")
    assert list(js["probabilities"]) == list(OUTPUTS) and list(js["standard_errors"]) == list(OUTPUTS)
    assert list(js["raw"]["standard_errors"]) == list(OUTPUTS)
    for key in ("equity", "equity_se", "seconds", "trials_per_second", "variance_reduction", "mean_plies"):
        assert key in js
    assert js["variance_reduction"] and js["luck_plies"] == 0 and js["truncated_trials"] == 36
    assert js["equity_se"] < js["raw"]["equity_se"]  # the luck adjustment at work
    assert "cubeful_equity" not in js and "cube_actions" not in js
    assert "trial" in err  # the progress bar goes to stderr


def test_cubeful_json_has_the_cubeful_equity_and_cube_actions(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "rollout", START, *FAST, "--cubeful", "--cube", "janowski:0.6", "--json")
    js = json.loads(out)
    assert code == 0 and js["cube"] == "janowski:0.6"
    assert {"cubeful_equity", "cubeful_equity_se"} <= set(js) and "cubeful_equity_se" in js["raw"]
    actions = js["cube_actions"]
    assert {"doubles", "takes", "passes", "too_good", "roller", "opponent"} <= set(actions)
    assert actions["doubles"] == actions["roller"]["doubles"] + actions["opponent"]["doubles"]


def test_a_file_of_positions_shares_one_run(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "ids.txt"
    path.write_text(f"# openings\n{START}\n\n{START}:cAkAAAAAAAAA  # the same, player 1 on roll\n")
    code, out, _ = run_cli(capsys, "rollout", "--file", str(path), *FAST, "--json")
    js = json.loads(out)
    assert code == 0 and js["trials"] == 72 and len(js["rollouts"]) == 2
    assert js["rollouts"][1]["match_id"] == "cAkAAAAAAAAA"
    # Trial t of both positions sees the same dice and the same position: the same outcomes.
    assert js["rollouts"][0]["raw"] == js["rollouts"][1]["raw"]


def test_text_output_and_the_stratification_warning(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(capsys, "rollout", START, "--trials", "10", "--truncate", "1")
    assert code == 0 and "Rollout of 4HPwATDgc/ABMA" in out and "raw SE" in out
    assert "not a multiple of 36" in err
    code, out, err = run_cli(capsys, "rollout", START, "--trials", "10", "--truncate", "1", "--json")
    assert code == 0 and json.loads(out)["trials"] == 10 and "not a multiple of 36" in err


RACE = "u9uGAAC23VkAAA"
OPENING_31 = f"{START}:{MatchState(on_roll=0, dice=(3, 1)).id}"


def test_cube_decision_json(capsys: pytest.CaptureFixture[str]) -> None:
    """``--cube-decision --json``: ND and DT with SEs, DP, gnubg's words, the paired margin; cubeless probabilities."""
    code, out, _ = run_cli(capsys, "rollout", RACE, "--trials", "36", "--cube-decision", "--cube", "none", "--json")
    js = json.loads(out)
    d = js["cube_decision"]
    assert code == 0 and list(js["probabilities"]) == list(OUTPUTS)
    assert set(d) >= {"no_double", "double_take", "double_pass", "action", "margin", "margin_se"}
    assert set(d["no_double"]) == set(d["double_take"]) == {"equity", "se"}
    assert d["double_pass"] == 1.0 and d["action"] == "No double, take"  # 76 against 57 pips
    assert d["double_take"]["equity"] == pytest.approx(2 * d["no_double"]["equity"], abs=2e-6)  # cube none
    assert d["no_double"]["equity"] == pytest.approx(js["equity"], abs=2e-6)


def test_a_beaver_where_beavers_are_played(capsys: pytest.CaptureFixture[str]) -> None:
    """76 against 57 pips: double/take leaves the doubler far below zero, a beaver with --beavers."""
    code, out, _ = run_cli(capsys, "rollout", RACE, "--trials", "36", "--cube-decision", "--beavers", "--json")
    js = json.loads(out)
    assert code == 0 and js["beavers"] and js["cube_decision"]["action"] == "No double, beaver"


def test_cube_decision_text(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "rollout", RACE, "--trials", "36", "--cube-decision")
    assert code == 0 and "Proper cube action: No double, take" in out and "Double/take" in out


def test_plays_json_best_first(capsys: pytest.CaptureFixture[str]) -> None:
    """``--plays 3 --json``: three plays best first, the best's difference 0, the others' below with paired SEs."""
    code, out, _ = run_cli(capsys, "rollout", OPENING_31, "--plays", "3", *FAST, "--json")
    js = json.loads(out)
    plays = js["plays"]
    assert code == 0 and js["dice"] == [3, 1] and len(plays) == 3
    assert set(plays[0]) >= {"move", "equity", "se", "difference", "difference_se"}
    assert plays[0]["difference"] == 0.0 and all(p["difference"] <= 0.0 for p in plays)
    assert [p["equity"] for p in plays] == sorted((p["equity"] for p in plays), reverse=True)


def test_moves_text(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "rollout", OPENING_31, "--moves", "8/5 6/5", "--moves", "24/23 13/10", *FAST)
    assert code == 0 and "8/5 6/5" in out and "24/23 13/10" in out and "paired SE" in out


@pytest.mark.slow
def test_save_and_resume_give_the_whole_rollout(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """72 trials saved then continued to 144 equal 144 trials at once; the level and stop reason are reported."""
    saved = tmp_path / "r.npz"
    common = ["--cube-decision", "--level", "quick", "--json"]
    code, out, _ = run_cli(capsys, "rollout", RACE, "--trials", "72", "--save", str(saved), *common)
    assert code == 0 and saved.is_file() and json.loads(out)["truncate"] == 7
    code, out, _ = run_cli(capsys, "rollout", "--resume", str(saved), "--trials", "144", "--json")
    resumed = json.loads(out)
    code2, out2, _ = run_cli(capsys, "rollout", RACE, "--trials", "144", *common)
    whole = json.loads(out2)
    assert code == code2 == 0 and resumed["trials"] == 144 and resumed["stopped"] is None
    assert resumed["cube_decision"] == whole["cube_decision"]
    code, out, _ = run_cli(
        capsys, "rollout", RACE, "--trials", "1296", "--until-se", "0.5", "--truncate", "4", "--json"
    )
    js = json.loads(out)
    assert code == 0 and js["trials"] < 1296 and "below 0.5" in js["stopped"]


def test_a_saved_rollout_keeps_its_net_and_jacoby_rule(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """A resume whose weights file now holds another net is refused; a file from before the rule was kept continues
    its bare ID without the Jacoby rule (as it was played), a new one with it (as eval reads a bare ID)."""
    import numpy as np

    from arena.rollout import SavedRollout
    from weights import DEFAULT_WEIGHTS

    net = tmp_path / "net.jgw"
    net.write_bytes(DEFAULT_WEIGHTS.read_bytes())
    saved = tmp_path / "r.npz"
    bare = START.split(":")[0]
    base = ["--trials", "36", "--truncate", "2", "--cubeful", "--json"]
    code, out, _ = run_cli(capsys, "rollout", bare, *base, "--weights", str(net), "--save", str(saved))
    assert code == 0 and json.loads(out)["jacoby"] is True
    kept = SavedRollout.load(saved)
    assert kept.jacoby == [True] and kept.net is not None and kept.net.startswith("sha256:")
    legacy = tmp_path / "legacy.npz"
    with np.load(saved) as z:
        arrays = {k: z[k] for k in z.files}
    meta = json.loads(str(arrays["meta"]))
    del meta["jacoby"], meta["net"]
    arrays["meta"] = np.array(json.dumps(meta))
    np.savez(legacy, **arrays)
    code, out, _ = run_cli(capsys, "rollout", "--resume", str(legacy), "--trials", "72", "--json")
    assert code == 0 and json.loads(out)["jacoby"] is False
    data = bytearray(net.read_bytes())
    data[-1] ^= 1  # one bit of the last tensor: another net in the same file
    net.write_bytes(bytes(data))
    code, out, err = run_cli(capsys, "rollout", "--resume", str(saved), "--trials", "72")
    assert_clean_error(code, out, err, "cannot be continued by another net", as_json=False)


def test_a_damaged_saved_rollout_is_refused(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    import numpy as np

    saved = tmp_path / "r.npz"
    code, _, _ = run_cli(capsys, "rollout", START, "--trials", "36", "--truncate", "2", "--save", str(saved))
    assert code == 0
    with np.load(saved) as z:
        arrays = {k: z[k] for k in z.files}
    for name, change, words in [
        ("position", lambda a: a + 3, "positions are not numbered from 0"),
        ("outcome", lambda a: a * 7.0, "not probabilities"),
    ]:
        bad = dict(arrays, **{name: change(arrays[name])})
        path = tmp_path / f"bad_{name}.npz"
        np.savez(path, **bad)
        code, out, err = run_cli(capsys, "rollout", "--resume", str(path), "--trials", "72")
        assert_clean_error(code, out, err, words, as_json=False)


def test_a_save_that_cannot_be_written_is_refused_before_any_trial(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(capsys, "rollout", START, "--trials", "36", "--save", "/proc/x.npz")
    assert_clean_error(code, out, err, "cannot write in '/proc'", as_json=False)


def test_until_se_at_a_match_score_reads_the_normalised_equity(capsys: pytest.CaptureFixture[str]) -> None:
    """The MWC's SE is several times smaller than the normalised equity's: the stop rule used it, and stopped early."""
    args = ["4HPwATDgc/ABMA:cAngAAAAAAAE", "--trials", "1296", "--truncate", "2", "--no-variance-reduction"]
    code, out, _ = run_cli(capsys, "rollout", *args, "--until-se", "0.002", "--json")
    js = json.loads(out)
    assert code == 0 and js["stopped"] is None and js["trials"] == 1296
    assert js["cubeful_equity_se"] > 0.002 > js["mwc_se"]
    assert js["raw"]["cubeful_equity"] == js["cubeful_equity"] and js["raw"]["mwc"] == js["mwc"]


def test_a_match_score_cube_decision_in_normalised_equity_and_mwc(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(
        capsys, "rollout", "AwAAMAAAAAAAAA:MAHgADAAKAAA", "--cube-decision", "--trials", "36", "--json"
    )
    js = json.loads(out)
    d = js["cube_decision"]
    assert code == 0 and js["match"]["away"] == 4 and js["match"]["opp_away"] == 2
    assert d["action"] == "Double, take" and d["units"] == "normalised equity at the initial cube"
    assert 0.0 < d["no_double"]["mwc"] < d["double_take"]["mwc"] < d["double_pass_mwc"] < 1.0


BAD: list[tuple[list[str], str]] = [
    (["rollout", START, "--until-se", "0"], "--until-se"),
    (["rollout", START, "--until-se", "-0.1"], "--until-se"),
    (["rollout", START, "--max-seconds", "0"], "--max-seconds"),
    (["rollout", START, "--settle", "3"], "--settle needs a decision"),
    (["rollout", START, "--level", "fastest"], "--level"),
    (["rollout", START, "--cube-plies", "3"], "--cube-plies"),
    (["rollout", "--resume", "ids.txt", "--trials", "100"], "not a saved rollout"),
    (["rollout", START, "--resume", "ids.txt", "--trials", "100"], "leave out the ID"),
    (["rollout", START, "--plays", "3"], "no dice"),
    (["rollout", OPENING_31, "--plays", "0"], "--plays"),
    (["rollout", OPENING_31, "--moves", "8/4 6/5"], "8/4 6/5"),
    (["rollout", OPENING_31, "--cube-decision"], "cube not available"),
    (["rollout", f"{START}:{MatchState(cube=2, cube_owner=1, on_roll=0).id}", "--cube-decision"], "cube not available"),
    (["rollout", "--file", "ids.txt", "--plays", "2"], "--file"),
    (["rollout", "nonsense"], "nonsense"),
    (["rollout", START, "--trials", "0"], "--trials"),
    (["rollout", START, "--truncate", "-1"], "--truncate"),
    (["rollout", START, "--truncate", "0"], "--truncate"),
    (["rollout", START, "--plies", "3"], "--plies"),
    (["rollout", START, "--luck-screen", "-1"], "--luck-screen"),
    (["rollout", "--resume", "ids.txt", "--trials", "100", "--luck-screen", "3"], "leave out --luck-screen"),
    (["rollout", START, "--luck-screen", "x"], "--luck-screen"),
    (["rollout", START, "--luck-screen", "65"], "--luck-screen"),
    (["rollout", f"{START}:sAHgAGAAGAAA", "--cube-decision"], "Crawford"),
    (["rollout", SCORED, "--cube", "jump:0.2"], "jump:0.2"),
    (["rollout", SCORED, "--met", "nonsense"], "nonsense"),
    (["rollout", f"{START}:{MatchState(cube=2, doubled=True).id}"], "double is pending"),
    (["rollout", START, "--cubeful", "--cube", "janowski:2"], "janowski:2"),
    (["rollout", START, "--cubeful", "--cube", "jump:x"], "jump:x"),
    (["rollout"], "--file"),
    (["rollout", START, "--file", "ids.txt"], "not both"),
    (["rollout", "--file", "missing.txt"], "missing.txt"),
    (["rollout", "--file", "bad.txt"], "bad.txt line 2"),
    (["rollout", "--file", "mixed.txt"], "money and match"),
    (["rollout", "--file", "empty.txt"], "no position ID"),
]


@pytest.mark.parametrize("as_json", [False, True])
@pytest.mark.parametrize(("argv", "needle"), BAD)
def test_bad_input_is_one_line(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    argv: list[str],
    needle: str,
    as_json: bool,
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "ids.txt").write_text(f"{START}\n")
    (tmp_path / "bad.txt").write_text(f"{START}\nnonsense\n")
    (tmp_path / "mixed.txt").write_text(f"{START}\n{SCORED}\n")
    (tmp_path / "empty.txt").write_text("# nothing\n\n")
    code, out, err = run_cli(capsys, *argv, *(["--json"] if as_json else []))
    assert_clean_error(code, out, err, needle, as_json)


def test_a_plays_rollouts_progress_shows_the_first_play_as_its_table_does(capsys: pytest.CaptureFixture[str]) -> None:
    """The bar showed the first play's equity for its roller (the opponent): -0.1593 beside a table's +0.1593."""
    code, out, err = run_cli(capsys, "rollout", f"{START}:MIEFAAAAAAAA", "--plays", "2", "--trials", "72")
    assert code == 0
    first_row = next(line for line in out.splitlines() if line.strip().startswith("1."))
    found = re.search(r"[+-]\d\.\d{4}", first_row)  # "1. 8/5 6/5  +0.1361 ...": its equity, the first signed figure
    assert found is not None
    table_equity = found.group()
    assert f"first play equity {table_equity} +-" in err.replace("\r", "\n").splitlines()[-1]


def test_a_cubeful_file_mixing_jacoby_rules_names_the_positions(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    jacoby_off = MatchState(on_roll=0, turn=0, extra_bits=1).id  # money, Jacoby off
    ids = tmp_path / "ids.txt"
    ids.write_text(f"{START}\n{START}:{jacoby_off}\n")
    code, out, err = run_cli(capsys, "rollout", "--file", str(ids), "--cubeful", "--trials", "36")
    last = err.strip().splitlines()[-1]
    assert code == 2 and out == "" and "position 1 (4HPwATDgc/ABMA (no match ID)) on" in last
    assert f"position 2 ({START}:{jacoby_off}) off" in last and "trial/s" not in err  # refused before any trial


def test_a_saved_rollout_reprints_without_new_trials(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    saved = tmp_path / "r.npz"
    code, first, _ = run_cli(capsys, "rollout", START, "--trials", "36", "--save", str(saved), "--json")
    assert code == 0
    for extra in ([], ["--trials", "36"]):
        code, again, _ = run_cli(capsys, "rollout", "--resume", str(saved), *extra, "--json")
        reprinted = json.loads(again)
        assert code == 0 and reprinted["trials"] == 36
        assert reprinted["probabilities"] == json.loads(first)["probabilities"]
    code, out, err = run_cli(capsys, "rollout", "--resume", str(saved), "--trials", "18")
    assert code == 2 and "holds 36 trials" in err


def _interrupt_second_block(monkeypatch: pytest.MonkeyPatch) -> None:
    """Blocks of 36 trials, the second ending in Ctrl-C."""
    import arena.rollout

    play = arena.rollout._play_block
    calls: list[int] = []

    def play_then_interrupt(*args: object, **kwargs: object) -> object:
        calls.append(1)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return play(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(arena.rollout.RolloutConfig, "block_trials", lambda self, positions: 36)
    monkeypatch.setattr(arena.rollout, "_play_block", play_then_interrupt)


@pytest.mark.parametrize("kind", [["--cube-decision"], ["--moves", "8/5 6/5", "--moves", "24/23 13/10"], []])
def test_ctrl_c_reports_and_saves_the_trials_played(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path, kind: list[str]
) -> None:
    """As gnubg shows a rollout stopped by the user: the finished blocks' trials are reported (and with --save kept,
    so --resume goes on to what an uninterrupted run gives)."""
    start = OPENING_31 if "--moves" in kind else RACE
    argv = ["rollout", start, *kind, "--trials", "72", "--truncate", "2", "--json"]
    saved = tmp_path / "r.npz"
    _interrupt_second_block(monkeypatch)
    code, out, err = run_cli(capsys, *argv, "--save", str(saved))
    partial = json.loads(out)
    assert code == 130 and partial.pop("stopped") == "interrupted (Ctrl-C) after 36 of 72 trials"
    monkeypatch.undo()
    code, out, _ = run_cli(capsys, *[a if a != "72" else "36" for a in argv])
    asked_36 = json.loads(out)
    for figures in (partial, asked_36):
        for timing in ("seconds", "trials_per_second", "stopped"):
            figures.pop(timing, None)
    assert code == 0 and partial == asked_36  # what a rollout of the trials played gives
    assert f"jumpgammon rollout: interrupted; the rollout so far is above (36 trials); saved to {str(saved)!r}" in err
    code, out, _ = run_cli(capsys, "rollout", "--resume", str(saved), "--trials", "72", "--json")
    resumed = json.loads(out)
    code2, out2, _ = run_cli(capsys, *argv)
    whole = json.loads(out2)
    resumed.pop("seconds"), whole.pop("seconds")
    resumed.pop("trials_per_second"), whole.pop("trials_per_second")
    assert code == code2 == 0 and resumed == whole
    _interrupt_second_block(monkeypatch)
    code, out, err = run_cli(capsys, *argv[:-1])  # as text: the table, its footer saying why it stopped
    assert code == 130 and "interrupted (Ctrl-C) after 36 of 72 trials" in out
    assert err.strip().endswith("jumpgammon rollout: interrupted; the rollout so far is above (36 trials)")
