"""The shipped nets: ``default.jgw`` is what :func:`nets.load_evaluator` loads when given no path.

This folder is a package so that a built wheel carries the weights. Nothing writes here
except ``jumpgammon weights promote``; training runs write their own files elsewhere.
"""

from pathlib import Path

SHIPPED_DIR = Path(__file__).resolve().parent
DEFAULT_WEIGHTS = SHIPPED_DIR / "default.jgw"
