"""One game state under one model: decision points, equities and a Figure-3 style plot.

This is the library side of ``jumpgammon cube``; the CLI only parses and prints.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from cube.errors import (
    CubeInputError,
    FloatArray,
    check_choice,
    check_probability,
    check_win_value,
)
from cube.janowski import JanowskiModel
from cube.jump_linear import STATISTICAL_SCALE, JumpLinearModel
from cube.jump_nonlinear import JumpNonlinearModel
from cube.jump_numerical import solve_cached
from cube.points import POINT_NAMES, DecisionPoints, EquityCurves
from cube.states import CubeState
from cube.volatility import DEFAULT_REMOTE_ALPHA

__all__ = ["MODELS", "PLOT_FORMATS", "CubeReport", "implied_indices", "make_model", "plot_equities", "report"]

MODELS: tuple[str, ...] = (
    "dead",
    "live",
    "janowski",
    "jump-linear",
    "jump-nonlinear",
    "jump-numerical",
)


class _Model(Protocol):
    def curves(self, W: float, L: float, *, jacoby: bool = False) -> EquityCurves: ...

    def points(self, W: float, L: float, *, jacoby: bool = False, beavers: bool = False) -> DecisionPoints: ...


@dataclass(frozen=True)
class _Numerical:
    alpha: float
    distribution: str
    N: int

    def curves(self, W: float, L: float, *, jacoby: bool = False) -> EquityCurves:
        return solve_cached(W, L, self.alpha, self.distribution, self.N).curves(jacoby=jacoby)

    def points(self, W: float, L: float, *, jacoby: bool = False, beavers: bool = False) -> DecisionPoints:
        sol = solve_cached(W, L, self.alpha, self.distribution, self.N)
        return sol.points(jacoby=jacoby, beavers=beavers)


#: P buckets of jump-numerical unless ``--grid`` says otherwise (finer than the solver's own default).
DEFAULT_GRID = 400
#: The options each model reads (``--local-alpha`` of jump-numerical is refused with a message of its own).
MODEL_OPTIONS: dict[str, frozenset[str]] = {
    "dead": frozenset(),
    "live": frozenset(),
    "janowski": frozenset({"--x", "--x1", "--x2"}),
    "jump-linear": frozenset({"--alpha", "--local-alpha", "--statistical"}),
    "jump-nonlinear": frozenset({"--alpha", "--local-alpha", "--distribution"}),
    "jump-numerical": frozenset({"--alpha", "--local-alpha", "--distribution", "--grid"}),
}


def make_model(
    name: str,
    *,
    x: float | None = None,
    x1: float | None = None,
    x2: float | None = None,
    alpha: float | None = None,
    local_alpha: float | None = None,
    distribution: str | None = None,
    statistical: bool | None = None,
    N: int | None = None,
) -> _Model:
    """Return the model object for a CLI model name (see :data:`MODELS`); an option left None takes its default
    (alpha :data:`cube.volatility.DEFAULT_REMOTE_ALPHA`, double-exponential jumps, no statistical scale,
    :data:`DEFAULT_GRID` buckets).

    Raises CubeInputError naming an option given (not None) that the model does not read.
    """
    check_choice(name, "model", MODELS)
    options = {
        "--x": x,
        "--x1": x1,
        "--x2": x2,
        "--alpha": alpha,
        "--local-alpha": local_alpha,
        "--distribution": distribution,
        "--statistical": statistical or None,
        "--grid": N,
    }
    given = [flag for flag, value in options.items() if value is not None and flag not in MODEL_OPTIONS[name]]
    if given:  # an option the model does not read would be silently ignored
        raise CubeInputError(f"model {name} takes no {', '.join(given)}")
    distribution = distribution or "double-exponential"
    statistical = bool(statistical)
    N = DEFAULT_GRID if N is None else N
    if name == "dead":
        return JanowskiModel(0.0)
    if name == "live":
        return JanowskiModel(1.0)
    if name == "janowski":
        if x is not None:
            if x1 is not None or x2 is not None:
                raise CubeInputError("give either --x or --x1/--x2, not both")
            return JanowskiModel(x)
        if x1 is None or x2 is None:
            raise CubeInputError("model janowski needs --x, or both --x1 and --x2")
        return JanowskiModel(x1, x2)
    alpha = DEFAULT_REMOTE_ALPHA if alpha is None else alpha  # as eval's jump models and the jump-local cube
    if name == "jump-linear":
        return JumpLinearModel(alpha, local_alpha, statistical)
    if name == "jump-nonlinear":
        return JumpNonlinearModel(alpha, local_alpha, distribution)
    if local_alpha is not None:
        raise CubeInputError("--local-alpha is not supported by jump-numerical")
    return _Numerical(alpha, distribution, N)


def implied_indices(points: DecisionPoints, W: float, L: float) -> tuple[float, float]:
    """Return the Janowski (x1, x2) whose refined-model TP and CP equal these points.

    From TP = (L - 1/2)/(W + L + x1/2) and CP = (L + 1/2 + x2/2)/(W + L + x2/2); for the
    linear approximation this is Higgins' closed form.
    """
    if points.tp is None or points.cp is None:
        raise CubeInputError("implied indices need the take and cash points")
    x1 = 2.0 * ((L - 0.5) / points.tp - W - L)
    x2 = 2.0 * (points.cp * (W + L) - L - 0.5) / (1.0 - points.cp)
    return x1, x2


@dataclass(frozen=True)
class CubeReport:
    """Decision points, implied indices and equities of one game state under one model."""

    model: str
    W: float
    L: float
    params: dict[str, Any]
    points: DecisionPoints
    implied_x1: float | None
    implied_x2: float | None
    equity_at: dict[str, dict[CubeState, float]]

    def as_dict(self) -> dict[str, Any]:
        """Return the JSON form: model info, the ten points, implied_x1/x2, equity_at."""
        out: dict[str, Any] = {"model": self.model, "W": self.W, "L": self.L}
        out.update(self.params)
        out.update(self.points.as_dict())
        out["implied_x1"] = self.implied_x1
        out["implied_x2"] = self.implied_x2
        out["equity_at"] = self.equity_at
        return out


def report(
    model: str,
    W: float,
    L: float,
    at: Sequence[str] = (),
    *,
    jacoby: bool = False,
    beavers: bool = False,
    **model_args: Any,
) -> CubeReport:
    """Return the :class:`CubeReport` of a game state; ``at`` are P values as written."""
    m = make_model(model, **model_args)
    W_ = float(check_win_value(W, "W"))
    L_ = float(check_win_value(L, "L"))
    pts = m.points(W_, L_, jacoby=jacoby, beavers=beavers)
    curves = m.curves(W_, L_, jacoby=jacoby)
    equity_at: dict[str, dict[CubeState, float]] = {}
    for text in at:
        try:
            p = float(text)
        except ValueError as exc:
            raise CubeInputError(f"--at value {text!r} is not a number") from exc
        pa = check_probability(np.array([p]), f"--at value {text!r}: P")
        equity_at[text] = {
            CubeState.CENTERED: float(curves.centered(pa)[0]),
            CubeState.OWNED: float(curves.owned(pa)[0]),
            CubeState.UNAVAILABLE: float(curves.unavailable(pa)[0]),
        }
    ix1: float | None = None
    ix2: float | None = None
    if model.startswith("jump"):
        ix1, ix2 = implied_indices(pts, W_, L_)
    params: dict[str, Any] = {"jacoby": jacoby, "beavers": beavers}
    if isinstance(m, JanowskiModel):
        params.update({"x1": m.x1, "x2": m.x2})
    else:
        assert isinstance(m, JumpLinearModel | JumpNonlinearModel | _Numerical)
        params["alpha"] = m.alpha  # the volatility the model was made with (the default where none was given)
        if model != "jump-linear":
            params["distribution"] = model_args.get("distribution") or "double-exponential"
        else:
            params["statistical_scale"] = STATISTICAL_SCALE if model_args.get("statistical") else 1.0
        if model_args.get("local_alpha") is not None:
            params["local_alpha"] = model_args["local_alpha"]
    return CubeReport(model, W_, L_, params, pts, ix1, ix2, equity_at)


#: the picture formats :func:`plot_equities` draws (file suffixes)
PLOT_FORMATS = ("png", "svg", "pdf")


def plot_equities(
    model: str, W: float, L: float, *, jacoby: bool = False, fmt: str = "png", **model_args: Any
) -> bytes:
    """The centred, owned and unavailable equities against P drawn in ``fmt`` (:data:`PLOT_FORMATS`); returns the
    picture's bytes.

    Like Figure 3 of Higgins (2012).  Needs matplotlib (the optional ``plot`` extra).
    """
    if fmt not in PLOT_FORMATS:
        raise CubeInputError(f"plot format {fmt!r} is not one of {', '.join(PLOT_FORMATS)}")
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise CubeInputError("--plot needs matplotlib (the plot extra: pip install -e '.[plot]')") from exc
    m = make_model(model, **model_args)
    curves = m.curves(W, L, jacoby=jacoby)
    P: FloatArray = np.linspace(0.0, 1.0, 501)
    fig, ax = plt.subplots(figsize=(7, 5))
    ax.plot(P, curves.centered(P), label=CubeState.CENTERED.value, color="tab:blue")
    ax.plot(P, curves.owned(P), label="player-owned", color="tab:red")
    ax.plot(P, curves.unavailable(P), label="opponent-owned", color="tab:green")
    ax.plot(P, P * W - (1 - P) * L, color="grey", lw=0.8, ls=":", label="cubeless")
    ax.axhline(0.0, color="black", lw=0.5)
    ax.set_xlim(0, 1)
    ax.set_xlabel("cubeless probability of win P")
    ax.set_ylabel("cubeful equity / cube value")
    extra = ", ".join(
        f"{k}={v}" for k, v in model_args.items() if v is not None and k in ("x", "x1", "x2", "alpha", "distribution")
    )
    ax.set_title(f"{model}: W={W:g}, L={L:g}" + (f", {extra}" if extra else ""))
    ax.grid(True, alpha=0.3)
    ax.legend()
    fig.tight_layout()
    buffer = io.BytesIO()
    fig.savefig(buffer, dpi=110, format=fmt)
    plt.close(fig)
    return buffer.getvalue()


assert set(POINT_NAMES) == set(DecisionPoints.__dataclass_fields__)
