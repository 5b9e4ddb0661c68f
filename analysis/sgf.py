"""GNU Backgammon's ``.sgf`` match files: the backgammon dialect (``GM[6]``) of the Smart Game Format.

The layout read (as gnubg 1.07's ``save match`` writes it; every error names the file and line)::

    (;FF[4]GM[6]CA[UTF-8]AP[GNU Backgammon:1.07.001]MI[length:7][game:0][ws:0][bs:0]
      PW[Alice]PB[Bob]RU[Crawford]RE[B+2]
    ;W[21xwmk]
    ;B[double]
    ;W[take]
    ...)
    (;FF[4]GM[6]...MI[length:7][game:1][ws:0][bs:2]...RU[Crawford:CrawfordGame]RE[W+1R] ...)

One game tree per game, its root node holding the game's properties: ``MI`` the match length (0
for money), the game's number from 0 and the scores before it (``ws`` White's, ``bs`` Black's),
``PW``/``PB`` the names, ``RU`` the rules (``Crawford``, ``Crawford:CrawfordGame`` for the
Crawford game itself, ``Jacoby``; the variants ``Nackgammon`` and ``Hypergammon`` are
refused), ``RE`` the result (``W+2``: White wins 2 points; a final ``R``: by resignation).
White is player 0 (gnubg's X, a ``.mat`` file's left column), Black player 1.

Each later node is one action, ``W[...]`` or ``B[...]``: a roll and its play ``DDffttfftt``
(two dice 1-6, then one from/to letter pair per checker moved: ``a``..``x`` the points, ``y``
the bar, ``z`` off; nothing after the dice when the roll has no play), or ``double``, ``take``,
``drop``. A beaver is written as a second ``double`` by the side doubled, then the doubler's
``take`` (a raccoon: a third ``double``, by the doubler, then the other side's ``take``). Points
are lettered on one board: ``a`` is White's 1 point and Black's 24. A node ``PL[W]DI[52]`` is a
roll before any play (gnubg writes it when the roller or its opponent resigned then). Other
properties (gnubg's analysis ``A``/``DA``, comments ``C``, ``GS`` statistics, ``DT`` the date)
are read past; properties that set up a position (``AE``, ``AW``, ``AB``, ``PL``, ``CO``, ``CV``,
``DI`` otherwise) are refused: analysis replays games from the starting position. Variations are
read past too (the main line is the first one). ``RU[NoCube]`` (gnubg's ``set cube use off``) is
a money session without the cube (a match without it is refused). gnubg does not record whether
beavers were allowed: they are taken as allowed when the file holds one.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from dataclasses import dataclass, field
from pathlib import Path

from analysis.records import Action, Event, GameRecord, InvalidRecord, MatchRecord, MoneyRules, read_record_text
from engine.match import MAX_CUBE

__all__ = ["looks_sgf", "parse_sgf", "read_sgf"]

_IDENT = re.compile(r"[A-Za-z]+")
_PLAY = re.compile(r"^([1-6])([1-6])((?:[a-z][a-z])*)$")
_DIGITS = re.compile(r"^\d\d(?:[a-z][a-z])*$")  # a roll whose dice are out of range
_MI_KEYS = ("length", "game", "ws", "bs")
_RESULT = re.compile(r"^([WB])\+(\d+)(R?)$")
_SETUP = ("AE", "AW", "AB", "PL", "CO", "CV", "DI")
_VARIANTS = ("Nackgammon", "Hypergammon")
_CUBE_WORDS = {"double": Action.DOUBLE, "take": Action.TAKE, "drop": Action.PASS}
_PLAYERS = {"W": 0, "B": 1}
_OFF, _BAR = ord("z") - ord("a"), ord("y") - ord("a")


@dataclass
class _Node:
    """One SGF node: its properties (identifier to values, in order) and the line each starts on."""

    line: int
    properties: dict[str, list[str]] = field(default_factory=dict)
    lines: dict[str, int] = field(default_factory=dict)


def looks_sgf(text: str) -> bool:
    """True when ``text`` starts like an SGF file (a game tree: ``(`` then ``;``)."""
    return re.match(r"\s*\(\s*;", text) is not None


def read_sgf(path: Path) -> MatchRecord:
    """The match or money session in gnubg's ``.sgf`` file ``path``; raises InvalidRecord naming the line and fault."""
    return parse_sgf(read_record_text(path), path)


def parse_sgf(text: str, path: Path) -> MatchRecord:
    """The match in ``text`` (the contents of ``path``, named in errors); see the module docstring."""
    name = path.name
    trees = _Parser(text, name).collection()
    if not trees:
        raise InvalidRecord(f"{name}: no game tree in the file (expected '(;FF[4]GM[6]...')")
    games: list[GameRecord] = []
    length: int | None = None
    names: tuple[str, str] | None = None
    jacoby = beavers = no_cube = False
    for nodes in trees:
        root = nodes[0]
        where = f"{name} line {root.line}"
        game_type = _one(root, "GM", name)
        if game_type != "6":
            raise InvalidRecord(f"{where}: GM[{game_type}] is not backgammon (expected GM[6])")
        for key in _SETUP:
            if key in root.properties or any(key in n.properties and not _rolled(n) for n in nodes[1:]):
                raise InvalidRecord(
                    f"{where}: property {key} sets up a position; only games from the starting position are read"
                )
        info = _match_info(root, name)
        if length is None:
            length = info["length"]
        elif info["length"] != length:
            raise InvalidRecord(f"{where}: MI length {info['length']}, but the first game says {length}")
        game_names = (_text(root, "PW", name, "White"), _text(root, "PB", name, "Black"))
        names = names or game_names
        rules = [r for value in root.properties.get("RU", []) for r in value.split(":")]
        variant = [r for r in rules if r.startswith(_VARIANTS)]
        if variant:
            raise InvalidRecord(f"{where}: RU[{variant[0]}] is a variant game; only standard backgammon is read")
        jacoby = jacoby or "Jacoby" in rules
        if "NoCube" in rules:
            if length:
                raise InvalidRecord(f"{where}: RU[NoCube]: a match played without the cube is not analysed")
            no_cube = True
        crawford = ("CrawfordGame" in rules) if length else None
        if length and "Crawford" not in rules:
            crawford = False
        events = _events(nodes[1:], name)
        beavers = beavers or any(e.action is Action.BEAVER for e in events)
        result = _result(root, name)
        number = info["game"] + 1
        if games and number != games[-1].number + 1:
            raise InvalidRecord(f"{where}: game {number} follows game {games[-1].number} (MI game numbers skip)")
        games.append(GameRecord(number, (info["ws"], info["bs"]), (*events, *result), where, crawford))
    assert length is not None and names is not None
    limit = 1 if no_cube else MAX_CUBE  # gnubg's "set cube use off": no double at all
    rules_read = MoneyRules(jacoby=jacoby, beavers=beavers, max_cube=limit) if length == 0 else MoneyRules()
    return MatchRecord(path, names, length, tuple(games), rules_read)


def _one(node: _Node, key: str, name: str) -> str:
    """The single value of ``key`` at ``node``; raises naming the line when it is missing."""
    values = node.properties.get(key)
    if not values:
        raise InvalidRecord(f"{name} line {node.line}: the game's root node has no {key}[...] property")
    return values[0].strip()


def _text(node: _Node, key: str, name: str, default: str) -> str:
    """A simple text property (a player's name), ``default`` when absent."""
    values = node.properties.get(key)
    return values[0].strip() if values and values[0].strip() else default


def _match_info(root: _Node, name: str) -> dict[str, int]:
    """The root's ``MI`` values: length, game (from 0), ws and bs (each required)."""
    where = f"{name} line {root.lines.get('MI', root.line)}"
    found: dict[str, int] = {}
    for value in root.properties.get("MI", []):
        key, colon, number = value.strip().partition(":")
        if not colon or (key in _MI_KEYS and not number.isdigit()):
            raise InvalidRecord(f"{where}: MI[{value}] is not 'length:N', 'game:N', 'ws:N' or 'bs:N'")
        if key in _MI_KEYS:
            found[key] = int(number)
    missing = [k for k in _MI_KEYS if k not in found]
    if missing:
        raise InvalidRecord(
            f"{where}: the MI property lacks {', '.join(missing)} (expected MI[length:N][game:N][ws:N][bs:N])"
        )
    return found


def _result(root: _Node, name: str) -> tuple[Event, ...]:
    """A resignation (``RE`` ending in ``R``) as a closing WIN event (its player and points); else none."""
    values = root.properties.get("RE")
    if not values:
        return ()
    where = f"{name} line {root.lines['RE']}"
    found = _RESULT.match(values[0].strip())
    if found is None:
        raise InvalidRecord(f"{where}: RE[{values[0]}] is not a result 'W+N' or 'B+N' (with 'R' for a resignation)")
    if not found.group(3):
        return ()  # the replay finds who won and how many points; only a resignation needs saying
    return (Event(_PLAYERS[found.group(1)], Action.WIN, where, points=int(found.group(2))),)


def _rolled(node: _Node) -> bool:
    """Whether ``node`` records dice rolled with no play yet (``PL[W]DI[52]``: gnubg's roll before a resignation)."""
    return {"PL", "DI"} <= set(node.properties) and not {"W", "B"} & set(node.properties)


def _events(nodes: list[_Node], name: str) -> list[Event]:
    """The actions of a game's nodes in order (a beaver's double and the doubler's take as one BEAVER)."""
    out: list[Event] = []
    cube = 1
    pending_beaver = False
    for node in nodes:
        movers = [k for k in ("W", "B") if k in node.properties]
        if _rolled(node):
            where = f"{name} line {node.lines['DI']}"
            side, rolled = node.properties["PL"][0].strip(), node.properties["DI"][0].strip()
            if side not in _PLAYERS or not re.fullmatch(r"[1-6][1-6]", rolled):
                raise InvalidRecord(f"{where}: PL[{side}]DI[{rolled}] is not a side W or B and two dice 1-6")
            out.append(Event(_PLAYERS[side], Action.ROLL, where, dice=(int(rolled[0]), int(rolled[1])), move=""))
            continue
        if not movers:
            continue  # a node with no action (a comment, analysis)
        if len(movers) > 1:
            raise InvalidRecord(f"{name} line {node.line}: a node with both W[...] and B[...]")
        key = movers[0]
        player = _PLAYERS[key]
        value = node.properties[key][0].strip()
        where = f"{name} line {node.lines[key]}"
        if pending_beaver:  # after a beaver: a raccoon (the other side redoubles again) or the take
            if value == "double" and out[-1].player != player:
                out.append(Event(player, Action.BEAVER, where, cube=2 * cube))
                cube *= 2
                continue
            if value != "take" or out[-1].player == player:
                raise InvalidRecord(f"{where}: expected the doubler's take after a beaver, got {key}[{value}]")
            pending_beaver = False
            continue
        play = _PLAY.match(value)
        if play is None and _DIGITS.match(value):
            raise InvalidRecord(
                f"{where}: dice {value[:2]!r} of {key}[{value}] are not two dice 1-6 (expected e.g. '52fdfe')"
            )
        if play is not None:
            dice = (int(play.group(1)), int(play.group(2)))
            out.append(Event(player, Action.ROLL, where, dice=dice, move=_move(play.group(3), player, where)))
            continue
        action = _CUBE_WORDS.get(value)
        if action is None:
            raise InvalidRecord(
                f"{where}: cannot read {key}[{value}] (expected a roll and play such as '52fdfe', "
                "or 'double', 'take', 'drop')"
            )
        if action is Action.DOUBLE and out and out[-1].action is Action.DOUBLE and out[-1].player != player:
            out.append(Event(player, Action.BEAVER, where, cube=4 * cube))
            cube *= 4
            pending_beaver = True
            continue
        if action is Action.DOUBLE:
            out.append(Event(player, action, where, cube=2 * cube))
        else:
            if action is Action.TAKE:
                cube *= 2
            out.append(Event(player, action, where))
    return out


def _move(letters: str, player: int, where: str) -> str:
    """A play's letter pairs as the mover's notation (``24/23 13/11``; 25 the bar, 0 off)."""
    if len(letters) > 8:
        raise InvalidRecord(f"{where}: more than four checkers moved ({letters!r})")
    hops = []
    for k in range(0, len(letters), 2):
        start, end = (_point(c, player, where) for c in letters[k : k + 2])
        hops.append(f"{start}/{end}")
    return " ".join(hops)


def _point(letter: str, player: int, where: str) -> int:
    """The mover's number of a board letter (``a``..``x`` points, ``y`` the bar = 25, ``z`` off = 0)."""
    index = ord(letter) - ord("a")
    if index == _BAR:
        return 25
    if index == _OFF:
        return 0
    return index + 1 if player == 0 else 24 - index


class _Parser:
    """The SGF syntax: a collection of game trees, each a sequence of nodes and its variations (main line kept)."""

    def __init__(self, text: str, name: str) -> None:
        self.text = text
        self.name = name
        self.at = 0
        self.newlines = [k for k, c in enumerate(text) if c == "\n"]

    def line(self, at: int | None = None) -> int:
        """The line (from 1) of offset ``at`` (the current one by default)."""
        return bisect_left(self.newlines, self.at if at is None else at) + 1

    def fail(self, expected: str) -> InvalidRecord:
        """An error at the current place: the line and what was expected there."""
        if self.at >= len(self.text):
            return InvalidRecord(f"{self.name} line {self.line()}: the file ends early (expected {expected})")
        got = self.text[self.at : self.at + 12]
        return InvalidRecord(f"{self.name} line {self.line()}: expected {expected}, got {got!r}")

    def skip_space(self) -> None:
        while self.at < len(self.text) and self.text[self.at].isspace():
            self.at += 1

    def collection(self) -> list[list[_Node]]:
        """Every game tree's main line."""
        trees = []
        self.skip_space()
        while self.at < len(self.text):
            if self.text[self.at] != "(":
                raise self.fail("'(' starting a game tree")
            trees.append(self.tree())
            self.skip_space()
        return trees

    def tree(self) -> list[_Node]:
        """One game tree from its ``(`` to its ``)``: its nodes, then the first variation's."""
        self.at += 1
        nodes: list[_Node] = []
        self.skip_space()
        while self.at < len(self.text) and self.text[self.at] == ";":
            nodes.append(self.node())
            self.skip_space()
        if not nodes:
            raise self.fail("';' starting a node")
        first = True
        while self.at < len(self.text) and self.text[self.at] == "(":
            variation = self.tree()
            if first:
                nodes.extend(variation)
                first = False
            self.skip_space()
        if self.at >= len(self.text) or self.text[self.at] != ")":
            raise self.fail("';' (a node), '(' (a variation) or ')' closing the game tree")
        self.at += 1
        return nodes

    def node(self) -> _Node:
        """One node: ``;`` then properties ``ID[value][value]...``."""
        node = _Node(self.line())
        self.at += 1
        self.skip_space()
        while True:
            ident = _IDENT.match(self.text, self.at)
            if ident is None:
                return node
            key = ident.group()
            if not key.isupper():
                raise InvalidRecord(f"{self.name} line {self.line()}: property name {key!r} is not upper case")
            node.lines.setdefault(key, self.line())
            self.at = ident.end()
            self.skip_space()
            if self.at >= len(self.text) or self.text[self.at] != "[":
                raise self.fail(f"'[' opening the value of property {key}")
            values = node.properties.setdefault(key, [])
            while self.at < len(self.text) and self.text[self.at] == "[":
                values.append(self.value(key))
                self.skip_space()

    def value(self, key: str) -> str:
        """One ``[value]`` (``\\]`` and ``\\\\`` escaped; a backslash before a newline joins lines)."""
        start = self.at
        self.at += 1
        out = []
        while self.at < len(self.text):
            c = self.text[self.at]
            if c == "\\" and self.at + 1 < len(self.text):
                following = self.text[self.at + 1]
                if following != "\n":
                    out.append(following)
                self.at += 2
                continue
            if c == "]":
                self.at += 1
                return "".join(out)
            out.append(c)
            self.at += 1
        raise InvalidRecord(
            f"{self.name} line {self.line(start)}: the file ends inside the value of property {key} (expected ']')"
        )
