"""Reading any supported game file, chosen by content: Jellyfish ``.mat``, gnubg's ``.sgf``, ``--save`` lines."""

from __future__ import annotations

from pathlib import Path

from analysis.matfile import parse_mat
from analysis.records import InvalidRecord, MatchRecord
from analysis.saved import looks_saved, parse_saved
from analysis.sgf import looks_sgf, parse_sgf

__all__ = ["read_records"]


def read_records(path: Path) -> list[MatchRecord]:
    """The matches or sessions in ``path``: a ``--save`` file when it starts with its tournament line, gnubg's
    ``.sgf`` when it starts with a game tree ``(;``, else ``.mat``.

    Raises InvalidRecord naming the file and the line, or OSError when it cannot be read.
    """
    try:
        text = path.read_text(encoding="utf-8", errors="strict")
    except UnicodeDecodeError as exc:
        raise InvalidRecord(f"{path.name}: not a text file (byte {exc.start} is not UTF-8)") from None
    if looks_saved(text):
        return parse_saved(text, path)
    if looks_sgf(text):
        return [parse_sgf(text, path)]
    return [parse_mat(text, path)]
