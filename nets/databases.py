"""Adapter from the bearoff databases to the evaluator's lookup protocol."""

from __future__ import annotations

from typing import Any


def load_databases() -> tuple[Any, Any]:
    """(one-sided, two-sided) lookups giving (n, 5) probabilities; None for a missing one."""
    try:
        from nets import bearoff
    except ImportError:
        return None, None
    return bearoff.load_one_sided(), bearoff.load_two_sided()
