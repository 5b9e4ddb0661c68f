"""``tournament`` as a user meets it: the cube rule, interruptions, resuming, .mat export, the printed figures."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import arena.tournament
from arena.luck import LUCK_SCREEN
from arena.matches import MatchBlockResult
from arena.tournament import TournamentConfig
from engine import Position
from tests.cli.helpers import assert_clean_error, run_cli

REPO = Path(__file__).resolve().parents[2]


def tournament_json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    code, out, err = run_cli(capsys, "tournament", *argv, "--json")
    assert code == 0, err
    result: dict[str, Any] = json.loads(out)
    return result


def test_a_cube_spec_plays_with_the_cube(capsys: pytest.CaptureFixture[str]) -> None:
    """--a-cube janowski:0.7 without --cubeful plays the cubeful games --cubeful plays (it used to play cubeless)."""
    base = ["--a", "net@0", "--a-cube", "janowski:0.7", "--b", "pubeval", "--games", "4"]
    implied = tournament_json(capsys, *base)
    explicit = tournament_json(capsys, *base, "--cubeful")
    assert implied["rules"]["cubeful"] is True
    for result in (implied, explicit):
        result.pop("seconds")
        result.pop("games_per_second")
    assert implied == explicit
    assert implied["a"]["cube_decisions"] > 0
    plain = tournament_json(capsys, "--a", "net@0", "--b", "pubeval", "--games", "4", "--a-cube", "none")
    assert plain["rules"]["cubeful"] is False


@pytest.mark.parametrize("rule", ["--jacoby", "--beavers"])
def test_cube_rules_without_the_cube_are_refused(capsys: pytest.CaptureFixture[str], rule: str) -> None:
    """--jacoby without the cube made every gammon count single in cubeless games (+0.53 ppg for +0.71)."""
    code, out, err = run_cli(capsys, "tournament", "--a", "net@0", "--b", "pubeval", "--games", "2", rule)
    assert_clean_error(code, out, err, rule, as_json=False)


def _interrupt_second_block(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make the tournament's second block end in Ctrl-C."""
    play = TournamentConfig.play
    calls = []

    def play_then_interrupt(self: TournamentConfig, *args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return play(self, *args, **kwargs)

    monkeypatch.setattr(TournamentConfig, "play", play_then_interrupt)


def test_an_interrupted_tournament_says_what_became_of_its_games(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    argv = ["tournament", "--a", "pubeval", "--b", "pubeval", "--games", "8", "--block-pairs", "2"]
    _interrupt_second_block(monkeypatch)
    code, out, err = run_cli(capsys, *argv)
    assert code == 130 and out == ""
    assert "interrupted; 4 of 8 games finished and not kept (--checkpoint FILE keeps finished blocks" in err
    ledger = tmp_path / "ledger.jsonl"
    _interrupt_second_block(monkeypatch)
    code, _, err = run_cli(capsys, *argv, "--checkpoint", str(ledger))
    assert code == 130 and f"4 of 8 games finished, kept in {ledger}: the same command resumes" in err
    monkeypatch.undo()
    code, out, err = run_cli(capsys, *argv, "--checkpoint", str(ledger))
    assert code == 0 and f"resuming at 4 of 8 games from {ledger}" in err and "8 games (4 mirrored pairs" in out


def test_an_interrupt_wrapped_by_numba_still_reports_the_games(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    play = TournamentConfig.play
    calls = []

    def numba_like(self: TournamentConfig, *args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        if len(calls) == 2:
            try:
                raise KeyboardInterrupt
            except KeyboardInterrupt as exc:
                raise SystemError("CPUDispatcher(<function>) returned a result with an exception set") from exc
        return play(self, *args, **kwargs)

    monkeypatch.setattr(TournamentConfig, "play", numba_like)
    argv = ["tournament", "--a", "pubeval", "--b", "pubeval", "--games", "8", "--block-pairs", "2", "--json"]
    code, out, _ = run_cli(capsys, *argv)
    assert code == 130 and "4 of 8 games finished and not kept" in json.loads(out)["error"]


def test_mat_export_is_timed_shown_and_does_not_list_every_play(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The export named each game's plays by listing every legal play of every roll (24.8 s for 400 games)."""
    folder = tmp_path / "mats"
    argv = ["tournament", "--a", "net@0", "--b", "pubeval", "--games", "6"]
    code, out, err = run_cli(capsys, *argv, "--mat", str(folder))
    assert code == 0 and f"{folder} written in " in out and ".mat files: 100%" in err
    texts = {p.name: p.read_text() for p in folder.iterdir()}
    assert len(texts) == 3

    def refused(self: Position, dice: tuple[int, int]) -> Any:
        raise AssertionError("the .mat export listed every play of a roll")

    monkeypatch.setattr(Position, "plays", refused)
    again = tmp_path / "again"
    result = tournament_json(capsys, "--a", "net@0", "--b", "pubeval", "--games", "6", "--mat", str(again))
    assert {p.name: p.read_text() for p in again.iterdir()} == texts
    assert result["files"]["paths"] == [str(again)] and result["files"]["seconds"] >= 0


def test_one_pair_reads_in_the_singular_and_has_no_standard_error(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(capsys, "tournament", "--a", "net@0", "--b", "pubeval", "--games", "2", "--seed", "3")
    assert code == 0
    assert "(1 mirrored pair, seed 3, cubeless)" in out and "SE n/a" in out
    assert "mirrored pairs" not in out and "1 backgammons" not in out and "1 gammons" not in out
    assert "nan" not in err and "+- n/a" in err


def test_match_bar_shows_percent(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["--a", "net@0", "--b", "pubeval", "--match-length", "1", "--matches", "4", "--block-pairs", "1"]
    code, out, err = run_cli(capsys, "tournament", *argv)
    assert code == 0 and "A wins" in out
    bar = err.replace("\r", "\n").splitlines()
    assert any("MWC " in line and "% +- " in line for line in bar), err
    assert arena.tournament.running_text(0.95, 0.034, matches=True) == "MWC 95.0% +- 3.4%"


def test_top_level_help_loads_no_command(tmp_path: Path) -> None:
    """``jumpgammon --help`` took about 3 s: it imported every command, numba and scipy with them."""
    script = (
        "import contextlib, io, json, sys, cli.main\n"
        "with contextlib.redirect_stdout(io.StringIO()) as out, contextlib.suppress(SystemExit):\n"
        "    cli.main.main(['--help'])\n"
        "bad = cli.main.main(['nonsense'])\n"
        "print(json.dumps({'help': out.getvalue(), 'bad': bad, 'loaded': sorted(\n"
        "    m for m in ('numba', 'numpy', 'scipy', 'torch', 'cli.tournament', 'cli.eval') if m in sys.modules)}))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=REPO, capture_output=True, text=True, timeout=120, check=True
    )
    report = json.loads(done.stdout)
    assert report["loaded"] == [] and report["bad"] == 2
    assert "tournament" in report["help"] and "examples:" in report["help"]


@pytest.mark.parametrize(("a", "b"), [("pubeval", "random:3"), ("pubeval", "pubeval")])
def test_a_block_reports_its_games_as_they_end(a: str, b: str) -> None:
    """A slow player's bar sat at 0% for minutes: it moved once per block (512 games)."""
    from arena import PlayerSpec

    cfg = TournamentConfig(a=PlayerSpec(a), b=PlayerSpec(b), games=32, seed=4)
    heard: list[int] = []
    block = cfg.play(cfg.build_players(), 0, 16, False, heard.append)
    assert sum(heard) == block.games == 32 and len(heard) > 2  # games end at different plies (replay: by pairs)


def test_the_bar_counts_each_game_once(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["tournament", "--a", "pubeval", "--b", "random:3", "--games", "40", "--block-pairs", "8"]
    code, _, err = run_cli(capsys, *argv)
    counts = [int(m) for m in re.findall(r"\| *(\d+)/40 ", err)]
    assert code == 0 and counts and max(counts) == 40 and counts == sorted(counts)


def test_an_interrupted_rollout_says_its_trials_are_not_kept(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same kind as the tournament's: a rollout is written only when it ends, so Ctrl-C loses its trials."""
    import arena.rollout

    def interrupted(*args: Any, **kwargs: Any) -> Any:
        raise KeyboardInterrupt

    monkeypatch.setattr(arena.rollout, "_play_block", interrupted)
    code, out, err = run_cli(capsys, "rollout", "4HPwATDgc/ABMA", "--trials", "72", "--truncate", "2")
    assert code == 130 and out == "" and "interrupted; 0 of 72 trials finished and none kept" in err


def test_a_match_block_reports_its_matches_as_they_end() -> None:
    from arena import PlayerSpec, Rules

    a, b = PlayerSpec("pubeval"), PlayerSpec("random:3")
    cfg = TournamentConfig(a=a, b=b, games=16, seed=4, rules=Rules(cubeful=True), match_length=3)
    heard: list[int] = []
    block = cfg.play(cfg.build_players(), 0, 8, False, heard.append)
    assert isinstance(block, MatchBlockResult)
    assert sum(heard) == block.matches == 16 and len(heard) > 1


def test_luck_reports_the_adjusted_ppg_beside_the_raw_one(capsys: pytest.CaptureFixture[str]) -> None:
    base = ["--a", "net@0", "--b", "pubeval", "--games", "8", "--seed", "4"]
    plain = tournament_json(capsys, *base)
    lucky = tournament_json(capsys, *base, "--luck")
    assert "luck_adjusted" not in plain
    assert lucky["ppg"] == plain["ppg"] and lucky["se"] == plain["se"]  # the same games
    assert set(lucky["luck_adjusted"]) == {"ppg", "se", "se_ratio", "luck_screen"}
    assert lucky["luck_adjusted"]["luck_screen"] == LUCK_SCREEN
    code, out, err = run_cli(capsys, "tournament", *base, "--luck")
    assert code == 0 and re.search(r"luck-adjusted: [+-]\d\.\d{3} ppg, SE \d\.\d{3}", out)
    every = tournament_json(capsys, *base, "--luck", "--luck-screen", "0")
    assert every["ppg"] == plain["ppg"] and every["luck_adjusted"]["luck_screen"] is None
    assert every["luck_adjusted"]["ppg"] != lucky["luck_adjusted"]["ppg"]  # another luck on the same games


@pytest.mark.parametrize(
    ("extra", "named"),
    [(["--luck-screen", "8"], "--luck-screen 8 needs --luck"), (["--luck", "--luck-screen", "-1"], "-1")],
)
def test_a_luck_screen_without_luck_or_out_of_range_is_refused(
    capsys: pytest.CaptureFixture[str], extra: list[str], named: str
) -> None:
    code, out, err = run_cli(capsys, "tournament", "--a", "net@0", "--b", "pubeval", "--games", "2", *extra)
    assert_clean_error(code, out, err, named, as_json=False)


def test_luck_with_a_bad_file_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(capsys, "tournament", "--a", "net@0", "--b", "pubeval", "--luck", "nowhere.jgw")
    assert_clean_error(code, out, err, "nowhere.jgw", as_json=False)


@pytest.mark.slow
def test_luck_in_matches_reports_the_adjusted_mwc(capsys: pytest.CaptureFixture[str]) -> None:
    base = ["--a", "net@0", "--a-cube", "gnubg", "--b", "net@0", "--b-cube", "live", "--match-length", "3"]
    result = tournament_json(capsys, *base, "--matches", "8", "--luck")
    assert set(result["luck_adjusted"]) == {"mwc", "se", "se_ratio", "luck_screen"}
    assert 0.0 < result["luck_adjusted"]["se"] < result["se"]


def test_equivalence_tests_the_luck_adjusted_difference(capsys: pytest.CaptureFixture[str]) -> None:
    base = ["--a", "net@0", "--b", "pubeval", "--games", "8"]
    result = tournament_json(capsys, *base, "--seed", "4", "--luck", "--equivalence", "0.5")
    e, adjusted = result["equivalence"], result["luck_adjusted"]
    assert (e["value"], e["se"], e["margin"]) == (adjusted["ppg"], adjusted["se"], 0.5)
    assert e["equivalent"] is (e["p"] < 0.05) and e["ci90"][0] < e["value"] < e["ci90"][1]
    code, out, err = run_cli(capsys, "tournament", *base, "--seed", "4", "--equivalence", "0.5")
    assert code == 0 and "equivalence (two one-sided tests, raw)" in out


def test_equivalence_without_an_se_says_it_was_not_tested(capsys: pytest.CaptureFixture[str]) -> None:
    """Two games are one pair: no SE, so no test; the output says so (it said nothing at all)."""
    base = ["--a", "net@0", "--b", "pubeval", "--games", "2", "--equivalence", "0.1"]
    result = tournament_json(capsys, *base)
    assert result["se"] is None
    assert result["equivalence"]["equivalent"] is None and "no SE" in result["equivalence"]["not_tested"]
    code, out, err = run_cli(capsys, "tournament", *base)
    assert code == 0 and "equivalence within +-0.1: not tested, the result has no SE" in out


def test_the_api_refuses_an_odd_or_empty_number_of_games() -> None:
    from arena import PlayerSpec, TournamentConfig
    from engine.errors import InvalidSpec

    for games in (0, 5, -2, 2.0, True):
        with pytest.raises(InvalidSpec, match="even number"):
            TournamentConfig(PlayerSpec("pubeval"), PlayerSpec("random"), games)  # type: ignore[arg-type]


@pytest.mark.parametrize("margin", ["0", "-0.1", "1", "nan", "x"])
def test_a_bad_equivalence_margin_is_refused(capsys: pytest.CaptureFixture[str], margin: str) -> None:
    code, out, err = run_cli(capsys, "tournament", "--a", "net@0", "--b", "pubeval", "--equivalence", margin)
    assert_clean_error(code, out, err, "--equivalence", as_json=False)


def test_until_se_stops_a_run_early_and_says_where(capsys: pytest.CaptureFixture[str]) -> None:
    base = ["--a", "random:1", "--b", "random:2", "--games", "4000", "--block-pairs", "100", "--seed", "3"]
    result = tournament_json(capsys, *base, "--until-se", "0.5")
    assert result["games"] == 1000 and result["until_se"] == {"target": 0.5, "most": 4000}
    assert result["se"] <= 0.5
    code, out, _ = run_cli(capsys, "tournament", *base, "--until-se", "0.5")
    assert code == 0 and "--until-se 0.5: target SE reached at 1,000 of at most 4,000" in out


@pytest.mark.parametrize("target", ["0", "-0.1", "1", "nan", "x"])
def test_a_bad_target_se_is_refused(capsys: pytest.CaptureFixture[str], target: str) -> None:
    code, out, err = run_cli(capsys, "tournament", "--a", "net@0", "--b", "pubeval", "--until-se", target)
    assert_clean_error(code, out, err, "--until-se", as_json=False)
