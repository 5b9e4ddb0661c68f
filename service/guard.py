"""The HTTP API's outer guard (an ASGI middleware): body size limit, Host check on loopback, ``nosniff``.

* A request body over ``max_body_bytes`` is refused with 413, whether its ``Content-Length`` says so
  or its bytes (chunked, no length) run past the limit as they arrive, so that no body is held whole.
* With ``allowed_hosts`` (what ``jumpgammon serve`` gives on a loopback address) a request whose
  ``Host`` header names anything else is refused with 400: a web page of another site that points
  its own name at 127.0.0.1 (DNS rebinding) cannot reach a server that only a local user should.
* Every response carries ``X-Content-Type-Options: nosniff``, so a browser never reads a JSON answer
  as a script or a page.

Refusals are the API's JSON errors, ``{"error": "field 'NAME': ...", "field": NAME}``.
"""

from __future__ import annotations

import ipaddress
import json
from collections.abc import Iterable

from starlette.types import ASGIApp, Message, Receive, Scope, Send

#: The header every response gets.
NOSNIFF = (b"x-content-type-options", b"nosniff")
#: The names a browser uses for this machine's loopback addresses (the Host header's form, IPv6 in brackets).
LOOPBACK_NAMES = ("localhost", "127.0.0.1", "[::1]")


def clip(text: str, limit: int = 80) -> str:
    """``text`` cut to ``limit`` characters (an ellipsis marks a cut): what an error message echoes of an input."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def error_body(field: str, message: str) -> bytes:
    """The API's one-line JSON error naming ``field``, as bytes."""
    return json.dumps({"error": f"field {field!r}: {message}", "field": field}).encode()


def loopback_hosts(host: str | None, also: Iterable[str] = ()) -> tuple[str, ...] | None:
    """The Host names a server listening on ``host`` accepts: the loopback names, and the names ``also`` allows,
    when ``host`` is a loopback address or ``localhost``; None (any name) for another address or None."""
    if host is None:
        return None
    name = host.strip("[]").lower()
    if name != "localhost":
        try:
            address = ipaddress.ip_address(name)
        except ValueError:
            return None  # a host name other than localhost: whatever it resolves to, the user chose it
        if not address.is_loopback:
            return None
        name = f"[{name}]" if address.version == 6 else name
    return tuple(dict.fromkeys((*LOOPBACK_NAMES, name, *(host_name(extra) for extra in also))))


def host_name(header: str) -> str:
    """The name of a ``Host`` header, without its port (an IPv6 address keeps its brackets), lower case."""
    header = header.strip().lower()
    if header.startswith("["):
        end = header.find("]")
        return header[: end + 1] if end >= 0 else header
    return header.rsplit(":", 1)[0] if ":" in header else header


class _BodyTooLarge(Exception):
    """Raised into the application when the streamed body passes the limit."""


class Guard:
    """The ASGI middleware described in the module docstring."""

    def __init__(self, app: ASGIApp, max_body_bytes: int, allowed_hosts: Iterable[str] | None = None) -> None:
        self.app = app
        self.max_body_bytes = max_body_bytes
        self.allowed_hosts = None if allowed_hosts is None else frozenset(h.lower() for h in allowed_hosts)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Answer the request through the application, or refuse it here."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        if self.allowed_hosts is not None:
            name = host_name(headers.get("host", ""))
            if name not in self.allowed_hosts:
                allowed = ", ".join(sorted(self.allowed_hosts))
                message = f"Host {clip(name)!r} is not a name of this loopback server (it answers {allowed})"
                await _refuse(send, 400, "host", message)
                return
        length = headers.get("content-length", "")
        if length.isdigit() and int(length) > self.max_body_bytes:
            await _refuse(send, 413, "body", self._too_large(f"{int(length):,} bytes"))
            return

        received = 0
        too_large = False
        started = False

        async def counted() -> Message:
            nonlocal received, too_large
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.max_body_bytes:
                    too_large = True
                    raise _BodyTooLarge  # the application stops reading; its answer is replaced below
            return message

        async def marked(message: Message) -> None:
            nonlocal started
            if too_large and not started:
                return  # the application's answer to a cut body (FastAPI: 400) gives way to the 413
            if message["type"] == "http.response.start":
                started = True
                message = {**message, "headers": [*message.get("headers", []), NOSNIFF]}
            await send(message)

        try:
            await self.app(scope, counted, marked)
        except _BodyTooLarge:
            pass
        except Exception:
            if not too_large:
                raise
        if too_large and not started:
            await _refuse(send, 413, "body", self._too_large(f"more than {self.max_body_bytes:,} bytes"))

    def _too_large(self, size: str) -> str:
        return f"the request body of {size} is over this server's limit of {self.max_body_bytes:,} bytes"


async def _refuse(send: Send, status: int, field: str, message: str) -> None:
    body = error_body(field, message)
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()), NOSNIFF]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
