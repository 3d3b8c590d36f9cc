"""Table chat: players' and spectators' text, cleaned, capped, rate limited and kept.

Chat is player text, so it may say anything a player chooses to say; what the server
guarantees is that it adds nothing of its own (no view, no card, no token: a message
carries only its number, time, the sender's seat and shown name, and the cleaned text),
that the text is plain text (control and bidi-override characters removed; clients
render it as text, never HTML), that it shows something (no text of invisible
characters only, no letter buried under a stack of combining marks), and that nobody
floods a table: the chat rate holds per connection, per seat and per client address,
so a seat's ten connections share one seat's allowance.
"""

from __future__ import annotations

import datetime as dt
import json
import unicodedata
from collections import deque
from functools import cache
from pathlib import Path
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
#: language; stored as the text REACTION_MARK + ":key:" (a control character that no
#: typed text keeps, so a typed ":wow:" stays text)
REACTIONS = ("gg", "nice", "wow", "oops", "thanks", "hurry")
REACTION_MARK = "\x1f"
_REACTION_TEXTS = frozenset(f":{r}:" for r in REACTIONS)
MAX_MARKS = 4  # combining marks on one character (after NFC), more are refused
ADDR_SHARE = 2.0  # an address's chat allowance, in connections' allowances (spectators
#                   behind one NAT share it)
#: characters that show nothing though Unicode calls them letters or symbols (fillers,
#: the blank braille pattern, invisible operators): treated as spaces
INVISIBLE = frozenset(
    "\u115f\u1160\u3164\uffa0\u2800\u034f\u17b4\u17b5\u180e\u2061\u2062\u2063\u2064"
    "\U0001d159\U0001d173\U0001d174\U0001d175\U0001d176\U0001d177\U0001d178\U0001d179"
    "\U0001d17a"
)

_KEEP_FORMAT = {"\u200d"}  # the zero-width joiner (emoji sequences) is harmless


class ChatError(ValueError):
    """A chat message refused (empty, too long, too many): nothing is sent or kept."""


def visible_problem(text: str) -> str | None:
    """Why `text` (already cleaned) would not show as text, or None: it has no visible
    character (only spaces, marks and invisible ones), or a character carries more than
    `MAX_MARKS` combining marks."""
    if not any(
        not unicodedata.category(ch).startswith(("Z", "C", "M")) and ch not in INVISIBLE
        for ch in text
    ):
        return "has no visible character"
    run = 0
    for ch in text:
        run = run + 1 if unicodedata.category(ch) in ("Mn", "Me") else 0
        if run > MAX_MARKS:
            return f"has more than {MAX_MARKS} combining marks on one character"
    return None


def strip_invisible(text: str) -> str:
    """`text` in NFC with the `INVISIBLE` characters made spaces."""
    text = unicodedata.normalize("NFC", text)
    return "".join(" " if ch in INVISIBLE else ch for ch in text)


@cache
def reserved_names() -> frozenset[str]:
    """Names no player may take (casefolded): what clients show for a spectator and
    for the table's own lines, in English and in every catalogue of the web client."""
    names = {SPECTATOR.casefold(), SYSTEM.casefold()}
    folder = Path(__file__).parent / "static" / "i18n"
    for path in folder.glob("*.json") if folder.is_dir() else ():
        try:
            catalogue = json.loads(path.read_text("utf-8"))
        except (OSError, ValueError):
            continue
        for key in ("chat.spectator", "chat.table"):
            word = catalogue.get(key)
            if isinstance(word, str) and word.strip():
                names.add(" ".join(word.split()).casefold())
    return frozenset(names)


def clean_chat(raw: Any) -> str:
    """The text of a chat message as it will be shown, or `ChatError`.

    Line breaks and tabs become spaces, runs of spaces collapse, and control, format
    (bidi overrides, zero-width characters) and unassigned characters are removed; the
    text is put in NFC and invisible letters (`INVISIBLE`) become spaces. Refused: text
    with nothing visible left, or a character under more than `MAX_MARKS` combining marks.
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
    text = " ".join(strip_invisible("".join(kept)).split())
    if not text:
        raise ChatError("an empty chat message")
    problem = visible_problem(text)
    if problem is not None:
        raise ChatError(f"an empty-looking chat message: it {problem}")
    if len(text) > MAX_CHAT:
        raise ChatError(f"chat messages are at most {MAX_CHAT} characters")
    return text


def chat_text(msg: dict[str, Any]) -> str:
    """The text a `chat` message stores: its cleaned `text`, or ":key:" for a reaction."""
    reaction = msg.get("reaction")
    if reaction is not None:
        if reaction not in REACTIONS:
            raise ChatError(f"reaction must be one of: {', '.join(REACTIONS)}")
        return f"{REACTION_MARK}:{reaction}:"
    return clean_chat(msg.get("text"))


def new_bucket(share: float = 1.0) -> TokenBucket:
    """A connection's chat allowance (apart from its general message rate); `share`
    times it for a seat's or an address's."""
    return TokenBucket(CHAT_RATE * share, CHAT_BURST * share)


class ChatLimiter:
    """A table's chat allowances per seat and per client address (a connection has its
    own, `Client.chat_bucket`): a message is taken from all that apply, or from none."""

    def __init__(self) -> None:
        self.buckets: dict[tuple[str, Any], TokenBucket] = {}

    def _bucket(self, key: tuple[str, Any], share: float) -> TokenBucket:
        bucket = self.buckets.get(key)
        if bucket is None:
            if len(self.buckets) >= 1024:  # forget the allowances that are full again
                for k in [k for k, b in self.buckets.items() if b.peek() >= b.burst]:
                    del self.buckets[k]
            bucket = self.buckets[key] = new_bucket(share)
        return bucket

    def allow(self, own: TokenBucket, seat: int | None, addr: str) -> bool:
        """Take one message from the connection's `own` allowance, its seat's and its
        address's; False (nothing taken) if any of them is spent."""
        buckets = [own]
        if seat is not None:
            buckets.append(self._bucket(("seat", seat), 1.0))
        if addr:
            buckets.append(self._bucket(("addr", addr), ADDR_SHARE))
        if any(b.peek() < 1.0 for b in buckets):
            return False
        for b in buckets:
            b.allow()
        return True


def chat_json(row: ChatRow) -> dict[str, Any]:
    """One message as clients get it (a quick reaction also names its `reaction`)."""
    out: dict[str, Any] = {"n": row.n, "at": row.at.isoformat(), "seat": row.seat,
                           "name": row.name, "text": row.text}
    if row.seat is None and row.name == SYSTEM:
        out["system"] = True
    elif row.text.startswith(REACTION_MARK) and row.text[1:] in _REACTION_TEXTS:
        out["text"] = row.text[1:]  # ":key:", for clients that do not know the reaction
        out["reaction"] = row.text[2:-1]
    return out


class ChatLog:
    """A table's last `KEEP_CHAT` messages (the database keeps them all)."""

    def __init__(self, rows: list[ChatRow] | None = None) -> None:
        self.rows: deque[ChatRow] = deque(rows or (), maxlen=KEEP_CHAT)
        self.next_n = (self.rows[-1].n + 1) if self.rows else 0
        self.limiter = ChatLimiter()

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
