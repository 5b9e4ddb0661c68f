"""Match tournaments: the Crawford rule, scores, dead cubes, mirrored pairs, 1-point matches, ledgers, the CLI."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from arena import PlayerSpec, Rules, TournamentConfig, play_block
from arena.luck import reference_evaluator
from arena.matches import MatchBlockResult, play_match_block
from arena.stats import wilson_interval
from arena.tournament import run_tournament
from cli.main import main
from cube.match import MatchCube
from cube.met import published_met
from cube.states import CubeAction, CubeResponse
from engine.batch import children_batch
from players.base import CubeContext, Player
from players.pubeval import PubevalPlayer
from players.random_player import RandomPlayer
from players.specs import make_player


class AlwaysDoubles(Player):
    """Plays the first child; in a match doubles when asked (in one position of ``every``) and always takes.

    Which positions it doubles in follows from the board alone, so its play is reproducible.
    """

    def __init__(self, name: str, every: int = 1) -> None:
        super().__init__(name)
        self.every = every
        self.asked: list[MatchCube] = []

    def choose_moves(self, boards: np.ndarray, dice: np.ndarray) -> np.ndarray:
        kids, offsets = children_batch(boards, dice)
        return kids[offsets[:-1]]

    def double_actions(self, boards: np.ndarray, context: CubeContext) -> np.ndarray:
        assert context.cubes is not None
        self.asked += list(context.cubes)
        doubles = (np.abs(boards.astype(np.int64)) * np.arange(26)).sum(axis=1) % self.every == 0
        return np.where(doubles, CubeAction.DOUBLE, CubeAction.NO_DOUBLE)

    def double_responses(self, boards: np.ndarray, doubler: CubeContext) -> np.ndarray:
        return np.full(len(boards), CubeResponse.TAKE)


def check_match_rules(block: MatchBlockResult) -> dict[str, int]:
    """Replay each recorded match's scores and cube events against the rules; returns what was seen."""
    assert block.records is not None
    seen = {"crawford": 0, "post_crawford_trailer_doubles": 0, "doubles": 0}
    for m, games in enumerate(block.records):
        length = int(block.match_length[m])
        away = [length, length]
        crawford_done = False
        for k, game in enumerate(games):
            assert game["away"] == away
            expected_crawford = not crawford_done and min(away) == 1 and k > 0
            assert game["crawford"] == expected_crawford
            crawford_done |= expected_crawford
            cube = 1
            for event in game["events"]:  # type: ignore[attr-defined]
                if event[1] == "double":
                    seat = event[0]
                    assert not game["crawford"], "a double in the Crawford game"
                    assert away[seat] > cube, "a double by a side the cube already gives the match"
                    seen["doubles"] += 1
                    if crawford_done and not game["crawford"] and away[seat] > 1 == min(away):
                        seen["post_crawford_trailer_doubles"] += 1
                elif event[1] == "take":
                    cube *= 2
            assert game["cube"] == cube
            seen["crawford"] += game["crawford"]
            winner, points = int(game["winner"]), int(game["points"])  # type: ignore[call-overload]
            away[winner] = max(away[winner] - points, 0)  # points beyond the match count for nothing
            assert (away[winner] == 0) == (k == len(games) - 1), "the match ends exactly when a side reaches N"
        assert block.winner[m] == away.index(0)
        assert block.score[m, block.winner[m]] == length and block.score[m, 1 - block.winner[m]] < length
        assert block.games[m] == len(games)
    return seen


def test_crawford_rule_scores_and_dead_cubes_with_players_that_always_double() -> None:
    a, b = AlwaysDoubles("a", every=8), AlwaysDoubles("b", every=8)
    block = play_match_block((a, b), seed=3, first_pair=0, n_pairs=24, match_length=5, record=True)
    seen = check_match_rules(block)
    assert seen["crawford"] > 0 and seen["doubles"] > 0 and seen["post_crawford_trailer_doubles"] > 0
    # never asked in the Crawford game, nor holding a cube that already wins the match
    assert all(not c.score.crawford and c.score.away > c.value for c in a.asked + b.asked)
    assert block.crawford_games.sum() == seen["crawford"]


def test_a_one_point_match_is_the_money_pairs_cubeless_game() -> None:
    """No one may double at 1-away, so each 1-point match replays the money pair's first game."""
    players = (AlwaysDoubles("doubler"), PubevalPlayer())
    matches = play_match_block(players, seed=9, first_pair=5, n_pairs=16, match_length=1)
    money = play_block(players, seed=9, first_pair=5, n_pairs=16, rules=Rules())
    assert np.array_equal(matches.winner, money.winner)
    assert (matches.games == 1).all() and matches.doubles.sum() == 0


@pytest.mark.slow
def test_identical_players_win_exactly_half_of_mirrored_matches_and_trailers_double_post_crawford() -> None:
    met = published_met()
    player = make_player("net@0", "gnubg-match", met=met)
    block = play_match_block((player, player), seed=4, first_pair=0, n_pairs=6, match_length=5, record=True)
    a_won = (block.winner == block.seat_of_a).reshape(-1, 2)
    assert (a_won.sum(axis=1) == 1).all()  # each pair: one match each, so exactly 50%
    seen = check_match_rules(block)
    assert seen["crawford"] > 0 and seen["post_crawford_trailer_doubles"] > 0


def test_a_strong_player_wins_more_matches_than_a_random_one() -> None:
    cfg = TournamentConfig(
        PlayerSpec("pubeval"), PlayerSpec("random:1"), games=40, seed=2, rules=Rules(cubeful=True), match_length=3
    )
    result, _ = run_tournament(cfg, progress=False)
    assert result.se is not None and result.mwc - 3 * result.se > 0.5
    assert result.a.matches_won + result.b.matches_won == 40
    assert result.games == result.a.wins + result.b.wins


def test_a_checkpointed_match_tournament_resumes_to_the_same_result(tmp_path: Path) -> None:
    ledger = tmp_path / "ledger.jsonl"
    base = {"a": PlayerSpec("pubeval"), "b": PlayerSpec("random:3"), "seed": 1, "rules": Rules(cubeful=True)}
    cfg = TournamentConfig(**base, games=24, block_pairs=4, match_length=3)  # type: ignore[arg-type]
    whole, _ = run_tournament(cfg, progress=False)
    first, _ = run_tournament(
        TournamentConfig(**base, games=8, block_pairs=4, match_length=3),  # type: ignore[arg-type]
        progress=False,
        checkpoint=ledger,
    )
    assert first.matches == 8
    resumed, _ = run_tournament(cfg, progress=False, checkpoint=ledger)
    assert (resumed.mwc, resumed.se, resumed.games) == (whole.mwc, whole.se, whole.games)
    again, _ = run_tournament(cfg, progress=False, checkpoint=ledger)
    assert again.matches == 24 and again.matches_per_second == 0.0 and again.games_per_second == 0.0
    header = json.loads(ledger.read_text().splitlines()[0])["tournament"]
    assert header["match_length"] == 3
    other = TournamentConfig(**base, games=24, block_pairs=4, match_length=5)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="another tournament"):
        run_tournament(other, progress=False, checkpoint=ledger)


def test_match_decider_counts_and_random_players_have_no_match_cube() -> None:
    with pytest.raises(ValueError, match="no probabilities"):
        make_player("random:1", "gnubg-match", met=published_met())
    assert isinstance(make_player("random:1", "none", met=published_met()), RandomPlayer)


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["--match-length", "0"], "--match-length"),
        (["--match-length", "7", "--jacoby"], "--jacoby"),
        (["--match-length", "7", "--beavers"], "--beavers"),
        (["--match-length", "7", "--games", "10"], "--games"),
        (["--match-length", "7", "--matches", "3"], "even"),
        (["--matches", "10"], "needs --match-length"),
        (["--met", "Woolsey"], "needs --match-length"),
        (["--match-length", "7", "--a-cube", "jump:0.1"], "not a match cube strategy"),
        (["--match-length", "7", "--met", "nonesuch"], "unknown match equity table"),
    ],
)
def test_bad_match_options_are_one_line_errors(
    capsys: pytest.CaptureFixture[str], argv: list[str], needle: str
) -> None:
    code = main(["tournament", "--a", "pubeval", "--b", "random", *argv, "--json"])
    out = capsys.readouterr().out
    assert code == 2 and out.count("\n") == 1 and needle in json.loads(out)["error"]


def test_mat_writes_one_file_per_match(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """``--mat`` with ``--match-length`` was refused: each match is one file (gnubg reads them: test_mat.py)."""
    argv = ["tournament", "--a", "pubeval", "--b", "random:2", "--match-length", "3", "--matches", "2"]
    assert main([*argv, "--mat", str(tmp_path / "mats"), "--json"]) == 0
    files = sorted((tmp_path / "mats").iterdir())
    assert [f.name for f in files] == ["match_000000.mat", "match_000001.mat"]
    for f in files:
        text = f.read_text()
        assert " 3 point match" in text and text.count(" Game ") >= 2 and "pubeval : 0" in text


def test_match_tournament_json(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["tournament", "--a", "pubeval", "--b", "random:2", "--match-length", "2", "--matches", "4", "--json"]
    assert main(argv) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["match_length"] == 2 and out["matches"] == 4 and 0.0 <= out["mwc"] <= 1.0
    assert out["a"]["matches_won"] + out["b"]["matches_won"] == 4
    assert out["mean_games_per_match"] >= 1.0 and "se" in out and "matches_per_second" in out


def test_a_screened_match_luck_judges_the_same_matches_otherwise() -> None:
    met = published_met("Kazaross-XG2")
    luck = (reference_evaluator(None), met)
    players = (PubevalPlayer(), PubevalPlayer())
    every = play_match_block(players, seed=2, first_pair=0, n_pairs=2, match_length=3, luck=luck)
    screened = play_match_block(players, seed=2, first_pair=0, n_pairs=2, match_length=3, luck=luck, luck_screen=1)
    assert np.array_equal(every.winner, screened.winner) and np.array_equal(every.games, screened.games)
    assert every.luck_seat0 is not None and screened.luck_seat0 is not None
    assert not np.allclose(every.luck_seat0, screened.luck_seat0)


def test_a_few_match_pairs_get_wilsons_interval_not_a_point() -> None:
    cfg = TournamentConfig(
        PlayerSpec("pubeval"), PlayerSpec("random:1"), games=8, seed=2, rules=Rules(cubeful=True), match_length=3
    )
    result, _ = run_tournament(cfg, progress=False)
    assert result.ci95 == wilson_interval(result.mwc, 4)
    assert result.ci95[0] < result.mwc <= result.ci95[1] and result.ci95[1] - result.ci95[0] > 0.2


@pytest.mark.parametrize(
    ("share", "n", "low", "high"),
    [(0.0, 10, 0.0, 0.2775), (1.0, 4, 0.5101, 1.0), (0.5, 100, 0.4038, 0.5962)],  # Wilson's, to 4 places
)
def test_wilson_interval(share: float, n: int, low: float, high: float) -> None:
    assert wilson_interval(share, n) == pytest.approx((low, high), abs=1e-4)
