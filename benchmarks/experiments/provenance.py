"""Which net an experiment's folder belongs to, so results of two nets never mix, and its committed result.

Every experiment folder records the digest of the net that played it in ``net.json``: a run
claims the folder on first use (:func:`claim_folder`), and a report only checks it
(:func:`check_folder`), writing nothing. A report reads what the folder holds: the ledgers or
data where they are there, else the result a finished run wrote (:func:`committed_result`), which
is what a fresh clone has.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from nets.weights import weights_digest, write_atomic
from weights import DEFAULT_WEIGHTS

NET_RECORD = "net.json"
RESULT_FILE = "result.json"
# What an experiment's ledger refusal tells the user to do (the experiment command's own options).
LEDGER_REMEDY = "pass --weights with the file of the net that played it, or use another --out"


def _recorded_net(folder: Path) -> tuple[bool, str | None]:
    """Whether ``folder`` has a net record, and the digest it names (None when unreadable)."""
    record = folder / NET_RECORD
    if not record.exists():
        return False, None
    try:
        found = json.loads(record.read_text()).get("weights_digest")
    except (json.JSONDecodeError, AttributeError):
        found = None
    return True, found if isinstance(found, str) else None


def check_folder(folder: Path, weights: Path | None = None) -> str:
    """The digest of ``weights``' net (default shipped), after checking ``folder`` holds no other net's results.

    Writes nothing. Raises ValueError naming the folder, both digests and the options to use when
    the folder's ``net.json`` names another net.
    """
    digest = weights_digest(weights if weights is not None else DEFAULT_WEIGHTS)
    recorded, found = _recorded_net(folder)
    if recorded and found != digest:
        raise ValueError(f"{str(folder)!r} holds the results of net {found} and this net is {digest}: {LEDGER_REMEDY}")
    return digest


def claim_folder(folder: Path, weights: Path | None = None) -> str:
    """The digest of ``weights``' net (default shipped), recorded in ``folder/net.json`` on first use.

    Raises ValueError naming the folder when it already holds another net's data.
    """
    digest = check_folder(folder, weights)
    if not _recorded_net(folder)[0]:
        folder.mkdir(parents=True, exist_ok=True)
        write_atomic(folder / NET_RECORD, (json.dumps({"weights_digest": digest}) + "\n").encode())
    return digest


def committed_result(folder: Path) -> dict[str, Any] | None:
    """The ``result.json`` a finished run left in ``folder`` (None without one); ValueError naming a damaged one."""
    path = folder / RESULT_FILE
    if not path.exists():
        return None
    try:
        result = json.loads(path.read_text())
    except json.JSONDecodeError:
        raise ValueError(f"{str(path)!r} is not a JSON result") from None
    if not isinstance(result, dict):
        raise ValueError(f"{str(path)!r} is not a JSON result")
    return result


def nothing_played(folder: Path) -> ValueError:
    """The error of a report on a folder that holds no results."""
    return ValueError(f"nothing played yet in {str(folder)!r}: run without --report to play it")
