"""Phase routing: gnubg's crashed class, a crashed net where a file has one, old nets evaluating exactly as before."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from benchmarks.move_error import MoveErrorSet
from cube.efficiency import PositionClass
from engine.batch import crashed, phases
from engine.errors import InvalidWeights
from engine.ids import board_from_position_id
from engine.position import GamePhase, PhaseName, Position
from nets.encoding import Encoding
from nets.evaluator import (
    ALL_NETS,
    PHASE_NETS,
    Evaluator,
    evaluator_from_bytes,
    load_evaluator,
    possible_results,
    within_rules,
)
from nets.mlp import FrozenNet, NetConfig
from nets.model import recoded_evaluator, recoded_tensors
from nets.weights import weights_digest
from weights import DEFAULT_WEIGHTS

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


def test_crashed_agrees_with_gnubg_near_the_boundary() -> None:
    cases = json.loads((FIXTURES / "gnubg_crashed.json").read_text())["cases"]
    boards = np.stack([board_from_position_id(c["position_id"]) for c in cases])
    expected = np.array([c["gnubg_class"] == PositionClass.CRASHED.gnubg_code for c in cases])
    assert (phases(boards) == GamePhase.CONTACT).all()
    assert 0.3 < expected.mean() < 0.7  # both classes well represented
    assert np.array_equal(crashed(boards), expected)


def test_crashed_agrees_with_the_move_error_sets_classes() -> None:
    data = MoveErrorSet.load()
    boards = data.boards()
    assert np.array_equal(crashed(boards), data.gnubg_class == PositionClass.CRASHED.gnubg_code)


@pytest.mark.parametrize(
    ("own", "opponent", "expected"),
    [
        # 6 checkers left in play, one back on the 20: crashed
        ({20: 1, 5: 5}, {3: 1, 19: 14}, True),
        # 7 left in play: not crashed
        ({20: 1, 5: 6}, {3: 1, 19: 14}, False),
        # 9 left, 3 of them stacked on the ace: 6 in play
        ({20: 1, 5: 5, 1: 3}, {3: 1, 19: 14}, True),
        # 8 left, 3 on the deuce: two of them do not count, 6 in play
        ({20: 1, 5: 4, 2: 3}, {3: 1, 19: 14}, True),
        # a single checker on the ace counts
        ({20: 1, 5: 5, 1: 1}, {3: 1, 19: 14}, False),
        # the opponent crashed (6 checkers: one back on our 3, five home)
        ({20: 1, 5: 14}, {3: 1, 19: 5}, True),
        # no contact: a race is never crashed
        ({5: 6}, {19: 2}, False),
    ],
)
def test_crashed_by_hand(own: dict[int, int], opponent: dict[int, int], expected: bool) -> None:
    board = np.zeros(26, np.int8)
    for p, n in own.items():
        board[p] = n
    for p, n in opponent.items():
        board[p] = -n
    assert bool(crashed(board)[0]) is expected


def test_shipped_net_evaluates_bit_for_bit_as_before() -> None:
    """A regression snapshot: the default net (v1, no crashed net) gives exactly the numbers recorded before encoding
    v2 and crashed routing. It catches a change, not a wrong value: the net's quality is measured against gnubg by
    ``bench moves`` and the tournaments of docs/benchmarks.md, not by a test.

    The fixture is tools/nets_fixtures/gen_shipped_evals.py's; it names the weights it was made with.
    """
    with np.load(FIXTURES / "shipped_net_evals.npz") as z:
        boards, probabilities, digest = z["boards"], z["probabilities"], str(z["weights_digest"])
    assert weights_digest(DEFAULT_WEIGHTS) == digest, "the shipped net changed: rerun gen_shipped_evals.py"
    ev = load_evaluator()
    assert ev.encoding is Encoding.V1 and "crashed" not in ev.nets
    assert crashed(boards).sum() > 300  # the fixture holds crashed positions, which go to the contact net
    # The fixture holds what the nets gave before the evaluator applied the rules' gammon bounds
    # (nets.evaluator.possible_results): the same numbers once the bounds are applied to them.
    judged = phases(boards) <= GamePhase.RACE
    bounded = probabilities.copy()
    bounded[judged] = within_rules(
        probabilities[judged], possible_results(boards[judged], phases(boards)[judged] == GamePhase.RACE)
    )
    now = ev.evaluate_boards(boards)
    assert np.array_equal(now[judged], bounded[judged])  # the nets' positions: bit for bit
    # the bear-off database's rows are clipped to their bounds since 2026-11-27 (a win of 1 + 4e-16 before)
    np.testing.assert_allclose(now[~judged], bounded[~judged], rtol=0, atol=1e-15)
    assert (now[~judged] <= 1).all() and (now[~judged] >= 0).all()
    assert not np.array_equal(bounded, probabilities)  # some fixture positions are bounded


def _random_net(n_inputs: int, seed: int) -> FrozenNet:
    rng = np.random.default_rng(seed)
    config = NetConfig(n_inputs, (16, 8))
    return FrozenNet(config, {k: rng.normal(0, 0.3, s).astype(np.float32) for k, s in config.tensor_shapes().items()})


def _game_boards() -> np.ndarray:
    data = MoveErrorSet.load()
    return np.concatenate([data.boards()[::7], Position.initial().array[None]])


def test_crashed_positions_go_to_the_crashed_net() -> None:
    n = Encoding.V2.n_inputs
    nets = {"contact": _random_net(n, 1), "crashed": _random_net(n, 2), "race": _random_net(n, 3)}
    ev = Evaluator(nets, encoding=Encoding.V2)
    boards = _game_boards()
    smashed = crashed(boards)
    contact = (phases(boards) == GamePhase.CONTACT) & ~smashed
    race = phases(boards) == GamePhase.RACE
    assert smashed.sum() > 50 and contact.sum() > 50 and race.sum() > 50
    got = ev.evaluate_boards(boards)
    x = Encoding.V2.inputs(boards)
    possible = possible_results(boards, race)  # the rules' bounds, applied to every net's output
    for name, mask in (("crashed", smashed), ("contact", contact), ("race", race)):
        assert np.array_equal(got[mask], within_rules(nets[name].probabilities(x[mask]), possible[mask])), name
    without = Evaluator({"contact": nets["contact"], "race": nets["race"]}, encoding=Encoding.V2)
    assert np.array_equal(
        without.evaluate_boards(boards[smashed]),
        within_rules(nets["contact"].probabilities(x[smashed]), possible[smashed]),
    )


def test_v2_file_with_crashed_net_round_trips() -> None:
    n = Encoding.V2.n_inputs
    nets = {"contact": _random_net(n, 1), "crashed": _random_net(n, 2), "race": _random_net(n, 3)}
    data = Evaluator(nets, encoding=Encoding.V2).to_bytes({"note": "test"})
    back = evaluator_from_bytes(data, "mem")
    assert back.encoding is Encoding.V2 and set(back.nets) == {"contact", "crashed", "race"}
    assert back.header["encoding"] == "jumpgammon-v2" and back.header["n_inputs"] == n
    boards = _game_boards()
    assert np.array_equal(back.evaluate_boards(boards), Evaluator(nets, encoding=Encoding.V2).evaluate_boards(boards))


def test_phase_names_are_stored_as_the_same_plain_strings() -> None:
    assert ALL_NETS == ("contact", "crashed", "race") and PHASE_NETS == ("contact", "race")
    n = Encoding.V2.n_inputs
    nets: dict[str, FrozenNet] = {
        PhaseName.CONTACT: _random_net(n, 1),
        PhaseName.CRASHED: _random_net(n, 2),
        PhaseName.RACE: _random_net(n, 3),
    }
    ev = Evaluator(nets, encoding=Encoding.V2)
    assert [type(name) for name in ev.nets] == [str] * 3  # keys as a file and a message spell them
    back = evaluator_from_bytes(ev.to_bytes({"note": "test"}), "mem")
    assert list(back.nets) == list(ALL_NETS) and list(back.header["nets"]) == list(ALL_NETS)
    assert set(ev.routes(_game_boards())) == set(PhaseName)


def test_a_v1_net_recoded_to_v2_computes_the_same() -> None:
    shipped = load_evaluator(bearoff=False)
    boards = _game_boards()
    recoded = recoded_evaluator(shipped, Encoding.V2)
    assert recoded.encoding is Encoding.V2
    np.testing.assert_allclose(recoded.evaluate_boards(boards), shipped.evaluate_boards(boards), atol=1e-5)
    contact = shipped.nets["contact"]
    tensors = recoded_tensors(contact.tensors(), contact.config, Encoding.V2)
    frozen = FrozenNet(NetConfig(Encoding.V2.n_inputs, contact.config.hidden), tensors)
    contact_boards = boards[phases(boards) == GamePhase.CONTACT]
    assert np.array_equal(
        frozen.probabilities(Encoding.V2.inputs(contact_boards)),
        contact.probabilities(Encoding.V1.inputs(contact_boards)),
    )


def test_mismatched_encodings_are_refused() -> None:
    n1, n2 = Encoding.V1.n_inputs, Encoding.V2.n_inputs
    with pytest.raises(ValueError, match="jumpgammon-v2"):
        Evaluator({"contact": _random_net(n1, 1), "race": _random_net(n1, 2)}, encoding=Encoding.V2)
    with pytest.raises(ValueError, match="crashed optional"):
        Evaluator({"contact": _random_net(n2, 1)}, encoding=Encoding.V2)
    good = Evaluator({"contact": _random_net(n2, 1), "race": _random_net(n2, 2)}, encoding=Encoding.V2).to_bytes()
    bad = good.replace(b'"jumpgammon-v2"', b'"jumpgammon-v1"')
    with pytest.raises(InvalidWeights, match="encoding 'jumpgammon-v1' with 268 inputs"):
        evaluator_from_bytes(bad, "bad.jgw")
    unknown = good.replace(b'"jumpgammon-v2"', b'"jumpgammon-v9"')
    with pytest.raises(InvalidWeights, match="bad.jgw: encoding 'jumpgammon-v9'"):
        evaluator_from_bytes(unknown, "bad.jgw")


@pytest.mark.parametrize("text", ["v2", "jumpgammon-v2", " V2 "])
def test_encoding_names_parse(text: str) -> None:
    assert Encoding.parse(text) is Encoding.V2


def test_unknown_encoding_name_is_refused() -> None:
    with pytest.raises(ValueError, match="encoding 'v3': expected one of v1, v2"):
        Encoding.parse("v3")
