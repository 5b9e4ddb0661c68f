"""The experiments' machinery: sweep points to an SE target, the optimum's fit and interval, the CLI."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from arena import PlayerSpec, Rules, TournamentConfig, run_tournament
from benchmarks.experiments.fit import RULE, DegreeRule, Optimum, bootstrap_peaks, fit_optimum
from benchmarks.experiments.ladder import LadderResult, LadderRow, run_ladder, select_rungs
from benchmarks.experiments.local import LocalResult, ledger_path, run_local
from benchmarks.experiments.provenance import claim_folder
from benchmarks.experiments.sweep import GAMES_PER_BLOCK, PointSpec, SweepSettings, next_games, play_points
from engine.errors import InvalidSpec

NEXT_GAMES_CASES = [
    # (games, se, target, cap, expected): 1.1 x games x (se/target)^2 in whole blocks, at least one more, capped
    (4096, 0.006, 0.003, 400 * GAMES_PER_BLOCK, 18432),  # 4 x 4096 x 1.1 = 18022 -> 36 blocks
    (4096, 0.0031, 0.003, 400 * GAMES_PER_BLOCK, 5120),  # 4811 -> 10 blocks
    (4096, 0.003001, 0.003, 400 * GAMES_PER_BLOCK, 4608),  # 4507 -> 9 blocks: at least one more anyway
    (4096, 0.1, 0.003, 20 * GAMES_PER_BLOCK, 10240),  # capped
]


@pytest.mark.parametrize(("games", "se", "target", "cap", "expected"), NEXT_GAMES_CASES)
def test_next_games(games: int, se: float, target: float, cap: int, expected: int) -> None:
    settings = SweepSettings(se_target=target, max_games=cap)
    assert next_games(games, se, settings) == expected


def _synthetic(xs: list[float], peak: float, pairs: int, noise: float, seed: int) -> list[np.ndarray]:
    """Pair points around a parabola peaking at ``peak`` with value 0 there (pair k's noise shared by all points)."""
    rng = np.random.default_rng(seed)
    common = rng.normal(0, noise, pairs)
    return [-((x - peak) ** 2) + 0.5 * common + rng.normal(0, noise, pairs) for x in xs]


def test_the_fit_finds_a_known_peak_inside_its_interval() -> None:
    xs = [0.5, 0.6, 0.7, 0.8, 0.9]
    found = fit_optimum(xs, _synthetic(xs, 0.66, 4000, 0.3, seed=1), degree=2, replicates=400)
    assert found.ci95[0] < 0.66 < found.ci95[1]
    assert abs(found.best - 0.66) < 0.03 and found.ci95[1] - found.ci95[0] < 0.1
    assert found.chosen.at_edge == 0.0 and found.chosen.dof == 2 and found.forced


def test_the_interval_covers_the_truth_about_95_percent_of_the_time() -> None:
    xs = [0.5, 0.6, 0.7, 0.8, 0.9]
    covered = sum(
        fit_optimum(xs, _synthetic(xs, 0.7, 400, 0.3, seed=s), degree=2, replicates=200, seed=s).ci95[0]
        < 0.7
        < fit_optimum(xs, _synthetic(xs, 0.7, 400, 0.3, seed=s), degree=2, replicates=200, seed=s).ci95[1]
        for s in range(30)
    )
    # Binomial(30, 0.95): 24 or fewer happens with probability about 0.016.
    assert covered >= 25


def test_an_exact_point_pins_the_curve() -> None:
    xs = [0.5, 0.7, 0.9]
    pp = _synthetic(xs, 0.7, 2000, 0.3, seed=3)
    pp[1] = np.zeros(0)  # the reference itself: exactly 0, no games
    found = fit_optimum(xs, pp, replicates=100)
    assert abs(np.polyval(found.coefficients, 0.7)) < 1e-3
    assert [f.degree for f in found.fits] == [2]  # three points: only the quadratic is fitted


@pytest.mark.parametrize(
    ("chi2", "chosen"),
    [
        ([10.0, 9.0, 1.0], 2),  # the first step fails (p 0.32): stop there, whatever degree 4 would give
        ([10.0, 5.0, 4.9], 3),  # a drop of 5 (p 0.025), then 0.1 (p 0.75)
        ([30.0, 20.0, 10.0], 4),  # both steps pass, and 4 is the last
        ([10.0, 6.2, 0.0], 2),  # a drop of 3.8 is p 0.051: not below 0.05
    ],
)
def test_the_rule_steps_up_one_degree_while_the_chi2_drop_is_significant(chi2: list[float], chosen: int) -> None:
    assert int(RULE.choose(np.array([chi2]))[0]) == chosen
    assert RULE.first == 2 and RULE.last == 4 and RULE.alpha == 0.05


def _skewed(xs: list[float], pairs: int, noise: float, seed: int) -> list[np.ndarray]:
    """Pair points around a lopsided curve (a cubic term a parabola misses), peak near 0.67, shared noise per pair."""
    rng = np.random.default_rng(seed)
    common = rng.normal(0, noise, pairs)
    return [-((x - 0.7) ** 2) - 4 * (x - 0.7) ** 3 + 0.5 * common + rng.normal(0, noise, pairs) for x in xs]


def test_the_rule_takes_the_cubic_for_a_lopsided_curve_and_the_quadratic_for_a_parabola() -> None:
    xs = [0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9]
    lopsided = fit_optimum(xs, _skewed(xs, 20000, 0.3, seed=2), replicates=200)
    assert lopsided.degree == 3 and not lopsided.forced
    assert [f.degree for f in lopsided.fits] == [2, 3, 4]
    assert lopsided.fits[1].p_step is not None and lopsided.fits[1].p_step < 0.05 and lopsided.fits[0].p_fit < 0.05
    assert lopsided.selected_ci95 is not None and lopsided.selected_shares is not None
    assert abs(sum(lopsided.selected_shares) - 1) < 1e-9 and lopsided.selected_shares[1] > 0.5
    parabola = fit_optimum(xs, _synthetic(xs, 0.66, 20000, 0.3, seed=2), replicates=200)
    assert parabola.degree == 2 and parabola.fits[1].p_step is not None and parabola.fits[1].p_step >= 0.05
    forced = fit_optimum(xs, _synthetic(xs, 0.66, 20000, 0.3, seed=2), degree=4, replicates=200)
    assert forced.degree == 4 and forced.forced and forced.fits == parabola.fits
    with pytest.raises(ValueError, match="degree 4"):
        fit_optimum([0.5, 0.6, 0.7, 0.8], _synthetic([0.5, 0.6, 0.7, 0.8], 0.66, 100, 0.3, seed=2), degree=4)


def test_a_higher_cap_fits_more_degrees_and_keeps_the_lower_ones() -> None:
    xs = [0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9]
    pairs = _skewed(xs, 20000, 0.3, seed=2)
    capped, wider = (
        fit_optimum(xs, pairs, replicates=50),
        fit_optimum(xs, pairs, replicates=50, rule=DegreeRule(last=6)),
    )
    assert [f.degree for f in wider.fits] == [2, 3, 4, 5, 6] and wider.rule == DegreeRule(last=6)
    assert [f.chi2 for f in wider.fits[:3]] == [f.chi2 for f in capped.fits] and wider.degree == capped.degree == 3
    assert not wider.fitted_as(None)  # a fit by another rule is not the rule's


def test_bootstrap_peaks_with_the_fits_own_weights_give_its_interval() -> None:
    """Given the Poisson weights fit_optimum draws from its seed, bootstrap_peaks finds the same replicates."""
    xs = [0.5, 0.6, 0.7, 0.8, 0.9]
    pairs = _synthetic(xs, 0.66, 2000, 0.3, seed=4)
    found = fit_optimum(xs, pairs, degree=2, replicates=100, seed=3)
    weights = np.random.default_rng(3).poisson(1.0, (100, 2000)).astype(float)
    peaks = bootstrap_peaks(xs, pairs, 2, weights)
    assert peaks.shape == (100,)
    assert tuple(np.quantile(peaks, [0.025, 0.975])) == found.fits[0].ci95
    with pytest.raises(ValueError, match="a column for each"):
        bootstrap_peaks(xs, pairs, 2, weights[:, :1999])


def test_an_optimum_reads_back_and_an_older_result_is_refitted() -> None:
    """A fit read back is the same; a result.json from before the rule reads, but never counts as the rule's."""
    xs = [0.5, 0.6, 0.7, 0.8, 0.9]
    found = fit_optimum(xs, _synthetic(xs, 0.66, 2000, 0.3, seed=4), replicates=50)
    assert Optimum.from_json(json.loads(json.dumps(found.to_json()))) == found
    assert found.fitted_as(None) and not found.fitted_as(found.degree)
    older = {k: v for k, v in found.chosen.to_json().items() if k not in ("p_fit", "p_step", "aic")}
    legacy = Optimum.from_json({**older, "replicates": 50})
    assert legacy.rule is None and legacy.best == found.best and legacy.chosen.aic == found.chosen.aic
    assert not legacy.fitted_as(None) and not legacy.fitted_as(found.degree)


@pytest.mark.slow
def test_sweep_points_reach_their_target_and_resume_from_their_ledgers(tmp_path: Path) -> None:
    settings = SweepSettings(seed=4, se_target=0.2, min_games=GAMES_PER_BLOCK, max_games=2 * GAMES_PER_BLOCK)
    points = [PointSpec("x=0.5", "janowski:0.5", "janowski:0.7", tmp_path / "a.ledger.jsonl")]
    first = play_points(points, settings, progress=False)[0]
    assert first.games in (GAMES_PER_BLOCK, 2 * GAMES_PER_BLOCK)
    assert first.se <= 0.2 or first.games == 2 * GAMES_PER_BLOCK
    again = play_points(points, settings, progress=False, play=False)[0]
    assert again.games == first.games and again.ppg == first.ppg  # read back from the ledger, nothing played
    same = play_points(points, settings, progress=False)[0]
    assert same.ppg == first.ppg and same.se == first.se


@pytest.mark.slow
def test_a_luck_adjusted_sweep_judges_each_block_once_and_matches_the_tournament(tmp_path: Path) -> None:
    raw_settings = SweepSettings(seed=9, se_target=0.5, min_games=GAMES_PER_BLOCK, max_games=GAMES_PER_BLOCK)
    settings = replace(raw_settings, luck_weights="")
    specs = [("janowski:0.5", "janowski:0.7"), ("jump:0.08:numerical", "janowski:0.7")]
    points = [PointSpec(a, a, b, tmp_path / f"{k}.ledger.jsonl") for k, (a, b) in enumerate(specs)]
    adjusted = play_points(points, settings, progress=False)
    raw = play_points(
        [replace(p, ledger=tmp_path / f"raw{k}.jsonl") for k, p in enumerate(points)], raw_settings, progress=False
    )
    for a, r, (a_cube, b_cube) in zip(adjusted, raw, specs, strict=True):
        assert a.raw == (r.ppg, r.se)  # the same games, judged raw and adjusted
        assert a.ppg != r.ppg
        cfg = TournamentConfig(
            PlayerSpec("net@0", a_cube),
            PlayerSpec("net@0", b_cube),
            games=GAMES_PER_BLOCK,
            seed=9,
            rules=Rules(cubeful=True),
            compare_cube=False,
            luck_weights="",
        )
        played, _ = run_tournament(cfg, progress=False)
        assert played.adjusted is not None
        assert a.ppg == pytest.approx(played.adjusted.value, abs=1e-9) and a.se == pytest.approx(played.adjusted.se)
        assert a.se < r.se
    with pytest.raises(ValueError):
        play_points(points[:1], raw_settings, progress=False, play=False)  # a luck ledger is not a raw one


@pytest.mark.slow
def test_a_screened_luck_sweep_is_the_screened_tournament_and_keeps_its_own_ledger(tmp_path: Path) -> None:
    settings = SweepSettings(
        seed=9, se_target=0.5, min_games=GAMES_PER_BLOCK, max_games=GAMES_PER_BLOCK, luck_weights="", luck_screen=4
    )
    point = PointSpec("x=0.5", "janowski:0.5", "janowski:0.7", tmp_path / "a.ledger.jsonl")
    (screened,) = play_points([point], settings, progress=False)
    cfg = TournamentConfig(
        PlayerSpec("net@0", "janowski:0.5"),
        PlayerSpec("net@0", "janowski:0.7"),
        games=GAMES_PER_BLOCK,
        seed=9,
        rules=Rules(cubeful=True),
        compare_cube=False,
        luck_weights="",
        luck_screen=4,
    )
    played, _ = run_tournament(cfg, progress=False)
    assert played.adjusted is not None and screened.ppg == pytest.approx(played.adjusted.value, abs=1e-9)
    assert json.loads(point.ledger.read_text().splitlines()[0])["tournament"]["luck_screen"] == 4
    with pytest.raises(InvalidSpec, match="--luck-screen 4"):
        play_points([point], replace(settings, luck_screen=None), progress=False, play=False)


@pytest.mark.slow
def test_experiment_4_plays_both_comparisons_over_the_same_blocks(tmp_path: Path) -> None:
    """The plumbing of experiment 4, with a cheap constant-alpha player standing in for jump-local."""
    settings = SweepSettings(seed=6, se_target=0.5, min_games=GAMES_PER_BLOCK, max_games=GAMES_PER_BLOCK)
    player, opponents = "jump:0.15:linear", ("janowski:0.7", "jump:0.08:linear")
    result = run_local(tmp_path, settings, opponents, progress=False, player=player)
    assert [p.b_cube for p in result.points] == list(opponents)
    assert all(p.games == GAMES_PER_BLOCK and p.a_cube == player for p in result.points)
    written = json.loads((tmp_path / "result.json").read_text())
    assert written == result.to_json() and LocalResult.from_json(written) == result
    header = json.loads(ledger_path(tmp_path, player, opponents[0]).read_text().splitlines()[0])
    assert header["tournament"]["compare_cube"] is True  # the tournament's ledger stays valid
    again = run_local(tmp_path, settings, opponents, progress=False, play=False, player=player)
    assert again.points == result.points


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "cli.main", "experiment", *args], capture_output=True, text=True)


@pytest.mark.parametrize(
    "args",
    [
        ["nosuch"],
        ["janowski", "--se", "0"],
        ["janowski", "--min-games", "10"],
        ["janowski", "--min-games", "1024", "--max-games", "512"],
        ["jump", "--degree", "9"],
        ["jump", "--curves", "bogus", "--report"],
        ["jump", "--curves", "linear,,numerical"],
        ["janowski", "--curves", "linear", "--report"],
        ["remote", "--curves", "linear"],
        ["local", "--curves", "linear"],
        ["remote", "--luck"],
        ["ladder", "--luck"],
        ["cube-errors", "--luck"],
        ["volnet", "--luck"],
        ["cube-errors", "--refit"],
        ["cube-errors", "--curves", "linear"],
        ["janowski", "--luck-screen", "4"],
        ["janowski", "--luck", "--luck-screen", "0"],
    ],
)
def test_bad_experiment_arguments_are_one_line_errors(args: list[str], tmp_path: Path) -> None:
    """Refused before any work: a one-line JSON error naming the input, and nothing written."""
    out = tmp_path / "out"
    run = subprocess.run(
        [sys.executable, "-m", "cli.main", "experiment", *args, "--out", str(out), "--json"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 2
    error = json.loads(run.stdout)["error"]
    assert set(json.loads(run.stdout)) == {"error"} and "\n" not in error
    named = [a.lstrip("-") for a in args[1:] if a.lstrip("-")] or args[:1]  # an option or its value
    assert any(name in error for name in named), error
    assert not out.exists()


def test_report_with_nothing_played_is_an_error(tmp_path: Path) -> None:
    run = _cli("janowski", "--report", "--out", str(tmp_path))
    assert run.returncode == 2 and "nothing played yet" in run.stderr and "\n" not in run.stderr.strip()


# --- experiment 3: the remote-volatility filter ----------------------------------------------------

FILTER_CASES = [
    # (P series for seat 0 before each ply, seat 0 on roll at even plies; contact flags; expected jumps by reading,
    #  the redoubler's view for REDOUBLER, seat 0's for EVERY; the ply whose phase each reading reports)
    # seat 1 on roll at 70% at ply 1 (seat 0 would take), seat 0 on roll at 70% at ply 4 (it would redouble):
    # P[6]-P[4]; whoever is on roll, plies 4 and 5 are in the opposite window (ply 5 runs to the end: P[6]-P[5])
    ([0.5, 0.3, 0.5, 0.5, 0.7, 0.8, 1.0], [1, 0, 1, 1, 1, 1, 0], {"redoubler": [0.3], "every": [0.3, 0.2]}, 1, 1),
    # at 65-80% only with the other side on roll: no redoubler state, but the old readings count it
    ([0.5, 0.3, 0.5, 0.7, 0.9, 1.0], [1, 1, 1, 1, 1, 0], {"redoubler": [], "every": [0.3]}, 1, 1),
    # seat 0 at 30% on its own roll is no take (ply 2); at 70% on its roll (ply 4) it is the doubler, and seat 1
    # never stands at 65-80% on its roll afterwards
    ([0.5, 0.5, 0.3, 0.5, 0.7, 0.5, 0.0], [1] * 7, {"redoubler": [], "every": [-0.7]}, 2, 4),
    # seat 0 on roll at 70% at ply 2 (seat 1 would take); seat 1 on roll at 70% at ply 5: 1 - 0.7
    ([0.5, 0.5, 0.7, 0.5, 0.25, 0.3, 0.0], [1, 1, 0, 1, 1, 1, 0], {"redoubler": [0.3], "every": [-0.25, -0.3]}, 2, 2),
    # seat 0 takes (ply 1) and would redouble (ply 4); seat 1's own chance later (take at 4, redouble at 7) is
    # not the game's first take, so it does not count
    ([0.5, 0.3, 0.5, 0.5, 0.7, 0.5, 0.5, 0.3, 0.5, 0.0], [1] * 10, {"redoubler": [-0.2], "every": [-0.2]}, 1, 1),
    # the game's first window (ply 2, a race) is not its first take state (ply 4, contact): each reading its own
    (
        [0.5, 0.5, 0.3, 0.5, 0.7, 0.5, 0.5, 0.25, 0.5, 0.0],
        [1, 1, 0] + [1] * 7,
        {"redoubler": [0.25], "every": [-0.2]},
        2,
        4,
    ),
    ([0.5, 0.3, 0.25, 0.5, 0.0], [1] * 5, {"redoubler": [], "every": []}, 1, 1),  # never in the opposite window
    ([0.5, 0.9, 1.0], [1, 1, 0], {"redoubler": [], "every": []}, 0, 0),  # never in a window
]


@pytest.mark.parametrize(("p", "contact", "expected", "window", "take"), FILTER_CASES)
def test_the_remote_filter(
    p: list[float], contact: list[int], expected: dict[str, list[float]], window: int, take: int
) -> None:
    from benchmarks.experiments.remote import Reading, Trajectories, reading_jumps, state_jumps

    t = Trajectories([np.array(p, np.float32)], [np.array(contact, bool)], np.zeros(1, np.int64))
    s = state_jumps(t, seed=1)
    firsts = {Reading.REDOUBLER_FIRST: Reading.REDOUBLER, Reading.FIRST: Reading.EVERY}
    for reading in Reading:
        want = expected[firsts.get(reading, reading)]
        want = want[:1] if reading in firsts else want
        jumps, race, game = reading_jumps(s, reading)
        assert np.allclose(jumps, want, atol=1e-6) and len(game) == len(want), reading
        # the phase is the one at the first window: the game's (whoever is on roll), or its first take state
        assert list(race) == [not contact[take if reading.on_roll else window]] * len(want), reading


def test_remote_jumps_round_trip_and_a_report_recomputes_them(tmp_path: Path) -> None:
    """The per-state file holds every reading; ``--report`` recomputes the result from it and writes nothing."""
    from benchmarks.experiments.remote import (
        JUMPS_FILE,
        Reading,
        Trajectories,
        analyse,
        load_jumps,
        run_remote,
        save_jumps,
        state_jumps,
    )

    rng = np.random.default_rng(4)
    games = [np.clip(0.5 + np.cumsum(rng.normal(0, 0.12, 40)), 0, 1).astype(np.float32) for _ in range(60)]
    t = Trajectories(games, [rng.random(40) < 0.8 for _ in games], rng.choice([-2, -1, 1, 2], 60))
    s = state_jumps(t, seed=3)
    assert all(s.member[r].any() for r in Reading)
    folder = tmp_path / "remote"
    claim_folder(folder)
    save_jumps(folder / JUMPS_FILE, s)
    before = {p: p.read_bytes() for p in folder.iterdir()}
    reported = run_remote(folder, 60, seed=3, play=False)
    assert {p: p.read_bytes() for p in folder.iterdir()} == before
    assert json.loads(json.dumps(reported)) == json.loads(json.dumps(analyse(load_jumps(folder / JUMPS_FILE))))
    headline = reported["readings"][Reading.REDOUBLER]
    assert headline["all"]["states"] == headline["race"]["states"] + headline["contact"]["states"] > 0
    x = reported["implied_janowski_x"][Reading.REDOUBLER]
    assert x["paper_scale"]["x"] < x["engine_scale"]["x"]  # the larger alpha, the smaller x
    (folder / JUMPS_FILE).write_bytes(b"not an npz")
    with pytest.raises(ValueError, match=JUMPS_FILE):
        run_remote(folder, 60, seed=3, play=False)


REMOTE = Path(__file__).resolve().parents[2] / "results" / "experiments" / "remote"
DOCS = Path(__file__).resolve().parents[2] / "docs" / "experiments.md"


@pytest.mark.slow
def test_the_committed_remote_figures_recompute_from_the_committed_jumps() -> None:
    """result.json and the docs' row 3 are what the committed per-state jumps give (seconds of bootstrap)."""
    from benchmarks.experiments.remote import JUMPS_FILE, Reading, analyse, load_jumps

    result = json.loads(json.dumps(analyse(load_jumps(REMOTE / JUMPS_FILE))))
    assert result == json.loads((REMOTE / "result.json").read_text())
    (row,) = [line for line in DOCS.read_text().splitlines() if line.startswith("| 3. remote jump volatility")]
    for reading in Reading:
        r = result["readings"][reading]["all"]
        assert f"{r['states']:,} states" in row and f"{100 * r['mean_abs']:.2f}%" in row, reading
    headline = result["readings"][Reading.REDOUBLER]
    assert (
        f"{100 * headline['race']['mean_abs']:.1f}%" in row and f"{100 * headline['contact']['mean_abs']:.2f}%" in row
    )
    for scale in ("paper_scale", "engine_scale"):
        assert f"{result['implied_janowski_x'][Reading.REDOUBLER][scale]['x']:.3f}" in row, scale


@pytest.mark.slow
def test_a_self_play_batch_is_the_same_games_whenever_played() -> None:
    from benchmarks.experiments.remote import play_batch
    from nets import load_evaluator

    ev = load_evaluator()
    a, b = play_batch(ev, 6, seed=2, index=3), play_batch(ev, 6, seed=2, index=3)
    assert all(np.array_equal(x, y) for x, y in zip(a.p, b.p, strict=True))
    assert np.array_equal(a.points_seat0, b.points_seat0) and (np.abs(a.points_seat0) >= 1).all()
    assert all(x[-1] in (0.0, 1.0) for x in a.p)  # every game ends in its exact result


# --- experiment 6: the strength ladder ---------------------------------------------------------------


def test_ladder_rows_resume_and_report_from_their_ledgers(tmp_path: Path) -> None:
    def row(result: LadderResult, name: str) -> LadderRow:
        (found,) = [r for r in result.rows if r.name == name]
        return found

    played = run_ladder(tmp_path, seed=5, games=8, games_deep=2, only=("net@0-pubeval",), progress=False)
    first = row(played, "net@0-pubeval")
    assert first.games == 8 and first.se is not None and first.se > 0
    assert len(played.rows) == len(select_rungs())  # rows not played are reported too
    assert all(r.games == 0 and r.ppg is None for r in played.rows if r.name != "net@0-pubeval")
    reported = run_ladder(tmp_path, seed=5, games=8, games_deep=2, play=False)
    assert row(reported, "net@0-pubeval").ppg == first.ppg and row(reported, "net@0-pubeval").games == 8
    written = json.loads((tmp_path / "result.json").read_text())
    assert written == json.loads(json.dumps(played.to_json())) and "games_per_second" in written["rows"][0]


TD_NET = Path(__file__).resolve().parents[2] / "results" / "nets" / "td_v1.jgw"
LADDER = Path(__file__).resolve().parents[2] / "results" / "experiments" / "ladder"


def test_the_committed_ladder_reprints_with_the_net_that_played_it(tmp_path: Path) -> None:
    """The 2-ply rows were played by the TD net: given its file they reprint; given another net, refused."""
    for ledger_file in LADDER.glob("*.ledger.jsonl"):
        (tmp_path / ledger_file.name).write_bytes(ledger_file.read_bytes())
    reported = run_ladder(tmp_path, seed=1, games=20_000, games_deep=1_024, play=False, weights=TD_NET)
    (deep,) = [r for r in reported.rows if r.name == "net@2-gnubg0"]
    assert deep.ppg is not None and deep.se is not None
    assert deep.games == 1_024 and deep.ppg > 2 * deep.se > 0  # the README: +0.100, SE 0.040
    other = tmp_path / "other.jgw"
    data = bytearray(TD_NET.read_bytes())
    data[-1] ^= 1  # another net, one bit away
    other.write_bytes(bytes(data))
    with pytest.raises(ValueError, match="other nets"):
        run_ladder(tmp_path, seed=1, games=20_000, games_deep=1_024, play=False, weights=other)


def test_an_experiment_folder_keeps_one_nets_data(tmp_path: Path) -> None:
    """The first net to use a folder claims it; the same net again is accepted, another refused by name."""
    digest = claim_folder(tmp_path / "remote", TD_NET)
    assert claim_folder(tmp_path / "remote", TD_NET) == digest
    other = tmp_path / "other.jgw"
    other.write_bytes(TD_NET.read_bytes() + b"\0")
    with pytest.raises(ValueError, match="remote"):
        claim_folder(tmp_path / "remote", other)


@pytest.mark.parametrize("names", [("nosuch",), ("net@0-pubeval", "net@3-pubeval")])
def test_unknown_ladder_rows_are_named(names: tuple[str, ...]) -> None:
    with pytest.raises(ValueError, match=names[-1]):
        select_rungs(names)


def test_ladder_rows_cover_both_depths_both_opponents_and_both_cube_modes() -> None:
    rows = select_rungs()
    combos = {(r.a.spec, r.b.spec, r.cubeful) for r in rows}
    for net in ("net@0", "net@2"):
        for opponent in ("pubeval", "gnubg@0"):
            assert {(net, opponent, False), (net, opponent, True)} <= combos
    assert all(r.deep == r.a.spec.startswith("net@2") for r in rows)
