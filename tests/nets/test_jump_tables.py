"""The disk cache of the numerical jump model's corners: what it reads back is exactly what solve gives."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from cube.jump_numerical import solve
from cube.strategy import JumpStrategy
from nets import jump_tables
from players.cube import parse_cube_spec

CORNER = (1.25, 1.1, 0.1, "double-exponential", 40)


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("JUMPGAMMON_CACHE", str(tmp_path))
    return tmp_path


def _same(a: object, b: object) -> None:
    for name in (*jump_tables.SOLUTION_ARRAYS, "W", "L", "alpha", "distribution", "iterations"):
        assert np.array_equal(getattr(a, name), getattr(b, name)), name


def test_a_cached_corner_is_the_solution_and_is_not_solved_again(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    first = jump_tables.disk_cached_solve(*CORNER)
    _same(first, solve(*CORNER))
    path = jump_tables.corner_path(*CORNER)
    assert path.is_file() and path.is_relative_to(cache)

    def no_solve(*args: object) -> None:
        raise AssertionError("solved again")

    monkeypatch.setattr(jump_tables, "solve", no_solve)
    _same(jump_tables.disk_cached_solve(*CORNER), first)


@pytest.mark.parametrize("damage", ["garbage", "other corner", "empty", "torn"])
def test_a_bad_file_is_solved_again_and_replaced(cache: Path, damage: str) -> None:
    path = jump_tables.corner_path(*CORNER)
    path.parent.mkdir(parents=True)
    if damage == "torn":  # a real archive cut in half: zipfile.BadZipFile, which crashed every numerical cube
        whole = jump_tables.disk_cached_solve(*CORNER)
        assert whole is not None
        data = path.read_bytes()
        path.write_bytes(data[: len(data) // 2])
    elif damage == "garbage":
        path.write_bytes(b"not an npz")
    elif damage == "empty":
        path.write_bytes(b"")
    else:
        other = (1.3, *CORNER[1:])
        jump_tables.disk_cached_solve(*other)
        path.write_bytes(jump_tables.corner_path(*other).read_bytes())
    _same(jump_tables.disk_cached_solve(*CORNER), solve(*CORNER))
    _same(jump_tables.read_corner(path, *CORNER), solve(*CORNER))


def test_an_unwritable_cache_still_solves(cache: Path) -> None:
    jump_tables.table_dir().parent.mkdir(parents=True, exist_ok=True)
    jump_tables.table_dir().write_text("a file where the folder should be")
    _same(jump_tables.disk_cached_solve(*CORNER), solve(*CORNER))


def test_cube_specs_decide_alike_from_the_cache(cache: Path) -> None:
    """A jump spec's decisions with the disk cache are those of a fresh strategy solving every corner."""
    rng = np.random.default_rng(5)
    win = rng.uniform(0.05, 0.95, 40)
    gammons = rng.uniform(0, 0.2, (40, 2))
    probs = np.column_stack([win, gammons[:, 0] * win, 0 * win, gammons[:, 1] * (1 - win), 0 * win])
    states = np.array(["centered"] * 40)
    fresh = parse_cube_spec("jump:0.1").strategy
    cached = parse_cube_spec("jump:0.1").strategy
    assert isinstance(fresh, JumpStrategy) and isinstance(cached, JumpStrategy)
    fresh.table.solver = solve
    a, b = fresh.decide(probs, states), cached.decide(probs, states)
    assert (a.action == b.action).all() and np.array_equal(a.equity, b.equity)
    assert any(jump_tables.table_dir().iterdir())


def test_the_first_solve_of_a_process_says_why_it_is_slow_once(
    cache: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A first cubeful run sat at 0% for a minute or more with no word (a new user took it for a hang)."""
    monkeypatch.setattr(jump_tables, "_told", False)
    jump_tables.disk_cached_solve(*CORNER)
    jump_tables.disk_cached_solve(1.3, 1.1, 0.1, "double-exponential", 40)
    err = capsys.readouterr().err
    assert err.count("solving the jump model's table corners") == 1 and str(cache) in err
    jump_tables.disk_cached_solve(*CORNER)  # read from the cache: nothing to say
    assert capsys.readouterr().err == ""
