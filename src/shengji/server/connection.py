"""Connections: one WebSocket client, its outbound queue and limits; refusals.

`Client` queues what the table sends and cuts off a client that stops reading rather
than buffering without bound. `ClientError` is a refused message (its text and the
RULES section it cites go back to the sender only); `Refusal` is why the table did not
apply an action.
"""

from __future__ import annotations

import asyncio
import collections
import unicodedata
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from shengji import IllegalAction

from .chat import new_bucket, reserved_names, strip_invisible, visible_problem
from .schema import dumps_strict
from .security import TokenBucket

MAX_MESSAGE_BYTES = 4096
MAX_NAME = 24

#: the ASGI scope extension a server may offer for a synchronous send (server/wsfast.py):
#: `scope["extensions"][SEND_NOW](text) -> bool`
SEND_NOW = "shengji.send_now"


@dataclass(frozen=True)
class Refusal:
    """Why an action was not applied: the text for its sender and the rule it breaks
    (the engine's `IllegalAction.rule`, e.g. "6.2"; None for the server's own refusals)."""

    message: str
    rule: str | None = None
    code: str | None = None
    facts: dict[str, int | str] | None = None

    @classmethod
    def of(cls, exc: IllegalAction) -> Refusal:
        """The engine's refusal, its rule, code and facts taken from the exception."""
        return cls(exc.message, exc.rule, exc.code, exc.facts)

    def log_text(self) -> str:
        """What a log may say: the rule only (the text may name a seat's cards)."""
        return f"RULES §{self.rule}" if self.rule else self.message.split(":", 1)[0]


def dumps(obj: Any) -> str:
    """Compact, strict JSON text (never NaN or Infinity: browsers cannot parse them)."""
    return dumps_strict(obj)


class ClientError(Exception):
    """A message refused: its text (and the rule it breaks, if any) goes back to the sender
    only, nothing changes."""

    def __init__(
        self,
        message: str,
        rule: str | None = None,
        code: str | None = None,
        facts: dict[str, int | str] | None = None,
    ) -> None:
        super().__init__(message)
        self.rule = rule
        self.code = code
        self.facts = facts

    @classmethod
    def of(cls, exc: IllegalAction) -> ClientError:
        """The engine's refusal as sent: its text, rule, code and facts."""
        return cls(exc.message, exc.rule, exc.code, exc.facts)


def frame_refusal(client: Client, text: str) -> str | None:
    """Why a frame from `client` is refused before it is read (None: it passes): over
    `MAX_MESSAGE_BYTES`, or beyond the connection's rate. The same checks run where the
    socket is held, whether the table is here (`routing.handle`) or on another worker
    (`cluster.Cluster.relay`, before anything is published to Redis)."""
    if len(text) > MAX_MESSAGE_BYTES or len(text.encode("utf-8")) > MAX_MESSAGE_BYTES:
        return f"message too large (limit {MAX_MESSAGE_BYTES} bytes)"
    if client.rate_checked_here and not client.bucket.allow():
        return "too many messages: slow down"
    return None


def clean_name(raw: Any, *, limit: int = MAX_NAME, player: bool = True) -> str:
    """A player's (or, `player=False`, a table's) name, in NFC, invisible letters made
    spaces and whitespace collapsed; `ClientError` unless it is 1 to `limit` characters
    without control characters, shows a visible character with at most `MAX_MARKS`
    combining marks on each, and (a player's) is not a word clients use for someone
    else ("Spectator", the table's own lines, in any of the client's languages)."""
    if not isinstance(raw, str):
        raise ClientError("malformed message: name must be a string")
    if len(raw) > 4 * limit:
        raise ClientError(f"name must be 1-{limit} characters")
    name = " ".join(strip_invisible(raw).split())
    if raw and (not name or visible_problem(name) == "has no visible character"):
        raise ClientError("name has no visible character")
    if any(unicodedata.category(ch).startswith("C") for ch in name):
        raise ClientError("name has control characters")
    if not 1 <= len(name) <= limit:
        raise ClientError(f"name must be 1-{limit} characters")
    problem = visible_problem(name)
    if problem is not None:
        raise ClientError(f"name {problem}")
    if player and name.casefold() in reserved_names():
        raise ClientError(f"the name {name!r} is reserved: choose another")
    return name


class Client:
    """One WebSocket connection: its seat (None for a spectator), host right, outbound queue.

    What the table sends is queued (`push`) and written by a task started when the queue
    stops being empty and ending when it is drained, so an idle connection has no
    pending write. Where the server offers a synchronous send (`pump`'s `send_now`,
    server/wsfast.py) and nothing is queued, `push` writes the message at once instead:
    no task, no awaits; a message it cannot write now is queued as before. (A writer
    waiting on an `asyncio.Queue` makes a new wait after every message: with thousands
    of connections those are always young objects, and every young garbage-collector
    pass of the process scans them all; server/gcpolicy.py.)
    """

    #: False where the worker holding the socket already counted the frame against the
    #: rate (a relayed connection, `cluster.RemoteClient`)
    rate_checked_here = True

    def __init__(
        self, *, rate: float, burst: float, max_queue: int = 2048, addr: str = ""
    ) -> None:
        self.addr = addr  # the peer's address (per-address limits)
        self.held: set[int] = set()  # seats this connection held while the game was on
        self.seat: int | None = None
        self.host_token_ok = False
        self.greeted = False
        self.lang = "en"
        # `hello`'s "history": "delta": states carry only the history this connection does
        # not hold yet; `history` is what it holds (broadcast.Encoded.history_base), None: nothing
        self.history_delta = False
        self.history: tuple[int, int, int, int] | None = None
        self.bucket = TokenBucket(rate, burst)
        self.chat_bucket = new_bucket()
        self.max_queue = max_queue
        self.queue: collections.deque[str | None] = collections.deque()  # None: close
        self._send: Callable[[str], Awaitable[None]] | None = None  # set by `pump`
        self._send_now: Callable[[str], bool] | None = None  # set by `pump`, if offered
        self._writer: asyncio.Task[None] | None = None  # writing the queue now
        self._done: asyncio.Future[None] | None = None  # `pump`'s end: closed, or an error
        self.too_slow = False
        self.close_code: int | None = None  # set by `close(code)`: the WebSocket's close code

    def push(self, text: str) -> None:
        """Queue a message; a client that stops reading is cut off rather than buffered."""
        if self.too_slow:
            return
        now = self._send_now
        if now is not None and self._writer is None and not self.queue:
            done = self._done
            if done is None or done.done():
                return  # the pump ended: nothing more is written
            try:
                if now(text):
                    return
            except Exception as exc:  # noqa: BLE001 - the socket failed: `pump` raises it
                done.set_exception(exc)
                return
        if len(self.queue) >= self.max_queue:
            self.too_slow = True
            self.queue.clear()
            self.queue.append(None)
        else:
            self.queue.append(text)
        self._kick()

    def send(self, msg: dict[str, Any]) -> None:
        """Queue one message (an object, sent as strict JSON)."""
        self.push(dumps(msg))

    def error(self, refusal: str | ClientError, code: str | None = None) -> None:
        """Tell this connection why its message was refused: the server's own words (and
        a `code` the client knows, if any), or a `ClientError` with its RULES section,
        and the engine's refusal code and facts for the client to word in its player's
        language."""
        if isinstance(refusal, ClientError):
            self.send({"type": "error", "message": str(refusal), "rule": refusal.rule,
                       "code": refusal.code, "facts": refusal.facts or {}})
        else:
            self.send({"type": "error", "message": refusal, "rule": None, "code": code,
                       "facts": {}})

    def close(self, code: int | None = None) -> None:
        """Close the connection once what is queued has been sent (`code`: the WebSocket
        close code, e.g. 1012 when the table moved to another server process)."""
        if code is not None:
            self.close_code = code
        if len(self.queue) <= self.max_queue:
            self.queue.append(None)
            self._kick()

    async def pump(
        self, send: Callable[[str], Awaitable[None]],
        send_now: Callable[[str], bool] | None = None,
    ) -> None:
        """Write queued messages to the socket with `send` until `close()` (or too slow);
        raises what `send` raised. Cancelling it stops the writing. `send_now`: a
        synchronous write that returns False where it cannot write at once (`push`)."""
        self._send = send
        self._send_now = send_now
        done = self._done = asyncio.get_running_loop().create_future()
        self._kick()
        try:
            await done
        finally:
            done.cancel()  # nothing more is written after this (no-op once it ended)
            writer = self._writer
            if writer is not None and not writer.done():
                writer.cancel()

    def _kick(self) -> None:
        """Start the writer if there is something to write and none is running."""
        done = self._done
        if self._writer is None and self.queue and done is not None and not done.done():
            self._writer = asyncio.get_running_loop().create_task(self._drain())

    async def _drain(self) -> None:
        send = self._send
        done = self._done
        assert send is not None and done is not None
        queue = self.queue
        try:
            while queue:
                text = queue.popleft()
                if text is None:
                    if not done.done():
                        done.set_result(None)
                    return
                await send(text)
        except Exception as exc:  # noqa: BLE001 - the socket failed: `pump` raises it
            if not done.done():
                done.set_exception(exc)
        finally:
            self._writer = None
