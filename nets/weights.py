"""Versioned weights files: a JSON header plus raw little-endian tensors; no code is executed.

Layout: the magic ``b"JGWEIGHTS1\\n"``, an 8-byte little-endian header length, the UTF-8 JSON
header, then the tensor bytes. The header names the format version, the input encoding, each
net's architecture, the training run, and every tensor's dtype, shape and byte range.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

MAGIC = b"JGWEIGHTS1\n"
FORMAT_VERSION = 1
_DTYPES = {"float32": "<f4", "float64": "<f8", "int64": "<i8"}


class WeightsFormatError(ValueError):
    """A weights file that is not in this format, or does not match what is asked of it."""


def encode_weights(header: dict[str, Any], tensors: dict[str, np.ndarray]) -> bytes:
    """Serialise ``tensors`` (name -> array) with ``header`` (JSON-ready) into bytes."""
    entries = {}
    blobs = []
    offset = 0
    for name, arr in tensors.items():
        dtype = str(arr.dtype)
        if dtype not in _DTYPES:
            raise WeightsFormatError(f"tensor {name!r} has unsupported dtype {dtype}")
        raw = np.ascontiguousarray(arr, dtype=_DTYPES[dtype]).tobytes()
        entries[name] = {"dtype": dtype, "shape": list(arr.shape), "offset": offset, "nbytes": len(raw)}
        blobs.append(raw)
        offset += len(raw)
    full = dict(header)
    full["format_version"] = FORMAT_VERSION
    full["tensors"] = entries
    head = json.dumps(full, sort_keys=True).encode("utf-8")
    return MAGIC + len(head).to_bytes(8, "little") + head + b"".join(blobs)


def decode_weights(data: bytes, source: str = "<bytes>") -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    """Parse bytes from :func:`encode_weights`; raises WeightsFormatError naming ``source``."""
    if not data.startswith(MAGIC):
        raise WeightsFormatError(f"{source}: not a jumpgammon weights file (bad magic)")
    pos = len(MAGIC)
    if len(data) < pos + 8:
        raise WeightsFormatError(f"{source}: truncated header")
    n = int.from_bytes(data[pos : pos + 8], "little")
    pos += 8
    try:
        header = json.loads(data[pos : pos + n].decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise WeightsFormatError(f"{source}: header is not valid JSON ({exc})") from None
    if header.get("format_version") != FORMAT_VERSION:
        raise WeightsFormatError(
            f"{source}: format version {header.get('format_version')!r}, expected {FORMAT_VERSION}"
        )
    body = data[pos + n :]
    tensors = {}
    for name, e in header.get("tensors", {}).items():
        try:
            start, nbytes, shape, dtype = int(e["offset"]), int(e["nbytes"]), tuple(e["shape"]), e["dtype"]
        except (KeyError, TypeError, ValueError):
            raise WeightsFormatError(f"{source}: bad entry for tensor {name!r}") from None
        if dtype not in _DTYPES or start < 0 or start + nbytes > len(body):
            raise WeightsFormatError(f"{source}: tensor {name!r} is out of range or of unknown dtype")
        arr = np.frombuffer(body[start : start + nbytes], dtype=_DTYPES[dtype])
        if arr.size != int(np.prod(shape)):
            raise WeightsFormatError(f"{source}: tensor {name!r} has {arr.size} values for shape {shape}")
        tensors[name] = arr.reshape(shape).astype(dtype)
    return header, tensors


def write_atomic(path: str | Path, data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file and a rename."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name + ".", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, 0o644)  # mkstemp makes it private; these are ordinary shared files
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
