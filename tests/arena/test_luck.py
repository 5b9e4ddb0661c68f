"""The luck adjustment of money tournaments (arena.luck): unbiased, exact for mirrored twins, and narrower."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from arena import PlayerSpec, Rules, TournamentConfig, ledger, run_tournament
from arena.games import BlockResult
from arena.luck import cubeful_roll_luck, money_luck_seat0, reference_evaluator, roll_luck, screened_children
from arena.tournament import money_blocks, pair_luck_of, pair_points_of
from cube.gamestate import difference_equity
from engine import Position
from engine.batch import children_batch
from engine.errors import InvalidSpec
from nets.lookahead import ROLL_WEIGHTS, ROLLS
from nets.weights import weights_digest
from tests.arena.test_rollout import two_sided_sample
from weights import DEFAULT_WEIGHTS


def _run(a: str, a_cube: str, b: str, b_cube: str, games: int, seed: int, cubeful: bool) -> tuple:
    cfg = TournamentConfig(
        PlayerSpec(a, a_cube), PlayerSpec(b, b_cube), games, seed, Rules(cubeful=cubeful), luck_weights=""
    )
    result, blocks = run_tournament(cfg, progress=False)
    return result, money_blocks(blocks)


def test_the_luck_of_a_position_averages_zero_over_the_21_rolls() -> None:
    boards = np.repeat(Position.initial().array[None, :], len(ROLLS), axis=0)
    for seat in (0, 1):
        luck, _ = roll_luck(reference_evaluator(), boards, np.array(ROLLS), np.full(len(ROLLS), seat))
        assert np.abs((luck * ROLL_WEIGHTS[:, None]).sum(axis=0)).max() < 1e-12
        assert np.abs(luck).max() > 0.01  # and the rolls do differ
    stake = np.full(len(ROLLS), 2.0)
    points = money_luck_seat0(reference_evaluator(), boards, np.array(ROLLS), np.zeros(len(ROLLS), int), stake)
    assert abs(float((points * ROLL_WEIGHTS).sum())) < 1e-12


def test_an_opening_rolls_luck_averages_zero_over_the_15_rolls_it_can_be() -> None:
    """The opening roll is never a double: judged against all 21 rolls its luck would average about -0.04."""
    opening = np.array([r for r in ROLLS.tolist() if r[0] != r[1]])
    boards = np.repeat(Position.initial().array[None, :], len(opening), axis=0)
    seat = np.zeros(len(opening), int)
    flags = np.ones(len(opening), bool)
    luck, _ = roll_luck(reference_evaluator(), boards, opening, seat, opening=flags)
    assert np.abs(luck.mean(axis=0)).max() < 1e-12  # the 15 non-doubles are equally likely
    as_any_roll, _ = roll_luck(reference_evaluator(), boards, opening, seat)
    assert difference_equity(as_any_roll).mean() < -0.02
    points = money_luck_seat0(reference_evaluator(), boards, opening, seat, np.ones(len(opening)), opening=flags)
    assert abs(float(points.mean())) < 1e-12


# A middle game (4HPkQSDgc/ABMA, the reply to 24/18 13/11) and a race of 76 against 57 pips.
LUCK_BOARDS = ["4HPkQSDgc/ABMA", "u9uGAAC23VkAAA"]


@pytest.mark.parametrize("position_id", LUCK_BOARDS)
@pytest.mark.parametrize("seat", [0, 1])
@pytest.mark.parametrize("owner", [-1, 0, 1])
def test_the_cubeful_luck_averages_zero_over_the_21_rolls_whoever_owns_the_cube(
    position_id: str, seat: int, owner: int
) -> None:
    boards = np.repeat(Position.from_id(position_id).array[None, :], len(ROLLS), axis=0)
    rolls, seats, owners = np.array(ROLLS), np.full(len(ROLLS), seat), np.full(len(ROLLS), owner)
    luck, cube_luck, kids = cubeful_roll_luck(reference_evaluator(), boards, rolls, seats, owners)
    plain, plain_kids = roll_luck(reference_evaluator(), boards, rolls, seats)
    assert np.array_equal(luck, plain) and np.array_equal(kids, plain_kids)  # the same plays, the same luck
    assert abs(float((cube_luck * ROLL_WEIGHTS).sum())) < 1e-12
    assert np.abs(cube_luck).max() > 0.01
    assert not np.allclose(cube_luck, difference_equity(luck), atol=1e-3)  # the cube's view differs


@pytest.mark.parametrize("position_id", LUCK_BOARDS)
def test_with_a_dead_cube_the_cubeful_luck_is_the_cubeless_one(position_id: str) -> None:
    """At cube life 0 gnubg's cubeful equity is the cubeless one, whoever owns the cube."""
    boards = np.repeat(Position.from_id(position_id).array[None, :], 3 * len(ROLLS), axis=0)
    rolls, seats = np.tile(np.array(ROLLS), (3, 1)), np.tile([0, 1, 1], len(ROLLS))
    owners = np.repeat([-1, 0, 1], len(ROLLS))
    luck, cube_luck, _ = cubeful_roll_luck(reference_evaluator(), boards, rolls, seats, owners, cube_life=0.0)
    assert np.allclose(cube_luck, difference_equity(luck), atol=1e-9, rtol=0)


@pytest.mark.parametrize("position_id", LUCK_BOARDS)
@pytest.mark.parametrize("screen", [1, 8])
def test_a_screened_luck_averages_zero_too_and_judges_the_best_of_pubevals_top_plays(
    position_id: str, screen: int
) -> None:
    boards = np.repeat(Position.from_id(position_id).array[None, :], len(ROLLS), axis=0)
    rolls, seats, owners = np.array(ROLLS), np.zeros(len(ROLLS), int), np.full(len(ROLLS), -1)
    luck, cube_luck, kids = cubeful_roll_luck(reference_evaluator(), boards, rolls, seats, owners, screen=screen)
    assert np.abs((luck * ROLL_WEIGHTS[:, None]).sum(axis=0)).max() < 1e-12
    assert abs(float((cube_luck * ROLL_WEIGHTS).sum())) < 1e-12
    _, full_kids = roll_luck(reference_evaluator(), boards, rolls, seats)
    for board, roll, kid, best in zip(boards, rolls, kids, full_kids, strict=True):
        children, offsets = children_batch(board[None], roll[None])
        top, _ = screened_children(board[None], children, offsets, screen)
        assert any(np.array_equal(kid, t) for t in top)  # the luck's play is one of pubeval's top plays
        if len(children) <= screen:
            assert np.array_equal(kid, best)  # nothing screened out: the evaluator's own best play


def test_a_screen_wider_than_every_roll_changes_nothing_and_bear_offs_are_never_screened() -> None:
    """Screening keeps all of a roll's plays when it has no more than the screen, and every play of a
    two-sided bear-off (the databases are exact there, so its luck stays exact)."""
    middle = Position.from_id("4HPkQSDgc/ABMA").array
    bear_off = two_sided_sample(1, seed=3)[0].array
    for board, screen in ((middle, 64), (bear_off, 1)):
        boards = np.repeat(board[None, :], len(ROLLS), axis=0)
        rolls, seats = np.array(ROLLS), np.zeros(len(ROLLS), int)
        plain = roll_luck(reference_evaluator(), boards, rolls, seats)
        screened = roll_luck(reference_evaluator(), boards, rolls, seats, screen)
        assert np.array_equal(plain[0], screened[0]) and np.array_equal(plain[1], screened[1])


@pytest.mark.parametrize("screen", [0, -1, True, 2.5])
def test_bad_screens_are_refused_naming_them(screen: object) -> None:
    boards = Position.initial().array[None, :]
    with pytest.raises(InvalidSpec, match=f"luck screen {screen!r}"):
        roll_luck(reference_evaluator(), boards, np.array([[3, 1]]), np.zeros(1, int), screen)  # type: ignore[arg-type]


@pytest.mark.slow
@pytest.mark.parametrize("cubeful", [False, True])
def test_identical_players_still_score_exactly_zero_after_the_adjustment(cubeful: bool) -> None:
    cube = "janowski:0.68" if cubeful else "none"
    result, blocks = _run("net@0", cube, "net@0", cube, 40, 5, cubeful)
    assert result.ppg == 0.0
    assert result.adjusted is not None and result.adjusted.value == 0.0 and result.adjusted.se == 0.0
    luck = pair_luck_of(blocks)
    assert luck is not None and np.all(luck == 0.0)  # mirrored games: A's luck in one is B's in the other
    assert np.abs(blocks[0].luck_seat0).max() > 0  # while each game had its luck


@pytest.mark.slow
def test_the_adjustment_is_unbiased_and_narrows_the_standard_error() -> None:
    result, blocks = _run("net@0", "janowski:0.68", "net@0", "live", 160, 11, True)
    luck = pair_luck_of(blocks)
    assert luck is not None
    # The summed luck has mean zero: its mean over the pairs lies within 4 of its standard errors of 0,
    # which is also how far the adjusted result lies from the raw one.
    se_luck = luck.std(ddof=1) / np.sqrt(len(luck))
    assert abs(luck.mean()) < 4 * se_luck
    assert result.adjusted is not None and result.se is not None and result.adjusted.se is not None
    assert result.adjusted.value == pytest.approx(float((pair_points_of(blocks) - luck).mean()))
    assert result.se_ratio is not None and result.se_ratio > 1.5
    assert result.to_json()["luck_adjusted"]["ppg"] == result.adjusted.value


def test_blocks_with_luck_survive_the_ledger_and_old_ledgers_still_load(tmp_path: Path) -> None:
    cfg = TournamentConfig(PlayerSpec("pubeval"), PlayerSpec("net@0"), 8, 2, Rules(), block_pairs=2, luck_weights="")
    path = tmp_path / "ledger.jsonl"
    first, blocks = run_tournament(cfg, progress=False, checkpoint=path)
    kept = money_blocks(ledger.load(path, cfg))
    assert [b.first_pair for b in kept] == [b.first_pair for b in blocks]
    for a, b in zip(kept, money_blocks(blocks), strict=True):
        assert a.luck_seat0 is not None and b.luck_seat0 is not None
        assert np.array_equal(a.luck_seat0, b.luck_seat0)
    again, _ = run_tournament(cfg, progress=False, checkpoint=path)  # resumed: nothing left to play
    assert again.adjusted == first.adjusted
    plain = TournamentConfig(PlayerSpec("pubeval"), PlayerSpec("net@0"), 8, 2, Rules(), block_pairs=2)
    with pytest.raises(InvalidSpec, match="holds luck-adjusted games and these are raw: add --luck"):
        ledger.load(path, plain)  # another tournament: the luck adjustment is part of its identity
    raw_path = tmp_path / "raw.jsonl"
    run_tournament(plain, progress=False, checkpoint=raw_path)
    with pytest.raises(InvalidSpec, match="holds raw games and these are luck-adjusted: drop --luck"):
        ledger.load(raw_path, cfg)
    header = json.loads(path.read_text().splitlines()[0])
    assert header["tournament"]["luck_weights"] == ""
    block = json.loads(path.read_text().splitlines()[1])
    del block["luck_seat0"]
    old = ledger.block_from_json(block)
    assert isinstance(old, BlockResult) and old.luck_seat0 is None


def test_a_ledger_knows_its_luck_net_by_digest(tmp_path: Path) -> None:
    """The luck net is recorded by content: a ledger luck-adjusted by another net is refused (its luck would mix two
    nets' judgements); a ledger from before luck digests (no ``luck_net``) is continued as written."""
    cfg = TournamentConfig(PlayerSpec("pubeval"), PlayerSpec("net@0"), 4, 2, Rules(), block_pairs=2, luck_weights="")
    path = tmp_path / "ledger.jsonl"
    run_tournament(cfg, progress=False, checkpoint=path)
    header, *blocks = path.read_text().splitlines()
    tournament = json.loads(header)["tournament"]
    assert tournament["luck_net"] == weights_digest(DEFAULT_WEIGHTS)
    other = dict(tournament, luck_net="sha256:0123456789abcdef")
    path.write_text("\n".join([json.dumps({"tournament": other}), *blocks]) + "\n")
    with pytest.raises(InvalidSpec, match="luck-adjusted by another net .sha256:0123456789abcdef"):
        ledger.load(path, cfg)
    legacy = {k: v for k, v in tournament.items() if k != "luck_net"}
    path.write_text("\n".join([json.dumps({"tournament": legacy}), *blocks]) + "\n")
    assert len(ledger.load(path, cfg)) == len(blocks)
    with pytest.raises(InvalidSpec, match="--luck 'missing.jgw': cannot read weights"):
        ledger.describe(TournamentConfig(PlayerSpec("pubeval"), PlayerSpec("net@0"), 4, luck_weights="missing.jgw"))


def test_a_screened_luck_is_part_of_the_ledgers_identity(tmp_path: Path) -> None:
    """Blocks judged with one screen never mix with another's; the same games, another luck."""
    a, b = PlayerSpec("pubeval"), PlayerSpec("net@0")
    screened = TournamentConfig(a, b, 8, 2, Rules(), block_pairs=2, luck_weights="", luck_screen=4)
    every = TournamentConfig(a, b, 8, 2, Rules(), block_pairs=2, luck_weights="")
    path = tmp_path / "ledger.jsonl"
    result, blocks = run_tournament(screened, progress=False, checkpoint=path)
    plain, plain_blocks = run_tournament(every, progress=False)
    assert result.ppg == plain.ppg and result.luck_screen == 4 and plain.luck_screen is None
    luck, plain_luck = money_blocks(blocks)[0].luck_seat0, money_blocks(plain_blocks)[0].luck_seat0
    assert luck is not None and plain_luck is not None and not np.allclose(luck, plain_luck)
    assert json.loads(path.read_text().splitlines()[0])["tournament"]["luck_screen"] == 4
    with pytest.raises(InvalidSpec, match="judged with --luck-screen 4 and these ask 0: give --luck-screen 4"):
        ledger.load(path, every)
    with pytest.raises(InvalidSpec, match="luck screen 4: the games are not luck-adjusted"):
        TournamentConfig(a, b, 8, luck_screen=4)
    with pytest.raises(InvalidSpec, match="luck screen 0"):
        TournamentConfig(a, b, 8, luck_weights="", luck_screen=0)


def test_a_luck_adjusted_match_ledger_records_its_opening_rule_and_money_ledgers_are_as_before() -> None:
    """Match luck judged an opening roll against all 21 rolls before the 15-non-doubles rule: such ledgers must not
    mix; money ledgers (whose pairs cancel the opening luck) keep the identity they had."""
    a, b = PlayerSpec("net@0", "gnubg"), PlayerSpec("net@0", "janowski:0.7")
    match = ledger.describe(TournamentConfig(a, b, 8, 1, Rules(cubeful=True), match_length=5, luck_weights=""))
    assert match["opening_luck"] == "the 15 non-doubles"
    raw_match = ledger.describe(TournamentConfig(a, b, 8, 1, Rules(cubeful=True), match_length=5))
    money = ledger.describe(TournamentConfig(a, b, 8, 1, Rules(cubeful=True), luck_weights=""))
    assert "opening_luck" not in raw_match and "opening_luck" not in money


def _match(a_cube: str, b_cube: str, matches: int, seed: int) -> tuple:
    cfg = TournamentConfig(
        PlayerSpec("net@0", a_cube),
        PlayerSpec("net@0", b_cube),
        matches,
        seed,
        Rules(cubeful=True),
        match_length=5,
        luck_weights="",
    )
    return run_tournament(cfg, progress=False)


@pytest.mark.slow
def test_identical_match_players_score_exactly_half_after_the_adjustment() -> None:
    result, blocks = _match("gnubg", "gnubg", 8, 3)
    assert result.mwc == 0.5
    assert result.adjusted is not None and result.adjusted.value == 0.5 and result.adjusted.se == 0.0
    assert all(b.luck_seat0 is not None and np.abs(b.luck_seat0).max() > 0 for b in blocks)


@pytest.mark.slow
def test_the_match_adjustment_is_unbiased_and_narrows_the_standard_error() -> None:
    result, blocks = _match("gnubg", "live", 48, 7)
    luck = pair_luck_of(blocks)
    assert luck is not None
    assert abs(luck.mean()) < 4 * luck.std(ddof=1) / np.sqrt(len(luck))
    assert result.se_ratio is not None and result.se_ratio > 1.5
    assert result.to_json()["luck_adjusted"]["mwc"] == result.adjusted.value
