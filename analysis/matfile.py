"""Jellyfish ``.mat`` files, as gnubg's ``export match mat``, this project's ``--mat`` and the servers write them.

The layout read (every line is numbered for the error messages)::

    ; [Jacoby "On"]                     comments; the XG-style rule tags are read in money sessions
     7 point match                      0 for a money session
     Game 1
     Alice : 0                     Bob : 0
      1) 31: 8/5 6/5               42: 8/4 6/4
      2)  Doubles => 2              Takes
          Wins 2 points

A numbered line holds at most two actions, the left column's (player 0) and the right column's
(player 1); with one action only, its column is the side of the line it starts on. An action is
a roll ``DD: play`` (play in the mover's numbering, 25 the bar, 0 off; nothing after the colon
when the roll has no play, or XG's ``Cannot Move``), ``Doubles => N``, ``Takes``, ``Drops``,
``Beavers => N`` (a beaver, and a raccoon: the doubler's redouble after it) or ``Wins N point(s)``.
A roll with nothing played before a resignation (gnubg writes ``52:  Wins 1 point`` in one column,
XG ``52: ???``) is the roll alone: the replay ends the game at the ``Wins`` that follows. Plays
are checked when the game is replayed (:mod:`analysis.replay`).
"""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

from analysis.records import Action, Event, GameRecord, InvalidRecord, MatchRecord, MoneyRules, read_record_text
from engine.match import MAX_CUBE

__all__ = ["read_mat"]

_LENGTH = re.compile(r"^\s*(\d+)\s+point\s+match\b", re.IGNORECASE)
_GAME = re.compile(r"^\s*Game\s+(\d+)\s*$", re.IGNORECASE)
_SCORES = re.compile(r"^\s*(?P<n0>\S.*?)\s*:\s*(?P<s0>\d+)\s+(?P<n1>\S.*?)\s*:\s*(?P<s1>\d+)\s*$")
_NUMBERED = re.compile(r"^\s*(\d+)\)(.*)$")
_WINS_LINE = re.compile(r"^(\s*)Wins\b")
# Where an action starts: a roll ``DD:`` or one of the cube and result words.
_ACTION_START = re.compile(r"(?<!\S)(?:\d+:|Doubles\b|Takes\b|Accepts\b|Drops\b|Passes\b|Rejects\b|Beavers\b|Wins\b)")
_ROLL = re.compile(r"^(\d+):\s*(.*)$")
#: What XG writes after a roll in place of a play: "???" (rolled, then resigned), "Cannot Move" (a dance).
_NO_PLAY = re.compile(r"^(?:\?{3,4}|Cannot\s+Move)$", re.IGNORECASE)
_CUBE = re.compile(r"^(Doubles|Beavers)\s*=>\s*(\d+)$")
_WINS = re.compile(r"^Wins\s+(\d+)\s+points?(?:\s+and\s+the\s+match)?$", re.IGNORECASE)
_RULE = re.compile(r'^;\s*\[(Jacoby|Beaver|CubeLimit)\s+"([^"]*)"\]', re.IGNORECASE)
#: An action starting at or after this column of a line with one action is in the right column.
RIGHT_FROM = 20
_WORDS = {"Takes": Action.TAKE, "Accepts": Action.TAKE, "Drops": Action.PASS, "Passes": Action.PASS}
_WORDS["Rejects"] = Action.PASS


def read_mat(path: Path) -> MatchRecord:
    """The match or money session in the ``.mat`` file ``path``; raises InvalidRecord naming the line and the fault."""
    return parse_mat(read_record_text(path), path)


def parse_mat(text: str, path: Path) -> MatchRecord:
    """The match in ``text`` (the contents of ``path``, named in errors); see the module docstring."""
    name = path.name
    length: int | None = None
    rules: dict[str, str] = {}
    games: list[GameRecord] = []
    names: tuple[str, str] | None = None
    current: dict[str, object] | None = None  # the game being read: number, where, score, events
    expect_scores = False
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.rstrip()
        where = f"{name} line {number}"
        if not line.strip():
            continue
        if line.lstrip().startswith(";"):
            rule = _RULE.match(line.strip())
            if rule:
                rules[rule.group(1).lower()] = rule.group(2)
            continue
        if expect_scores:
            scores = _SCORES.match(line)
            if not scores:
                raise InvalidRecord(f"{where}: expected the players' scores 'NAME : SCORE  NAME : SCORE', got {line!r}")
            game_names = (scores.group("n0"), scores.group("n1"))
            names = names or game_names
            assert current is not None
            current["score"] = (int(scores.group("s0")), int(scores.group("s1")))
            expect_scores = False
            continue
        if length is None:
            found = _LENGTH.match(line)
            if not found:
                raise InvalidRecord(f"{where}: expected the header 'N point match' (0 for money), got {line!r}")
            length = int(found.group(1))
            continue
        game = _GAME.match(line)
        if game:
            if current is not None:
                games.append(_game(current))
            current = {"number": int(game.group(1)), "where": where, "events": []}
            expect_scores = True
            continue
        if current is None:
            raise InvalidRecord(f"{where}: expected 'Game 1' before the moves, got {line!r}")
        events = current["events"]
        assert isinstance(events, list)
        events.extend(_line_events(line, where))
    if length is None:
        raise InvalidRecord(f"{name}: no 'N point match' header (is it a .mat file?)")
    if current is None or names is None:
        raise InvalidRecord(f"{name}: no game in the file (expected 'Game 1' and the players' scores)")
    if expect_scores:
        raise InvalidRecord(f"{name}: the file ends after the header of game {current['number']}")
    games.append(_game(current))
    money = _money_rules(rules, name) if length == 0 else MoneyRules()
    if length == 0 and any(e.action is Action.BEAVER for g in games for e in g.events):
        money = replace(money, beavers=True)  # the file holds a beaver: allowed, whatever its tag says
    return MatchRecord(path, names, length, tuple(games), money)


def _game(current: dict[str, object]) -> GameRecord:
    events = current["events"]
    score = current["score"]
    assert isinstance(events, list) and isinstance(score, tuple)
    return GameRecord(int(str(current["number"])), score, tuple(events), str(current["where"]))


def _money_rules(rules: dict[str, str], name: str) -> MoneyRules:
    """The XG-style rule tags of a money session (absent: no Jacoby, no beavers, cube limit 4096; gnubg's own
    export writes none, so its sessions read as Jacoby off whatever gnubg played: the report says which rules)."""
    limit = rules.get("cubelimit", str(MAX_CUBE))
    if not limit.isdigit() or int(limit) < 1:
        raise InvalidRecord(f"{name}: CubeLimit {limit!r} is not a positive whole number")
    return MoneyRules(
        jacoby=rules.get("jacoby", "off").lower() == "on",
        beavers=rules.get("beaver", "off").lower() == "on",
        max_cube=min(int(limit), MAX_CUBE),
        jacoby_stated="jacoby" in rules,
    )


def _line_events(line: str, where: str) -> list[Event]:
    """The one or two actions of a move line (or a ``Wins`` line), left column first."""
    numbered = _NUMBERED.match(line)
    if numbered:
        body, offset = numbered.group(2), numbered.start(2)
    elif _WINS_LINE.match(line):
        body, offset = line, 0
    else:
        raise InvalidRecord(f"{where}: expected a move line 'NN) ...', 'Wins N points' or 'Game N', got {line!r}")
    starts = [m.start() for m in _ACTION_START.finditer(body)]
    if not starts or body[: starts[0]].strip():
        raise InvalidRecord(
            f"{where}: expected a roll 'DD: move', 'Doubles => N', 'Takes', 'Drops', 'Beavers => N' or "
            f"'Wins N points', got {body.strip()!r}"
        )
    cells = [body[a:b].strip() for a, b in zip(starts, [*starts[1:], len(body)], strict=True)]
    # gnubg writes a roll followed by a resignation as "52:  Wins 1 point" in one column: one cell
    merged: list[tuple[int, str]] = []
    for start, cell in zip(starts, cells, strict=True):
        same_column = merged and (offset + merged[-1][0] < RIGHT_FROM) == (offset + start < RIGHT_FROM)
        if merged and same_column and _WINS.match(cell) and _bare_roll(merged[-1][1]):
            merged[-1] = (merged[-1][0], f"{merged[-1][1]} {cell}")
        else:
            merged.append((start, cell))
    if len(merged) > 2:
        raise InvalidRecord(f"{where}: more than two actions on one line: {body.strip()!r}")
    cells = [cell for _, cell in merged]
    columns = [0, 1] if len(cells) == 2 else [0 if offset + merged[0][0] < RIGHT_FROM else 1]
    return [e for cell, column in zip(cells, columns, strict=True) for e in _events(cell, column, where)]


def _bare_roll(cell: str) -> bool:
    """Whether ``cell`` is a roll with nothing played (a dance, or a roll before a resignation)."""
    roll = _ROLL.fullmatch(cell)
    return roll is not None and (not roll.group(2).strip() or roll.group(2).strip().startswith("?"))


def _events(cell: str, player: int, where: str) -> list[Event]:
    """The action of one column's cell, by ``player`` (a roll followed by a resignation: the roll and the win)."""
    roll = _ROLL.match(cell)
    after = roll.group(2).strip().lstrip("?").strip() if roll else ""
    if roll and _WINS.match(after):
        return [_event(f"{roll.group(1)}:", player, where), _event(after, player, where)]
    return [_event(cell, player, where)]


def _event(cell: str, player: int, where: str) -> Event:
    """One action of a move line, by ``player`` (its column)."""
    roll = _ROLL.match(cell)
    if roll:
        digits = roll.group(1)
        if len(digits) != 2 or not all("1" <= d <= "6" for d in digits):
            raise InvalidRecord(f"{where}: dice {digits!r} are not two dice 1-6 (expected e.g. '31: 8/5 6/5')")
        play = roll.group(2).strip()
        play = "" if _NO_PLAY.match(play) else play
        return Event(player, Action.ROLL, where, dice=(int(digits[0]), int(digits[1])), move=play)
    cube = _CUBE.match(cell)
    if cube:
        value = int(cube.group(2))
        kind = Action.DOUBLE if cube.group(1) == "Doubles" else Action.BEAVER
        return Event(player, kind, where, cube=value)
    if cell in _WORDS:
        return Event(player, _WORDS[cell], where)
    wins = _WINS.match(cell)
    if wins:
        return Event(player, Action.WIN, where, points=int(wins.group(1)))
    raise InvalidRecord(f"{where}: cannot read {cell!r} (expected 'Doubles => N', 'Beavers => N' or 'Wins N points')")
