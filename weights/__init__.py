"""The shipped nets: ``default.jgw`` is what :func:`nets.load_evaluator` loads when given no path;
``volatility.jgw`` is the learned local jump volatility the ``jump-net`` cube spec uses
(:func:`nets.volnet.load_volatility_net`).

This folder is a package so that a built wheel carries the weights. Nothing writes here
except ``jumpgammon weights promote``; training runs write their own files elsewhere.
"""

from pathlib import Path

SHIPPED_DIR = Path(__file__).resolve().parent
DEFAULT_WEIGHTS = SHIPPED_DIR / "default.jgw"
VOLATILITY_WEIGHTS = SHIPPED_DIR / "volatility.jgw"


def in_shipped_folder(path: str | Path) -> bool:
    """Whether ``path`` is this folder or lies anywhere inside it (where nothing but a promotion may write)."""
    resolved = Path(path).resolve()
    return resolved == SHIPPED_DIR or SHIPPED_DIR in resolved.parents
