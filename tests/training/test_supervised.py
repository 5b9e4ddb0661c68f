"""Supervised refinement on lookahead targets: self-play data, labels, resumable shards, widening, the fit.

Sizes are tiny (a few games, plies 0 or 1 on a handful of positions) so that each test takes seconds.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from cli.main import main
from engine.batch import phases
from engine.errors import JumpgammonError, RunawayGame
from engine.position import GamePhase, Position, validate_board
from nets.encoding import N_INPUTS
from nets.evaluator import Evaluator, load_evaluator
from nets.lookahead import evaluate_plies
from nets.mlp import FrozenNet, NetConfig, cubeless_equity
from training.checkpoint import promote
from training.supervised.data import GenerateConfig, generate, make_shard, play_positions, runner_up_children
from training.supervised.fit import TRAINER, FitConfig, fit, widened_tensors
from training.supervised.losses import Loss, choice_regret, choice_regrets, equity_of, ranking_loss
from training.supervised.shards import (
    GAME_ID_STRIDE,
    GROUP_WIDTH,
    MANIFEST,
    Shard,
    group_matrix,
    held_out,
    load_phase_data,
    seen_in_training,
    shard_paths,
)
from weights import SHIPPED_DIR

TINY = dict(shard_games=3, parallel_games=2, keep=0.3, keep_race=0.6, plies=0)


@pytest.fixture(scope="module")
def shipped() -> Evaluator:
    return load_evaluator()


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A two-shard data set labelled at 0-ply by the shipped net."""
    folder = tmp_path_factory.mktemp("sup") / "data"
    generate(GenerateConfig(data=folder, shards=2, **TINY), progress=False)  # type: ignore[arg-type]
    return folder


@pytest.mark.parametrize(("games", "parallel"), [(1, 1), (3, 2), (5, 8)])
def test_self_play_keeps_positions_of_every_game_and_starts_each_at_the_opening(
    shipped: Evaluator, games: int, parallel: int
) -> None:
    boards, game_of, groups = play_positions(shipped, games, parallel, (1.0, 1.0), 0.0, np.random.default_rng(7))
    assert (groups == -1).all()
    assert sorted(set(game_of.tolist())) == list(range(games))
    opening = (boards == Position.initial().array).all(axis=1)
    assert sorted(game_of[opening].tolist()) == list(range(games))  # kept once per game, nothing else like it
    assert not (phases(boards) == GamePhase.OVER).any()  # positions before a roll, never a finished game
    for board in boards[:: max(1, len(boards) // 50)]:
        validate_board(board)


def test_self_play_is_a_function_of_its_generator(shipped: Evaluator) -> None:
    runs = [play_positions(shipped, 3, 2, (0.5, 0.5), 0.1, np.random.default_rng(3)) for _ in range(2)]
    np.testing.assert_array_equal(runs[0][0], runs[1][0])
    np.testing.assert_array_equal(runs[0][1], runs[1][1])
    grouped = [
        play_positions(shipped, 3, 2, (0.5, 0.5), 0.1, np.random.default_rng(3), decisions=0.3) for _ in range(2)
    ]
    for a, b in zip(grouped[0], grouped[1], strict=True):
        np.testing.assert_array_equal(a, b)
    other = play_positions(shipped, 3, 2, (0.5, 0.5), 0.1, np.random.default_rng(4))
    assert other[0].shape != runs[0][0].shape or not np.array_equal(other[0], runs[0][0])


@pytest.mark.parametrize(
    ("equity", "offsets", "count", "expected"),
    [
        ([0.1, 0.5, 0.3, 0.2], [0, 4], 1, [2]),
        ([0.1, 0.5, 0.3, 0.2], [0, 4], 2, [2, 3]),
        ([0.1, 0.5, 0.3, 0.2], [0, 4], 9, [0, 2, 3]),
        ([0.4, 0.9, -0.2, 0.0], [0, 1, 4], 1, [3]),  # a lone play has no runner-up
        ([0.4, 0.9, -0.2, 0.0], [0, 2, 4], 1, [0, 2]),
    ],
)
def test_runner_up_children_follow_the_ranking_within_each_roll(
    equity: list[float], offsets: list[int], count: int, expected: list[int]
) -> None:
    got = runner_up_children(np.array(equity), np.array(offsets), count)
    assert got.tolist() == expected


def test_runner_up_plays_come_on_top_of_the_same_games(shipped: Evaluator) -> None:
    plain = play_positions(shipped, 2, 2, (0.3, 0.3), 0.0, np.random.default_rng(9))
    boards, games, _ = play_positions(shipped, 2, 2, (0.3, 0.3), 0.0, np.random.default_rng(9), candidates=3)
    assert len(plain[0]) < len(boards) <= 4 * len(plain[0])
    rows = {tuple(b) for b in boards.tolist()}
    assert all(tuple(b) in rows for b in plain[0].tolist())  # the played positions are unchanged
    assert set(games.tolist()) == set(plain[1].tolist())


def test_decision_groups_hold_the_close_plays_of_one_roll(shipped: Evaluator) -> None:
    boards, games, groups = play_positions(shipped, 3, 3, (0.3, 0.3), 0.0, np.random.default_rng(5), decisions=0.5)
    assert (groups == -1).any()  # the positions kept from the games themselves
    ids = np.unique(groups[groups >= 0])
    assert len(ids) > 0 and ids.tolist() == list(range(len(ids)))
    for g in ids:
        members = boards[groups == g]
        assert 2 <= len(members) <= 8
        assert len(set(games[groups == g].tolist())) == 1
        assert len({m.tobytes() for m in members}) == len(members)  # distinct plays
        equity = cubeless_equity(shipped.evaluate_boards(members))  # the opponent's view: the mover's best is lowest
        assert equity.max() - equity.min() <= 0.16 + 1e-9


def test_group_plays_keeps_the_best_plays_of_each_group(shipped: Evaluator) -> None:
    full = play_positions(shipped, 2, 2, (0.3, 0.3), 0.0, np.random.default_rng(6), decisions=0.5)
    capped = play_positions(shipped, 2, 2, (0.3, 0.3), 0.0, np.random.default_rng(6), decisions=0.5, group_plays=3)
    full_ids, capped_ids = np.unique(full[2][full[2] >= 0]), np.unique(capped[2][capped[2] >= 0])
    assert len(full_ids) == len(capped_ids) > 0  # the same games and groups: only the plays are thinned
    for g in full_ids:
        members, kept = full[0][full[2] == g], capped[0][capped[2] == g]
        equity = cubeless_equity(shipped.evaluate_boards(members))  # the mover's best is the lowest
        best3 = {m.tobytes() for m in members[np.argsort(equity, kind="stable")[:3]]}
        assert len(kept) == min(3, len(members)) and {m.tobytes() for m in kept} == best3


@pytest.mark.parametrize(
    ("ids", "expected"),
    [
        ([-1, -1], []),
        ([4, 4, -1, 7, 7, 7], [[0, 1], [3, 4, 5]]),
        ([3, 5, 3, 9], [[0, 2]]),  # a group of one is dropped
        ([2] * 10, [list(range(8))]),  # at most GROUP_WIDTH plays
    ],
)
def test_group_matrix_lists_each_groups_rows(ids: list[int], expected: list[list[int]]) -> None:
    got = group_matrix(np.array(ids, np.int64))
    assert got.shape == (len(expected), GROUP_WIDTH)
    for row, want in zip(got.tolist(), expected, strict=True):
        assert row == want + [-1] * (GROUP_WIDTH - len(want))


def test_ranking_loss_ignores_a_shift_shared_by_a_group() -> None:
    import torch

    from nets.model import PhaseNet

    torch.manual_seed(0)
    net = PhaseNet(NetConfig(N_INPUTS, (8,))).eval()
    x = torch.rand(6, N_INPUTS)
    with torch.no_grad():
        y = net(x)
    groups = torch.tensor([[0, 1, 2, -1], [3, 4, 5, -1]])
    assert torch.allclose(ranking_loss(net, x, y, groups), torch.zeros(2), atol=1e-10)
    shifted = y.clone()
    shifted[:3, 0] += 0.05  # every play of group 0 gains the same equity
    np.testing.assert_allclose(ranking_loss(net, x, shifted, groups).detach().numpy(), 0.0, atol=1e-10)
    shifted[0, 0] += 0.05  # one play alone: the group's loss grows, the other's does not
    loss = ranking_loss(net, x, shifted, groups).detach().numpy()
    assert loss[0] > 1e-3 and loss[1] < 1e-10
    np.testing.assert_allclose(equity_of(y).numpy(), cubeless_equity(y.double().numpy()), atol=1e-6)


def _net_and_plays() -> tuple[object, object, object]:
    import torch

    from nets.model import PhaseNet

    torch.manual_seed(0)
    net = PhaseNet(NetConfig(N_INPUTS, (8,))).eval()
    x = torch.rand(6, N_INPUTS)
    with torch.no_grad():
        y = net(x)
    return net, x, y


def test_listwise_ranking_loss_is_zero_at_the_targets_blind_to_a_shift_and_weighs_the_top() -> None:
    import torch

    net, x, y = _net_and_plays()
    groups = torch.tensor([[0, 1, 2, -1], [3, 4, 5, -1]])
    assert torch.allclose(ranking_loss(net, x, y, groups, 0.02), torch.zeros(2), atol=1e-7)  # type: ignore[arg-type]
    shifted = y.clone()  # type: ignore[attr-defined]
    shifted[:3, 0] += 0.05
    np.testing.assert_allclose(ranking_loss(net, x, shifted, groups, 0.02).detach().numpy(), 0.0, atol=1e-6)  # type: ignore[arg-type]
    equities = equity_of(y).numpy()  # type: ignore[arg-type]
    best, worst = int(np.argmin(equities[:3])), int(np.argmax(equities[:3]))  # the mover prefers low equity
    moved_best, moved_worst = y.clone(), y.clone()  # type: ignore[attr-defined]
    moved_best[best, 0] += 0.05  # the chosen play's label gets worse: the choice changes
    moved_worst[worst, 0] += 0.05  # a play nobody chooses gets worse still: hardly matters
    loss_best = float(ranking_loss(net, x, moved_best, groups, 0.02)[0].detach())  # type: ignore[arg-type]
    loss_worst = float(ranking_loss(net, x, moved_worst, groups, 0.02)[0].detach())  # type: ignore[arg-type]
    assert loss_best > 10 * max(loss_worst, 1e-9) and loss_best > 1e-4


def test_choice_regret_is_the_label_equity_lost_by_the_nets_choice() -> None:
    import torch

    net, x, y = _net_and_plays()
    groups = np.array([[0, 1, 2, -1], [3, 4, 5, -1]])
    assert choice_regret(net, x.numpy(), y.numpy(), groups) == pytest.approx(0.0, abs=1e-9)  # type: ignore[arg-type, attr-defined]
    labels = y.numpy().copy()  # type: ignore[attr-defined]
    equities = equity_of(torch.from_numpy(labels)).numpy()
    chosen = int(np.argmin(equities[:3]))
    labels[chosen, 0] += 0.05  # the net's choice in group 0 now gives the opponent 0.1 more equity
    new = equity_of(torch.from_numpy(labels)).numpy()[:3]
    expected = 1000 * (new[chosen] - new.min()) / 2  # the mean over two groups; group 1 loses nothing
    assert choice_regret(net, x.numpy(), labels, groups) == pytest.approx(expected, rel=1e-5)  # type: ignore[arg-type, attr-defined]
    per_group = choice_regrets(net, x.numpy(), labels, groups)  # type: ignore[arg-type, attr-defined]
    assert per_group.tolist() == pytest.approx([2 * expected, 0.0], rel=1e-5, abs=1e-9)
    assert expected > 0


def test_a_net_that_cannot_finish_a_game_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("engine.game.MAX_PLIES", 4)  # no game ends within 4 moves
    with pytest.raises(RunawayGame, match="cannot finish"):
        play_positions(load_evaluator(), 1, 1, (1.0, 1.0), 0.0, np.random.default_rng(0))


@pytest.mark.parametrize("plies", [0, 1])
def test_shard_labels_are_the_nets_lookahead_values(shipped: Evaluator, plies: int) -> None:
    cfg = GenerateConfig(data=Path("unused"), shards=1, shard_games=1, parallel_games=1, keep=0.1, keep_race=0.2)
    cfg = GenerateConfig(**{**cfg.__dict__, "plies": plies})
    shard = make_shard(shipped, cfg, index=5)
    assert len(shard.boards) > 0
    assert set(np.unique(shard.phases).tolist()) <= {int(GamePhase.CONTACT), int(GamePhase.RACE)}
    np.testing.assert_array_equal(shard.phases, phases(shard.boards))
    expected = evaluate_plies(shipped, shard.boards, plies)
    np.testing.assert_allclose(shard.targets, expected, atol=1e-6)
    assert (shard.games // GAME_ID_STRIDE == 5).all()


def test_generate_resumes_and_grows_with_identical_shards(tmp_path: Path, data: Path) -> None:
    fresh = tmp_path / "again"
    generate(GenerateConfig(data=fresh, shards=1, **TINY), progress=False)  # type: ignore[arg-type]
    result = generate(GenerateConfig(data=fresh, shards=2, **TINY), progress=False)  # type: ignore[arg-type]
    assert result.made == 1 and result.shards == 2
    for a, b in zip(shard_paths(fresh), shard_paths(data), strict=True):
        left, right = Shard.read(a), Shard.read(b)
        np.testing.assert_array_equal(left.boards, right.boards)
        np.testing.assert_array_equal(left.targets, right.targets)
    again = generate(GenerateConfig(data=fresh, shards=2, **TINY), progress=False)  # type: ignore[arg-type]
    assert again.made == 0
    assert again.positions["contact"] + again.positions["race"] == sum(
        len(Shard.read(p).boards) for p in shard_paths(fresh)
    )


def test_a_folder_from_before_a_setting_existed_reads_as_its_default(tmp_path: Path, data: Path) -> None:
    folder = tmp_path / "old"
    folder.mkdir()
    manifest = json.loads((data / MANIFEST).read_text())
    del manifest["candidates"]
    (folder / MANIFEST).write_text(json.dumps(manifest))
    assert generate(GenerateConfig(data=folder, shards=1, **TINY), progress=False).made == 1  # type: ignore[arg-type]
    with pytest.raises(JumpgammonError, match="candidates"):
        generate(GenerateConfig(data=folder, shards=1, candidates=2, **TINY), progress=False)  # type: ignore[arg-type]


@pytest.mark.parametrize(("field", "value"), [("seed", 2), ("plies", 1), ("keep", 0.5), ("shard_games", 4)])
def test_generate_refuses_a_folder_made_with_other_settings(data: Path, field: str, value: object) -> None:
    settings = {**TINY, field: value}
    with pytest.raises(JumpgammonError, match=field):
        generate(GenerateConfig(data=data, shards=2, **settings), progress=False)  # type: ignore[arg-type]


@pytest.mark.parametrize(("old", "new"), [((8,), (12,)), ((6, 4), (9, 4)), ((6, 4), (6, 7)), ((5, 5), (5, 5))])
def test_widening_keeps_the_function(old: tuple[int, ...], new: tuple[int, ...]) -> None:
    rng = np.random.default_rng(1)
    config = NetConfig(N_INPUTS, old)
    tensors = {k: rng.normal(0, 0.3, s).astype(np.float32) for k, s in config.tensor_shapes().items()}
    wide = widened_tensors(tensors, config, new, rng)
    x = (rng.random((50, N_INPUTS)) < 0.2).astype(np.float32) * rng.random((50, N_INPUTS)).astype(np.float32)
    before = FrozenNet(config, tensors).probabilities(x)
    after = FrozenNet(NetConfig(N_INPUTS, new), wide).probabilities(x)
    np.testing.assert_allclose(after, before, atol=1e-5)
    for layer, (was, now) in enumerate(zip(old, new, strict=False)):  # new units start with random incoming
        if now > was:  # weights (layer l's are body.{2 l}), so training can grow them
            assert np.abs(wide[f"body.{2 * layer}.weight"][was:]).sum() > 0, layer


@pytest.mark.parametrize(("old", "new"), [((8,), (4,)), ((8,), (8, 8)), ((6, 4), (6, 3))])
def test_widening_refuses_narrower_or_deeper_layers(old: tuple[int, ...], new: tuple[int, ...]) -> None:
    config = NetConfig(N_INPUTS, old)
    tensors = {k: np.zeros(s, np.float32) for k, s in config.tensor_shapes().items()}
    with pytest.raises(ValueError, match="widen"):
        widened_tensors(tensors, config, new, np.random.default_rng(0))


@pytest.mark.parametrize("validation", [0.1, 0.5])
def test_validation_holds_out_whole_games(validation: float) -> None:
    rng = np.random.default_rng(0)
    games = rng.integers(0, 2_000, size=20_000) * 7 + (1 << 40)
    mask = held_out(games, validation, seed=3)
    for flag_set in ({bool(f) for f in mask[games == g]} for g in np.unique(games)[:300]):
        assert len(flag_set) == 1
    share = len(np.unique(games[mask])) / len(np.unique(games))
    assert abs(share - validation) < 4 * np.sqrt(validation * (1 - validation) / 2_000)
    np.testing.assert_array_equal(mask, held_out(games, validation, seed=3))


def test_loaded_data_splits_every_position_once(data: Path) -> None:
    split, provenance = load_phase_data((data,), validation=0.3, seed=2)
    shards = [Shard.read(p) for p in shard_paths(data)]
    phase_all = np.concatenate([s.phases for s in shards])
    left_out = provenance["validation_rows_seen_in_training"]["left_out"]
    kept = sum(len(split[name].x_train) + len(split[name].x_val) for name in ("contact", "race"))
    assert kept + left_out == len(phase_all)
    for phase, name in ((GamePhase.CONTACT, "contact"), (GamePhase.RACE, "race")):
        assert len(split[name].x_train) + len(split[name].x_val) <= int((phase_all == phase).sum())
        assert split[name].x_train.shape[1:] == (N_INPUTS,)
    assert provenance["games"] == len(np.unique(np.concatenate([s.games for s in shards])))


def test_validation_rows_are_boards_training_never_saw(tmp_path: Path) -> None:
    """A board of a held-out game that a training game met too is left out of validation (decision groups stay)."""
    # every game meets the same two boards: the opening and the position after 24/18 13/11 (the opponent's view)
    opening = Position.initial()
    boards = np.stack([opening.array, opening.children((6, 2))[0].flip().array] * (games := 40)).astype(np.int8)
    shard = Shard(
        boards,
        np.full((2 * games, 5), 0.5, np.float32),
        np.repeat(np.arange(games, dtype=np.int64), 2),
        np.zeros(2 * games, np.int8) + int(GamePhase.CONTACT),
    )
    folder = tmp_path / "shared-boards"
    folder.mkdir()
    (folder / "shard_00000.npz").write_bytes(shard.to_bytes())
    split, provenance = load_phase_data((folder,), validation=0.3, seed=2)
    held = held_out(shard.games, 0.3, seed=2)
    assert provenance["validation_rows_seen_in_training"]["left_out"] == held.sum() > 0
    assert len(split["contact"].x_val) == 0 and len(split["contact"].x_train) == (~held).sum()
    boards = np.array([[1] * 26, [2] * 26, [1] * 26, [3] * 26, [2] * 26], np.int8)
    is_val = np.array([False, False, True, True, True])
    np.testing.assert_array_equal(seen_in_training(boards, is_val), [False, False, True, False, True])


@pytest.mark.parametrize(
    ("pred", "target"), [([0.5, 0.1, 0.01, 0.2, 0.02], [0.5, 0.1, 0.01, 0.2, 0.02]), ([0.9] * 5, [0.9] * 5)]
)
def test_each_loss_is_smallest_at_the_target(pred: list[float], target: list[float]) -> None:
    import torch

    t = torch.tensor([target])
    for loss in Loss:
        at = float(loss(torch.tensor([pred]), t)[0])
        for shift in (-0.05, 0.05):
            assert float(loss(torch.tensor([pred]) + shift, t)[0]) > at


def test_cross_entropy_still_pulls_a_saturated_output_toward_its_target() -> None:
    """An output below 1e-6 had no gradient when the loss clamped it there; through the chained sigmoids the
    gradient of a logit is about the output minus its target, however far the logit has gone."""
    import torch

    from nets.model import consistent_probabilities

    logits = torch.tensor([[-20.0, 0.0, 0.0, 0.0, 0.0]], requires_grad=True)  # P(win) about 2e-9
    target = torch.tensor([[0.3, 0.1, 0.01, 0.2, 0.02]])
    Loss.CROSS_ENTROPY(consistent_probabilities(logits), target).sum().backward()
    assert logits.grad is not None and float(logits.grad[0, 0]) < -0.1  # pushed up, toward 0.3
    assert torch.isfinite(logits.grad).all()


def test_fit_writes_a_promotable_candidate_with_its_provenance(tmp_path: Path, data: Path) -> None:
    out = tmp_path / "cand.jgw"
    shipped = {phase: net.config.hidden for phase, net in load_evaluator(bearoff=False).nets.items()}
    wider = (shipped["contact"][0] + 2, *shipped["contact"][1:])
    cfg = FitConfig(data=(data,), out=out, max_epochs=2, patience=1, widen={"contact": wider}, validation=0.3)
    result = fit(cfg, progress=False)
    ev = load_evaluator(out, bearoff=False)
    assert ev.nets["contact"].config.hidden == wider and ev.nets["race"].config.hidden == shipped["race"]
    record = ev.header["run"]
    assert record["trainer"] == TRAINER and record["config"] == cfg.to_json()
    assert record["data"]["folders"][0]["manifest"]["plies"] == 0
    for report in result.nets.values():
        assert report["history"][0]["epoch"] == 0
    stamp = out.stat().st_mtime_ns
    assert fit(cfg, progress=False).nets == json.loads(json.dumps(result.nets))  # finished: reported, not redone
    assert out.stat().st_mtime_ns == stamp
    grown = tmp_path / "grown"  # the same folder named again, with more in it: fitted again, not reported
    shutil.copytree(data, grown)
    regrown = replace(cfg, data=(grown,), out=tmp_path / "grown.jgw")
    fit(regrown, progress=False)
    stamp = regrown.out.stat().st_mtime_ns
    (grown / "extra.json").write_text("{}")
    fit(regrown, progress=False)
    assert regrown.out.stat().st_mtime_ns != stamp
    promoted = promote(out, tmp_path / "promoted.jgw")
    assert promoted.header["run"]["trainer"] == TRAINER


def test_fit_with_a_ranking_term_reports_it(tmp_path: Path) -> None:
    folder = tmp_path / "groups"
    # 1-ply labels: 0-ply ones would be the starting net's own values, every ranking loss zero up to rounding.
    settings = {**TINY, "plies": 1}
    generate(GenerateConfig(data=folder, shards=1, decisions=0.3, **settings), progress=False)  # type: ignore[arg-type]
    split, provenance = load_phase_data((folder,), validation=0.3, seed=1)
    assert provenance["positions"]["contact"]["groups_train"] == len(split["contact"].groups_train) > 0
    out = tmp_path / "ranked.jgw"
    result = fit(FitConfig(data=(folder,), out=out, max_epochs=2, ranking=1.0, validation=0.3), progress=False)
    first = result.nets["contact"]["history"][0]
    assert first["validation"] == pytest.approx(first["validation_values"] + first["validation_ranking"])
    # the fit learns: on labels the start net does not already give, a later epoch beats epoch 0 on the held-out
    # positions (validation_best <= validation_before holds by construction; this does not) and the weights move
    contact = result.nets["contact"]
    assert contact["best_epoch"] >= 1 and contact["validation_best"] < contact["validation_before"]
    start, fitted = load_evaluator(bearoff=False).nets["contact"], load_evaluator(out, bearoff=False).nets["contact"]
    assert any(not np.array_equal(fitted.tensors()[k], v) for k, v in start.tensors().items())
    assert first["validation_ranking"] > 0 and first["validation_regret"] >= 0
    listwise = fit(
        FitConfig(
            data=(folder,), out=tmp_path / "listwise.jgw", max_epochs=1, ranking=1.0, listwise=0.02, validation=0.3
        ),
        progress=False,
    )
    ranked = listwise.nets["contact"]["history"][0]["validation_ranking"]
    assert ranked > 0 and ranked != pytest.approx(first["validation_ranking"])  # the other loss was measured


def test_fit_of_the_race_net_alone_leaves_the_contact_net_as_it_was(tmp_path: Path, data: Path) -> None:
    out = tmp_path / "race.jgw"
    cfg = FitConfig(data=(data,), out=out, nets=("race",), max_epochs=1, learning_rate=1e-2, validation=0.5)
    fit(cfg, progress=False)
    before, after = load_evaluator(bearoff=False), load_evaluator(out, bearoff=False)
    for key, value in before.nets["contact"].tensors().items():
        np.testing.assert_array_equal(after.nets["contact"].tensors()[key], value)


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["supervised", "fit", "--data", "d"], "--out"),
        (["supervised", "generate", "--data", "a", "--data", "b"], "one --data"),
        (["supervised", "generate", "--data", "d", "--keep", "0"], "--keep"),
        (["supervised", "generate", "--data", "d", "--plies", "3"], "--plies"),
        (["supervised", "fit", "--data", "d", "--out", "o.jgw", "--nets", "bearoff"], "--nets"),
        (["supervised", "fit", "--data", "nowhere", "--out", "o.jgw"], "no shards"),
        (["supervised", "fit", "--data", "d", "--out", "weights/x.jgw"], "shipped"),
        (["supervised", "fit", "--data", "d", "--out", "weights/sub/x.jgw"], "shipped"),
        (["supervised", "fit", "--data", "d", "--out", "o.jgw", "--widen-contact", "64,64"], "widen"),
        (["supervised", "fit", "--data", "d", "--data", "d", "--out", "o.jgw"], "given twice"),  # a leak
        (["supervised", "fit", "--data", "d", "--out", "o.jgw", "--widen-crashed", "300,64"], "--widen-crashed"),
        # no held-out game: the start nets came back as they were, exit 0
        (["supervised", "fit", "--data", "d", "--out", "o.jgw", "--validation", "0.001"], "held out for validation"),
    ],
)
def test_bad_input_is_one_json_line_and_exit_2(
    argv: list[str],
    needle: str,
    data: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "d").symlink_to(data)
    argv = [str(SHIPPED_DIR / a.removeprefix("weights/")) if a.startswith("weights/") else a for a in argv]
    assert main([*argv, "--json"]) == 2
    lines = capsys.readouterr().out.strip().splitlines()
    assert len(lines) == 1 and needle in json.loads(lines[0])["error"]


def test_cli_generates_and_fits(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder, out = tmp_path / "d", tmp_path / "c.jgw"
    tiny = ["--shard-games", "4", "--parallel", "2", "--plies", "0", "--keep", "0.2"]
    assert main(["supervised", "generate", "--data", str(folder), "--shards", "1", *tiny, "--json"]) == 0
    made = json.loads(capsys.readouterr().out)
    assert made["shards"] == 1 and made["made"] == 1
    fit_args = ["--data", str(folder), "--out", str(out), "--epochs", "1", "--nets", "race", "--validation", "0.5"]
    fit_args.append("--json")
    assert main(["supervised", "fit", *fit_args]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["out"] == str(out) and set(report["nets"]) <= {"race"}
    assert main(["weights", "info", str(out), "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["trainer"] == TRAINER and set(info["positions"]) == {"contact", "race"}
    promoted = tmp_path / "promoted.jgw"
    assert main(["weights", "promote", str(out), "--to", str(promoted)]) == 0
    assert "supervised-plies fit" in capsys.readouterr().out
    assert load_evaluator(promoted, bearoff=False).header["run"]["data"] == load_evaluator(out).header["run"]["data"]


def test_data_stay_out_of_the_shipped_folder(tmp_path: Path) -> None:
    with pytest.raises(JumpgammonError, match="shipped"):
        generate(GenerateConfig(data=SHIPPED_DIR / "data", shards=1, **TINY), progress=False)  # type: ignore[arg-type]
    assert not (SHIPPED_DIR / "data").exists()


def test_copied_folders_and_broken_manifests_are_refused(tmp_path: Path, data: Path) -> None:
    """Two folders of the same settings and seed hold the same games (a leak); a manifest that is not an object."""
    twin = tmp_path / "twin"
    shutil.copytree(data, twin)
    with pytest.raises(JumpgammonError, match="same settings and seed"):
        load_phase_data((data, twin), 0.3, 1)
    for text in ("[]", "{not json"):
        (twin / MANIFEST).write_text(text)
        with pytest.raises(JumpgammonError, match="not a data manifest"):
            load_phase_data((twin,), 0.3, 1)
        with pytest.raises(JumpgammonError, match=f"{MANIFEST}: not a data manifest"):
            generate(GenerateConfig(data=twin, shards=1, **TINY), progress=False)  # type: ignore[arg-type]
