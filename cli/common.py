"""Arguments shared by the commands that evaluate a position."""

from __future__ import annotations

import argparse


def add_evaluation_arguments(p: argparse.ArgumentParser) -> None:
    """Add the position ID, ``--plies``, ``--weights`` and ``--json`` arguments."""
    p.add_argument("id", metavar="POSITIONID[:MATCHID]")
    p.add_argument("--plies", type=int, default=0, choices=[0, 1, 2], help="lookahead depth")
    p.add_argument("--weights", default=None, help="weights file (default: the shipped net)")
    p.add_argument("--json", action="store_true", help="machine-readable output")
