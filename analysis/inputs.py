"""Reading any supported game file: Jellyfish ``.mat`` or this project's ``--save`` lines, chosen by content."""

from __future__ import annotations

from pathlib import Path

from analysis.matfile import parse_mat
from analysis.records import InvalidRecord, MatchRecord
from analysis.saved import looks_saved, parse_saved

__all__ = ["read_records"]


def read_records(path: Path) -> list[MatchRecord]:
    """The matches or sessions in ``path`` (a ``--save`` file when it starts with its tournament line, else ``.mat``).

    Raises InvalidRecord naming the file and the line, or OSError when it cannot be read.
    """
    try:
        text = path.read_text(encoding="utf-8", errors="strict")
    except UnicodeDecodeError as exc:
        raise InvalidRecord(f"{path.name}: not a text file (byte {exc.start} is not UTF-8)") from None
    if looks_saved(text):
        return parse_saved(text, path)
    return [parse_mat(text, path)]
