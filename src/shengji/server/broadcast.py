"""The JSON of a table's `state` messages, built once per broadcast and shared.

A broadcast sends every connection its own seat's view (spectators: the public one) and
the events of the action just applied as its seat may see them (RULES §11). Building
those for each connection would repeat the same work: `Encoded` builds each seat's own
part once, the part every seat sees alike once per history base (what a connection
already holds, `history_part`), and the table's info once with and once without the rule
options. It reads the table's `Game` and nothing else of the table; a view that cannot
be built (an engine bug) is reported through the `failed` callback, never raised.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from shengji import Game
from shengji.counter import card_counter
from shengji.events import Event

from .connection import Client
from .schema import dumps_events, dumps_info, dumps_view

#: what a connection that asked for the history as it grows holds of a view (`history_base`)
Base = tuple[int, int, bool]


def history_part(public: dict[str, Any], base: Base | None) -> dict[str, Any]:
    """The public part of a view (`View.public_json`) for a connection that holds part of
    it (docs/WEB_PROTOCOL.md, "history"): `base = (t, f, options)` sends only the round's
    completed tricks from the `t`-th and failed throws from the `f`-th on, `history_from`
    saying where they continue, and the rule options only if `options` (the connection
    does not hold them yet; `Encoded.state_text` leaves them out of the table's part too).
    None: all of it."""
    if base is None:
        return public
    t, f, options = base
    out = dict(public)
    out["tricks"] = public["tricks"][t:]
    out["failed_throws"] = public["failed_throws"][f:]
    out["history_from"] = {"tricks": t, "failed_throws": f}
    if not options:
        del out["options"]
    return out


def events_text(events: list[Event], by: str | None) -> str:
    """The JSON of events (already as their reader may see them), marked with `by`."""
    mark = {"by": by} if by else {}
    return dumps_events([{**e.to_json(), **mark} for e in events])


class Encoded:
    """One broadcast's JSON of one game, built once and shared by its connections: each
    seat's own part (`View.private_json`, JSON members without braces; "" where the view
    could not be built), the public part's dict (`View.public_json`) and its encodings per
    `Base`, the views as sent, and the table's info with and without the rule options.

    `counter`: the table's `card_counter` setting (issue 32: public information only);
    `failed(seat)`: called when `seat`'s view cannot be built (the table goes to `error`)."""

    __slots__ = ("counter", "failed", "game", "infos", "own", "public", "publics", "views")

    def __init__(self, game: Game, counter: bool,
                 failed: Callable[[int | None], None]) -> None:
        self.game = game
        self.counter = counter
        self.failed = failed
        self.own: dict[int | None, str] = {}
        self.public: dict[str, Any] | None = None
        self.publics: dict[Base | None, str] = {}
        self.views: dict[tuple[int | None, Base | None], str] = {}
        self.infos: dict[bool, str] = {}

    def own_text(self, seat: int | None) -> str | None:
        """The seat's own part of its view, cached (building it also caches the public
        part's dict). None where the view cannot be built (an engine bug): `failed`."""
        own = self.own.get(seat)
        if own is None:
            try:
                v = self.game.view(seat)
                if self.public is None:
                    self.public = v.public_json()
                part = v.private_json()
                part.update(v.play_help_json())  # issue 30: what the browser recomputed
                if self.counter:  # issue 32: public information only
                    part["counter"] = card_counter(v)
                own = dumps_view(part)[1:-1]
            except Exception:  # an engine bug or a damaged table: no view, never a crash
                self.failed(seat)
                own = ""
            self.own[seat] = own
        return own or None

    def view_text(self, seat: int | None, base: Base | None = None) -> str:
        """The JSON of `seat`'s view (cached for this broadcast). A view that cannot be
        built (an engine bug) is reported (`failed`) and sent as null.

        The part every seat sees alike (`View.public_json`) is encoded once per broadcast
        and per `base`; each seat adds its own (`private_json`). `base`: None for the whole
        view, else the part a connection does not hold yet (`history_part`)."""
        view = self.views.get((seat, base))
        if view is None:
            own = self.own_text(seat)
            public = self.publics.get(base)
            if own is not None and public is None:
                assert self.public is not None  # built with `own`
                try:
                    public = self.publics[base] = dumps_view(
                        history_part(self.public, base)
                    )[1:-1]
                except Exception:  # as above: never a crash
                    self.failed(seat)
            who = "null" if seat is None else str(seat)
            # the same object as View.to_json(): seat, the public part, the seat's part
            view = "null" if own is None or public is None else (
                f'{{"seat":{who},{public},{own}}}'
            )
            self.views[seat, base] = view
        return view

    def history_base(self, client: Client) -> Base | None:
        """What part of the view to send `client` now (`view_text`'s `base`), noting that
        it will then hold all of it: None (the whole view) unless the connection asked for
        the history as it grows (`hello`'s `"history": "delta"`). It gets the round's
        history whole on its first state, in a new round, and after a view that could not
        be built; the rule options on its first state only."""
        if not client.history_delta:
            return None
        if self.own_text(client.seat) is None:  # view_text sends null
            client.history = None
            return None
        public = self.public
        assert public is not None  # built with the seat's own part
        now = (id(self.game), public["round_no"], len(public["tricks"]),
               len(public["failed_throws"]))
        held = client.history
        client.history = now
        if held is None or held[0] != now[0]:
            return (0, 0, True)
        if held[1] != now[1] or held[2] > now[2] or held[3] > now[3]:
            return (0, 0, False)
        return (held[2], held[3], False)

    def state_text(
        self,
        client: Client,
        info: dict[str, Any],
        seq: int,
        is_host: bool,
        events: dict[int | None, str] | None = None,
    ) -> str:
        """The `state` message for one connection, as JSON text: its own seat's view only.

        `info` is the table's `table_info()` (encoded here once, and once more without
        the rule options for a connection that holds them), `seq` its action count,
        `is_host` whether `client` is the host; `events` each seat's redacted JSON of the
        events of the action just applied (absent: none, e.g. on connecting). Call it only
        for a message that is sent: it notes the history the connection then holds
        (`history_base`).
        """
        seat = client.seat
        base = self.history_base(client)
        view = self.view_text(seat, base)
        lean = base is not None and not base[2]  # the connection holds the options
        table = self.infos.get(lean)
        if table is None:
            table = self.infos[lean] = dumps_info(
                {k: v for k, v in info.items() if k != "options"} if lean else info
            )
        you = "null" if seat is None else str(seat)
        host = "true" if is_host else "false"
        evs = "[]" if events is None else events.get(seat, events.get(None, "[]"))
        return (
            f'{{"type":"state","table":{table},"you":{you},"is_host":{host},'
            f'"seq":{seq},"events":{evs},"view":{view}}}'
        )
