"""Hypothesis fuzzing of the command line and of the file loaders.

What is fuzzed:

- the weights loader (:func:`nets.evaluator.nets_from_bytes`) with random bytes and with
  mutations of a valid tiny weights file: bit flips, overwritten bytes, truncation, splices, and
  structured edits of its JSON header (a value replaced by random JSON, a key dropped or added,
  a tensor or a net claiming a huge shape), directly and through ``hint --weights`` and
  ``weights info``;
- the bearoff cache reader (:func:`nets.bearoff.read_npz`) with random bytes and damaged copies
  of a small valid archive (never the real cache files);
- position and match IDs given to ``show``, ``eval`` and ``hint``: random text, base64 text of
  the right lengths, and valid IDs of random legal boards and match states;
- finite but huge weights (set, scaled, byte-swapped), which must not make a loaded net give NaN;
- the option values of every subcommand: real option names with random values and random extra
  tokens; and one option at a time, whose refusal must name it.

The contract, checked for every case:

- exit code 0 with valid output: with ``--json`` stdout is exactly one JSON object (NaN and
  Infinity are refused when it is parsed); or exit code 2 with a one-line error: with ``--json``
  ``{"error": "..."}`` on stdout, without it an empty stdout and exactly one message line on
  stderr (tqdm progress bars aside);
- never a traceback, an exception escaping ``main``, or a hang (each case has a time limit);
- nothing is written outside the case's own temporary working directory: the shipped weights
  folder keeps its files and ``default.jgw`` its bytes;
- the loaders either return what a valid file holds or refuse with their own error type:
  :class:`engine.errors.InvalidWeights` naming the file, or ``(None, reason)`` for a cache file.

Cases that legitimately run long are capped rather than skipped: argparse applies the last
occurrence of an option but type-checks every one, so cheap values (``--games``, ``--parallel``,
``--repeats``, ``--grid``...) are appended after the fuzzed ones, which are still validated. A
command line that would run for minutes (``bench gnubg``, ``tournament --cubeful``) or reach
out of the machine (``--ray``) ends with an always-refused value, so it is only parsed. Files
written (``--out``, ``--save``...) get relative names only, so they land in the case's folder.
The explore profile (``HYPOTHESIS_PROFILE=explore``, see tests/conftest.py) runs five times
more examples with fresh randomness.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import io
import json
import math
import os
import re
import signal
import string
import tempfile
import tracemalloc
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import Any

import numpy as np
import pytest
import torch
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from hypothesis.control import currently_in_test_context

from cli.main import build_parser, main
from cube.met import DEFAULT_MET, published_met
from engine import JumpgammonError, MatchState, Position, parse_id_pair
from engine.errors import InvalidWeights
from nets.bearoff import read_npz, save_npz
from nets.encoding import encode
from nets.evaluator import nets_from_bytes
from nets.model import new_evaluator
from nets.weights import MAGIC, MAX_DIMENSION
from tests.engine.strategies import boards
from weights import DEFAULT_WEIGHTS, SHIPPED_DIR

START = "4HPwATDgc/ABMA"
START_MATCH = "cAkZAAAAAAAA"  # money game, dice 6-2 rolled
CASE_SECONDS = 20.0
EXPLORE_FACTOR = 5 if settings().max_examples > 100 else 1  # the explore profile asks for 2000
B64 = string.ascii_letters + string.digits + "+/"


def budget(examples: int) -> int:
    """Examples for one test: ``examples`` in CI, several times more under the explore profile."""
    return examples * EXPLORE_FACTOR


def fuzz_settings(examples: int) -> settings:
    """Per-test settings: an example budget, no deadline, slow examples allowed."""
    return settings(
        max_examples=budget(examples),
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )


# --- the harness: time limit, scratch directory, shipped folder, CLI capture --------------------------


class CaseTimeout(BaseException):
    """A case ran past its time limit (a BaseException, so no ``except Exception`` swallows it)."""


@contextlib.contextmanager
def time_limit(seconds: float) -> Iterator[None]:
    """Raise :class:`CaseTimeout` in the block if it runs longer than ``seconds``."""

    def on_alarm(signum: int, frame: FrameType | None) -> None:
        raise CaseTimeout(f"ran past {seconds} s")

    previous = signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def shipped_snapshot() -> tuple[str, tuple[str, ...]]:
    """Hash of the shipped net and the names in its folder (``__pycache__`` aside)."""
    digest = hashlib.sha256(DEFAULT_WEIGHTS.read_bytes()).hexdigest()
    return digest, tuple(sorted(p.name for p in SHIPPED_DIR.iterdir() if p.name != "__pycache__"))


SHIPPED_BEFORE = shipped_snapshot()


@contextlib.contextmanager
def scratch_dir() -> Iterator[Path]:
    """A fresh temporary working directory for one case; afterwards the shipped folder must be unchanged."""
    previous = os.getcwd()
    threads = torch.get_num_threads()
    with tempfile.TemporaryDirectory(prefix="jumpgammon-fuzz-") as tmp:
        os.chdir(tmp)
        try:
            yield Path(tmp)
        finally:
            os.chdir(previous)
            torch.set_num_threads(threads)  # train --threads changes torch's process-wide setting
    assert shipped_snapshot() == SHIPPED_BEFORE, "the shipped weights folder changed"


@dataclass(frozen=True)
class CliRun:
    """One in-process CLI call: its arguments, exit status and captured output."""

    argv: tuple[str, ...]
    code: int
    out: str
    err: str


def run_cli(argv: Sequence[str]) -> CliRun:
    """Run ``main(argv)`` under the time limit, capturing stdout and stderr; nothing may escape it."""
    out, err = io.StringIO(), io.StringIO()
    try:
        with time_limit(CASE_SECONDS), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(list(argv))
    except CaseTimeout:
        pytest.fail(f"main({list(argv)!r}) ran past {CASE_SECONDS} s")
    except (Exception, SystemExit) as exc:  # noqa: BLE001 - any escape is the failure being looked for
        pytest.fail(f"main({list(argv)!r}) raised {exc!r}; stderr: {err.getvalue()[-2000:]}")
    return CliRun(tuple(argv), code, out.getvalue(), err.getvalue())


def note(outcome: str) -> None:
    """Count an outcome for ``--hypothesis-show-statistics`` (nothing outside a Hypothesis test)."""
    if currently_in_test_context():
        event(outcome)


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} in the JSON output")


def strict_json(text: str) -> Any:
    """Parse JSON that may not hold NaN or Infinity."""
    return json.loads(text, parse_constant=_refuse_constant)


_PROGRESS_BAR = re.compile(r"\d+%\|.*\|")


def message_lines(stderr: str) -> list[str]:
    """The non-empty lines of ``stderr`` that are not tqdm progress bars."""
    lines = []
    for line in stderr.split("\n"):
        pieces = [p for p in line.split("\r") if p.strip()]
        if pieces and not all(_PROGRESS_BAR.search(p) for p in pieces):
            lines.append(line)
    return lines


def check_contract(run: CliRun) -> dict[str, Any]:
    """Assert exit 0 with valid output or exit 2 with one error line; returns the JSON object (or {}).

    ``--json`` among the arguments asks for JSON on stdout, errors included.
    """
    as_json = "--json" in run.argv
    note(f"{run.argv[0]}: exit {run.code}")
    where = f"main({list(run.argv)!r}) -> {run.code}\nstdout: {run.out[-1500:]!r}\nstderr: {run.err[-1500:]!r}"
    assert "Traceback" not in run.out and "Traceback" not in run.err, where
    assert run.code in (0, 2), where
    if not as_json:
        if run.code == 2:
            assert run.out == "", where
            assert len(message_lines(run.err)) == 1, where
        else:
            assert run.out.strip(), where
        return {}
    assert run.out.endswith("\n") and run.out.count("\n") == 1, where
    try:
        obj = strict_json(run.out)
    except ValueError as exc:
        pytest.fail(f"stdout is not strict JSON ({exc}): {where}")
    assert isinstance(obj, dict), where
    if run.code == 2:
        assert set(obj) == {"error"} and isinstance(obj["error"], str), where
        assert obj["error"].strip() and "\n" not in obj["error"], where
    else:
        assert "error" not in obj, where
    return obj


def error_of(run: CliRun) -> str:
    """The error message of a refused ``--json`` call."""
    assert run.code == 2
    message = strict_json(run.out)["error"]
    assert isinstance(message, str)
    return message


# --- files the cases use ----------------------------------------------------------------------------

TINY_WEIGHTS = new_evaluator(hidden=(8,), seed=3).to_bytes()
OTHER_WEIGHTS = new_evaluator(hidden=(4, 4), seed=4).to_bytes()
HEADER_START = len(MAGIC) + 8
HEADER_END = HEADER_START + int.from_bytes(TINY_WEIGHTS[len(MAGIC) : HEADER_START], "little")
_RACE = np.zeros(26, np.int8)
_RACE[[3, 5, 8, 12]], _RACE[[14, 20, 23]] = [4, 4, 4, 3], -5  # no contact left: what the race net sees
PROBE_INPUTS = encode(np.stack([Position.initial().array, Position.initial().flip().array, Position(_RACE).array]))


def write_case_files(folder: Path) -> None:
    """Files the fuzzed command lines may name: a valid tiny net and a damaged copy."""
    (folder / "tiny.jgw").write_bytes(TINY_WEIGHTS)
    (folder / "corrupt.jgw").write_bytes(TINY_WEIGHTS[: len(TINY_WEIGHTS) // 2])
    (folder / "ids.txt").write_text(f"{START}\n# a comment\n{START}:{START_MATCH}\n")


def leftover_temporaries(folder: Path) -> list[Path]:
    """Temporary files an atomic write left behind under ``folder``."""
    return [p for p in folder.rglob("*.tmp") if p.is_file()]


# --- 1. weights files ---------------------------------------------------------------------------------


def _apply_flips(data: bytes, flips: list[tuple[int, int]]) -> bytes:
    buf = bytearray(data)
    for index, mask in flips:
        buf[index % len(buf)] ^= mask
    return bytes(buf)


def _apply_overwrite(data: bytes, at: int, chunk: bytes) -> bytes:
    at %= len(data)
    return data[:at] + chunk + data[at + len(chunk) :]


def _reencode(header: dict[str, Any], body: bytes) -> bytes:
    head = json.dumps(header).encode("utf-8")
    return MAGIC + len(head).to_bytes(8, "little") + head + body


def _split(data: bytes) -> tuple[dict[str, Any], bytes]:
    header = json.loads(data[HEADER_START:HEADER_END])
    assert isinstance(header, dict)
    return header, data[HEADER_END:]


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every path (keys and indices) to a value inside a JSON document, the root excluded."""
    found: list[tuple[Any, ...]] = []
    items: list[tuple[Any, Any]] = []
    if isinstance(value, dict):
        items = list(value.items())
    elif isinstance(value, list):
        items = list(enumerate(value))
    for key, child in items:
        found.append((*prefix, key))
        found.extend(_paths(child, (*prefix, key)))
    return found


def _set_path(document: Any, path: tuple[Any, ...], value: Any) -> None:
    for key in path[:-1]:
        document = document[key]
    document[path[-1]] = value


def _drop_path(document: Any, path: tuple[Any, ...]) -> None:
    for key in path[:-1]:
        document = document[key]
    del document[path[-1]]


HEADER_PATHS = _paths(_split(TINY_WEIGHTS)[0])
odd_ints = st.sampled_from([-(2**63), -1, 0, 1, 2, 5, 220, 2**31, 2**63, 10**30, MAX_DIMENSION, MAX_DIMENSION + 1])
json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | odd_ints
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=8,
)


@st.composite
def header_edits(draw: st.DrawFn) -> bytes:
    """The tiny file with one value of its header replaced, dropped or added, the length re-encoded."""
    header, body = _split(TINY_WEIGHTS)
    path = draw(st.sampled_from(HEADER_PATHS))
    action = draw(st.sampled_from(["replace", "drop", "add"]))
    if action == "replace":
        _set_path(header, path, draw(json_values))
    elif action == "drop":
        _drop_path(header, path)
    else:
        parent = header
        for key in path[:-1]:
            parent = parent[key]
        if isinstance(parent, dict):
            parent[draw(st.text(max_size=8))] = draw(json_values)
        else:
            parent.append(draw(json_values))
    return _reencode(header, body)


@st.composite
def huge_claims(draw: st.DrawFn) -> bytes:
    """The tiny file with a tensor or a net claiming a huge shape, its byte count to match."""
    header, body = _split(TINY_WEIGHTS)
    if draw(st.booleans()):
        name = draw(st.sampled_from(sorted(header["tensors"])))
        shape = draw(
            st.lists(st.sampled_from([MAX_DIMENSION, MAX_DIMENSION + 1, 2**31, 2**40]), min_size=1, max_size=5)
        )
        entry = header["tensors"][name]
        entry["shape"] = shape
        entry["nbytes"] = 4 * math.prod(shape)
        entry["offset"] = draw(st.sampled_from([0, entry["offset"]]))
    else:
        net = draw(st.sampled_from(["contact", "race"]))
        header["nets"][net]["hidden"] = draw(
            st.lists(st.sampled_from([2048, 2049, 10**6, 2**31]), min_size=1, max_size=5)
        )
    return _reencode(header, body)


@st.composite
def extreme_weights(draw: st.DrawFn) -> bytes:
    """The tiny file with one tensor's (finite) values made large: some set, all set, scaled or byte-swapped."""
    header, body = _split(TINY_WEIGHTS)
    entry = header["tensors"][draw(st.sampled_from(sorted(header["tensors"])))]
    values = np.frombuffer(body, "<f4", count=entry["nbytes"] // 4, offset=entry["offset"]).copy()
    how = draw(st.sampled_from(["set", "fill", "scale", "byteswap"]))
    if how == "fill":  # alternate signs, so that a layer's sums can overflow both ways
        fill = np.float32(draw(st.sampled_from([3e38, 1e38, 1e30, 1e20])))
        values[0::2], values[1::2] = fill, -fill
    elif how == "set":
        large = st.sampled_from([3e38, -3e38, 1e30, -1e30]) | st.floats(width=32, allow_nan=False, allow_infinity=False)
        spots = st.tuples(st.integers(0, len(values) - 1), large)
        for index, value in draw(st.lists(spots, min_size=1, max_size=8)):
            values[index] = value
    elif how == "scale":
        with np.errstate(over="ignore"):
            values *= np.float32(draw(st.sampled_from([1e4, 1e10, 1e20, 1e30, 1e37, -1e38])))
    else:
        values = values.byteswap()
    at = HEADER_END + entry["offset"]
    return TINY_WEIGHTS[:at] + values.astype("<f4").tobytes() + TINY_WEIGHTS[at + entry["nbytes"] :]


index_in_header = st.integers(0, HEADER_END - 1)
index_anywhere = st.integers(0, len(TINY_WEIGHTS) - 1)
index_in_body = st.integers(HEADER_END, len(TINY_WEIGHTS) - 1)
damaged_weights = st.one_of(
    st.binary(max_size=400),
    st.binary(max_size=200).map(lambda tail: MAGIC + tail),
    st.lists(st.tuples(index_in_header | index_anywhere, st.integers(1, 255)), min_size=1, max_size=6).map(
        lambda flips: _apply_flips(TINY_WEIGHTS, flips)
    ),
    st.lists(st.tuples(index_in_body, st.integers(1, 255)), min_size=1, max_size=6).map(
        lambda flips: _apply_flips(TINY_WEIGHTS, flips)
    ),
    st.tuples(index_in_body, st.binary(min_size=4, max_size=16)).map(
        lambda edit: _apply_overwrite(TINY_WEIGHTS, *edit)
    ),
    st.tuples(index_in_header | index_anywhere, st.binary(min_size=1, max_size=16)).map(
        lambda edit: _apply_overwrite(TINY_WEIGHTS, *edit)
    ),
    st.integers(0, len(TINY_WEIGHTS) - 1).map(lambda end: TINY_WEIGHTS[:end]),
    st.tuples(index_anywhere, index_anywhere, st.binary(max_size=32)).map(
        lambda s: TINY_WEIGHTS[: min(s[0], s[1])] + s[2] + TINY_WEIGHTS[max(s[0], s[1]) :]
    ),
    st.tuples(index_anywhere, st.integers(0, len(OTHER_WEIGHTS) - 1)).map(
        lambda s: TINY_WEIGHTS[: s[0]] + OTHER_WEIGHTS[s[1] :]
    ),
    header_edits(),
    huge_claims(),
    extreme_weights(),
)


LOAD_SECONDS = 5.0
LOAD_PEAK_BYTES = 32 << 20  # the files are a few kB: a loader allocating more trusted a size it read


@contextlib.contextmanager
def traced_peak(limit: int) -> Iterator[None]:
    """Fail if the block's Python and numpy allocations (the nets' weights included) peak above ``limit`` bytes."""
    tracemalloc.start()
    try:
        yield
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak <= limit, f"loading allocated {peak:,} bytes at its peak"


def check_weights_bytes(data: bytes) -> None:
    """Load ``data``: finite nets, or InvalidWeights naming the file; quickly, without a big allocation."""
    try:
        with time_limit(LOAD_SECONDS), traced_peak(LOAD_PEAK_BYTES):
            nets, header = nets_from_bytes(data, "x.jgw")
    except InvalidWeights as exc:
        assert "x.jgw" in str(exc)
        note("refused")
        return
    except CaseTimeout:
        pytest.fail(f"loading took more than {LOAD_SECONDS} s")
    note("loaded")
    assert isinstance(header, dict) and set(nets) == {"contact", "race"}
    for net in nets.values():
        out = net.probabilities(PROBE_INPUTS)
        assert out.shape == (len(PROBE_INPUTS), 5)
        assert np.isfinite(out).all() and (out >= 0).all() and (out <= 1).all()


def test_the_valid_tiny_file_loads() -> None:
    """The file every mutation starts from is itself valid (so a refusal means the mutation)."""
    nets, _ = nets_from_bytes(TINY_WEIGHTS, "x.jgw")
    assert nets["contact"].config.hidden == (8,)


@fuzz_settings(150)
@given(damaged_weights)
def test_weights_loader_refuses_or_loads_finite_nets(data: bytes) -> None:
    """Every byte string either loads as finite nets or is refused as InvalidWeights naming the file."""
    check_weights_bytes(data)


WRONG_TYPES: list[Any] = [None, True, -1, 2**64, 1.5, "x", [], [1, 2], {}, {"a": 1}]


def test_every_header_value_of_the_wrong_type_is_refused() -> None:
    """Each value of the header in turn replaced by each JSON type (the explore profile found a list as a dtype)."""
    for path in HEADER_PATHS:
        for value in WRONG_TYPES:
            header, body = _split(TINY_WEIGHTS)
            _set_path(header, path, value)
            try:
                check_weights_bytes(_reencode(header, body))
            except (Exception, pytest.fail.Exception) as exc:
                raise AssertionError(f"header value at {path!r} set to {value!r}") from exc


@fuzz_settings(60)
@given(extreme_weights())
def test_weights_with_large_values_load_finite_or_are_refused(data: bytes) -> None:
    """Finite but huge weights must not make a loaded net answer NaN: they load finite or are refused."""
    check_weights_bytes(data)


@fuzz_settings(40)
@given(damaged_weights, st.booleans())
def test_weights_files_through_the_cli(data: bytes, hint: bool) -> None:
    """``hint --weights`` and ``weights info`` on a damaged file: a result or one JSON error naming it."""
    with scratch_dir() as tmp:
        (tmp / "fuzzed.jgw").write_bytes(data)
        if hint:
            run = run_cli(["hint", START, "--dice", "3", "1", "--weights", "fuzzed.jgw", "--json"])
        else:
            run = run_cli(["weights", "info", "fuzzed.jgw", "--json"])
        obj = check_contract(run)
        if run.code == 2:
            assert "fuzzed.jgw" in obj["error"]
        elif hint:
            assert obj["moves"] and obj["position_id"] == START
        else:
            assert obj["file"] == "fuzzed.jgw"


# --- 2. bearoff cache files ---------------------------------------------------------------------------

CACHE_ARRAYS = {"version": np.array(1), "a": np.arange(6.0)}
CACHE_EXPECTED = {"a": ((6,), "f8")}


def _valid_cache_bytes() -> bytes:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "cache.npz"
        save_npz(path, CACHE_ARRAYS)
        return path.read_bytes()


VALID_CACHE = _valid_cache_bytes()
cache_index = st.integers(0, len(VALID_CACHE) - 1)
damaged_caches = st.one_of(
    st.binary(max_size=300),
    st.binary(max_size=200).map(lambda tail: b"PK\x03\x04" + tail),
    st.binary(max_size=200).map(lambda tail: b"\x93NUMPY\x01\x00" + tail),
    st.integers(0, len(VALID_CACHE) - 1).map(lambda end: VALID_CACHE[:end]),
    st.lists(st.tuples(cache_index, st.integers(1, 255)), min_size=1, max_size=4).map(
        lambda flips: _apply_flips(VALID_CACHE, flips)
    ),
    st.tuples(cache_index, st.binary(min_size=1, max_size=12)).map(lambda edit: _apply_overwrite(VALID_CACHE, *edit)),
)


def test_the_valid_cache_file_reads() -> None:
    """The archive every mutation starts from reads back exactly."""
    with scratch_dir() as tmp:
        (tmp / "cache.npz").write_bytes(VALID_CACHE)
        arrays, reason = read_npz(tmp / "cache.npz", CACHE_EXPECTED, 1)
    assert arrays is not None and reason == ""
    assert np.array_equal(arrays["a"], CACHE_ARRAYS["a"])


@fuzz_settings(150)
@given(damaged_caches, st.sampled_from([1, 2]))
def test_bearoff_cache_reader_never_raises(data: bytes, version: int) -> None:
    """A damaged cache file reads as (None, reason) or as the exact arrays; it never raises."""
    with scratch_dir() as tmp:
        path = tmp / "cache.npz"
        path.write_bytes(data)
        with time_limit(CASE_SECONDS):
            arrays, reason = read_npz(path, CACHE_EXPECTED, version)
    note("refused" if arrays is None else "read")
    if arrays is None:
        assert isinstance(reason, str) and reason.strip()
        return
    assert version == 1 and reason == "" and set(arrays) == {"a"}
    assert arrays["a"].dtype == np.float64 and np.array_equal(arrays["a"], CACHE_ARRAYS["a"])


# --- 3. position and match IDs ------------------------------------------------------------------------

match_states = st.builds(
    MatchState,
    cube=st.sampled_from([1, 2, 4, 64, 4096, 8192]),
    cube_owner=st.sampled_from([None, 0, 1]),
    on_roll=st.integers(0, 1),
    crawford=st.booleans(),
    game_state=st.integers(0, 4),
    turn=st.integers(0, 1),
    doubled=st.booleans(),
    resigned=st.integers(0, 3),
    dice=st.one_of(st.just((0, 0)), st.tuples(st.integers(1, 6), st.integers(1, 6))),
    match_length=st.sampled_from([0, 0, 0, 1, 3, 7, 25, 32767]),
    score=st.tuples(st.integers(0, 8), st.integers(0, 8)),
    extra_bits=st.integers(0, 63),
)


money_games = st.builds(
    MatchState,
    cube=st.sampled_from([1, 2, 64, 4096]),
    cube_owner=st.sampled_from([None, 0, 1]),
    on_roll=st.integers(0, 1),
    turn=st.integers(0, 1),
    dice=st.one_of(st.just((0, 0)), st.tuples(st.integers(1, 6), st.integers(1, 6))),
    extra_bits=st.integers(0, 63),
)


@st.composite
def legal_ids(draw: st.DrawFn) -> str:
    """The ID of a random legal board (a finished game included), with a match ID (playable or not) or none."""
    position = Position(draw(boards(min_checkers=0)))
    match = draw(st.none() | money_games | match_states)
    return position.id if match is None else f"{position.id}:{match.id}"


def _replace_char(text: str, at: int, char: str) -> str:
    at %= len(text)
    return text[:at] + char + text[at + 1 :]


def b64_text(length: int) -> st.SearchStrategy[str]:
    """Text of ``length`` characters from the ID alphabet."""
    return st.text(alphabet=B64, min_size=length, max_size=length)


id_texts = st.one_of(
    legal_ids(),
    legal_ids(),
    legal_ids(),
    st.tuples(legal_ids(), st.integers(0, 26), st.sampled_from(list(B64 + ": -=\x00é"))).map(
        lambda edit: _replace_char(*edit)
    ),
    b64_text(14),
    st.tuples(b64_text(14), b64_text(12)).map(":".join),
    st.tuples(b64_text(14), st.sampled_from([":", "::", " : ", ":\n"]), b64_text(12)).map("".join),
    st.text(alphabet=B64 + ":= \t", max_size=32),
    st.text(max_size=30),
)


def expected_parse(text: str) -> Position | None:
    """The position an ID names, or None when the library refuses it (as a bad-input error)."""
    try:
        return parse_id_pair(text)[0]
    except JumpgammonError:
        return None


def expected_evaluable(text: str) -> Position | None:
    """As :func:`expected_parse`, and None for a match at a score longer than the default table covers
    (``eval`` and ``hint`` work in match-winning chances there)."""
    try:
        position, match = parse_id_pair(text)
    except JumpgammonError:
        return None
    if match is not None and match.match_length > published_met(DEFAULT_MET).length:
        return None
    return position


def _looks_like_option(text: str) -> bool:
    """Whether argparse reads the token as an option rather than as the positional ID."""
    return text.startswith("-")


@fuzz_settings(40)
@given(boards(min_checkers=0))
def test_the_id_of_any_legal_board_is_shown(board: np.ndarray) -> None:
    """Every legal board, a finished game included, has an ID that ``show`` accepts and decodes back."""
    position = Position(board)
    with scratch_dir():
        run = run_cli(["show", position.id, "--json"])
    obj = check_contract(run)
    assert run.code == 0 and obj["board"] == board.tolist(), run


@fuzz_settings(100)
@given(id_texts, st.booleans())
def test_show_takes_any_text(text: str, as_json: bool) -> None:
    """``show``: a valid ID prints its board (exit 0), anything else is one error line (exit 2)."""
    position = expected_parse(text)
    with scratch_dir():
        run = run_cli(["show", text, *(["--json"] if as_json else [])])
    obj = check_contract(run)
    if _looks_like_option(text):
        return
    assert run.code == (0 if position is not None else 2), run
    if as_json and position is not None:
        assert obj["position_id"] == position.id and len(obj["board"]) == 26


@pytest.mark.slow
@fuzz_settings(30)
@given(id_texts)
def test_eval_takes_any_text(text: str) -> None:
    """``eval --plies 0``: a valid ID is evaluated with finite numbers, anything else is refused."""
    position = expected_evaluable(text)
    with scratch_dir():
        run = run_cli(["eval", text, "--plies", "0", "--json"])
    obj = check_contract(run)
    if _looks_like_option(text):
        return
    assert run.code == (0 if position is not None else 2), run
    if position is not None:
        assert obj["position_id"] == position.id
        p = obj["probabilities"]
        assert 0 <= p["win_backgammon"] <= p["win_gammon"] <= p["win"] <= 1
        assert -3 <= obj["cubeless_equity"] <= 3


@fuzz_settings(60)
@given(id_texts, st.tuples(st.integers(1, 6), st.integers(1, 6)), st.booleans())
def test_hint_takes_any_text(text: str, dice: tuple[int, int], as_json: bool) -> None:
    """``hint --dice A B``: a live game ranks its plays, a finished one says so, anything else is refused."""
    position = expected_evaluable(text)
    with scratch_dir():
        run = run_cli(["hint", text, "--dice", str(dice[0]), str(dice[1]), *(["--json"] if as_json else [])])
    obj = check_contract(run)
    if _looks_like_option(text):
        return
    if position is None:
        assert run.code == 2, run
    elif position.is_over():
        assert run.code == 2 and "game is over" in (obj["error"] if as_json else run.err), run
    else:
        assert run.code == 0, run
        if as_json:
            assert obj["position_id"] == position.id and obj["moves"] and obj["dice"] == list(dice)


# --- 4. option values ---------------------------------------------------------------------------------


def subparsers() -> dict[str, argparse.ArgumentParser]:
    """Each subcommand's parser, as the CLI builds it; a subcommand with actions of its own (``weights info``,
    ``supervised fit``) by each action, its name the words of the command line."""
    parser = build_parser()
    (sub,) = (a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    found: dict[str, argparse.ArgumentParser] = {}
    for name, command in sub.choices.items():
        nested = [a for a in command._actions if isinstance(a, argparse._SubParsersAction)]
        for action in nested:
            found |= {f"{name} {verb}": p for verb, p in action.choices.items()}
        if not nested:
            found[name] = command
    return found


SUBPARSERS = subparsers()
COMMANDS = tuple(SUBPARSERS)


def options_of(command: str) -> dict[str, argparse.Action]:
    """The options of a subcommand by their long name (``--help`` and ``--json`` aside)."""
    found = {}
    for action in SUBPARSERS[command]._actions:
        names = [s for s in action.option_strings if s.startswith("--")]
        if names and names[0] not in ("--help", "--json"):
            found[names[0]] = action
    return found


int_texts = st.one_of(
    st.integers(-(10**6), 10**6).map(str),
    st.integers().map(str),
    st.sampled_from(["0", "-1", "1", "2", "3", "99999999999999999999999", "1e3", "0x10", " 3", "+2", "1_0", "٣", ""]),
)
float_texts = st.one_of(
    st.floats().map(repr),
    st.floats(0, 3).map(str),
    st.sampled_from(["nan", "NaN", "inf", "-inf", "Infinity", "1e999", "1e-320", "-0", "0.5", "1.5", ".1", "1,5"]),
)
any_texts = st.text(max_size=16)
value_texts = st.one_of(int_texts, float_texts, any_texts)

WEIGHT_FILES = ["tiny.jgw", "corrupt.jgw", str(DEFAULT_WEIGHTS), "missing.jgw", ".", ""]
PLAYER_SPECS = [
    "pubeval",
    "random",
    "random:3",
    "random:x",
    "net@0",
    "net@1",
    "net@3",
    f"net:{DEFAULT_WEIGHTS}@0",
    "net:corrupt.jgw@0",
    "net:missing.jgw@0",
    "gnubg@0",
    "jumpgammon",
    "tiny.jgw",
    "",
]
FIBS_OPENING = (
    "board:You:Opponent:9999:0:0:0:2:0:0:0:0:-5:0:-3:0:0:0:5:-5:0:0:0:3:0:5:0:0:0:0:-2:0"
    ":1:2:1:0:0:1:1:1:0:1:1:25:0:0:0:0:0:2:0:0:0"
)
CUBE_SPECS = ["none", "dead", "live", "janowski:0.7", "janowski:0.6,0.7", "janowski:2", "jump:0.1", "jump:x", "gnubg"]

# Values that make an option do something, and near misses (besides the junk of value_texts). Paths are
# relative, so a file written lands in the case's working directory.
GOOD_VALUES: dict[str, st.SearchStrategy[str]] = {
    "--plies": st.sampled_from(["0", "1", "2"]),
    "--weights": st.sampled_from(WEIGHT_FILES),
    "--start": st.sampled_from(WEIGHT_FILES),
    "--dice": st.integers(0, 7).map(str),
    "--device": st.sampled_from(["cpu", "cuda", "cuda:0", "cuda:x", "gpu", "cpu:0"]),
    "--W": st.floats(1, 3).map(str),
    "--L": st.floats(1, 3).map(str),
    "--model": st.sampled_from(["dead", "live", "janowski", "jump-linear", "jump-nonlinear", "jump-numerical"]),
    "--x": st.floats(0, 1).map(str),
    "--x1": st.floats(0, 1).map(str),
    "--x2": st.floats(0, 1).map(str),
    "--alpha": st.floats(0, 0.5).map(str),
    "--local-alpha": st.floats(0, 0.5).map(str),
    "--distribution": st.sampled_from(["gaussian", "double-exponential"]),
    "--grid": st.sampled_from(["20", "100", "400", "2000", "2001"]),
    "--at": st.lists(st.floats(-0.5, 1.5).map(str) | st.sampled_from(["nan", "x", ""]), max_size=4).map(",".join),
    "--games": st.integers(-2, 6).map(str),
    "--repeats": st.integers(-1, 2).map(str),
    "--sample": st.integers(-1, 3).map(str),
    "--seed": st.sampled_from(["0", "1", "-1", str(2**63 - 1), str(2**63)]),
    "--parallel": st.integers(-1, 8).map(str),
    "--lr": st.sampled_from(["0.001", "0", "1", "1.5", "nan"]),
    "--hidden": st.sampled_from(["8", "8,4", "0", "x", "8,,4", "3000", "1,2,3,4,5", "-8", ""]),
    "--exploration": st.floats(-0.5, 1.5).map(str),
    "--checkpoint-every": st.integers(-1, 8).map(str),
    "--block-pairs": st.integers(-1, 3).map(str),
    "--threads": st.integers(-1, 2).map(str),
    "--a": st.sampled_from(PLAYER_SPECS),
    "--b": st.sampled_from(PLAYER_SPECS),
    "--a-cube": st.sampled_from(CUBE_SPECS),
    "--b-cube": st.sampled_from(CUBE_SPECS),
    "--workers": st.integers(-1, 2).map(str),
    "--trials": st.integers(-1, 40).map(str),
    "--truncate": st.integers(-1, 4).map(str),
    "--cube": st.sampled_from(CUBE_SPECS),
    "--file": st.sampled_from(["ids.txt", "tiny.jgw", "missing.txt", ".", ""]),
    "--moves": st.sampled_from(["8/5 6/5", "24/23 13/10", "8/4 6/4", "bar/22", "x", ""]),
    "--level": st.sampled_from(["quick", "roller", "roller+", "full", "full1", "fastest"]),
    # Written files: only these values are used (never junk), so nothing is written outside the case's folder.
    "--out": st.sampled_from(["run.jgw", "sub/run.jgw", ".", "", str(DEFAULT_WEIGHTS), str(SHIPPED_DIR / "x.jgw")]),
    "--log": st.sampled_from(["run.log", "logs/run.log", ".", ""]),
    "--plot": st.sampled_from(["p.png", "p.svg", "p.xyz", "no/dir/p.png", ".", ""]),
    "--to": st.sampled_from(["promoted.jgw", "."]),
    "--loss": st.sampled_from(["mse", "xent", "l1", ""]),
    "--data": st.sampled_from(["data", "sub/data", ".", "", "tiny.jgw"]),
    "--exclude": st.sampled_from(["data", "held", ".", "", "tiny.jgw"]),
    "--labels": st.sampled_from(["data", "held", ".", "", "tiny.jgw", "missing"]),
    "--archive": st.sampled_from(["archive", "sub/archive", "."]),
    "--save": st.sampled_from(["games.jsonl", "no/dir/games.jsonl", ".", ""]),
    "--mat": st.sampled_from(["mats", ".", "no/dir", "tiny.jgw", ""]),
    "--checkpoint": st.sampled_from(["ledger.jsonl", "no/dir/ledger.jsonl", ".", "tiny.jgw", ""]),
    "--luck": st.sampled_from(WEIGHT_FILES),
    "--against": st.sampled_from(WEIGHT_FILES),
    "--length": st.integers(-1, 70).map(str),
    "--met": st.sampled_from(["Kazaross-XG2", "woolsey", "Rockwell-Kazaross", "XG2", "x.xml", "tiny.jgw", "", "."]),
    "--keith": st.sampled_from(["0.276,0.011", "0.2,0", "0,0", "0.3,0.4", "1,0", "0.2", "0.2,", "nan,0", "0.2,0.1,0"]),
    "--fibs": st.sampled_from(
        [FIBS_OPENING, FIBS_OPENING.replace(":1:1:1:0:1:1:25:", ":1:1:1:1:1:1:25:"), "board:x", ""]
    ),
    "--score": st.sampled_from(["2-4", "0-0", "6-6", "4", "a-b", "-1-2", "2--4", ""]),
    "--cube-value": st.sampled_from(["1", "2", "64", "4096", "3", "0", "8192"]),
    "--cube-owner": st.sampled_from(["centre", "0", "1", "2", "center"]),
    "--resigned": st.sampled_from(["none", "single", "gammon", "backgammon", "all"]),
    "--game-state": st.sampled_from(["none", "playing", "over", "resigned", "dropped", "won"]),
    "--cube-model": st.sampled_from(["gnubg", "none", "jump", ""]),
    "--host": st.sampled_from(["127.0.0.1", "localhost", "::1", ""]),
    "--alternatives": st.integers(-1, 120).map(str),
    "--html": st.sampled_from(["page.html", "sub/page.html", "no/dir/page.html", ".", ""]),
}
WRITTEN_PATHS = {"--out", "--log", "--plot", "--to", "--save", "--mat", "--checkpoint", "--data", "--archive", "--html"}
# Options that are only parsed, never run: a command line with one of them ends with a value that is always
# refused. --ray starts or joins a Ray cluster; a --cubeful tournament takes seconds a game.
PARSE_ONLY = {"--ray", "--cubeful"}
# Per subcommand, values that are always refused. Appended after fuzzed options they stop the command before
# it runs, and they are named in the error when every fuzzed value was accepted.
SENTINELS: dict[str, list[tuple[str, str]]] = {
    "eval": [("--plies", "9"), ("--weights", "missing.jgw")],
    "hint": [("--plies", "9"), ("--weights", "missing.jgw")],
    "cube": [("--grid", "0"), ("--x", "2")],
    "bench": [("--repeats", "0"), ("--games", "0")],
    "train": [("--games", "0"), ("--parallel", "0")],
    "supervised generate": [("--shards", "0"), ("--plies", "9")],
    "supervised fit": [("--epochs", "0"), ("--batch", "0")],
    "label": [("--shards", "0"), ("--trials", "0")],
    "tournament": [("--games", "3"), ("--workers", "0")],
    "met": [("--length", "0"), ("--keith", "x")],
    "id": [("--cube-value", "3"), ("--score", "x")],
    "rollout": [("--trials", "0"), ("--plies", "9")],
    "experiment": [("--se", "0"), ("--degree", "9")],
    "ubgi": [("--plies", "9"), ("--cube-model", "x")],
    "serve": [("--port", "0"), ("--max-rollout-trials", "0")],
    "analyse": [("--plies", "9"), ("--alternatives", "0")],
    "weights promote": [("--games", "3"), ("--plies", "9")],
}


def value_for(option: str, junk: bool = True) -> st.SearchStrategy[str]:
    """Values for ``option`` that make it do something (or nearly), with ``junk`` junk of every kind too."""
    good = GOOD_VALUES.get(option)
    if good is None:
        return value_texts
    if option in WRITTEN_PATHS or not junk:
        return good
    return st.one_of(good, value_texts)


def _is_help(token: str) -> bool:
    """Whether argparse would read the token as ``-h``/``--help`` (which prints usage and exits)."""
    name = token.split("=", 1)[0]
    return token.startswith("-h") or (len(name) > 2 and "--help".startswith(name))


def _could_name(token: str, options: set[str]) -> bool:
    """Whether argparse could read the token as one of ``options`` (an abbreviation or ``--name=value`` too)."""
    name = token.split("=", 1)[0]
    return len(name) > 2 and any(option.startswith(name) for option in options)


ALL_OPTIONS = {name for command in COMMANDS for name in options_of(command)}
extra_tokens = st.one_of(
    st.sampled_from(sorted(ALL_OPTIONS - WRITTEN_PATHS)),
    st.sampled_from(["--", "-", "--json", "--jso", "-x", "--nope", "--games=", "info", "pubeval"]),
    int_texts,
    any_texts,
).filter(lambda t: not _is_help(t) and not _could_name(t, WRITTEN_PATHS))


@st.composite
def option_tokens(draw: st.DrawFn, command: str) -> list[str]:
    """Some of ``command``'s options in random order: plausible values, or junk values and extra tokens."""
    options = options_of(command)
    junk = draw(st.booleans())
    tokens: list[str] = []
    for name in draw(st.lists(st.sampled_from(sorted(options)), max_size=4)) if options else []:
        action, values = options[name], value_for(name, junk)
        if action.nargs == 0:
            tokens.append(name)
        elif action.nargs == 2:
            tokens += [name, draw(values), draw(values)]
        elif draw(st.booleans()):
            tokens.append(f"{name}={draw(values)}")
        else:
            tokens += [name, draw(values)]
    for token in draw(st.lists(extra_tokens, max_size=2)) if junk else []:
        tokens.insert(draw(st.integers(0, len(tokens))), token)
    return tokens


@dataclass(frozen=True)
class CommandSpec:
    """How to fuzz one subcommand: arguments before the fuzzed options, and caps after them.

    ``caps`` bound the cost of a run: argparse keeps the last value of an option, so they override
    fuzzed values (which are still type-checked). ``parse_only`` tells from the leading arguments
    whether the command must only be parsed.
    """

    leading: Callable[[st.DrawFn], list[str]]
    caps: Callable[[st.DrawFn], list[str]] = lambda draw: []
    parse_only: Callable[[list[str]], bool] = lambda leading: False


def _train_caps(draw: st.DrawFn) -> list[str]:
    games, parallel = draw(st.integers(1, 16)), draw(st.integers(1, 8))
    hidden = draw(st.sampled_from(["4", "8", "8,4"]))
    out, log = draw(GOOD_VALUES["--out"]), draw(GOOD_VALUES["--log"])
    return ["--out", out, "--games", str(games), "--parallel", str(parallel), "--hidden", hidden, "--threads", "1"] + [
        "--log",
        log,
    ]


def _cube_caps(draw: st.DrawFn) -> list[str]:
    # jump-numerical's time grows with the cube of --grid: a small one comes last; now and then a plot.
    plot = ["--plot", draw(st.sampled_from(["p.png", "p.svg"]))] if draw(st.integers(0, 9)) == 0 else []
    return ["--grid", draw(st.sampled_from(["20", "50", "200"])), *plot]


def _tournament_leading(draw: st.DrawFn) -> list[str]:
    # No untrained net plays: its games against itself or random play last minutes (or never end).
    return ["--a", draw(GOOD_VALUES["--a"]), "--b", draw(GOOD_VALUES["--b"])]


SHORT_MATCH = Path(__file__).resolve().parents[1] / "fixtures" / "gnubg_analysis" / "gnubg_01pt_s03.mat"
POSITION_IDS = st.sampled_from([START, f"{START}:{START_MATCH}", "AAAAAAAAAAAAAA", "nonsense"])
COMMAND_SPECS: dict[str, CommandSpec] = {
    "show": CommandSpec(lambda draw: [draw(POSITION_IDS)]),
    "eval": CommandSpec(lambda draw: [draw(POSITION_IDS)]),
    "hint": CommandSpec(lambda draw: [draw(POSITION_IDS)]),
    "cube": CommandSpec(lambda draw: ["--W", draw(GOOD_VALUES["--W"]), "--L", draw(GOOD_VALUES["--L"])], _cube_caps),
    "bench": CommandSpec(
        lambda draw: [
            draw(st.sampled_from(["movegen", "movegen", "movegen", "eval", "gnubg", "cube-bearoff", "rollout", "x"]))
        ],
        lambda draw: ["--games", str(draw(st.integers(1, 5))), "--repeats", "1"],
        # gnubg, cube-bearoff and rollout (gnubg's program, twice a repeat) run for minutes: they are only parsed.
        lambda leading: leading[0] in ("gnubg", "cube-bearoff", "rollout"),
    ),
    "train": CommandSpec(lambda draw: [], _train_caps),
    # One game labelled at 0-ply by the shipped net (an untrained one may never finish); fit finds no shards.
    "supervised generate": CommandSpec(
        lambda draw: ["--data", draw(GOOD_VALUES["--data"])],
        lambda draw: (
            ["--shards", "1", "--shard-games", "1", "--parallel", "1", "--plies", "0", "--keep", "0.2"]
            + ["--weights", str(DEFAULT_WEIGHTS)]
        ),
    ),
    "supervised fit": CommandSpec(
        lambda draw: ["--data", draw(GOOD_VALUES["--data"])], lambda draw: ["--epochs", "1", "--threads", "1"]
    ),
    # One self-play game of the shipped net, two positions, two trials of one ply (--ray is only parsed).
    "label": CommandSpec(
        lambda draw: ["--out", draw(GOOD_VALUES["--out"])],
        lambda draw: (
            ["--shards", "1", "--rows", "2", "--trials", "2", "--truncate", "1", "--pool-games", "1"]
            + ["--workers", "1", "--weights", str(DEFAULT_WEIGHTS)]
        ),
    ),
    "weights info": CommandSpec(lambda draw: [draw(st.sampled_from(WEIGHT_FILES))]),
    "weights promote": CommandSpec(
        lambda draw: [draw(st.sampled_from(WEIGHT_FILES))], lambda draw: ["--to", "promoted.jgw"]
    ),
    "tournament": CommandSpec(
        _tournament_leading, lambda draw: ["--games", str(2 * draw(st.integers(1, 4))), "--workers", "1"]
    ),
    "met": CommandSpec(lambda draw: []),
    "id": CommandSpec(lambda draw: draw(st.sampled_from([[], [START], [f"{START}:{START_MATCH}"], ["nonsense"]]))),
    # An experiment plays for hours: only parsed (a sentinel stops it), so its options' checks are what is fuzzed.
    "experiment": CommandSpec(
        lambda draw: [draw(st.sampled_from(["janowski", "jump", "x"])), "--out", "experiments"],
        parse_only=lambda leading: True,
    ),
    # A few trials, truncated after a few plies, at 0 ply, on one process (--cubeful is only parsed).
    "rollout": CommandSpec(
        lambda draw: [draw(POSITION_IDS)],
        lambda draw: (
            ["--trials", str(draw(st.integers(1, 40))), "--truncate", str(draw(st.integers(1, 3)))]
            + ["--workers", "1", "--plies", "0", "--cube-plies", "0", "--truncate-plies", "0", "--late-plies", "0"]
            + ["--filter-plies", "0"]
        ),
    ),
    # Both serve until their input ends or they are stopped (ubgi reads stdin, serve listens): only parsed.
    "ubgi": CommandSpec(lambda draw: [], parse_only=lambda leading: True),
    "serve": CommandSpec(lambda draw: [], parse_only=lambda leading: True),
    # A 1-point match of the gnubg fixture at 0 ply (a few seconds at 2 ply), a missing file, a file that is no record.
    "analyse": CommandSpec(
        lambda draw: [draw(st.sampled_from([str(SHORT_MATCH), str(SHORT_MATCH), "missing.mat", "ids.txt", "."]))],
        lambda draw: ["--plies", "0", "--no-progress"],
    ),
}


@st.composite
def command_lines(draw: st.DrawFn, command: str) -> list[str]:
    """A full ``--json`` command line: leading arguments, fuzzed options, caps, and a sentinel if parse-only."""
    spec = COMMAND_SPECS[command]
    leading = spec.leading(draw)
    tokens = draw(option_tokens(command))
    parse_only_options = PARSE_ONLY & set(options_of(command))
    parse_only = spec.parse_only(leading) or any(_could_name(t, parse_only_options) for t in tokens)
    sentinel = list(SENTINELS[command][0]) if parse_only else []
    return [*command.split(), *leading, *tokens, *spec.caps(draw), *sentinel, "--json"]


def test_every_subcommand_and_option_has_a_fuzzing_plan() -> None:
    """A new subcommand or option needs its plan here: its cost bounded, a file it writes kept in the case's folder."""
    assert set(COMMANDS) == set(COMMAND_SPECS)
    assert {c for c in COMMANDS if any(o in PARSE_ONLY for o in options_of(c))} <= set(SENTINELS)
    for command in COMMANDS:
        for name, action in options_of(command).items():
            if action.nargs != 0 and action.type in (None, Path) and name not in PARSE_ONLY:
                assert name in GOOD_VALUES, f"{command} {name}: give it values (is it a written path?)"


def check_command_line(argv: list[str]) -> CliRun:
    """Run one fuzzed command line in a scratch directory and check the contract and the files left."""
    with scratch_dir() as tmp:
        write_case_files(tmp)
        run = run_cli(argv)
        check_contract(run)
        assert not leftover_temporaries(tmp), run
    return run


def fuzz_options_of(command: str, examples: int) -> Callable[[], None]:
    """A test running ``examples`` fuzzed command lines of ``command`` (its budget follows its cost)."""

    @fuzz_settings(examples)
    @given(argv=command_lines(command))
    def test(argv: list[str]) -> None:
        check_command_line(argv)

    test.__doc__ = f"``{command}`` with its real options given random values and random extra tokens."
    return test


test_show_options = fuzz_options_of("show", 25)
test_eval_options = fuzz_options_of("eval", 20)
test_hint_options = fuzz_options_of("hint", 40)
test_cube_options = fuzz_options_of("cube", 60)
test_bench_options = fuzz_options_of("bench", 15)
test_train_options = fuzz_options_of("train", 12)
test_supervised_generate_options = fuzz_options_of("supervised generate", 6)
test_supervised_fit_options = fuzz_options_of("supervised fit", 6)
test_label_options = fuzz_options_of("label", 8)
test_weights_info_options = fuzz_options_of("weights info", 15)
test_weights_promote_options = fuzz_options_of("weights promote", 30)
test_tournament_options = fuzz_options_of("tournament", 25)
test_met_options = fuzz_options_of("met", 40)
test_id_options = fuzz_options_of("id", 60)
test_rollout_options = fuzz_options_of("rollout", 15)
test_experiment_options = fuzz_options_of("experiment", 25)
test_ubgi_options = fuzz_options_of("ubgi", 15)
test_serve_options = fuzz_options_of("serve", 15)
test_analyse_options = fuzz_options_of("analyse", 12)


def test_every_subcommand_has_an_options_test() -> None:
    """Each subcommand of the parser is fuzzed by a test above."""
    assert all(f"test_{command.replace('-', '_').replace(' ', '_')}_options" in globals() for command in COMMANDS)


LEADING: dict[str, list[str]] = {
    "eval": [START],
    "hint": [START],
    "cube": ["--W", "1.5", "--L", "1.2"],
    "bench": ["movegen"],
    "train": ["--out", "run.jgw"],
    "supervised generate": ["--data", "data"],
    "supervised fit": ["--data", "data"],
    "label": ["--out", "data", "--shards", "1"],
    "tournament": ["--a", "pubeval", "--b", "pubeval"],
    "met": [],
    "id": [],
    "rollout": [START],
    "experiment": ["janowski", "--out", "experiments"],
    "ubgi": [],
    "serve": [],
    "analyse": [str(SHORT_MATCH)],
    "weights info": [str(DEFAULT_WEIGHTS)],
    "weights promote": [str(DEFAULT_WEIGHTS)],
}
VALUED_OPTIONS = sorted(
    (command, name)
    for command in COMMANDS
    for name, action in options_of(command).items()
    if action.nargs != 0 and name not in WRITTEN_PATHS
)


def accepts(action: argparse.Action, values: list[str]) -> bool:
    """Whether argparse takes ``values`` for ``action``: its type converts each and any choices hold."""
    for value in values:
        try:
            converted = action.type(value) if callable(action.type) else value
        except (argparse.ArgumentTypeError, ValueError, TypeError):
            return False
        if action.choices is not None and converted not in action.choices:
            return False
    return True


_NEGATIVE_NUMBER = re.compile(r"^-\d+$|^-\d*\.\d+$")


def _is_option_like(token: str) -> bool:
    """Whether argparse reads a separate token as an option rather than as a value (as Python 3.11 does)."""
    return len(token) > 1 and token.startswith("-") and not _NEGATIVE_NUMBER.match(token) and " " not in token


@st.composite
def one_option(draw: st.DrawFn) -> tuple[str, str, list[str]]:
    """A subcommand, one of its valued options and random values for it."""
    command, name = draw(st.sampled_from(VALUED_OPTIONS))
    count = 2 if options_of(command)[name].nargs == 2 else 1
    return command, name, [draw(value_for(name)) for _ in range(count)]


def test_sentinels_are_always_refused() -> None:
    """Every subcommand with a valued option has a leading command line and sentinels that argparse refuses."""
    commands = {command for command, _ in VALUED_OPTIONS}
    assert commands <= set(SENTINELS) and commands <= set(LEADING)
    for command, pairs in SENTINELS.items():
        assert len({name for name, _ in pairs}) == 2
        for name, value in pairs:
            assert not accepts(options_of(command)[name], [value]), (command, name, value)


@fuzz_settings(250)
@given(one_option())
def test_a_refused_option_value_names_its_option(case: tuple[str, str, list[str]]) -> None:
    """One option with random values: argparse's verdict follows its type, and a refusal names the option."""
    command, name, values = case
    action = options_of(command)[name]
    sentinel, bad = next((s, v) for s, v in SENTINELS[command] if s != name)
    single = len(values) == 1
    fuzzed = [f"{name}={values[0]}"] if single else [name, *values]
    with scratch_dir() as tmp:
        write_case_files(tmp)
        accepted = accepts(action, values) and (single or not any(_is_option_like(v) for v in values))
        run = run_cli([*command.split(), *LEADING[command], *fuzzed, sentinel, bad, "--json"])
    check_contract(run)
    assert run.code == 2, run
    assert (sentinel if accepted else name) in error_of(run), (run, accepted)


def test_a_game_no_player_can_finish_is_refused_in_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    """Two untrained nets may never finish a game: the tournament ends with one error line, not a traceback.

    No game ends within 8 moves, so a cap of 8 stands in for the 10,000 that two such nets reach (minutes).
    """
    monkeypatch.setattr("engine.game.MAX_PLIES", 8)
    with scratch_dir():
        run = run_cli(["tournament", "--a", "pubeval", "--b", "pubeval", "--games", "2", "--workers", "1", "--json"])
    check_contract(run)
    assert "cannot finish" in error_of(run)
