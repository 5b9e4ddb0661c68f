"""Moves in GNU Backgammon notation: formatting plays for display and parsing user input.

Points are numbered from the mover's view: 25 is the bar (``bar``), 0 is borne off (``off``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from engine.errors import IllegalMove, InvalidMoveText

BAR = 25
OFF = 0

_POINT_RE = r"(?:bar|off|\d{1,2})"
_TOKEN_RE = re.compile(rf"^{_POINT_RE}\*?(?:/{_POINT_RE}\*?)+(?:\((\d)\))?$", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Move:
    """One legal play: single-checker hops ``(from, to)`` in the order played, and which hit.

    Points are from the mover's view (25 = bar, 0 = off). ``str(move)`` is gnubg notation.
    """

    hops: tuple[tuple[int, int], ...]
    hits: tuple[bool, ...]

    def __str__(self) -> str:
        return format_hops(self.hops, self.hits)


def _point_name(point: int) -> str:
    if point == BAR:
        return "bar"
    if point == OFF:
        return "off"
    return str(point)


def replay_hops(
    board: np.ndarray, hops: Sequence[tuple[int, int]], strict_text: str | None = None
) -> tuple[np.ndarray, tuple[bool, ...]]:
    """Apply hops to a copy of ``board`` (mover's view, not flipped); returns it and the hit flags.

    With ``strict_text`` (the user's move), a hop from an empty point or onto a made point
    raises IllegalMove naming that text.
    """
    b = board.astype(np.int8).copy()
    hits = []
    for src, dst in hops:
        if strict_text is not None:
            if b[src] <= 0:
                raise IllegalMove(f"move {strict_text!r}: no checker to move from {_point_name(src)}")
            if dst >= 1 and b[dst] < -1:
                raise IllegalMove(f"move {strict_text!r}: point {dst} is held by the opponent")
        b[src] -= 1
        hit = False
        if dst >= 1:
            if b[dst] == -1:
                b[dst] = 0
                b[0] -= 1
                hit = True
            b[dst] += 1
        hits.append(hit)
    return b, tuple(hits)


def format_hops(hops: Sequence[tuple[int, int]], hits: Sequence[bool]) -> str:
    """gnubg-style text of a play: chains merged (``13/7*/5``), repeats grouped (``8/5(2)``).

    As gnubg 1.07 writes it: hops taken in (from, to) descending order, each joining the first
    chain that ends where it starts, chains listed in the order they were begun.
    """
    if not hops:
        return ""
    # Chains: one checker's consecutive hops join into a path, keeping points where it hit.
    paths: list[list[tuple[int, bool]]] = []
    for (src, dst), hit in zip(hops, hits, strict=True):
        for path in paths:
            if path[-1][0] == src and src != OFF:
                path.append((dst, hit))
                break
        else:
            paths.append([(src, False), (dst, hit)])
    texts = []
    for path in paths:
        parts = [_point_name(path[0][0])]
        for k, (point, hit) in enumerate(path[1:], start=1):
            last = k == len(path) - 1
            if hit or last:
                parts.append(_point_name(point) + ("*" if hit else ""))
        texts.append(((path[0][0], path[-1][0]), "/".join(parts)))
    # Chains with the same start and end group, written as the first that hit (gnubg: ``6/1*(2)``).
    grouped: list[tuple[tuple[int, int], str, int]] = []
    for ends, text in texts:
        if grouped and grouped[-1][0] == ends:
            kept = grouped[-1][1] if "*" in grouped[-1][1] else text
            grouped[-1] = (ends, kept, grouped[-1][2] + 1)
        else:
            grouped.append((ends, text, 1))
    return " ".join(t if n == 1 else f"{t}({n})" for _, t, n in grouped)


def parse_point(token: str, text: str, what: str = "move") -> int:
    """The mover's point number of a token of ``text`` (25 = bar, 0 = off); raises IllegalMove naming both."""
    low = token.lower()
    if low == "bar":
        return BAR
    if low == "off":
        return OFF
    value = int(low)
    if not 0 <= value <= 25:
        raise InvalidMoveText(f"{what} {text!r}: point {token!r} is not between 0 and 25")
    return value


def parse_hops(text: str) -> list[tuple[int, int]]:
    """Split a move text into single segments ``(from, to)`` (``13/7*/5`` gives two; ``(2)`` repeats)."""
    if not isinstance(text, str):
        raise InvalidMoveText(f"move must be a string, got {type(text).__name__}: {text!r}")
    hops: list[tuple[int, int]] = []
    for token in text.replace(",", " ").split():
        match = _TOKEN_RE.match(token)
        if not match:
            raise InvalidMoveText(f"move {text!r}: cannot read {token!r} (expected e.g. 24/18, bar/22*, 6/off, 8/5(2))")
        repeat = int(match.group(1)) if match.group(1) else 1
        body = token.split("(")[0]
        points = [parse_point(p.rstrip("*"), text) for p in body.split("/")]
        for src, dst in zip(points, points[1:], strict=False):
            if dst >= src:
                raise InvalidMoveText(f"move {text!r}: {token!r} does not move toward home")
        hops.extend((src, dst) for _ in range(repeat) for src, dst in zip(points, points[1:], strict=False))
    if not hops:
        raise InvalidMoveText(f"move {text!r} is empty")
    return hops
