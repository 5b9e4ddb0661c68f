"""This project's game records: the JSON lines ``jumpgammon tournament --save FILE`` writes.

The first line holds the tournament (players A and B, the rules or the match length); each later
line a money game (``events``, ``winner``, ``points``) or, in a match tournament, a whole match
(``games``, each with ``away`` and ``crawford``). Events name seats; a line's ``seat_of_a`` says
where player A sat, so player 0 of the records is always A. A money tournament is one session;
a match tournament gives one :class:`~analysis.records.MatchRecord` per match.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from analysis.records import Action, Event, GameRecord, InvalidRecord, MatchRecord, MoneyRules
from engine.match import MAX_CUBE

__all__ = ["looks_saved", "read_saved"]

_KINDS = {"roll": Action.ROLL, "double": Action.DOUBLE, "take": Action.TAKE, "pass": Action.PASS}
_KINDS["beaver"] = Action.BEAVER


def looks_saved(text: str) -> bool:
    """True when ``text`` starts like a ``--save`` file (a JSON object with a ``tournament`` key)."""
    return text.lstrip().startswith('{"tournament"')


def read_saved(path: Path) -> list[MatchRecord]:
    """The session or matches of a ``--save`` file; raises InvalidRecord naming the line and what was expected."""
    try:
        text = path.read_text(encoding="utf-8", errors="strict")
    except UnicodeDecodeError as exc:
        raise InvalidRecord(f"{path.name}: not a text file (byte {exc.start} is not UTF-8)") from None
    return parse_saved(text, path)


def parse_saved(text: str, path: Path) -> list[MatchRecord]:
    """The records in ``text`` (the contents of ``path``, named in errors)."""
    lines = [(n, line) for n, line in enumerate(text.splitlines(), start=1) if line.strip()]
    if not lines:
        raise InvalidRecord(f"{path.name}: the file is empty (expected the JSON lines of tournament --save)")
    head = _json(lines[0][1], f"{path.name} line {lines[0][0]}")
    tournament = _field(head, "tournament", dict, f"{path.name} line {lines[0][0]}")
    names = (str(tournament.get("player_a", "A")), str(tournament.get("player_b", "B")))
    length = int(tournament.get("match_length", 0) or 0)
    rest = lines[1:]
    if not rest:
        raise InvalidRecord(f"{path.name}: no game after the tournament line (was it saved with --save?)")
    if length:
        return [_match(path, names, length, n, _json(line, f"{path.name} line {n}")) for n, line in rest]
    rules_json = tournament.get("rules", {})
    rules = MoneyRules(
        jacoby=bool(rules_json.get("jacoby", False)),
        beavers=bool(rules_json.get("beavers", False)),
        max_cube=int(rules_json.get("max_cube", MAX_CUBE)),
    )
    games = []
    score = [0, 0]
    for number, (n, line) in enumerate(rest, start=1):
        where = f"{path.name} line {n}"
        record = _json(line, where)
        seat_of_a = _seat(_field(record, "seat_of_a", int, where), where)
        events = _events(_field(record, "events", list, where), seat_of_a, where)
        games.append(GameRecord(number, (score[0], score[1]), events, where))
        winner = _seat(_field(record, "winner", int, where), where) ^ seat_of_a
        score[winner] += _field(record, "points", int, where)
    return [MatchRecord(path, names, 0, tuple(games), rules)]


def _match(path: Path, names: tuple[str, str], length: int, n: int, record: Mapping[str, Any]) -> MatchRecord:
    """One match line: its games with the score before each (player A first) and the Crawford flags."""
    where = f"{path.name} line {n}"
    seat_of_a = _seat(_field(record, "seat_of_a", int, where), where)
    games = []
    for number, game in enumerate(_field(record, "games", list, where), start=1):
        at = f"{where} game {number}"
        if not isinstance(game, dict):
            raise InvalidRecord(f"{at}: expected a JSON object with 'away', 'crawford' and 'events'")
        away = _field(game, "away", list, at)
        if len(away) != 2 or not all(isinstance(a, int) for a in away):
            raise InvalidRecord(f"{at}: 'away' must be two whole numbers, got {away!r}")
        by_player = (away[seat_of_a], away[1 - seat_of_a])
        score = (length - by_player[0], length - by_player[1])
        events = _events(_field(game, "events", list, at), seat_of_a, at)
        games.append(GameRecord(number, score, events, at, bool(game.get("crawford", False))))
    return MatchRecord(path, names, length, tuple(games), label=f"match on line {n}")


def _events(raw: Sequence[Any], seat_of_a: int, where: str) -> tuple[Event, ...]:
    """A game's events with seats turned into players (A = 0)."""
    out = []
    for k, event in enumerate(raw, start=1):
        at = f"{where} event {k}"
        if not isinstance(event, list) or len(event) < 2 or event[1] not in _KINDS or not _is_int(event[0]):
            raise InvalidRecord(
                f"{at}: expected [seat, 'roll' | 'double' | 'take' | 'pass' | 'beaver', ...], got {event}"
            )
        player = _seat(event[0], at) ^ seat_of_a
        kind = _KINDS[event[1]]
        if kind is Action.ROLL:
            if len(event) != 5 or not all(_is_int(d) for d in event[2:4]) or not isinstance(event[4], str):
                raise InvalidRecord(f"{at}: expected [seat, 'roll', die, die, position ID], got {event!r}")
            d1, d2 = int(event[2]), int(event[3])
            if not (1 <= d1 <= 6 and 1 <= d2 <= 6):
                raise InvalidRecord(f"{at}: dice {d1}{d2} are not two dice 1-6")
            out.append(Event(player, kind, at, dice=(d1, d2), child_id=event[4]))
        elif kind is Action.DOUBLE:
            if len(event) != 3 or not _is_int(event[2]):
                raise InvalidRecord(f"{at}: expected [seat, 'double', cube], got {event!r}")
            out.append(Event(player, kind, at, cube=int(event[2])))
        else:
            out.append(Event(player, kind, at))
    return tuple(out)


def _json(line: str, where: str) -> dict[str, Any]:
    try:
        value = json.loads(line)
    except json.JSONDecodeError as exc:
        raise InvalidRecord(
            f"{where}: not JSON ({exc.msg} at column {exc.colno}; expected a tournament --save line)"
        ) from None
    if not isinstance(value, dict):
        raise InvalidRecord(f"{where}: expected a JSON object, got {type(value).__name__}")
    return value


def _is_int(value: Any) -> bool:
    """A JSON integer (``true`` and ``false`` are Python ints too, and are not)."""
    return isinstance(value, int) and not isinstance(value, bool)


def _field(record: Mapping[str, Any], key: str, kind: type, where: str) -> Any:
    value = record.get(key)
    if not isinstance(value, kind) or isinstance(value, bool) and kind is int:
        raise InvalidRecord(f"{where}: expected {kind.__name__} {key!r}, got {value!r}")
    return value


def _seat(value: int, where: str) -> int:
    if value not in (0, 1):
        raise InvalidRecord(f"{where}: seat {value!r} is not 0 or 1")
    return value
