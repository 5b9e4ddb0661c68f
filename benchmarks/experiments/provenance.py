"""Which net an experiment's folder of self-play data belongs to, so data of two nets never mix."""

from __future__ import annotations

import json
from pathlib import Path

from nets.weights import weights_digest, write_atomic
from weights import DEFAULT_WEIGHTS

NET_RECORD = "net.json"


def claim_folder(folder: Path, weights: Path | None = None) -> str:
    """The digest of ``weights``' net (default shipped), recorded in ``folder/net.json`` on first use.

    Raises ValueError naming the folder when it already holds another net's data.
    """
    digest = weights_digest(weights if weights is not None else DEFAULT_WEIGHTS)
    record = folder / NET_RECORD
    if record.exists():
        try:
            found = json.loads(record.read_text()).get("weights_digest")
        except (json.JSONDecodeError, AttributeError):
            found = None
        if found != digest:
            raise ValueError(
                f"{str(folder)!r} holds the data of net {found} and this net is {digest}: use another --out"
            )
        return digest
    folder.mkdir(parents=True, exist_ok=True)
    write_atomic(record, (json.dumps({"weights_digest": digest}) + "\n").encode())
    return digest
