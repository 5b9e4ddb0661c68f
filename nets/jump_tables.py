"""The numerical jump model's table corners, cached on disk so that a new process need not solve them again.

A jump strategy in the numerical approximation interpolates its cubeful equities between solved
(W, L) corners (:class:`cube.strategy.JumpStrategy`), each a linear-system iteration costing 0.3 to
0.8 s of CPU. A tournament worker or a training run used to solve the hundreds of corners it meets
afresh, which made the corner solutions most of the cost of ``train --cube jump-net``.
:func:`disk_cached_solve` keeps each solution in ``$JUMPGAMMON_CACHE/jump-numerical-vN/`` (the
bear-off databases' cache folder) as one ``.npz`` per corner, written atomically and read without
pickles; a file that cannot be read, or that holds another corner, is solved again and replaced.
A cache that cannot be written (a read-only home) only costs the solve.
"""

from __future__ import annotations

import contextlib
import io
import sys
import zipfile
from pathlib import Path

import numpy as np

from cube.jump_numerical import NumericalSolution, solve
from nets.bearoff import cache_dir
from nets.weights import write_atomic

#: Bumped whenever :func:`cube.jump_numerical.solve` changes what it returns.
TABLE_VERSION = 1
#: The arrays of a solution that a corner file holds, besides its key (W, L, alpha), distribution and iterations.
SOLUTION_ARRAYS = (
    "grid",
    "owned",
    "unavailable",
    "centered",
    "centered_jacoby",
    "hat_owned",
    "hat_unavailable",
    "hat_centered",
    "hat_centered_jacoby",
)


def table_dir() -> Path:
    """The folder of the cached corners: ``jump-numerical-v{TABLE_VERSION}`` in the bear-off cache folder."""
    return cache_dir() / f"jump-numerical-v{TABLE_VERSION}"


def corner_path(W: float, L: float, alpha: float, distribution: str, N: int) -> Path:
    """The file of one corner's solution (its arguments in the name, to 9 significant digits)."""
    return table_dir() / f"{distribution}_alpha{alpha:.9g}_N{N}_W{W:.9g}_L{L:.9g}.npz"


def _to_bytes(sol: NumericalSolution) -> bytes:
    buffer = io.BytesIO()
    np.savez(
        buffer,
        key=np.array([sol.W, sol.L, sol.alpha]),
        distribution=np.array(sol.distribution),
        iterations=np.array(sol.iterations),
        **{name: getattr(sol, name) for name in SOLUTION_ARRAYS},
    )
    return buffer.getvalue()


def read_corner(path: Path, W: float, L: float, alpha: float, distribution: str, N: int) -> NumericalSolution | None:
    """The solution stored at ``path`` when it is that corner's, else None."""
    try:
        with np.load(path, allow_pickle=False) as data:
            key, arrays = data["key"], {name: np.array(data[name]) for name in SOLUTION_ARRAYS}
            stored_distribution, iterations = str(data["distribution"]), tuple(int(i) for i in data["iterations"])
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile):  # a torn or damaged archive: solve again
        return None
    if (
        key.shape != (3,)
        or not np.array_equal(key, [W, L, alpha])
        or stored_distribution != distribution
        or len(iterations) != 3
        or any(a.shape != (N + 1,) or not np.isfinite(a).all() for a in arrays.values())
    ):
        return None
    return NumericalSolution(
        W=float(key[0]),
        L=float(key[1]),
        alpha=float(key[2]),
        distribution=distribution,
        grid=arrays["grid"],
        owned=arrays["owned"],
        unavailable=arrays["unavailable"],
        centered=arrays["centered"],
        centered_jacoby=arrays["centered_jacoby"],
        hat_owned=arrays["hat_owned"],
        hat_unavailable=arrays["hat_unavailable"],
        hat_centered=arrays["hat_centered"],
        hat_centered_jacoby=arrays["hat_centered_jacoby"],
        iterations=(iterations[0], iterations[1], iterations[2]),
    )


_told = False


def disk_cached_solve(W: float, L: float, alpha: float, distribution: str, N: int) -> NumericalSolution:
    """:func:`cube.jump_numerical.solve` of one corner: from the disk cache when it holds it, else solved and kept."""
    path = corner_path(W, L, alpha, distribution, N)
    found = read_corner(path, W, L, alpha, distribution, N)
    if found is not None:
        return found
    global _told
    if not _told:  # a first cubeful run spends its first minute or two here: say why it is slow, once a process
        _told = True
        print(
            f"jumpgammon: solving the jump model's table corners (0.3 to 0.8 s each, once; kept in {table_dir()})",
            file=sys.stderr,
        )
    sol = solve(W, L, alpha, distribution, N)
    with contextlib.suppress(OSError):  # a read-only cache only costs the solve next time
        write_atomic(path, _to_bytes(sol))
    return sol
