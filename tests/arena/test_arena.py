"""The arena: cube rules with scripted players, mirrored dice, statistics, replays, workers and Ray."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest

from arena import PlayerSpec, Rules, TournamentConfig, play_block, run_tournament, save_games
from arena.tournament import money_blocks, pair_statistics
from arena.workers import connect_ray
from cube.states import CubeAction, CubeResponse
from engine import Position
from engine.batch import children_batch
from engine.errors import RunawayGame
from engine.game import result_multipliers
from nets.weights import weights_digest
from players.base import CubeContext, Player
from players.pubeval import PubevalPlayer
from players.random_player import RandomPlayer
from weights import DEFAULT_WEIGHTS


class Scripted(Player):
    """Plays the first child; doubles whenever allowed (if ``doubles``); answers every double with ``answer``."""

    def __init__(self, name: str, doubles: bool, answer: CubeResponse) -> None:
        super().__init__(name)
        self.doubles = doubles
        self.answer = answer
        self.asked_states: list[str] = []

    def choose_moves(self, boards: np.ndarray, dice: np.ndarray) -> np.ndarray:
        kids, offsets = children_batch(boards, dice)
        return kids[offsets[:-1]]

    def double_actions(self, boards: np.ndarray, context: CubeContext) -> np.ndarray:
        self.asked_states += [str(s) for s in context.states]
        return np.full(len(boards), CubeAction.DOUBLE if self.doubles else CubeAction.NO_DOUBLE)

    def double_responses(self, boards: np.ndarray, doubler: CubeContext) -> np.ndarray:
        return np.full(len(boards), self.answer)


def _events(block_records: list[list[list[object]]] | None, game: int) -> list[list[object]]:
    assert block_records is not None
    return block_records[game]


def test_a_game_no_player_can_finish_raises_the_engines_runaway_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("engine.game.MAX_PLIES", 8)  # no game ends within 8 moves
    with pytest.raises(RunawayGame, match="passed 8 moves: a player cannot finish"):
        play_block((PubevalPlayer(), PubevalPlayer()), seed=1, first_pair=0, n_pairs=1, rules=Rules())


def test_a_pass_ends_the_game_at_the_current_cube_and_no_double_precedes_the_opening_roll() -> None:
    a = Scripted("doubler", doubles=True, answer=CubeResponse.PASS)
    b = Scripted("passer", doubles=True, answer=CubeResponse.PASS)
    res = play_block((a, b), seed=1, first_pair=0, n_pairs=8, rules=Rules(cubeful=True), record=True)
    for game in range(res.games):
        events = _events(res.records, game)
        assert events[0][1] == "roll"  # the opening roll is played before anyone may double
        assert [e[1] for e in events[1:3]] == ["double", "pass"]  # the second side doubles at once; the first passes
        assert res.passed[game] and abs(res.points_seat0[game]) == 1 and res.final_cube[game] == 1
        assert res.plies[game] == 1


def test_takes_hand_over_the_cube_and_only_its_owner_redoubles() -> None:
    a = Scripted("a", doubles=True, answer=CubeResponse.TAKE)
    b = Scripted("b", doubles=True, answer=CubeResponse.TAKE)
    rules = Rules(cubeful=True, max_cube=64)
    res = play_block((a, b), seed=2, first_pair=0, n_pairs=4, rules=rules, record=True)
    for game in range(res.games):
        owner, cube = None, 1
        for event in _events(res.records, game):
            if event[1] == "double":
                assert owner in (None, event[0])  # never doubles a cube the other side owns
                assert event[2] == cube * 2 <= 64
            elif event[1] == "take":
                cube, owner = cube * 2, event[0]
        assert res.final_cube[game] == cube
        assert abs(res.points_seat0[game]) == cube * res.multiplier[game]
    assert set(a.asked_states) <= {"centered", "owned"}  # never asked with the cube on the other side


def test_beavers_quadruple_the_cube_for_the_beaverer_and_are_takes_without_the_rule() -> None:
    a = Scripted("a", doubles=True, answer=CubeResponse.BEAVER)
    b = Scripted("b", doubles=False, answer=CubeResponse.BEAVER)
    with_rule = play_block(
        (a, b), seed=3, first_pair=0, n_pairs=2, rules=Rules(cubeful=True, beavers=True), record=True
    )
    without = play_block((a, b), seed=3, first_pair=0, n_pairs=2, rules=Rules(cubeful=True), record=False)
    for game in range(with_rule.games):
        seat_b = 1 - with_rule.seat_of_a[game]
        assert with_rule.beavers[game, seat_b] == 1 and with_rule.final_cube[game] == 4
        assert without.beavers[game].sum() == 0 and without.final_cube[game] == 2


def test_a_beaver_past_the_cube_limit_is_a_take_in_the_record_too() -> None:
    """With a limit of 8 the second double (to 4) cannot be beavered to 16: a take in the counts and the record."""
    a = Scripted("a", doubles=True, answer=CubeResponse.BEAVER)
    b = Scripted("b", doubles=True, answer=CubeResponse.BEAVER)
    rules = Rules(cubeful=True, beavers=True, max_cube=8)
    res = play_block((a, b), seed=3, first_pair=0, n_pairs=2, rules=rules, record=True)
    assert res.records is not None
    for game in range(res.games):
        answers = [event[1] for event in res.records[game] if event[1] in ("take", "beaver", "pass")]
        assert answers.count("beaver") == res.beavers[game].sum() == 1  # to 4, then a take to 8
        assert answers[1:] == ["take"] and res.final_cube[game] == 8


def test_jacoby_scores_gammons_only_after_a_double() -> None:
    a = PubevalPlayer()  # gammons the first-child player often; neither doubles
    b = Scripted("b", doubles=False, answer=CubeResponse.TAKE)
    plain = play_block((a, b), seed=4, first_pair=0, n_pairs=32, rules=Rules(cubeful=True))
    jacoby = play_block((a, b), seed=4, first_pair=0, n_pairs=32, rules=Rules(cubeful=True, jacoby=True))
    assert (plain.multiplier > 1).any(), "no gammon in these games: pick another seed"
    assert (jacoby.multiplier == 1).all()
    assert np.array_equal(np.sign(plain.points_seat0), np.sign(jacoby.points_seat0))


def test_result_multipliers() -> None:
    single = np.zeros(26, np.int8)
    single[3] = 2  # the loser (on roll in the child) has borne off 13
    gammon = np.zeros(26, np.int8)
    gammon[10] = 15
    backgammon = np.zeros(26, np.int8)
    backgammon[10], backgammon[20] = 14, 1  # a checker in the winner's home board
    on_bar = np.zeros(26, np.int8)
    on_bar[10], on_bar[25] = 14, 1
    assert list(result_multipliers(np.stack([single, gammon, backgammon, on_bar]))) == [1, 2, 3, 3]


@pytest.mark.parametrize("cubeful", [False, True])
def test_identical_players_with_mirrored_dice_score_exactly_zero(cubeful: bool) -> None:
    cfg = TournamentConfig(
        PlayerSpec("net@0", "janowski:0.7" if cubeful else "none"),
        PlayerSpec("net@0", "janowski:0.7" if cubeful else "none"),
        games=64,
        seed=5,
        rules=Rules(cubeful=cubeful),
    )
    result, _ = run_tournament(cfg, progress=False)
    assert result.ppg == 0.0 and result.se == 0.0
    assert result.a.wins + result.b.wins == 64 and result.a.wins == result.b.wins
    assert result.a.cube_disagreements == result.b.cube_disagreements == 0


def test_equal_players_that_differ_are_within_their_interval() -> None:
    """Two random players (different seeds: different moves, the same strength) land inside the 95% interval."""
    cfg = TournamentConfig(PlayerSpec("random:1"), PlayerSpec("random:2"), games=400, seed=6)
    result, _ = run_tournament(cfg, progress=False)
    assert result.se is not None and result.se > 0 and result.ci95 is not None
    assert result.ci95[0] <= 0.0 <= result.ci95[1]


def test_standard_error_and_interval_cover_a_known_mean_at_the_stated_rate() -> None:
    """Simulated pairs with a known true ppg: the 95% interval covers it in about 95% of tournaments."""
    rng = np.random.default_rng(7)
    values = np.array([-3, -2, -1, 1, 2, 3, 4])
    probs = np.array([0.02, 0.08, 0.35, 0.35, 0.12, 0.05, 0.03])
    true_ppg = float(values @ probs)
    trials, pairs, covered = 2000, 200, 0
    ses = []
    for _ in range(trials):
        games = rng.choice(values, p=probs, size=(pairs, 2)).astype(float)
        ppg, se, ci = pair_statistics(games.mean(axis=1))
        assert se is not None and ci is not None
        ses.append(se)
        covered += ci[0] <= true_ppg <= ci[1]
    rate = covered / trials
    # Binomial SE of the coverage rate at 95% over 2000 tournaments is 0.49%; allow 4 of them.
    assert abs(rate - 0.95) < 0.02, rate
    true_se = float(np.sqrt(((values - true_ppg) ** 2) @ probs / 2 / pairs))
    assert abs(np.mean(ses) / true_se - 1) < 0.02


def test_one_pair_has_no_standard_error() -> None:
    ppg, se, ci = pair_statistics(np.array([0.5]))
    assert ppg == 0.5 and se is None and ci is None


def test_saved_games_replay_move_by_move(tmp_path: Path) -> None:
    cfg = TournamentConfig(
        PlayerSpec("net@0", "janowski:0.6"), PlayerSpec("pubeval"), games=16, seed=8, rules=Rules(cubeful=True)
    )
    result, blocks = run_tournament(cfg, record=True, progress=False)
    path = tmp_path / "games.jsonl"
    save_games(path, result, blocks)
    lines = path.read_text().splitlines()
    assert json.loads(lines[0])["tournament"]["games"] == 16 and len(lines) == 17
    for line in lines[1:]:
        game = json.loads(line)
        position, cube, on_roll, last = Position.initial(), 1, None, None
        for event in game["events"]:
            seat, kind = event[0], event[1]
            if kind == "roll":
                assert on_roll is None or seat == on_roll
                child = Position.from_id(event[4])
                assert child in position.children((event[2], event[3]))
                position, on_roll, last = child, 1 - seat, seat
            elif kind == "take":
                cube *= 2
        assert game["cube"] == cube
        if game["passed"]:
            assert game["points"] == cube
        else:
            assert game["winner"] == last and position.is_over()
            assert game["points"] == cube * result_multipliers(position.array[None])[0]


@pytest.mark.slow  # spawns worker processes, each compiling its kernels
def test_workers_give_the_same_games_as_one_process(monkeypatch: pytest.MonkeyPatch) -> None:
    # The workers start with their own thread settings; the caller's environment is left as it was.
    monkeypatch.setenv("OPENBLAS_NUM_THREADS", "2")
    monkeypatch.delenv("NUMBA_NUM_THREADS", raising=False)
    environment = dict(os.environ)
    cfg = TournamentConfig(
        PlayerSpec("net@0", "janowski:0.7"),
        PlayerSpec("pubeval"),
        games=48,
        seed=9,
        rules=Rules(cubeful=True),
        block_pairs=8,
    )
    one, blocks_one = run_tournament(cfg, progress=False)
    two, blocks_two = run_tournament(cfg, workers=2, progress=False)
    assert [b.first_pair for b in blocks_two] == [0, 8, 16]
    for x, y in zip(money_blocks(blocks_one), money_blocks(blocks_two), strict=True):
        assert np.array_equal(x.points_seat0, y.points_seat0) and np.array_equal(x.final_cube, y.final_cube)
    assert one.ppg == two.ppg and one.se == two.se and one.a == two.a
    assert dict(os.environ) == environment


@pytest.mark.slow  # starts a Ray node
def test_ray_local_mode_gives_the_same_games() -> None:
    pytest.importorskip("ray", reason="Ray is an optional extra: pip install -e '.[ray]'")
    cfg = TournamentConfig(PlayerSpec("random:3"), PlayerSpec("pubeval"), games=32, seed=10, block_pairs=8)
    one, _ = run_tournament(cfg, progress=False)
    ray_result, blocks = run_tournament(cfg, ray_address="local", progress=False)
    assert len(blocks) == 2 and one.ppg == ray_result.ppg and one.a == ray_result.a
    ray = connect_ray("local")

    def threads() -> tuple[str | None, int]:
        import numba  # in the Ray task's process

        return os.environ.get("NUMBA_NUM_THREADS"), numba.get_num_threads()

    # A task per CPU, each on one numba thread: numba sized to every core in every task oversubscribes them.
    assert ray.get(ray.remote(threads).remote()) == ("1", 1)


def test_random_player_is_reproducible_whatever_the_batch() -> None:
    player = RandomPlayer(4)
    boards = np.stack([Position.initial().array] * 6)
    dice = np.array([[3, 1], [6, 5], [2, 2], [4, 1], [6, 6], [5, 3]])
    together = player.choose_moves(boards, dice)
    alone = np.concatenate([player.choose_moves(boards[i : i + 1], dice[i : i + 1]) for i in range(6)])
    assert np.array_equal(together, alone)


@pytest.mark.slow
def test_a_checkpointed_tournament_resumes_to_the_same_result(tmp_path: Path) -> None:
    """Stopped after its first block (and with a half-written line), the rerun plays only the rest: same result."""
    from arena import ledger

    cfg = TournamentConfig(
        PlayerSpec("net@0", "janowski:0.7"),
        PlayerSpec("pubeval"),
        games=48,
        seed=12,
        rules=Rules(cubeful=True),
        block_pairs=8,
    )
    whole, _ = run_tournament(cfg, progress=False)
    path = tmp_path / "ledger.jsonl"
    first_only = TournamentConfig(cfg.a, cfg.b, games=16, seed=12, rules=cfg.rules, block_pairs=8)
    _, blocks = run_tournament(first_only, progress=False)
    ledger.start(path, cfg, blocks[:1])
    with path.open("a") as f:
        f.write('{"first_pair": 8, "seat_of')  # a block cut short by a kill
    played: list[int] = []
    resumed, _ = run_tournament(cfg, progress=False, checkpoint=path, on_block=lambda b: played.append(b.first_pair))
    assert played == [8, 16]  # block 0 came from the ledger
    assert resumed.ppg == whole.ppg and resumed.se == whole.se and resumed.a == whole.a and resumed.b == whole.b
    assert len(path.read_text().splitlines()) == 4  # header and three blocks
    again, _ = run_tournament(cfg, progress=False, checkpoint=path, on_block=lambda b: played.append(b.first_pair))
    assert played == [8, 16] and again.ppg == whole.ppg  # nothing left to play
    assert again.games == 48 and again.games_per_second == 0.0  # the rate counts only games played now
    other = TournamentConfig(cfg.a, cfg.b, games=48, seed=13, rules=cfg.rules, block_pairs=8)
    with pytest.raises(ValueError, match="another tournament"):
        run_tournament(other, progress=False, checkpoint=path)


def test_a_ledger_knows_its_net_by_content_not_by_file_name(tmp_path: Path) -> None:
    """A copy of the shipped net continues a net@0 ledger; another net under the same file name is refused."""
    from weights import DEFAULT_WEIGHTS

    copy = tmp_path / "copy.jgw"
    copy.write_bytes(DEFAULT_WEIGHTS.read_bytes())
    b, rules = PlayerSpec("pubeval"), Rules()
    path = tmp_path / "ledger.jsonl"
    first = TournamentConfig(PlayerSpec("net@0"), b, games=16, seed=3, rules=rules, block_pairs=8)
    run_tournament(first, progress=False, checkpoint=path)
    header = json.loads(path.read_text().splitlines()[0])["tournament"]
    assert header["a"] == ["net@0", "none"] and header["nets"]["b"] is None
    assert header["nets"]["a"].startswith("sha256:")
    played: list[int] = []
    longer = TournamentConfig(PlayerSpec(f"net:{copy}@0"), b, games=32, seed=3, rules=rules, block_pairs=8)
    run_tournament(longer, progress=False, checkpoint=path, on_block=lambda blk: played.append(blk.first_pair))
    assert played == [8]  # the first block came from the ledger played as net@0
    data = bytearray(copy.read_bytes())
    data[-1] ^= 1  # one bit of the last tensor: another net in the same file
    copy.write_bytes(bytes(data))
    with pytest.raises(ValueError, match="other nets"):
        run_tournament(longer, progress=False, checkpoint=path)
    lines = path.read_text().splitlines()
    legacy = json.loads(lines[0])
    del legacy["tournament"]["nets"]
    path.write_text("\n".join([json.dumps(legacy), *lines[1:]]) + "\n")
    with pytest.raises(ValueError, match="records no digests"):
        run_tournament(first, progress=False, checkpoint=path)


def test_a_ledger_knows_a_jump_net_cube_by_its_volatility_net(tmp_path: Path) -> None:
    """Another volatility net behind the same jump-net spec is refused; a ledger from before the digest continues."""
    from arena import ledger
    from nets.volnet import DEFAULT_VOLNET

    volnet = tmp_path / "vol.jgw"
    volnet.write_bytes(DEFAULT_VOLNET.read_bytes())
    a, b = PlayerSpec("net@0", f"jump-net:0.1:{volnet}"), PlayerSpec("net@0", "janowski:0.7")
    cfg = TournamentConfig(a, b, games=16, seed=3, rules=Rules(cubeful=True), block_pairs=2)
    path = tmp_path / "ledger.jsonl"
    ledger.start(path, cfg, [])
    header = json.loads(path.read_text().splitlines()[0])["tournament"]
    assert header["cube_nets"]["a"].startswith("sha256:") and header["cube_nets"]["b"] is None
    assert ledger.load(path, cfg) == []
    data = bytearray(volnet.read_bytes())
    data[-1] ^= 1  # one bit of the last tensor: another net in the same file
    volnet.write_bytes(bytes(data))
    with pytest.raises(ValueError, match="other volatility nets"):
        ledger.load(path, cfg)
    del header["cube_nets"]
    path.write_text(json.dumps({"tournament": header}) + "\n")
    assert ledger.load(path, cfg) == []  # written before the digest: continued as it was written
    plain = TournamentConfig(b, PlayerSpec("pubeval"), games=16, seed=3, rules=Rules(cubeful=True), block_pairs=2)
    assert "cube_nets" not in ledger.describe(plain)  # other cubes keep the identity they had


@pytest.mark.slow
def test_a_ledger_is_extended_by_a_longer_run_and_serves_a_shorter_one(tmp_path: Path) -> None:
    """The length is not part of a ledger's identity: pair k is the same games in a run of any size."""
    a, b, rules = PlayerSpec("net@0", "janowski:0.7"), PlayerSpec("pubeval"), Rules(cubeful=True)
    short = TournamentConfig(a, b, games=20, seed=5, rules=rules, block_pairs=8)  # blocks of 8, 2 pairs
    long = TournamentConfig(a, b, games=40, seed=5, rules=rules, block_pairs=8)  # blocks of 8, 8, 4 pairs
    path = tmp_path / "ledger.jsonl"
    run_tournament(short, progress=False, checkpoint=path)
    played: list[int] = []
    extended, _ = run_tournament(long, progress=False, checkpoint=path, on_block=lambda b: played.append(b.first_pair))
    assert played == [8, 16]  # block 0 kept; the 2-pair block at 8 does not fit the longer run: played again
    whole, _ = run_tournament(long, progress=False)
    assert extended.ppg == whole.ppg and extended.se == whole.se and extended.a == whole.a
    played.clear()
    again_short, _ = run_tournament(
        short, progress=False, checkpoint=path, on_block=lambda b: played.append(b.first_pair)
    )
    assert played == [] and again_short.games == 20  # both of its blocks are in the ledger


def test_a_run_with_a_target_se_stops_at_the_first_block_that_reaches_it(tmp_path: Path) -> None:
    """--until-se keeps exactly the leading blocks of the full run up to the first block whose SE is on target,
    never fewer than 1,000 games, and a ledger that already holds them plays nothing more."""
    from dataclasses import replace

    from arena.tournament import MIN_UNITS_BEFORE_SE_STOP, prefix_se, stopping_prefix

    cfg = TournamentConfig(PlayerSpec("random:1"), PlayerSpec("random:2"), games=2400, seed=21, block_pairs=100)
    _, full = run_tournament(cfg, progress=False)
    ses = [prefix_se(full[:k]) for k in range(1, len(full) + 1)]
    target = ses[6]  # the SE after 1,400 games: some block from the fifth to the seventh first reaches it
    assert target is not None
    expected = next(k for k in range(5, len(full) + 1) if (se := ses[k - 1]) is not None and se <= target)
    assert 5 <= expected <= 7 and stopping_prefix(full, target) == expected
    early, blocks = run_tournament(cfg, progress=False, until_se=target)
    assert [b.first_pair for b in blocks] == [b.first_pair for b in full[:expected]]
    assert early.games == 200 * expected < cfg.games and early.se == ses[expected - 1]
    assert early.to_json()["until_se"] == {"target": target, "most": 2400}
    # never before 1,000 games, however loose the target; never where the target is not met
    assert 200 * stopping_prefix(full, 0.99) == MIN_UNITS_BEFORE_SE_STOP  # type: ignore[operator]
    assert stopping_prefix(full, min(s for s in ses if s is not None) / 2) is None
    # the luck-adjusted SE decides where every block has its luck: luck that is the whole result leaves SE 0
    lucky = [replace(b, luck_seat0=b.points_seat0.astype(float)) for b in money_blocks(full)]
    assert prefix_se(lucky) == 0.0 and stopping_prefix(lucky, 1e-9) == 5
    # a ledger of the whole run already holds the blocks: the rerun plays none and keeps the same prefix
    path = tmp_path / "ledger.jsonl"
    run_tournament(cfg, progress=False, checkpoint=path)
    played: list[int] = []
    again, _ = run_tournament(
        cfg, progress=False, checkpoint=path, until_se=target, on_block=lambda b: played.append(b.first_pair)
    )
    assert played == [] and again.games == early.games and again.ppg == early.ppg
    with pytest.raises(ValueError, match="target SE"):
        run_tournament(cfg, progress=False, until_se=0.0)


def test_a_result_names_its_nets_by_digest() -> None:
    cfg = TournamentConfig(PlayerSpec("net@0"), PlayerSpec("pubeval"), games=2, seed=1, luck_weights="")
    result, _ = run_tournament(cfg, progress=False)
    shipped = weights_digest(DEFAULT_WEIGHTS)
    assert result.to_json()["nets"] == {"a": shipped, "b": None, "luck": shipped}


@pytest.mark.parametrize(("pairs", "quantile"), [(2, 12.706), (10, 2.262), (29, 2.048), (30, 1.960)])
def test_few_pairs_widen_the_interval_by_students_t(pairs: int, quantile: float) -> None:
    """Student's t at n - 1 degrees of freedom (from its printed table) below 30 pairs, the normal 1.96 from 30 on."""
    points = np.resize([1.0, -1.0, 2.0, 0.0], pairs)
    mean, se, ci = pair_statistics(points)
    assert se is not None and ci is not None
    assert (ci[1] - mean) / se == pytest.approx(quantile, abs=1e-3)
