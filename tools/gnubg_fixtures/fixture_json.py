"""The fixture layout of the plain-Python generators: a line per key, the long lists an item a line."""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping
from typing import Any


def write_fixture(path: str, out: Mapping[str, Any], list_keys: Collection[str]) -> None:
    """Write ``out`` as JSON to ``path``: each key on a line, each item of the lists under ``list_keys`` on its own."""
    with open(path, "w") as f:
        f.write("{\n")
        items = list(out.items())
        for i, (name, value) in enumerate(items):
            sep = "," if i < len(items) - 1 else ""
            if name in list_keys:
                f.write(f"  {json.dumps(name)}: [\n")
                f.write(",\n".join("    " + json.dumps(item) for item in value))
                f.write(f"\n  ]{sep}\n")
            else:
                f.write(f"  {json.dumps(name)}: {json.dumps(value)}{sep}\n")
        f.write("}\n")
