"""Rollout labels: selection, exact bear-offs, sharded resumable data sets, manifest, workers, bad input.

Sizes are tiny (a few self-play games, a few trials truncated after a few plies) so each test takes seconds.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.rollout import RolloutConfig
from cube.efficiency import NET_CLASSES, PositionClass
from engine.batch import phases
from engine.errors import InvalidSpec, JumpgammonError
from engine.ids import board_from_position_id
from engine.position import GamePhase
from nets.bearoff import load_two_sided
from nets.cube_advice import gnubg_class_codes
from nets.mlp import cubeless_equity
from nets.weights import sha256_hex
from tests.cli.helpers import assert_clean_error, run_cli
from training.rollout_labels import (
    MANIFEST,
    LabelConfig,
    LabelShard,
    Pool,
    Reason,
    Selection,
    equity_errors,
    label,
    label_positions,
    read_labels,
    rollout_seed,
    select,
    shard_path,
    structure_keys,
)
from training.supervised.shards import GAME_ID_STRIDE
from weights import DEFAULT_WEIGHTS

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
TINY = dict(rows=5, trials=8, truncate=3, pool_games=4, keep=0.5, keep_race=0.5, block_rows=64)


def board_of(own: dict[int, int], theirs: dict[int, int]) -> np.ndarray:
    """A board seen by the side on roll: ``own`` checkers per point, ``theirs`` per point of theirs (1: their ace)."""
    b = np.zeros(26, np.int8)
    for point, count in own.items():
        b[point] += count
    for point, count in theirs.items():
        b[25 - point] -= count
    return b


@pytest.fixture(scope="module")
def dataset(tmp_path_factory: pytest.TempPathFactory) -> tuple[LabelConfig, Path]:
    """Two tiny shards labelled in this process by the shipped net."""
    out = tmp_path_factory.mktemp("labels") / "set"
    cfg = LabelConfig(out=out, shards=2, **TINY)  # type: ignore[arg-type]
    label(cfg, progress=False)
    return cfg, out


# --- classes, structures, selection -------------------------------------------------------------------


def test_position_classes_match_gnubg_near_the_crashed_boundary() -> None:
    cases = json.loads((FIXTURES / "gnubg_crashed.json").read_text())["cases"]
    boards = np.stack([board_from_position_id(c["position_id"]) for c in cases])
    assert np.array_equal(gnubg_class_codes(boards), [c["gnubg_class"] for c in cases])
    race = board_of({6: 5, 8: 5, 10: 5}, {6: 5, 8: 5, 10: 5})
    assert gnubg_class_codes(race[None])[0] == PositionClass.RACE.gnubg_code


def test_structure_keys_tell_back_games_from_the_opening() -> None:
    opening = board_of({6: 5, 8: 3, 13: 5, 24: 2}, {6: 5, 8: 3, 13: 5, 24: 2})
    back_game = board_of({6: 3, 8: 2, 13: 4, 24: 2, 23: 2, 20: 2}, {6: 5, 8: 3, 13: 5, 24: 2})
    keys = structure_keys(np.stack([opening, opening, back_game]))
    assert keys[0] == keys[1] and keys[0] != keys[2]


@given(st.lists(st.integers(0, 100), min_size=5, max_size=5).filter(lambda w: sum(w) > 0), st.integers(0, 500))
@settings(max_examples=60, deadline=None)
def test_quotas_sum_to_the_rows_and_follow_the_shares(weights: list[int], rows: int) -> None:
    total = sum(weights)
    sel = Selection(**{r.label: w / total for r, w in zip(Reason, weights, strict=True)})
    quota = sel.quotas(rows)
    assert sum(quota.values()) == rows
    for r in Reason:
        assert abs(quota[r] - getattr(sel, r.label) * rows) < 1 + 1e-9


def test_selection_text_round_trips_and_bad_shares_are_refused() -> None:
    sel = Selection.parse("disagree=0.5,random=0.5")
    assert sel.disagree == 0.5 and sel.plays == 0 and Selection.parse(sel.text()) == sel
    for bad in ("disagree=0.5", "often=1", "random=x", "random"):
        with pytest.raises(InvalidSpec):
            Selection.parse(bad)


def _pool(n: int) -> Pool:
    rng = np.random.default_rng(0)
    boards = np.zeros((n, 26), np.int8)
    boards[:, 1] = np.arange(n)  # distinct boards
    pair = np.full(n, -1, np.int64)
    gap = np.zeros(n)
    pair[[0, 1, 2, 3]] = [0, 0, 1, 1]
    gap[[0, 1, 2, 3]] = [0.01, 0.01, 0.2, 0.2]
    classes = np.full(n, PositionClass.CONTACT.gnubg_code, np.int8)
    classes[[8, 9]] = PositionClass.CRASHED.gnubg_code
    equity0 = rng.normal(size=n) * 0.01
    equity1 = equity0.copy()
    equity1[[5, 6, 7]] += [0.3, -0.5, 0.2]
    return Pool(boards, np.arange(n), equity0, equity1, classes, pair, gap)


def test_selection_takes_what_each_reason_asks_for() -> None:
    pool = _pool(40)
    sel = Selection(plays=0.2, disagree=0.2, crashed=0.2, rare=0.0, random=0.4)
    index, reasons = select(pool, sel, 10, np.random.default_rng(1))
    assert len(index) == 10 and len(set(index.tolist())) == 10
    by = {r: set(index[reasons == r].tolist()) for r in Reason}
    assert by[Reason.PLAYS] == {2, 3}  # the pair with the larger gap, whole
    assert by[Reason.DISAGREE] == {6, 5}  # the two largest |1-ply - 0-ply|
    assert by[Reason.CRASHED] == {8, 9}
    assert len(by[Reason.RANDOM]) == 4


def test_a_share_the_pool_cannot_fill_goes_to_the_uniform_one() -> None:
    pool = _pool(12)
    index, reasons = select(pool, Selection.parse("crashed=0.5,random=0.5"), 8, np.random.default_rng(2))
    assert (reasons == Reason.CRASHED).sum() == 2 and (reasons == Reason.RANDOM).sum() == 6
    small, _ = select(pool, Selection.parse("random=1"), 50, np.random.default_rng(2))
    assert sorted(small.tolist()) == list(range(12))  # the whole pool, once each


# --- labels against exact values --------------------------------------------------------------------


def test_bearoff_labels_agree_with_the_exact_database_within_their_standard_errors() -> None:
    """Two two-sided bear-offs: each label's win chance within 3 SE (plus rounding) of the exact one, no gammons.

    With luck adjustment the database is the 0-ply evaluator there, so the adjusted trials telescope to
    the exact value and the SE is tiny; the unadjusted SE shows the trials really differed.
    """
    boards = np.stack([board_of({1: 2, 3: 1, 5: 2}, {2: 2, 4: 2, 6: 1}), board_of({6: 3, 2: 1}, {1: 1, 5: 2, 6: 2})])
    exact = load_two_sided().win_probability(boards)
    labels = label_positions(boards, RolloutConfig(trials=144, seed=3))
    p, se = labels["probabilities"], labels["standard_errors"]
    assert np.all(np.abs(p[:, 0] - exact) <= 3 * se[:, 0] + 1e-6)
    assert np.allclose(p[:, 1:], 0.0) and np.allclose(labels["equity"], 2 * exact - 1, atol=1e-5)
    assert np.all(labels["raw_equity_se"] > 0.02)


# --- the data set: manifest, shards, resume ------------------------------------------------------------


def test_the_manifest_states_the_net_the_settings_and_the_counts(dataset: tuple[LabelConfig, Path]) -> None:
    cfg, out = dataset
    manifest = json.loads((out / MANIFEST).read_text())
    identity = manifest["identity"]
    assert identity["weights_sha256"] == sha256_hex(DEFAULT_WEIGHTS) and identity["weights"] == "shipped"
    assert identity["rollout"] | {"seed_rule": None} == {
        "trials": 8,
        "plies": 0,
        "truncate": 3,
        "cubeful": False,
        "variance_reduction": True,
        "seed": cfg.seed,
        "seed_rule": None,
    }
    assert identity["rows"] == 5 and identity["pool"]["games"] == 4
    assert identity["selection"] == {r.label: getattr(cfg.selection, r.label) for r in Reason}
    data = read_labels(out)
    assert manifest["shards_done"] == manifest["shards_target"] == 2
    counts = manifest["counts"]
    assert counts["rows"] == len(data) == 10
    assert counts["by_reason"] == {r.label: int((data.reasons == r).sum()) for r in Reason}
    assert counts["by_class"] == {c.value: int((data.classes == c.gnubg_code).sum()) for c in NET_CLASSES}


def test_shards_hold_rollout_labels_of_net_positions(dataset: tuple[LabelConfig, Path]) -> None:
    cfg, out = dataset
    data = read_labels(out)
    assert np.isin(phases(data.boards), [GamePhase.CONTACT, GamePhase.RACE]).all()
    assert np.all(data.standard_errors >= 0) and np.all(data.equity_se > 0)
    assert np.allclose(cubeless_equity(data.probabilities.astype(np.float64)), data.equity, atol=1e-5)
    shard1 = LabelShard.read(shard_path(out, 1))
    assert np.all(shard1.games // GAME_ID_STRIDE == 1)
    assert rollout_seed(cfg.seed, 0) != rollout_seed(cfg.seed, 1)


def test_a_rerun_keeps_finished_shards_and_remakes_a_missing_one_identically(
    dataset: tuple[LabelConfig, Path], tmp_path: Path
) -> None:
    cfg, out = dataset
    before = LabelShard.read(shard_path(out, 1))
    mtime0 = shard_path(out, 0).stat().st_mtime_ns
    copy = tmp_path / "copy"
    copy.mkdir()
    for name in (MANIFEST, shard_path(out, 0).name):
        (copy / name).write_bytes((out / name).read_bytes())
    (copy / (shard_path(out, 1).name + ".abc.tmp")).write_bytes(b"interrupted")
    result = label(replace(cfg, out=copy), progress=False)
    assert result.made == 1 and result.rows_made == 5 and result.shards == 2
    assert not list(copy.glob("*.tmp"))
    again = LabelShard.read(shard_path(copy, 1))
    for name in LabelShard.ARRAYS:
        assert np.array_equal(getattr(before, name), getattr(again, name)), name
    assert label(cfg, progress=False).made == 0 and shard_path(out, 0).stat().st_mtime_ns == mtime0


def test_other_settings_or_a_broken_shard_are_refused(dataset: tuple[LabelConfig, Path], tmp_path: Path) -> None:
    cfg, out = dataset
    with pytest.raises(JumpgammonError, match="other settings"):
        label(replace(cfg, trials=16), progress=False)
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / MANIFEST).write_bytes((out / MANIFEST).read_bytes())
    shard_path(broken, 0).write_bytes(b"not a zip")
    with pytest.raises(JumpgammonError, match="not a rollout-label shard"):
        label(replace(cfg, out=broken), progress=False)


def test_no_shard_starts_after_the_time_given(dataset: tuple[LabelConfig, Path], tmp_path: Path) -> None:
    cfg, _ = dataset
    for workers in (1, 2):
        result = label(replace(cfg, out=tmp_path / str(workers)), workers=workers, progress=False, stop_after=0)
        assert result.made == 0 and result.stopped and result.shards == 0
        assert json.loads((tmp_path / str(workers) / MANIFEST).read_text())["shards_done"] == 0


@pytest.mark.slow
def test_worker_processes_give_the_same_shards(dataset: tuple[LabelConfig, Path], tmp_path: Path) -> None:
    cfg, out = dataset
    result = label(replace(cfg, out=tmp_path / "w"), workers=2, progress=False)
    assert result.made == 2 and result.workers == 2 and not result.stopped and result.shard_seconds > 0
    a, b = read_labels(out), read_labels(tmp_path / "w")
    for name in LabelShard.ARRAYS:
        assert np.allclose(getattr(a, name), getattr(b, name), atol=1e-6, equal_nan=True), name


@pytest.mark.slow
def test_ray_local_mode_gives_the_same_shards(dataset: tuple[LabelConfig, Path], tmp_path: Path) -> None:
    pytest.importorskip("ray", reason="Ray is an optional extra: pip install -e '.[ray]'")
    cfg, out = dataset
    result = label(replace(cfg, out=tmp_path / "r", shards=1), ray_address="local", progress=False)
    assert result.made == 1
    a, b = LabelShard.read(shard_path(out, 0)), LabelShard.read(shard_path(tmp_path / "r", 0))
    for name in LabelShard.ARRAYS:
        assert np.allclose(getattr(a, name), getattr(b, name), atol=1e-6, equal_nan=True), name


def test_equity_errors_by_class_and_reason() -> None:
    n = 4
    data = LabelShard(
        boards=np.zeros((n, 26), np.int8),
        probabilities=np.zeros((n, 5), np.float32),
        standard_errors=np.zeros((n, 5), np.float32),
        equity=np.array([0.5, 0.0, -0.2, 0.1], np.float32),
        equity_se=np.full(n, 0.01, np.float32),
        raw_equity_se=np.full(n, 0.05, np.float32),
        equity0=np.zeros(n, np.float32),
        equity1=np.zeros(n, np.float32),
        reasons=np.array([Reason.RANDOM, Reason.RANDOM, Reason.CRASHED, Reason.CRASHED], np.int8),
        classes=np.array([PositionClass.CONTACT.gnubg_code] * 2 + [PositionClass.CRASHED.gnubg_code] * 2, np.int8),
        games=np.arange(n),
        mean_plies=np.full(n, 30.0, np.float32),
    )
    errors = equity_errors(data, np.array([0.4, 0.2, -0.2, -0.1]))
    assert errors["all"]["rows"] == 4 and errors["all"]["mae"] == pytest.approx(0.125, abs=1e-6)
    assert errors["contact"]["mae"] == pytest.approx(0.15, abs=1e-6)
    assert errors["crashed"]["mean_error"] == pytest.approx(-0.1, abs=1e-6)
    assert errors["reason_crashed"] == errors["crashed"] and "race" not in errors
    with pytest.raises(ValueError):
        equity_errors(data, np.zeros(3))


# --- the command line ---------------------------------------------------------------------------------


def test_label_command_writes_a_data_set_and_reports_json(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    out = tmp_path / "cli"
    args = ["label", "--out", str(out), "--shards", "1", "--rows", "3", "--trials", "4", "--truncate", "2"]
    code, stdout, _ = run_cli(capsys, *args, "--pool-games", "3", "--select", "random=1", "--json")
    assert code == 0
    d = json.loads(stdout)
    assert d["shards"] == d["made"] == 1 and d["counts"]["rows"] == d["rows_made"] == 3
    assert d["counts"]["by_reason"]["random"] == 3 and d["rows_per_second"] > 0 and d["rows_per_core_second"] > 0
    assert json.loads((out / MANIFEST).read_text())["identity"]["selection"]["random"] == 1.0


@pytest.mark.parametrize("as_json", [False, True])
@pytest.mark.parametrize(
    ("extra", "needle"),
    [
        (["--shards", "0"], "--shards"),
        (["--shards", "1", "--select", "random=2"], "--select"),
        (["--shards", "1", "--select", "often=1"], "--select"),
        (["--shards", "1", "--truncate", "0"], "--truncate"),
        (["--shards", "1", "--keep", "0"], "--keep"),
        (["--shards", "1", "--weights", "no-such.jgw"], "--weights"),
    ],
)
def test_bad_input_exits_2_with_one_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, extra: list[str], needle: str, as_json: bool
) -> None:
    code, out, err = run_cli(capsys, "label", "--out", str(tmp_path / "x"), *extra, *(["--json"] if as_json else []))
    assert_clean_error(code, out, err, needle, as_json)
    assert not (tmp_path / "x").exists()


@pytest.mark.parametrize("as_json", [False, True])
def test_bad_folders_and_weights_exit_2(capsys: pytest.CaptureFixture[str], tmp_path: Path, as_json: bool) -> None:
    a_file = tmp_path / "file"
    a_file.write_text("x")
    not_a_net = tmp_path / "net.jgw"
    not_a_net.write_bytes(b"garbage")
    flag = ["--json"] if as_json else []
    cases = [
        (["--out", str(a_file)], "is a file"),
        (["--out", str(DEFAULT_WEIGHTS.parent / "labels")], "inside the package weights/"),
        (["--out", str(tmp_path / "y"), "--weights", str(not_a_net)], "net.jgw"),
    ]
    for args, needle in cases:
        code, out, err = run_cli(capsys, "label", *args, "--shards", "1", *flag)
        assert_clean_error(code, out, err, needle, as_json)
    assert not (DEFAULT_WEIGHTS.parent / "labels").exists() and not (tmp_path / "y").exists()
