"""Convert GNU Backgammon's published match equity tables (XML) into ``cube/data/met_*.json``.

Run from the repository root with GNU Backgammon 1.07's data installed (Debian: ``gnubg-data``):

    python tools/met_tables.py [/usr/share/gnubg/met]

Each JSON file holds the table's numbers exactly as the XML prints them, its name, a ``source``
line naming the authors and the file, and the copyright and distribution notice the XML file
asks copies to keep. ``tests/cube/test_met.py`` reads both back and checks they agree.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, REPO_ROOT)

from cube.met import load_gnubg_xml  # noqa: E402
from nets.weights import write_atomic  # noqa: E402

# (our name, XML file, JSON file, copyright line, who made the numbers and how)
TABLES = (
    (
        "Kazaross-XG2",
        "Kazaross-XG2.xml",
        "met_kazaross_xg2.json",
        "Copyright (C) 2011 Neil Kazaross",
        "Neil Kazaross's table: eXtreme Gammon rollouts up to 9-point matches, then the Rockwell-Kazaross "
        "table (GNUbg Supremo rollouts to 15 points, extended to 25 by projecting take points); transcribed "
        "for GNU Backgammon by Michael Petch; GNU Backgammon's default table",
    ),
    (
        "Rockwell-Kazaross",
        "Rockwell-Kazaross.xml",
        "met_rockwell_kazaross.json",
        "Copyright (C) 2008-2010 David Rockwell and Neil Kazaross",
        "David Rockwell and Neil Kazaross: GNUbg Supremo full rollouts up to 15-point matches, extended to "
        "25 points by projecting take points",
    ),
    (
        "Woolsey",
        "woolsey.xml",
        "met_woolsey.json",
        "Copyright (C) 1992 Kit Woolsey",
        "Kit Woolsey's table, first published in Inside Backgammon vol. 2 no. 2 (March-April 1992), 15 "
        "points; transcribed for GNU Backgammon by Joern Thyssen; the table of gnubg's manual's worked "
        "example of live-cube match equities",
    ),
)
NOTICE = (
    "Copying and distribution of this file, with or without modification, are permitted in any medium "
    "without royalty provided the copyright notice and this notice are preserved. This file is offered "
    "as-is, without any warranty."
)


def _dumps(data: dict[str, object]) -> str:
    """JSON text with one table row per line (numbers as Python writes them, which read back exactly)."""
    lines = []
    for key, value in data.items():
        if key == "pre_crawford":
            rows = ",\n".join("  " + json.dumps(row) for row in value)  # type: ignore[attr-defined]
            lines.append(f'"{key}": [\n{rows}\n ]')
        else:
            lines.append(f"{json.dumps(key)}: {json.dumps(value)}")
    return "{\n " + ",\n ".join(lines) + "\n}\n"


def main(met_dir: str = "/usr/share/gnubg/met") -> None:
    """Write one JSON file per table into cube/data (atomically)."""
    out_dir = Path(REPO_ROOT) / "cube" / "data"
    for name, xml_name, json_name, copyright_line, who in TABLES:
        path = Path(met_dir) / xml_name
        table = load_gnubg_xml(path)
        data = {
            "name": name,
            "source": f"{who}; numbers from GNU Backgammon 1.07's met/{xml_name}",
            "copyright": copyright_line,
            "notice": NOTICE,
            "length": table.length,
            "pre_crawford": table.pre_crawford.tolist(),
            "post_crawford": table.post_crawford.tolist(),
        }
        write_atomic(out_dir / json_name, _dumps(data).encode("utf-8"))
        print(f"wrote {out_dir / json_name} ({table.length} points)", file=sys.stderr)


if __name__ == "__main__":
    main(*sys.argv[1:])
