"""Weights file format: encode/decode on tiny nets, and clear errors for bad files."""

from __future__ import annotations

import json
import pickle
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch

from engine.errors import InvalidWeights
from nets.evaluator import Evaluator, load_evaluator, nets_from_bytes
from nets.mlp import NetConfig
from nets.model import PhaseNet, new_evaluator, torch_nets
from nets.weights import decode_weights, encode_weights, remove_stale_temporaries


def test_encode_decode_round_trip_on_tiny_tensors() -> None:
    tensors: dict[str, np.ndarray] = {
        "a": np.arange(6, dtype=np.float32).reshape(2, 3),
        "b": np.array([1.5], np.float64),
    }
    header, back = decode_weights(encode_weights({"note": "tiny"}, tensors))
    assert header["note"] == "tiny" and header["format_version"] == 1
    for k, v in tensors.items():
        assert back[k].dtype == v.dtype and np.array_equal(back[k], v)


def test_evaluator_round_trip_keeps_outputs(tmp_path: Path) -> None:
    ev = new_evaluator(hidden=(8,), seed=3)
    path = tmp_path / "tiny.jgw"
    ev.save(path, run={"trainer": "test"})
    ev2 = load_evaluator(path, bearoff=False)
    assert ev2.header["run"] == {"trainer": "test"}
    boards = np.stack([np.array(b, np.int8) for b in _some_boards()])
    assert np.allclose(ev.evaluate_boards(boards), ev2.evaluate_boards(boards), atol=1e-6)


def _some_boards() -> list[list[int]]:
    from engine import Position

    p = Position.initial()
    return [list(c.array) for c in p.children((3, 1))] + [list(p.array)]


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"not weights", "bad magic"),
        (b"JGWEIGHTS1\n\x05", "truncated"),
        (b"JGWEIGHTS1\n" + (5).to_bytes(8, "little") + b"{bad}", "not valid JSON"),
        (b"JGWEIGHTS1\n" + (2).to_bytes(8, "little") + b"{}", "format version"),
    ],
)
def test_bad_files_raise_naming_the_source(data: bytes, message: str) -> None:
    with pytest.raises(InvalidWeights, match=message) as info:
        decode_weights(data, source="bad.jgw")
    assert "bad.jgw" in str(info.value)


def test_out_of_range_tensor_is_rejected() -> None:
    data = encode_weights({}, {"w": np.zeros(4, np.float32)})
    with pytest.raises(InvalidWeights, match="out of range"):
        decode_weights(data[:-4])


def test_mismatched_architecture_is_rejected() -> None:
    ev = new_evaluator(hidden=(8,))
    data = ev.to_bytes()
    header, tensors = decode_weights(data)
    header["nets"]["race"]["hidden"] = [9]
    bad = encode_weights({k: v for k, v in header.items() if k not in ("tensors", "format_version")}, tensors)
    with pytest.raises(InvalidWeights, match="should be float32"):
        nets_from_bytes(bad, "mismatch.jgw")


def test_wrong_encoding_is_rejected() -> None:
    header, tensors = decode_weights(new_evaluator(hidden=(8,)).to_bytes())
    header["encoding"] = "something-else"
    bad = encode_weights({k: v for k, v in header.items() if k not in ("tensors", "format_version")}, tensors)
    with pytest.raises(InvalidWeights, match="encoding"):
        nets_from_bytes(bad, "other.jgw")


def test_a_pickle_is_never_executed(tmp_path: Path) -> None:
    path = tmp_path / "evil.jgw"
    path.write_bytes(pickle.dumps({"x": 1}))
    with pytest.raises(InvalidWeights, match="bad magic"):
        load_evaluator(path, bearoff=False)


def test_missing_file_is_named(tmp_path: Path) -> None:
    with pytest.raises(InvalidWeights, match="does not exist"):
        load_evaluator(tmp_path / "none.jgw", bearoff=False)


def test_evaluator_requires_both_phase_nets() -> None:
    with pytest.raises(ValueError, match="race"):
        Evaluator({"contact": PhaseNet(NetConfig(10, (4,)))})
    assert torch.is_tensor(next(PhaseNet(NetConfig(10, (4,))).parameters()))


def _raw_header(data: bytes) -> tuple[dict[str, Any], bytes]:
    n = int.from_bytes(data[11:19], "little")
    return json.loads(data[19 : 19 + n]), data[19 + n :]


def _with_header(header: Any, body: bytes) -> bytes:
    head = json.dumps(header).encode()
    return b"JGWEIGHTS1\n" + len(head).to_bytes(8, "little") + head + body


def _mutated(change: Callable[[dict[str, Any]], Any]) -> bytes:
    """A valid tiny weights file whose header ``change`` edited in place."""
    header, body = _raw_header(new_evaluator(hidden=(8,)).to_bytes())
    change(header)
    return _with_header(header, body)


def _header_is(value: Any) -> bytes:
    return _with_header(value, _raw_header(new_evaluator(hidden=(8,)).to_bytes())[1])


def _poison(value: float) -> bytes:
    ev = new_evaluator(hidden=(8,))
    first = next(torch_nets(ev)["race"].parameters())  # the first layer's weight matrix
    with torch.no_grad():
        first[0, 0] = value
    return ev.to_bytes()


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (_header_is([]), "JSON list, not an object"),
        (_header_is(7), "JSON int, not an object"),
        (_mutated(lambda h: h.pop("tensors")), "no tensor table"),
        (_mutated(lambda h: h["tensors"]["race.body.0.weight"].update(shape=["8", 220])), "shape"),
        (_mutated(lambda h: h["tensors"]["race.body.0.weight"].update(shape=[-8, 220])), "shape"),
        (_mutated(lambda h: h["tensors"]["race.body.0.weight"].update(shape=[1 << 40, 1 << 40])), "shape"),
        (_mutated(lambda h: h["tensors"]["race.body.0.weight"].update(shape=[8, 221])), "bytes for shape"),
        (_mutated(lambda h: h["tensors"]["race.body.0.weight"].update(nbytes=1 << 50)), "out of range"),
        (_mutated(lambda h: h["tensors"]["race.body.0.weight"].update(offset=-4)), "out of range"),
        (_mutated(lambda h: h["tensors"]["race.body.0.weight"].update(dtype="object")), "unknown dtype"),
        (_mutated(lambda h: h["tensors"]["race.body.0.weight"].pop("dtype")), "needs exactly"),
        (_mutated(lambda h: h["nets"]["race"].update(hidden=[-3])), "hidden layers"),
        (_mutated(lambda h: h["nets"]["race"].update(hidden=[0])), "hidden layers"),
        (_mutated(lambda h: h["nets"]["race"].update(hidden=[10**9])), "hidden layers"),
        (_mutated(lambda h: h["nets"]["race"].update(hidden=[8] * 50)), "hidden layers"),
        (_mutated(lambda h: h["nets"]["race"].update(hidden="8")), "integer sizes"),
        (_mutated(lambda h: h["nets"]["race"].update(hidden=[True])), "integer sizes"),
        (_mutated(lambda h: h["nets"].update(race=[])), "is not"),
        (_mutated(lambda h: h["nets"].pop("race")), "expected exactly"),
        (_mutated(lambda h: h["nets"].update(extra=h["nets"]["race"])), "expected exactly"),
        (_mutated(lambda h: h.update(nets=None)), "expected exactly"),
        (_mutated(lambda h: h.update(run=[1])), "run record"),
        (_mutated(lambda h: h.update(n_inputs="220")), "encoding"),
        (_poison(float("nan")), "NaN or infinite"),
        (_poison(float("inf")), "NaN or infinite"),
        (b"JGWEIGHTS1\n" + (1 << 62).to_bytes(8, "little") + b"{}", "header length"),
    ],
)
def test_malformed_weights_are_refused_before_any_net_is_built(data: bytes, message: str) -> None:
    with pytest.raises(InvalidWeights, match=message) as info:
        nets_from_bytes(data, "mutant.jgw")
    assert "mutant.jgw" in str(info.value)


def test_stale_temporaries_are_those_of_the_file_named_not_a_glob_of_it(tmp_path: Path) -> None:
    """``run[1].jgw``'s leftovers go; ``run1.jgw``'s (a match of the name read as a pattern) stay."""
    mine, other = tmp_path / "run[1].jgw.xyz.tmp", tmp_path / "run1.jgw.abc.tmp"
    mine.write_bytes(b"")
    other.write_bytes(b"")
    assert remove_stale_temporaries(tmp_path / "run[1].jgw") == [mine]
    assert other.exists() and not mine.exists()
