"""Generate tests/fixtures/gnubg_mat_import.json: tournament .mat files as GNU Backgammon 1.07 reads them.

Run from the repository root with the project's Python (about 30 s):

    .venv/bin/python tools/gnubg_fixtures/gen_mat_import.py

That is the driver half. It plays the seeded cubeful tournaments in TOURNAMENTS with every event
recorded (arena.run_tournament), writes their .mat files with arena/mat.py and their games with
arena.save_games into a temporary folder, and runs this same file inside gnubg:

    MAT_IMPORT_JOB=job.json /usr/games/gnubg -t -q -r -p tools/gnubg_fixtures/gen_mat_import.py

job.json is ``{"sessions": [{"mat": path, "jacoby": bool}, ...], "out": path}``. The gnubg half
(stdlib only: gnubg's own Python) does, per file, ``set jacoby on|off`` (gnubg reads no rules
from a .mat file), ``import mat FILE``, and reads back what gnubg holds: gnubg.match() for the
records, then steps through every record (``first game``, ``next game``, ``next``) for gnubg's
own state after it: the position (gnubg.board(), the side on roll's view) after a move, the
cube value and owner after a cube action. It writes that to ``out``.

Fixture::

    {"generator", "gnubg_version", "tournaments": [{"a", "a_cube", "b", "b_cube", "games", "seed",
     "rules"}], "coverage": {...},
     "sessions": [{"tournament", "file", "players", "rules", "mat", "records", "gnubg"}]}

* ``mat``: the lines of the file gnubg imported (the file is them joined by newlines, plus a
  final newline); ``records``: the games of that pair as arena.save_games writes them
  (``events``, ``seat_of_a``, ``winner``, ``points``, ...).
* ``gnubg``: ``{"messages", "names", "games": [{"score", "winner", "points", "resigned", "state",
  "actions"}]}``. ``messages`` is what ``import mat`` printed, less the board gnubg draws
  after it (empty when it accepted every line). Players are gnubg's: 0 = X = the left column
  = player A, 1 = O = player B. ``score`` is the session score gnubg read from the game's
  header, ``winner`` and ``points`` gnubg's result, ``state`` gnubg's game state at the end
  (2 over, 3 resigned, 4 dropped). Actions: ``["move", player, dice, [[from, to], ...],
  position_id_after]`` (dice as gnubg holds them, points in the mover's numbering, 25 bar,
  0 off; an empty list for a roll with no play), ``["double" | "take" | "drop", player,
  cube_after, owner_after]`` (owner -1 = centred), and ``["resign", player, points]`` (never
  expected: gnubg makes one of a ``Wins`` line only when the game is still going). A beaver
  reads back as the beaverer's ``double`` (cube 2x, owned by the beaverer) and the doubler's
  ``take`` (cube 4x).
* ``coverage``: counts over all games (cube actions, beavers, gammons, backgammons, dances,
  hits, bar entries, bear-offs, games ended by a drop in each column, Jacoby singles).

The driver checks (raises on failure) that gnubg printed nothing on import, read no resignation,
and read every game's positions, winner and points as recorded, and that the coverage list is
complete; tests/arena/test_mat.py checks everything else (the cube after every action).
"""

import json
import os
import sys

try:  # gnubg's own module inside gnubg (the venv may hold an unrelated pip package of that name)
    import gnubg
except ImportError:
    gnubg = None

GNUBG = "/usr/games/gnubg"
JOB_VARIABLE = "MAT_IMPORT_JOB"
FIXTURE = "gnubg_mat_import.json"
PLAYER_COLUMN = {"X": 0, "O": 1}

# (a, a_cube, b, b_cube, games, seed, beavers, jacoby): chosen (by trying seeds) so that the games
# hold every item of REQUIRED_COVERAGE.
TOURNAMENTS = [
    ("net@0", "dead", "net@0", "live", 8, 7, True, False),
    ("net@0", "none", "net@0", "janowski:0.7", 4, 2, False, True),
    ("net@0", "janowski:0.7", "net@0", "dead", 4, 4, False, False),
]
REQUIRED_COVERAGE = [
    "double", "take", "pass", "beaver", "gammon", "backgammon", "jacoby_single", "dance", "hit",
    "enter", "bearoff", "drop_left", "drop_right",
]  # fmt: skip
# Matches (one .mat file per match): (a, a_cube, b, b_cube, matches, seed, match length); they must hold
# every item of MATCH_COVERAGE.
MATCH_TOURNAMENTS = [
    ("net@0", "gnubg-match", "net@0", "jump-match", 6, 3, 5),
    ("pubeval", "none", "net@0", "gnubg-match", 4, 1, 3),
]
MATCH_COVERAGE = ["crawford", "post_crawford", "double", "take", "pass", "gammon", "points_past_the_length"]


# ---------------------------------------------------------------------------
# Inside gnubg
# ---------------------------------------------------------------------------


def read_back(path, jacoby):
    """What gnubg holds after importing the .mat file at ``path`` (see the module docstring)."""
    sys.path.insert(0, os.path.join(os.getcwd(), "tools", "gnubg_fixtures"))
    import gfx_common as G

    gnubg.command("set jacoby %s" % ("on" if jacoby else "off"))
    messages = G.capture("import mat %s" % path)
    match = gnubg.match(0, 0, 0, 0)
    names = [match["match-info"]["X"]["name"], match["match-info"]["O"]["name"]]
    games = []
    for index, game in enumerate(match["games"]):
        gnubg.command("first game")
        for _ in range(index):
            gnubg.command("next game")
        actions = []
        state = None
        for record in game["game"]:
            gnubg.command("next")
            kind = record["action"]
            player = PLAYER_COLUMN.get(record.get("player"), -1)
            if kind == "move":
                dice = "%d%d" % tuple(record["dice"])
                move = [[int(a), int(b)] for a, b in record["move"]]
                actions.append([kind, player, dice, move, gnubg.positionid(gnubg.board())])
            elif kind in ("double", "take", "drop"):
                cube = gnubg.cubeinfo()
                actions.append([kind, player, int(cube["cube"]), int(cube["cubeowner"])])
            elif kind == "resign":
                actions.append([kind, player, int(record["points"])])
            else:
                actions.append([kind, player])
            state = int(gnubg.posinfo()["gamestate"])
        info = game["info"]
        games.append(
            {
                "score": [int(info["score-X"]), int(info["score-O"])],
                "crawford": bool(info.get("crawford", False)),
                "winner": PLAYER_COLUMN.get(info.get("winner"), -1),
                "points": int(info.get("points-won", 0)),
                "resigned": bool(info.get("resigned", False)),
                "state": state,
                "actions": actions,
            }
        )
    return {"messages": without_board(messages), "names": names, "games": games}


def without_board(text):
    """gnubg's output less the board it draws after an import (even with ``set display off``)."""
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if "Position ID:" in line), None)
    if start is not None:  # the ID lines, then the board between its two "+13-14-..." / "+12-11-..." edges
        edges = [i for i in range(start, len(lines)) if lines[i].startswith(" +")][:2]
        lines = lines[:start] + lines[(edges[-1] if edges else start) + 1 :]
    return "\n".join(line.rstrip() for line in lines).strip()


def gnubg_main(job_path):
    """Import every session of the job file and write what gnubg read back to the job's ``out``."""
    sys.path.insert(0, os.path.join(os.getcwd(), "tools", "gnubg_fixtures"))
    import gfx_common as G

    with open(job_path) as f:
        job = json.load(f)
    for command in ["set display off", "set confirm new off", "set cube use on"]:
        gnubg.command(command)
    result = {"gnubg_version": G.gnubg_version(), "sessions": []}
    for session in job["sessions"]:
        result["sessions"].append(read_back(session["mat"], session["jacoby"]))
    with open(job["out"], "w") as f:
        json.dump(result, f)


# ---------------------------------------------------------------------------
# Driver (the project's Python)
# ---------------------------------------------------------------------------


def run_gnubg_import(sessions, folder, timeout=600):
    """gnubg's read-back of ``sessions`` (``[{"mat": path, "jacoby": bool}]``), using ``folder`` for the job files."""
    import subprocess

    job_path = os.path.join(folder, "job.json")
    out_path = os.path.join(folder, "readback.json")
    with open(job_path, "w") as f:
        json.dump({"sessions": sessions, "out": out_path}, f)
    env = dict(os.environ, **{JOB_VARIABLE: job_path})
    command = [GNUBG, "-t", "-q", "-r", "-p", os.path.abspath(__file__)]
    subprocess.run(command, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, check=True, timeout=timeout)
    with open(out_path) as f:
        return json.load(f)


def coverage(sessions):
    """How often each item of REQUIRED_COVERAGE (and a few more) occurs in the sessions' games."""
    from arena.games import result_multipliers
    from engine.position import Position

    counts = dict.fromkeys(REQUIRED_COVERAGE, 0)
    for session in sessions:
        for game in session["records"]:
            position = Position.initial()
            for event in game["events"]:
                kind = event[1]
                if kind != "roll":
                    counts[kind] = counts.get(kind, 0) + 1
                    if kind == "pass":
                        column = int(event[0]) ^ game["seat_of_a"]
                        counts["drop_left" if column == 0 else "drop_right"] += 1
                    continue
                move = next(m for m, child in position.plays((event[2], event[3])) if child.id == event[4])
                position = Position.from_id(event[4])
                counts["dance"] += not move.hops
                counts["hit"] += any(move.hits)
                counts["enter"] += any(src == 25 for src, _ in move.hops)
                counts["bearoff"] += any(dst == 0 for _, dst in move.hops)
            if not game["passed"]:
                kind = {1: "single", 2: "gammon", 3: "backgammon"}[int(result_multipliers(position.array[None, :])[0])]
                counts[kind] = counts.get(kind, 0) + 1
                if kind != "single" and game["multiplier"] == 1:
                    counts["jacoby_single"] += 1
    return counts


def check_session(session):
    """Raise unless gnubg read the session's games (positions, winners, points) as recorded."""
    readback = session["gnubg"]
    where = session["file"]
    if readback["messages"]:
        raise RuntimeError("%s: gnubg said %r on import" % (where, readback["messages"]))
    if len(readback["games"]) != len(session["records"]):
        raise RuntimeError("%s: gnubg read %d games" % (where, len(readback["games"])))
    for number, (game, read) in enumerate(zip(session["records"], readback["games"], strict=True), start=1):
        children = [e[4] for e in game["events"] if e[1] == "roll"]
        after = [a[4] for a in read["actions"] if a[0] == "move"]
        kinds = {a[0] for a in read["actions"]}
        winner = game["winner"] ^ game["seat_of_a"]
        if after != children or "resign" in kinds or read["resigned"]:
            raise RuntimeError("%s game %d: gnubg read other moves or a resignation" % (where, number))
        if (read["winner"], read["points"]) != (winner, game["points"]):
            raise RuntimeError("%s game %d: gnubg scored %s" % (where, number, (read["winner"], read["points"])))


def check_match(session):
    """Raise unless gnubg read a match's games as played and each game's score and Crawford flag as recorded."""
    check_session(session)
    length = session["match_length"]
    for number, (game, read) in enumerate(zip(session["records"], session["gnubg"]["games"], strict=True), start=1):
        seat_a = game["seat_of_a"]
        score = [length - game["away"][seat_a], length - game["away"][1 - seat_a]]
        if read["score"] != score or read["crawford"] != game["crawford"]:
            raise RuntimeError(
                "%s game %d: gnubg read score %s Crawford %s, played at %s Crawford %s"
                % (session["file"], number, read["score"], read["crawford"], score, game["crawford"])
            )


def match_coverage(sessions):
    """How often each item of MATCH_COVERAGE occurs in the matches' games."""
    counts = dict.fromkeys(MATCH_COVERAGE, 0)
    for session in sessions:
        crawford_seen = False
        for game in session["records"]:
            crawford_seen |= game["crawford"]
            counts["crawford"] += game["crawford"]
            counts["post_crawford"] += crawford_seen and not game["crawford"]
            counts["gammon"] += not game["passed"] and game["multiplier"] > 1
            counts["points_past_the_length"] += game["points"] > min(game["away"])
            for event in game["events"]:
                if event[1] in ("double", "take", "pass"):
                    counts[event[1]] += 1
    return counts


def compact_json(value, indent=0):
    """JSON with every list or object that fits in 110 characters on one line (deterministic, diff-friendly)."""
    flat = json.dumps(value)
    if len(flat) + indent <= 110 or not isinstance(value, (list, dict)) or not value:
        return flat
    pad = " " * (indent + 1)
    if isinstance(value, list):
        items = [pad + compact_json(item, indent + 1) for item in value]
        return "[\n" + ",\n".join(items) + "\n" + " " * indent + "]"
    items = [pad + json.dumps(key) + ": " + compact_json(item, indent + 1) for key, item in value.items()]
    return "{\n" + ",\n".join(items) + "\n" + " " * indent + "}"


def played_and_written(config, folder):
    """Play ``config`` with every event recorded; write its .mat files and its saved lines into ``folder``.

    Returns the result, the .mat paths and the saved lines after the header (a game or a match a line).
    """
    from arena import run_tournament, save_games
    from arena.mat import write_mat_files

    result, blocks = run_tournament(config, record=True, progress=False)
    paths = write_mat_files(folder, result, blocks)
    save_games(folder / "saved.jsonl", result, blocks)
    lines = (folder / "saved.jsonl").read_text().splitlines()
    return result, paths, [json.loads(line) for line in lines[1:]]


def driver_main():
    """Play the tournaments, have gnubg import their .mat files, check and write the fixture."""
    import tempfile
    from pathlib import Path

    sys.path.insert(0, os.getcwd())
    from arena import PlayerSpec, Rules, TournamentConfig

    with tempfile.TemporaryDirectory(prefix="gen_mat_import.") as folder:
        tournaments, sessions, jobs = [], [], []
        for number, (a, a_cube, b, b_cube, games, seed, beavers, jacoby) in enumerate(TOURNAMENTS):
            rules = Rules(cubeful=True, jacoby=jacoby, beavers=beavers)
            config = TournamentConfig(PlayerSpec(a, a_cube), PlayerSpec(b, b_cube), games, seed=seed, rules=rules)
            result, paths, records = played_and_written(config, Path(folder) / ("t%d" % number))
            tournaments.append(
                {
                    "a": a,
                    "a_cube": a_cube,
                    "b": b,
                    "b_cube": b_cube,
                    "games": games,
                    "seed": seed,
                    "rules": result.rules,
                }
            )
            for pair, path in enumerate(paths):
                pair_records = [r for r in records if r["pair"] == pair]
                sessions.append(
                    {
                        "tournament": number,
                        "file": path.name,
                        "players": [result.player_a, result.player_b],
                        "rules": result.rules,
                        "mat": path.read_text().splitlines(),
                        "records": pair_records,
                    }
                )
                jobs.append({"mat": str(path), "jacoby": jacoby})
        matches = []
        for number, (a, a_cube, b, b_cube, count, seed, length) in enumerate(MATCH_TOURNAMENTS):
            config = TournamentConfig(
                PlayerSpec(a, a_cube), PlayerSpec(b, b_cube), count, seed=seed, rules=Rules(True), match_length=length
            )
            result, paths, saved = played_and_written(config, Path(folder) / ("m%d" % number))
            tournaments.append(
                {"a": a, "a_cube": a_cube, "b": b, "b_cube": b_cube, "matches": count, "seed": seed,
                 "match_length": length}
            )  # fmt: skip
            for line, path in zip(saved, paths, strict=True):
                matches.append(
                    {
                        "tournament": len(tournaments) - 1,
                        "file": path.name,
                        "players": [result.player_a, result.player_b],
                        "match_length": length,
                        "rules": result.rules,
                        "mat": path.read_text().splitlines(),
                        "records": [game | {"seat_of_a": line["seat_of_a"]} for game in line["games"]],
                    }
                )
                jobs.append({"mat": str(path), "jacoby": False})
        readback = run_gnubg_import(jobs, folder)
    for session, read in zip(sessions + matches, readback["sessions"], strict=True):
        session["gnubg"] = read
        (check_match if "match_length" in session else check_session)(session)
    counts = coverage(sessions)
    missing = [item for item in REQUIRED_COVERAGE if not counts[item]]
    match_counts = match_coverage(matches)
    missing += [item for item in MATCH_COVERAGE if not match_counts[item]]
    if missing:
        raise RuntimeError("the tournaments lack %s: choose other seeds" % missing)
    fixture = {
        "generator": "tools/gnubg_fixtures/gen_mat_import.py",
        "gnubg_version": readback["gnubg_version"],
        "tournaments": tournaments,
        "coverage": counts,
        "sessions": sessions,
        "match_coverage": match_counts,
        "matches": matches,
    }
    path = os.path.join(os.getcwd(), "tests", "fixtures", FIXTURE)
    with open(path, "w") as f:
        f.write(compact_json(fixture) + "\n")
    sys.stderr.write(
        "wrote %s (%d sessions, %d games)\n" % (path, len(sessions), sum(len(s["records"]) for s in sessions))
    )


if JOB_VARIABLE in os.environ:  # inside gnubg, started by run_gnubg_import
    gnubg_main(os.environ[JOB_VARIABLE])
elif __name__ == "__main__":
    driver_main()
