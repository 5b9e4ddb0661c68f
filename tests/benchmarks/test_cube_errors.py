"""Cube error rates against rollouts: classification, drawing, shards that resume, scoring and the command."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from arena.rollout import RolloutStart
from benchmarks.experiments import cube_errors
from benchmarks.experiments.cube_errors import (
    DEFAULT_MODELS,
    MANIFEST,
    CubeErrorsConfig,
    DecisionShard,
    ErrorKind,
    Pool,
    Reason,
    Shares,
    collect,
    config_of_manifest,
    cubeful_walk,
    decision_errors,
    draw,
    gnubg_id,
    judge,
    model_decisions,
    model_player,
    noise_floor,
    read_shards,
    roll_out_decisions,
    run_cube_errors,
    score_model,
    shard_path,
    split_models,
    with_cube_values,
)
from cube.actions import decide
from cube.states import CubeAction
from engine.errors import InvalidSpec, JumpgammonError
from engine.position import Position
from nets.evaluator import Evaluator
from nets.weights import arrays_to_npz, sha256_hex

N, WD, MD, WT, WP = (
    ErrorKind.NONE,
    ErrorKind.WRONG_DOUBLE,
    ErrorKind.MISSED_DOUBLE,
    ErrorKind.WRONG_TAKE,
    ErrorKind.WRONG_PASS,
)

# (ND, DT per initial cube, doubler's view; gammons; the model doubles; the model takes) ->
# (double error, its kind, take error, its kind); DP = +1.
JUDGE_CASES = [
    # no double, take: doubling gives up ND - DT; passing gives up DP - DT
    (0.50, 0.40, True, True, True, 0.10, WD, 0.0, N),
    (0.50, 0.40, True, False, False, 0.0, N, 0.60, WP),
    # double, take: not doubling misses DT - ND
    (0.50, 0.70, True, False, True, 0.20, MD, 0.0, N),
    (0.50, 0.70, True, True, True, 0.0, N, 0.0, N),
    # double, pass: not doubling misses DP - ND; a take gives the doubler DT - DP
    (0.80, 1.30, True, False, True, 0.20, MD, 0.30, WT),
    (0.80, 1.30, True, True, False, 0.0, N, 0.0, N),
    # too good to double, pass: doubling cashes 1 instead of ND
    (1.20, 1.50, True, True, False, 0.20, WD, 0.0, N),
    (1.20, 1.50, True, False, False, 0.0, N, 0.0, N),
    # too good, take (DT below DP and below ND): doubling gives up ND - DT
    (1.05, 0.95, True, True, True, 0.10, WD, 0.0, N),
    # ND above DP: too good with gammons; without them gnubg names it double/pass but its optimal equity is still
    # ND (the rollout's later cube can be worth more than the cash), so the double costs ND - DP either way
    (1.10, 1.40, True, True, False, 0.10, WD, 0.0, N),
    (1.10, 1.40, False, True, False, 0.10, WD, 0.0, N),
    (1.10, 1.40, False, False, False, 0.0, N, 0.0, N),
]


@pytest.mark.parametrize(
    ("nd", "dt", "gammons", "doubles", "takes", "double_error", "double_kind", "take_error", "take_kind"), JUDGE_CASES
)
def test_judge_classifies_as_gnubgs_analysis(
    nd: float,
    dt: float,
    gammons: bool,
    doubles: bool,
    takes: bool,
    double_error: float,
    double_kind: ErrorKind,
    take_error: float,
    take_kind: ErrorKind,
) -> None:
    j = judge(nd, dt, doubles, takes)
    proper = decide(nd, dt, 1.0, gammons=gammons)  # gnubg's name for the action, and its optimal equity
    gnubg_optimal = nd if proper.action != CubeAction.DOUBLE or nd > 1.0 else min(dt, 1.0)
    chosen = min(dt, 1.0) if doubles else nd
    assert j.double_error == pytest.approx(max(gnubg_optimal - chosen, 0.0))
    assert j.double_error == pytest.approx(double_error) and j.double_kind is double_kind
    assert j.take_error == pytest.approx(take_error) and j.take_kind is take_kind


def test_quotas_sum_to_the_rows_and_follow_the_shares() -> None:
    assert Shares().quotas(20) == [10, 6, 4]
    assert sum(Shares().quotas(7)) == 7
    assert Shares(close=1.0, disagree=0.0, plausible=0.0).quotas(5) == [5, 0, 0]
    with pytest.raises(InvalidSpec):
        Shares(close=0.5, disagree=0.5, plausible=0.5)


def _pool(reasons: list[int]) -> Pool:
    n = len(reasons)
    return Pool(
        boards=np.zeros((n, 26), np.int8),
        owned=np.zeros(n, bool),
        games=np.arange(n),
        reasons=np.array(reasons, np.int8),
        cube=np.ones(n, np.int64),
        pwin=np.full(n, 0.6),
        model=np.zeros((n, 3)),
        games_played=1,
    )


def test_draw_fills_each_quota_from_its_stratum_and_passes_a_shortfall_on() -> None:
    pool = _pool([0] * 30 + [1] * 2 + [2] * 30 + [-1] * 30)
    chosen = draw(pool, Shares(), 20, np.random.default_rng(0))
    reasons = pool.reasons[chosen]
    assert len(set(chosen.tolist())) == 20 and (reasons >= 0).all()
    # disagree holds 2 of its 6: the 4 left go to close (the first stratum with room)
    assert [(reasons == r).sum() for r in Reason] == [14, 2, 4]
    small = draw(_pool([0, 0, -1]), Shares(), 20, np.random.default_rng(0))
    assert sorted(small.tolist()) == [0, 1]


def _probs(pwin: float) -> np.ndarray:
    return np.array([pwin, 0.0, 0.0, 0.0, 0.0])


def test_the_pool_walks_each_game_with_the_cube_gnubgs_model_plays() -> None:
    """A pass ends a game; a take hands the cube over: the taker's turns are decisions on its own cube, the
    doubler's are none; a roller that keeps its own cube leaves the next roller none."""
    from cube.states import CubeResponse, CubeState
    from nets.cube_advice import money_cube_decisions

    board = Position.initial().array
    candidates = np.linspace(0.6, 0.8, 41)
    decided = money_cube_decisions(
        np.repeat(board[None], len(candidates), 0),
        np.array([_probs(p) for p in candidates]),
        np.full(len(candidates), CubeState.CENTERED),
        jacoby=False,
        beavers=False,
    )
    double_take = (decided.action == CubeAction.DOUBLE) & (decided.response == CubeResponse.TAKE)
    take = float(candidates[np.flatnonzero(double_take)[0]])
    level, cash = 0.5, 0.999  # no double either way; a double the opponent passes
    # game 0: two quiet turns, a pass, a turn after it. game 1: a take, then the taker (its cube, no double),
    # the doubler (no decision: the taker's cube), the taker again.
    rows = [
        (0, level), (1, take), (0, level), (1, level), (0, cash), (1, level), (0, level), (1, level),
    ]  # fmt: skip
    games = np.array([g for g, _ in rows])
    probs = np.array([_probs(p) for _, p in rows])
    boards = np.repeat(board[None], len(rows), 0)
    decision, owned, cube = cubeful_walk(boards, games, probs)
    assert decision.tolist() == [True, True, True, True, True, False, False, True]
    assert owned.tolist() == [False, False, False, True, False, False, False, True]
    assert cube.tolist() == [1, 1, 1, 2, 1, 0, 0, 2]


def test_the_walk_values_each_decision_at_its_games_cube() -> None:
    """A take doubles the cube: after a double and a redouble, both taken, the first doubler decides on a 4-cube."""
    from cube.states import CubeResponse, CubeState
    from nets.cube_advice import money_cube_decisions

    board = Position.initial().array
    candidates = np.linspace(0.6, 0.8, 41)
    takes = {}
    for state in (CubeState.CENTERED, CubeState.OWNED):
        decided = money_cube_decisions(
            np.repeat(board[None], len(candidates), 0),
            np.array([_probs(p) for p in candidates]),
            np.full(len(candidates), state),
            jacoby=False,
            beavers=False,
        )
        double_take = (decided.action == CubeAction.DOUBLE) & (decided.response == CubeResponse.TAKE)
        takes[state] = float(candidates[np.flatnonzero(double_take)[0]])
    level = 0.5
    pwins = [takes[CubeState.CENTERED], takes[CubeState.OWNED], level, level]  # double, redouble, both taken
    decision, owned, cube = cubeful_walk(
        np.repeat(board[None], 4, 0), np.zeros(4, np.int64), np.array([_probs(p) for p in pwins])
    )
    assert decision.tolist() == [True, True, True, False]  # the last roller's opponent owns the 4-cube
    assert owned.tolist() == [False, True, True, False]
    assert cube.tolist() == [1, 2, 4, 0]


def test_split_models_keeps_a_two_number_janowski_whole() -> None:
    assert split_models("janowski:0.6,0.8, jump:0.08,gnubg") == ("janowski:0.6,0.8", "jump:0.08", "gnubg")
    for bad in ("", "0.5,gnubg", "gnubg,,jump-local"):
        with pytest.raises(InvalidSpec):
            split_models(bad)


@pytest.mark.parametrize(
    "changes",
    [{"per_shard": 0}, {"pool_games": 0}, {"until_se": 0.0}, {"pwin_window": (0.9, 0.5)}, {"rollout_cube": "bogus"}],
)
def test_bad_settings_are_refused(changes: dict[str, object], tmp_path: Path) -> None:
    with pytest.raises(InvalidSpec):
        CubeErrorsConfig(out=tmp_path, **changes)  # type: ignore[arg-type]


def test_a_decision_id_reads_back_as_the_rollout_start() -> None:
    board = Position.initial().array
    start = RolloutStart.parse(gnubg_id(board, True))
    assert start.cube == 2 and start.owner == 0 and not start.jacoby and start.score is None
    centred = RolloutStart.parse(gnubg_id(board, False))
    assert centred.cube == 1 and centred.owner is None


# --- a tiny data set, made once: drawing, rounds, shards, resume, scoring ------------------------


def _tiny(out: Path, **changes: object) -> CubeErrorsConfig:
    settings: dict[str, object] = {
        "decisions": 3,
        "per_shard": 3,
        "pool_games": 6,
        "trials_cap": 72,
        "round_trials": 36,
        "until_se": 0.05,
    }
    settings.update(changes)
    return CubeErrorsConfig(out=out, **settings)  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("cube-errors") / "cube-errors"
    assert collect(_tiny(out), progress=False) == 1
    return out


def test_a_shard_holds_rolled_out_decisions_of_its_strata(tiny: Path) -> None:
    data = read_shards(tiny)
    assert data is not None and len(data) == 3
    assert set(data.reasons.tolist()) <= {int(r) for r in Reason}
    assert ((data.trials == 36) | (data.trials == 72)).all()
    # a decision stops after a round only once both its SEs are at the target
    early = data.trials == 36
    assert (data.nd_se[early] <= 0.05).all() and (data.dt_se[early] <= 0.05).all()
    assert (data.nd_se[~early] > 0.05).any() or (data.dt_se[~early] > 0.05).any() or not (~early).any()
    assert data.pool_games.sum() == 6 and data.pool_counts.sum() <= data.pool_positions.sum()
    assert (data.cpu_seconds > 0).all()
    manifest = json.loads((tiny / "manifest.json").read_text())
    assert manifest["shards_done"] == 1 and len(manifest["identity"]["weights_sha256"]) == 64
    assert not list(tiny.glob("partial_*"))  # a shard's rounds so far are gone once it is written


def test_a_stopped_shard_goes_on_from_its_last_round(
    tiny: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Stopped after its first round and run again, a shard's rollouts are those of a run without a stop."""
    data = read_shards(tiny)
    assert data is not None
    pairs = zip(data.boards[:2], data.owned[:2], strict=True)  # two decisions are enough to interleave
    starts = [RolloutStart.parse(gnubg_id(b, bool(o))) for b, o in pairs]
    cfg = _tiny(tmp_path, until_se=0.001)  # every decision goes on to the cap, 72 trials in two rounds
    config = cfg.rollout_config(0)
    whole, _ = roll_out_decisions(starts, cfg, config)
    partial = tmp_path / "partial_00000.npz"
    calls = []
    real = cube_errors.run_cube_decisions

    def stops_in_the_second_round(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    monkeypatch.setattr(cube_errors, "run_cube_decisions", stops_in_the_second_round)
    with pytest.raises(KeyboardInterrupt):
        roll_out_decisions(starts, cfg, config, partial)
    assert partial.is_file()
    fresh: list[bool] = []

    def records_fresh_starts(*args: Any, **kwargs: Any) -> Any:
        fresh.append(kwargs.get("previous") is None)
        return real(*args, **kwargs)

    monkeypatch.setattr(cube_errors, "run_cube_decisions", records_fresh_starts)
    resumed, cpu = roll_out_decisions(starts, cfg, config, partial)
    assert fresh and not any(fresh) and cpu > 0  # every call went on from the first round's trials
    for a, b in zip(whole, resumed, strict=True):
        assert a.trials == b.trials == 72
        assert [(f.value, f.se) for f in a.figures[:2]] == [(f.value, f.se) for f in b.figures[:2]]
        for branch in ("no_double", "double_take"):
            mine, theirs = getattr(a, branch).outcomes, getattr(b, branch).outcomes
            for name in ("trial", "cubeful", "cubeful_luck", "outcome", "luck"):
                assert np.array_equal(getattr(mine, name), getattr(theirs, name)), (branch, name)


def test_a_rerun_writes_only_missing_shards_and_the_same_ones_again(tiny: Path, tmp_path: Path) -> None:
    out = tmp_path / "copy"
    shutil.copytree(tiny, out)
    assert collect(_tiny(out), progress=False) == 0
    first = DecisionShard.read(shard_path(out, 0))
    shard_path(out, 0).unlink()
    assert collect(_tiny(out), progress=False) == 1
    again = DecisionShard.read(shard_path(out, 0))
    for name in DecisionShard.ARRAYS:
        if name != "cpu_seconds":
            assert np.array_equal(getattr(first, name), getattr(again, name)), name
    with pytest.raises(JumpgammonError, match="other settings"):
        collect(_tiny(out, pool_games=7), progress=False)


def test_a_higher_cap_carries_a_folders_capped_decisions_on_to_what_that_cap_gives(tmp_path: Path) -> None:
    """Raising --trials-cap on a folder rewrites its shards as a run at the new cap writes them, carried on
    from the trials kept at the old cap or, for a shard made before they were kept, from the start."""
    few: dict[str, object] = {"decisions": 2, "per_shard": 2, "until_se": 0.001}  # every decision reaches the cap
    low, high = tmp_path / "low" / "cube-errors", tmp_path / "high" / "cube-errors"
    assert collect(_tiny(low, **few), progress=False) == 1
    assert (DecisionShard.read(shard_path(low, 0)).trials == 72).all()
    assert (low / "capped_00000.npz").is_file()
    unkept = tmp_path / "unkept" / "cube-errors"
    shutil.copytree(low, unkept)
    (unkept / "capped_00000.npz").unlink()
    assert collect(_tiny(high, **few, trials_cap=108), progress=False) == 1
    direct = DecisionShard.read(shard_path(high, 0))
    for folder in (low, unkept):
        assert collect(_tiny(folder, **few, trials_cap=108), progress=False) == 0
        topped = DecisionShard.read(shard_path(folder, 0))
        assert (topped.trials == 108).all()
        for name in DecisionShard.ARRAYS:
            if name != "cpu_seconds":
                assert np.array_equal(getattr(topped, name), getattr(direct, name)), (folder, name)
        assert json.loads((folder / "manifest.json").read_text())["identity"]["rollout"]["trials_cap"] == 108
    assert collect(_tiny(low, **few, trials_cap=108), progress=False) == 0  # nothing left to do
    with pytest.raises(JumpgammonError, match="other settings"):
        collect(_tiny(low, **few, trials_cap=72), progress=False)  # a lower cap is another data set
    manifest = json.loads((unkept / "manifest.json").read_text())
    manifest["identity"]["rollout"]["trials_cap"] = 60
    (unkept / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(JumpgammonError, match="not a whole number of 36-trial rounds"):
        collect(_tiny(unkept, **few, trials_cap=108), progress=False)


def test_scores_add_up_from_the_judged_decisions(tiny: Path, tmp_path: Path) -> None:
    out = tmp_path / "cube-errors"
    shutil.copytree(tiny, out)
    result = run_cube_errors(_tiny(out), ("janowski:0.7", "gnubg"), play=False)
    assert not (out / "result.json").exists()  # a report writes nothing
    data = read_shards(out)
    assert data is not None
    rows = result["decisions"]
    for spec, m in result["models"].items():
        total = 0.0
        kinds: list[ErrorKind] = []
        cost = dict.fromkeys(ErrorKind, 0.0)
        clear = 0
        for i, row in enumerate(rows):
            doubles, takes = row["models"][spec]
            j = judge(float(data.nd[i]), float(data.dt[i]), doubles, takes)
            offered = doubles or row["proper"].startswith(("Double", "Redouble", "Optional"))
            total += j.double_error + (j.take_error if offered else 0.0)
            kinds += [j.double_kind] + ([j.take_kind] if offered else [])
            cost[j.double_kind] += j.double_error
            cost[j.take_kind] += j.take_error if offered else 0.0
            toss = abs(data.margin[i]) < 2 * data.margin_se[i] or (offered and abs(1 - data.dt[i]) < 2 * data.dt_se[i])
            clear += not toss
        assert m["mp_per_decision"] == pytest.approx(1000 * total / len(rows), abs=0.01)
        assert m["errors"] == {k.value: kinds.count(k) for k in ErrorKind if k is not ErrorKind.NONE}
        for kind in ErrorKind:
            if kind is not ErrorKind.NONE:
                assert m["mp_by_kind"][kind.value] == pytest.approx(1000 * cost[kind] / len(rows), abs=0.01)
        assert sum(m["mp_by_kind"].values()) == pytest.approx(m["mp_per_decision"], abs=0.03)
        assert m["excluding_tossups"]["decisions"] == clear
    a, b = result["models"]["janowski:0.7"], result["models"]["gnubg"]
    paired = a["minus"]["gnubg"]["mp_per_decision"]
    assert paired == pytest.approx(a["mp_per_decision"] - b["mp_per_decision"], abs=0.02)
    assert paired == pytest.approx(-b["minus"]["janowski:0.7"]["mp_per_decision"], abs=0.01)
    written = run_cube_errors(_tiny(out), ("gnubg",))
    assert (out / "result.json").exists() and written["summary"]["decisions"] == 3
    assert (out / "plot.png").read_bytes().startswith(b"\x89PNG")  # a run draws what it wrote


@pytest.mark.slow
def test_worker_processes_make_the_shards_one_process_makes(tiny: Path, tmp_path: Path) -> None:
    out = tmp_path / "workers"
    assert collect(_tiny(out, decisions=6), workers=2, progress=False) == 2
    one, two = DecisionShard.read(shard_path(tiny, 0)), DecisionShard.read(shard_path(out, 0))
    for name in DecisionShard.ARRAYS:
        if name != "cpu_seconds":
            assert np.array_equal(getattr(one, name), getattr(two, name)), name
    assert json.loads((out / "manifest.json").read_text())["shards_done"] == 2


@pytest.mark.slow
def test_ray_local_mode_makes_the_same_shard(tiny: Path, tmp_path: Path) -> None:
    pytest.importorskip("ray", reason="Ray is an optional extra: pip install -e '.[ray]'")
    out = tmp_path / "ray"
    assert collect(_tiny(out), ray_address="local", progress=False) == 1
    one, two = DecisionShard.read(shard_path(tiny, 0)), DecisionShard.read(shard_path(out, 0))
    for name in DecisionShard.ARRAYS:
        if name != "cpu_seconds":
            assert np.array_equal(getattr(one, name), getattr(two, name)), name


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "cli.main", "experiment", *args], capture_output=True, text=True)


@pytest.mark.parametrize(
    "args",
    [
        ["--models", ""],
        ["--models", "bogus"],
        ["--models", "0.5"],
        ["--models", "gnubg,none"],
        ["--decisions", "0"],
        ["--trials-cap", "1"],
        ["--until-se", "0"],
        ["--model-plies", "3"],
        ["--model-plies", "1"],  # a run's result.json scores the models at 0 ply: deeper ones in a report only
    ],
)
def test_bad_cube_errors_arguments_are_one_line_errors(args: list[str], tmp_path: Path) -> None:
    run = _cli("cube-errors", "--out", str(tmp_path), *args, "--json")
    assert run.returncode == 2
    assert set(json.loads(run.stdout)) == {"error"}
    assert not (tmp_path / "cube-errors").exists()


def _decisions(nd: list[float], dt: list[float], nd_se: float, dt_se: float, margin_se: float) -> DecisionShard:
    n = len(nd)
    nd_a, dt_a = np.array(nd), np.array(dt)
    return DecisionShard(
        boards=np.zeros((n, 26), np.int8), owned=np.zeros(n, bool), reasons=np.zeros(n, np.int8),
        games=np.zeros(n, np.int64), pwin=np.full(n, 0.7), model=np.zeros((n, 3)), nd=nd_a,
        nd_se=np.full(n, nd_se), dt=dt_a, dt_se=np.full(n, dt_se), margin=np.minimum(dt_a, 1.0) - nd_a,
        margin_se=np.full(n, margin_se), gammons=np.ones(n, bool), trials=np.full(n, 324),
        pool_counts=np.array([n, 0, 0]), pool_games=np.array([1]), pool_positions=np.array([n]),
        cpu_seconds=np.zeros(2), cube=np.ones(n, np.int64),
    )  # fmt: skip


@pytest.mark.parametrize(
    ("nd", "dt", "expected_mp"),
    [
        # far from every border: the noise never changes the proper action
        ([0.2, 0.5], [0.1, 1.6], 0.0),
        # a double/take toss-up (DT = ND, DT < DP): the noise costs the margin's E max(X, 0), X ~ N(0, margin SE)
        ([0.5], [0.5], 1000 * 0.01 / np.sqrt(2 * np.pi)),
    ],
)
def test_the_noise_floor_is_what_the_rollouts_noise_charges_the_right_actions(
    nd: list[float], dt: list[float], expected_mp: float
) -> None:
    floor = noise_floor(_decisions(nd, dt, nd_se=0.02, dt_se=0.02, margin_se=0.01), simulations=4000, seed=1)
    assert floor["mp_per_decision"] == pytest.approx(expected_mp, abs=4 * floor["simulation_se"] + 0.01)
    exact = noise_floor(_decisions(nd, dt, nd_se=0.0, dt_se=0.0, margin_se=0.0), simulations=8)
    assert exact["mp_per_decision"] == 0.0  # without noise nothing is charged


def test_per_500_games_counts_each_error_at_its_cube() -> None:
    """A missed double worth 0.2 of a cube, met once a game on a 4-cube: 400 points per 500 games, 100 per cube."""
    data = _decisions([0.5], [0.7], nd_se=0.0, dt_se=0.0, margin_se=0.0)
    data.cube[:] = 4
    scored = score_model(data, doubles=np.array([False]), takes=np.array([True]))
    assert scored["mp_per_decision"] == pytest.approx(200.0)
    assert scored["per_500_games"]["points"] == pytest.approx(400.0)
    assert scored["per_500_games_per_cube"]["points"] == pytest.approx(100.0)
    data.cube[:] = 0  # not recorded: no figure in points
    assert score_model(data, np.array([False]), np.array([True]))["per_500_games"] is None


def test_a_shard_without_cube_values_gets_them_drawn_again(tiny: Path, tmp_path: Path) -> None:
    out = tmp_path / "cube-errors"
    shutil.copytree(tiny, out)
    path = shard_path(out, 0)
    shard = DecisionShard.read(path)
    assert shard.cubes_known and set(shard.cube[~shard.owned].tolist()) <= {1}
    path.write_bytes(arrays_to_npz({n: getattr(shard, n) for n in DecisionShard.ARRAYS if n != "cube"}))
    assert not DecisionShard.read(path).cubes_known  # a shard of before: read, its cubes unknown
    cfg = config_of_manifest(out / MANIFEST, out)
    digest = sha256_hex(cfg.weights_file)
    assert cfg.identity(digest) == _tiny(out).identity(digest)
    assert np.array_equal(with_cube_values(cfg, 0).cube, shard.cube)
    with pytest.raises(JumpgammonError, match="not what shard 0"):
        with_cube_values(_tiny(out, seed=2), 0)


def test_a_report_of_nothing_is_an_error_and_a_report_reads_the_shards(tiny: Path, tmp_path: Path) -> None:
    run = _cli("cube-errors", "--report", "--out", str(tmp_path))
    assert run.returncode == 2 and "nothing played yet" in run.stderr
    shutil.copytree(tiny, tmp_path / "cube-errors")
    before = sorted(p.name for p in (tmp_path / "cube-errors").iterdir())
    run = _cli("cube-errors", "--report", "--out", str(tmp_path), "--models", "gnubg", "--json")
    assert run.returncode == 0, run.stderr
    result = json.loads(run.stdout)
    assert list(result["models"]) == ["gnubg"] and result["summary"]["decisions"] == 3
    assert sorted(p.name for p in (tmp_path / "cube-errors").iterdir()) == before


def test_a_report_at_deeper_plies_scores_each_model_against_itself_at_0_ply(tiny: Path, tmp_path: Path) -> None:
    out = tmp_path / "cube-errors"
    shutil.copytree(tiny, out)
    models = ("janowski:0.7", "jump-local")
    at_0 = run_cube_errors(_tiny(out), models, play=False, progress=False)
    at_1 = run_cube_errors(_tiny(out), models, play=False, progress=False, model_plies=1)
    assert (at_0["model_plies"], at_1["model_plies"]) == (0, 1)
    data = read_shards(out)
    assert data is not None
    ev: dict[str, Evaluator] = {}
    for spec in models:
        assert model_player(spec, None, ev, 1).name == f"net@1 [{spec}]"
        deeper = model_decisions(model_player(spec, None, ev, 1), data.boards, data.owned)
        shallow = model_decisions(model_player(spec, None, ev, 0), data.boards, data.owned)
        chosen = [[bool(d), bool(t)] for d, t in zip(*deeper, strict=True)]
        assert [row["models"][spec] for row in at_1["decisions"]] == chosen
        diff = decision_errors(data, *deeper) - decision_errors(data, *shallow)
        assert at_1["models"][spec]["minus_at_0_ply"]["mp_per_decision"] == pytest.approx(1000 * diff.mean(), abs=0.01)
        assert "minus_at_0_ply" not in at_0["models"][spec]
    assert not (out / "result.json").exists()
    with pytest.raises(ValueError, match="--model-plies 1 applies to a report"):
        run_cube_errors(_tiny(out), models, model_plies=1)


def test_model_plies_belong_to_cube_errors(tmp_path: Path) -> None:
    run = _cli("janowski", "--out", str(tmp_path), "--model-plies", "1", "--json")
    assert run.returncode == 2 and "--model-plies applies to cube-errors" in json.loads(run.stdout)["error"]
    assert not (tmp_path / "janowski").exists()


def test_the_default_models_are_the_ones_compared() -> None:
    assert DEFAULT_MODELS == ("janowski:0.730", "jump:0.079:numerical", "jump-local", "jump-net", "gnubg")


PILOT = Path(__file__).resolve().parents[2] / "results" / "experiments" / "cube-errors-pilot" / "cube-errors"
DOCS = Path(__file__).resolve().parents[2] / "docs" / "experiments.md"


def _quoted_cells(
    lines: list[str], model: dict[str, Any], spec: str, first: str, per_500: str
) -> tuple[list[str], list[str]]:
    """The docs' cells of ``spec``'s row (past the model's name) and what a report's ``model`` says they are:
    mp a decision, [excluding toss-ups,] per 500 games (``per_500`` its format), paired with ``first``, errors."""
    (row,) = [line for line in lines if line.startswith(f"| `{spec}` |")]
    cells = [c.strip() for c in row.split("|")[2:-1]]
    g, d = model["per_500_games"], model["minus"].get(first)
    expected = [f"{model['mp_per_decision']:.1f} ({model['se']:.1f})"]
    if len(cells) == 5:  # the pilot's table has the excluding-toss-ups column
        e = model["excluding_tossups"]
        expected.append(f"{e['mp_per_decision']:.1f} ({e['se']:.1f})")
    expected.append(f"{format(g['points'], per_500)} ({format(g['se'], per_500)})")
    expected.append("" if spec == first else f"{d['mp_per_decision']:+.1f} ({d['se']:.1f})")
    expected.append(", ".join(str(v) for v in model["errors"].values()))
    return cells, expected


def test_the_docs_quote_the_committed_pilot() -> None:
    result = json.loads((PILOT / "result.json").read_text())
    text = DOCS.read_text()
    lines = text[text.index("**Pilot only**") : text.index("**What a decision costs")].splitlines()
    first = next(iter(result["models"]))
    for spec, m in result["models"].items():
        cells, expected = _quoted_cells(lines, m, spec, first, ".0f")
        assert cells == expected


FULL_RUN = Path(__file__).resolve().parents[2] / "results" / "experiments" / "cube-errors"


def test_the_docs_quote_the_committed_shards_of_the_full_run() -> None:
    """The full run's table and its summary line are what a report of the committed shards prints."""
    result = run_cube_errors(CubeErrorsConfig(out=FULL_RUN), DEFAULT_MODELS, play=False, progress=False)
    text = DOCS.read_text()
    section = text[text.index("**The full run") : text.index("**How much of it is the net's")]
    prose = " ".join(section.split())
    s = result["summary"]
    n = s["decisions"]
    shards = len(list(FULL_RUN.glob("decisions_*.npz")))
    finished = n >= 2000
    heading = f"**The full run: {n:,} decisions**" if finished else f"**The full run so far: {n:,} of 2,000 decisions**"
    assert f"{heading} ({shards} shards," in prose
    assert f"{s['trials_per_branch']['mean']:,.0f} trials a branch on average" in prose
    assert f"{s['cpu_seconds']['per_decision']:.0f} CPU s a decision" in prose
    assert f"{s['se']['at_target']:,} of the {n:,} at SE <= 0.01" in prose
    assert f"the noise floor, {result['noise_floor']['mp_per_decision']:.1f} mp a decision" in prose
    main, by_cube = section.split("| model | centred cube")
    lines = main.splitlines()
    first = DEFAULT_MODELS[0]
    for spec, m in result["models"].items():
        cells, expected = _quoted_cells(lines, m, spec, first, ".1f")
        assert cells == expected
        (row,) = [line for line in by_cube.splitlines() if line.startswith(f"| `{spec}` |")]
        c, o = m["by_cube"]["centered"], m["by_cube"]["owned"]
        paired = [m["minus"].get(first, {}).get("by_cube", {}).get(cube) for cube in ("centered", "owned")]
        quoted = [f"{d['mp_per_decision']:+.1f} ({d['se']:.1f})" if d else "" for d in paired]
        expected = [f"{c['mp_per_decision']:.1f} ({c['se']:.1f})", quoted[0]]
        expected += [f"{o['mp_per_decision']:.1f} ({o['se']:.1f})", quoted[1]]
        assert [c.strip() for c in row.split("|")[2:-1]] == expected


def _cell(figures: dict[str, Any], signed: bool = False) -> str:
    return f"{figures['mp_per_decision']:{'+' if signed else ''}.1f} ({figures['se']:.1f})"


@pytest.mark.slow
def test_the_docs_quote_the_committed_shards_with_the_models_at_1_and_2_plies() -> None:
    """The deeper table's rows are what reports of the committed shards at 0, 1 and 2 plies print."""
    cfg = CubeErrorsConfig(out=FULL_RUN)
    reports = [run_cube_errors(cfg, DEFAULT_MODELS, play=False, progress=False, model_plies=n) for n in (0, 1, 2)]
    text = DOCS.read_text()
    section = text[
        text.index("**How much of it is the net's probabilities") : text.index("## Reprinting the committed")
    ]
    first = DEFAULT_MODELS[0]
    for spec in DEFAULT_MODELS:
        (row,) = [line for line in section.splitlines() if line.startswith(f"| `{spec}` |")]
        expected = [_cell(reports[0]["models"][spec])]
        for deeper in reports[1:]:
            expected += [_cell(deeper["models"][spec]), _cell(deeper["models"][spec]["minus_at_0_ply"], True)]
        expected.append("" if spec == first else _cell(reports[2]["models"][spec]["minus"][first], True))
        assert [c.strip() for c in row.split("|")[2:-1]] == expected


def test_models_asked_a_few_decisions_at_a_time_decide_as_asked_all_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Asking in parts (to bound the lookahead's memory) changes no model's double or take."""
    data = read_shards(FULL_RUN, 1)
    assert data is not None
    evaluators: dict[str, Evaluator] = {}
    for spec in ("janowski:0.730", "jump-net"):
        player = model_player(spec, None, evaluators)
        whole = model_decisions(player, data.boards, data.owned)
        monkeypatch.setattr(cube_errors, "DECISIONS_AT_A_TIME", 3)
        parts = model_decisions(player, data.boards, data.owned)
        monkeypatch.undo()
        assert whole[0].any() and not whole[0].all()  # the shard holds doubles and no doubles alike
        np.testing.assert_array_equal(parts[0], whole[0])
        np.testing.assert_array_equal(parts[1], whole[1])
