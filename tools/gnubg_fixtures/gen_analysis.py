"""Generate tests/fixtures/gnubg_analysis/: matches and sessions with GNU Backgammon 1.07's ``analyse match``.

Run from the repository root with the project's Python (about 20 minutes, nearly all of it gnubg's
2-ply analysis):

    .venv/bin/python tools/gnubg_fixtures/gen_analysis.py

Driver half (the project's Python): plays the seeded money tournaments in SESSIONS with this
project's arena and writes their Jellyfish ``.mat`` files (``arena/mat.py``, two games a file),
then runs this same file inside gnubg:

    ANALYSIS_JOB=job.json /usr/games/gnubg -t -q -r -p tools/gnubg_fixtures/gen_analysis.py

Gnubg half (stdlib only): for each match of MATCHES gnubg plays an N-point match against itself,
both sides at 0 ply, each with its own evaluation noise (``set player N chequerplay evaluation
noise``, deterministic, the same for its cube decisions), and exports it with ``export match
mat``; each arena session is read with
``import mat`` (``set jacoby off``: the arena's sessions are played without it). Every file is
then analysed with gnubg's defaults for ``analyse match`` (checker play and cube decisions at 2
ply, cubeful; luck at 0 ply) with beavers off, and what gnubg found is written out.

Output, in ``tests/fixtures/gnubg_analysis/``: the ``.mat`` files themselves, and
``analysis.json``::

    {"generator", "gnubg_version", "settings", "files": [{"file", "source", "length", "noise",
     "names", "games": [{"score", "winner", "points", "actions", "stats"}], "statistics"}]}

* ``actions``, gnubg's records in order, one row each, players 0 (X, the left column) and 1 (O):
  ``[player, "move", "D1D2", position_id_before, imove, candidates, error, skill, luck, luck_mark,
  no_double, double_take]``: ``error`` is the best candidate's equity minus the played one's,
  ``skill`` gnubg's mark ("" unmarked, "doubtful", "bad", "very bad"), ``luck`` gnubg's
  ``luck-value`` of the roll and ``luck_mark`` its mark ("" or "verygood", "good", "bad",
  "verybad"); ``no_double`` and ``double_take`` the cube analysis before the roll (null where gnubg
  made none: cube not available, or the first move of a game). ``[player, "double", no_double,
  double_take]`` for a double, ``[player, "take" | "drop"]``, ``[player, "resign", points]``.
  Units as gnubg stores them: ``error`` and ``luck`` are normalised equity (EMG, per unit of the
  cube) in money and in matches alike; ``no_double``/``double_take`` are normalised equity in money
  and MWC at a match score.
* ``stats``: gnubg's per-game statistics per player (``gnubg.match(statistics=1)``), flattened:
  ``{"X": {...}, "O": {...}}``, each key its group and gnubg's key (``"moves unforced-moves"``,
  ``"cube wrong-take"``, ``"dice luck"``); zeros are left out.
* ``statistics``: lines of ``show statistics match`` (label, X's column, O's column) for the error
  rates and ratings.
"""

import json
import os
import re
import sys

try:  # gnubg's own module inside gnubg (the venv may hold an unrelated pip package of that name)
    import gnubg
except ImportError:
    gnubg = None

GNUBG = "/usr/games/gnubg"
JOB_VARIABLE = "ANALYSIS_JOB"
FOLDER = os.path.join("tests", "fixtures", "gnubg_analysis")

# (match length, seed, noise of X, noise of O): gnubg against itself, noise 0 = gnubg's 0-ply best
# play; unequal players so that there are real blunders, some equal pairs for contrast.
MATCHES = [
    (1, 1, 0.0, 0.05),
    (1, 2, 0.0, 0.2),
    (1, 3, 0.3, 0.0),
    (3, 4, 0.0, 0.0),
    (3, 5, 0.0, 0.05),
    (3, 6, 0.0, 0.15),
    (3, 7, 0.2, 0.0),
    (5, 8, 0.06, 0.06),
    (5, 9, 0.0, 0.05),
    (5, 10, 0.0, 0.1),
    (5, 11, 0.1, 0.0),
    (5, 12, 0.02, 0.08),
    (7, 13, 0.0, 0.0),
    (7, 14, 0.0, 0.05),
    (7, 15, 0.0, 0.1),
    (7, 16, 0.04, 0.12),
    (9, 17, 0.03, 0.03),
    (9, 18, 0.0, 0.12),
    (11, 19, 0.0, 0.04),
    (11, 20, 0.0, 0.08),
]
# Money sessions played by this project's arena: (a, a_cube, b, b_cube, games, seed).
SESSIONS = [
    ("net@0", "gnubg", "pubeval", "none", 4, 1),
    ("net@0", "gnubg", "random:5", "none", 4, 2),
    ("net@0", "gnubg", "net@0", "janowski:0.3", 2, 3),
    ("net@0", "dead", "net@0", "gnubg", 2, 4),
]
STAT_LINES = (
    "Error rate",
    "Chequerplay rating",
    "Cube decision rating",
    "Overall rating",
    "Snowie error rate",
    "Luck rate",
    "Total moves",
    "Unforced moves",
)
ANALYSIS_SETTINGS = [
    "set analysis chequerplay evaluation plies 2",
    "set analysis cubedecision evaluation plies 2",
    "set analysis luck evaluation plies 0",
]


# ---------------------------------------------------------------------------
# Inside gnubg
# ---------------------------------------------------------------------------


def r4(value):
    """A float rounded to 5 decimals (None stays None)."""
    return None if value is None else round(float(value), 5)


def action_row(record):
    """One compact row for one of gnubg's game records (see the module docstring)."""
    player = {"X": 0, "O": 1}.get(record.get("player"), -1)
    kind = record["action"]
    an = record.get("analysis", {})
    nd, dt = an.get("nd-cubeful-eq"), an.get("dt-cubeful-eq")
    if kind == "move":
        moves = an.get("moves", [])
        imove = an.get("imove")
        error = None
        if moves and imove is not None:
            error = moves[0]["score"] - moves[imove]["score"]
        dice = "%d%d" % tuple(record["dice"])
        return [
            player, "move", dice, record.get("board"), imove, len(moves), r4(error), an.get("skill", ""),
            r4(an.get("luck-value")), an.get("luck", ""), r4(nd), r4(dt),
        ]  # fmt: skip
    if kind == "double":
        return [player, "double", r4(nd), r4(dt)]
    if kind == "resign":
        return [player, "resign", int(record.get("points", 0))]
    return [player, kind]


def flat_stats(stats):
    """gnubg's per-player game statistics, flattened to one dict per player: ``"GROUP KEY"`` (``"cube wrong-take"``)."""
    out = {}
    for side, groups in stats.items():
        flat = {}
        for group in ("moves", "cube", "dice"):
            for key, value in groups.get(group, {}).items():
                if isinstance(value, dict):
                    for sub, count in value.items():
                        flat["%s %s %s" % (group, key, sub)] = count
                else:
                    flat["%s %s" % (group, key)] = r4(value) if isinstance(value, float) else value
        out[side] = {key: value for key, value in flat.items() if value}  # zeros left out
    return out


def statistics_lines(text):
    """The lines of ``show statistics match`` named in STAT_LINES, each split into its label and two columns."""
    rows = []
    for line in text.splitlines():
        for label in STAT_LINES:
            if line.startswith(label):
                rest = line[len(label) :]
                cells = [c.strip() for c in re.split(r"\s{2,}", rest.strip()) if c.strip()]
                rows.append([label] + cells)
    return rows


def analyse_loaded(G):
    """Analyse the match gnubg holds and return its names, games and statistics lines."""
    for command in ANALYSIS_SETTINGS:
        gnubg.command(command)
    gnubg.command("analyse match")
    match = gnubg.match(1, 1, 1, 0)
    games = []
    for game in match["games"]:
        info = game["info"]
        games.append(
            {
                "score": [int(info["score-X"]), int(info["score-O"])],
                "winner": {"X": 0, "O": 1}.get(info.get("winner"), -1),
                "points": int(info.get("points-won", 0)),
                "actions": [action_row(record) for record in game["game"]],
                "stats": flat_stats(game.get("stats", {})),
            }
        )
    info = match["match-info"]
    return {
        "length": int(info["match-length"]),
        "names": [info["X"]["name"], info["O"]["name"]],
        "games": games,
        "statistics": statistics_lines(G.capture("show statistics match")),
    }


def play_match(item):
    """Have gnubg play one match against itself (see the module docstring) and export it."""
    gnubg.command("set rng mersenne")
    gnubg.command("set seed %d" % item["seed"])
    for player, noise in enumerate(item["noise"]):
        gnubg.command("set player %d gnubg" % player)
        for part in ("chequerplay", "cubedecision"):
            gnubg.command("set player %d %s evaluation plies 0" % (player, part))
            gnubg.command("set player %d %s evaluation noise %g" % (player, part, noise))
            gnubg.command("set player %d %s evaluation deterministic on" % (player, part))
    gnubg.command("new match %d" % item["length"])  # both sides are gnubg: the whole match is played here
    for player, noise in enumerate(item["noise"]):  # names set before ``new match`` do not last
        gnubg.command("set player %d name %s%03d" % (player, "xo"[player], round(1000 * noise)))
    gnubg.command("export match mat %s" % item["mat"])


def gnubg_main(job_path):
    """Play or import every file of the job, analyse it, and write what gnubg found to the job's ``out``."""
    sys.path.insert(0, os.path.join(os.getcwd(), "tools", "gnubg_fixtures"))
    import gfx_common as G

    with open(job_path) as f:
        job = json.load(f)
    for command in ["set display off", "set confirm new off", "set cube use on", "set beavers 0"]:
        gnubg.command(command)
    result = {"gnubg_version": G.gnubg_version(), "files": []}
    for item in job["items"]:
        if item["source"] == "gnubg":
            play_match(item)
        else:
            gnubg.command("set jacoby off")
            gnubg.command("import mat %s" % item["mat"])
        found = analyse_loaded(G)
        found["file"] = os.path.basename(item["mat"])
        result["files"].append(found)
        sys.stderr.write("analysed %s\n" % found["file"])
    with open(job["out"], "w") as f:
        json.dump(result, f)


# ---------------------------------------------------------------------------
# Driver (the project's Python)
# ---------------------------------------------------------------------------


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


def driver_main():
    """Write the arena sessions, run gnubg on everything, write the fixture folder."""
    import shutil
    import subprocess
    import tempfile
    from pathlib import Path

    sys.path.insert(0, os.getcwd())
    from arena import PlayerSpec, Rules, TournamentConfig, run_tournament
    from arena.mat import write_mat_files

    out = Path(FOLDER)
    with tempfile.TemporaryDirectory(prefix="gen_analysis.") as tmp:
        folder = Path(tmp)
        items, meta = [], []
        for length, seed, noise_x, noise_o in MATCHES:
            name = "gnubg_%02dpt_s%02d" % (length, seed)
            items.append(
                {"source": "gnubg", "length": length, "seed": seed, "noise": [noise_x, noise_o],
                 "mat": str(folder / (name + ".mat"))}
            )  # fmt: skip
            meta.append({"source": "gnubg self-play, 0 ply, noise per side", "noise": [noise_x, noise_o]})
        for a, a_cube, b, b_cube, games, seed in SESSIONS:
            config = TournamentConfig(PlayerSpec(a, a_cube), PlayerSpec(b, b_cube), games, seed=seed, rules=Rules(True))
            result, blocks = run_tournament(config, record=True, progress=False)
            paths = write_mat_files(folder / ("arena_s%d" % seed), result, blocks)
            for path in paths:
                target = folder / ("arena_money_s%d_%s" % (seed, path.name))
                shutil.move(str(path), target)
                items.append({"source": "arena", "mat": str(target)})
                meta.append({"source": "jumpgammon tournament --mat", "players": [result.player_a, result.player_b]})
        job = folder / "job.json"
        job.write_text(json.dumps({"items": items, "out": str(folder / "found.json")}))
        env = dict(os.environ, **{JOB_VARIABLE: str(job)})
        command = [GNUBG, "-t", "-q", "-r", "-p", os.path.abspath(__file__)]
        subprocess.run(command, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, check=True)
        found = json.loads((folder / "found.json").read_text())
        out.mkdir(parents=True, exist_ok=True)
        for item in items:
            shutil.copy(item["mat"], out / os.path.basename(item["mat"]))
    files = []
    for extra, entry in zip(meta, found["files"], strict=True):
        files.append({"file": entry["file"], **extra, **{k: v for k, v in entry.items() if k != "file"}})
    fixture = {
        "generator": "tools/gnubg_fixtures/gen_analysis.py",
        "gnubg_version": found["gnubg_version"],
        "settings": ANALYSIS_SETTINGS + ["set beavers 0", "money sessions: set jacoby off"],
        "files": files,
    }
    (out / "analysis.json").write_text(compact_json(fixture) + "\n")
    moves = sum(1 for f in files for g in f["games"] for a in g["actions"] if a[1] == "move")
    sys.stderr.write("wrote %s (%d files, %d moves)\n" % (out, len(files), moves))


if JOB_VARIABLE in os.environ:  # inside gnubg, started by driver_main
    gnubg_main(os.environ[JOB_VARIABLE])
elif __name__ == "__main__":
    driver_main()
