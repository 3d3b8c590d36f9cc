"""Table chat: players' and spectators' text, cleaned, capped, rate limited and kept.

Chat is player text, so it may say anything a player chooses to say; what the server
guarantees is that it adds nothing of its own (no view, no card, no token: a message
carries only its number, time, the sender's seat and shown name, and the cleaned text),
that the text is plain text (control and bidi-override characters removed; clients
render it as text, never HTML), and that nobody floods a table.
"""

from __future__ import annotations

import datetime as dt
import unicodedata
from collections import deque
from typing import Any

from .security import TokenBucket
from .storage import ChatRow

MAX_CHAT = 200  # characters of one message, after cleaning
KEEP_CHAT = 50  # messages a table keeps and sends on (re)connecting
CHAT_RATE = 0.5  # messages per second per connection, on average
CHAT_BURST = 5.0  # ... and at most this many at once
SPECTATOR = "Spectator"
SYSTEM = "Table"  # the name of the table's own lines (seat changes, `seats.announce`)
#: quick reactions: sent as `{"type": "chat", "reaction": key}`, shown in each reader's
#: language; stored as the text ":key:"
REACTIONS = ("gg", "nice", "wow", "oops", "thanks", "hurry")

_KEEP_FORMAT = {"\u200d"}  # the zero-width joiner (emoji sequences) is harmless


class ChatError(ValueError):
    """A chat message refused (empty, too long, too many): nothing is sent or kept."""


def clean_chat(raw: Any) -> str:
    """The text of a chat message as it will be shown, or `ChatError`.

    Line breaks and tabs become spaces, runs of spaces collapse, and control, format
    (bidi overrides, zero-width characters) and unassigned characters are removed.
    """
    if not isinstance(raw, str):
        raise ChatError("malformed message: chat text must be a string")
    if len(raw) > 4 * MAX_CHAT:
        raise ChatError(f"chat messages are at most {MAX_CHAT} characters")
    kept = []
    for ch in raw:
        cat = unicodedata.category(ch)
        if ch in "\t\n\r\v\f\u2028\u2029":
            kept.append(" ")
        elif cat.startswith("C") and ch not in _KEEP_FORMAT:
            continue
        else:
            kept.append(ch)
    text = " ".join("".join(kept).split())
    if not text:
        raise ChatError("an empty chat message")
    if len(text) > MAX_CHAT:
        raise ChatError(f"chat messages are at most {MAX_CHAT} characters")
    return text


def chat_text(msg: dict[str, Any]) -> str:
    """The text a `chat` message stores: its cleaned `text`, or ":key:" for a reaction."""
    reaction = msg.get("reaction")
    if reaction is not None:
        if reaction not in REACTIONS:
            raise ChatError(f"reaction must be one of: {', '.join(REACTIONS)}")
        return f":{reaction}:"
    return clean_chat(msg.get("text"))


def new_bucket() -> TokenBucket:
    """A connection's chat allowance (apart from its general message rate)."""
    return TokenBucket(CHAT_RATE, CHAT_BURST)


def chat_json(row: ChatRow) -> dict[str, Any]:
    """One message as clients get it (a quick reaction also names its `reaction`)."""
    out: dict[str, Any] = {"n": row.n, "at": row.at.isoformat(), "seat": row.seat,
                           "name": row.name, "text": row.text}
    if row.seat is None and row.name == SYSTEM:
        out["system"] = True
    elif row.text.startswith(":") and row.text.endswith(":") and row.text[1:-1] in REACTIONS:
        out["reaction"] = row.text[1:-1]
    return out


class ChatLog:
    """A table's last `KEEP_CHAT` messages (the database keeps them all)."""

    def __init__(self, rows: list[ChatRow] | None = None) -> None:
        self.rows: deque[ChatRow] = deque(rows or (), maxlen=KEEP_CHAT)
        self.next_n = (self.rows[-1].n + 1) if self.rows else 0

    def add(self, seat: int | None, name: str, text: str) -> ChatRow:
        """A new message (numbered after the last one)."""
        row = ChatRow(self.next_n, dt.datetime.now(dt.UTC), seat, name, text)
        self.next_n += 1
        self.rows.append(row)
        return row

    def drop(self, row: ChatRow) -> None:
        """Take back a message that could not be stored."""
        if self.rows and self.rows[-1] is row:
            self.rows.pop()
            self.next_n = row.n

    def history(self) -> dict[str, Any]:
        """The message sent on (re)connecting: the last messages, oldest first."""
        return {"type": "chat", "history": True, "messages": [chat_json(r) for r in self.rows]}
