"""An external bot at a web table: the seat's WebSocket in, protocol `shengji-bot/1` out.

`shengji bot-connect URL --token TOKEN --exec CMD` connects to a table over the ordinary
web protocol (docs/WEB_PROTOCOL.md) with the bot token the host made for a seat
(`{"type": "bot_link", "seat": s}`), and lets the program `CMD` (the same program the
arena runs as `exec:CMD`, docs/BOT_PROTOCOL.md) play that seat: each state that asks the
seat to act becomes a `decide` line holding the state's `view` untouched, and the bot's
checked answer goes back as the web protocol's `action` message. A bot that fails a
decision (slow, crashed, garbage, illegal) is logged and counted, and the bridge answers
for it with the first legal choice (a pass while cards are drawn), so the table never
waits on it. A program may as well speak the web protocol itself: this bridge is one.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from typing import Any

from .external import ExternalAgent, choices, legal_kinds

__all__ = ["decision_key", "play_web_seat", "standin_action", "ws_url"]

log = logging.getLogger("shengji.bots.bridge")


def ws_url(url: str) -> str:
    """The table's WebSocket URL from its page (`http://host/t/ID`) or WebSocket URL."""
    if url.startswith("http://"):
        url = "ws://" + url[7:]
    elif url.startswith("https://"):
        url = "wss://" + url[8:]
    return url.replace("/t/", "/ws/", 1).split("?", 1)[0]


def decision_key(view: dict[str, Any], seat: int) -> tuple[Any, ...] | None:
    """Which decision this state asks of `seat`, or None if it asks nothing: the same key
    for the states that show one decision (a chat line or a clock tick resends it)."""
    phase = view["phase"]
    if phase == "deal":
        if view["last_drawer"] != seat or not view["legal_declarations"]:
            return None
    elif not legal_kinds(view) or (phase == "declare" and view["to_act"] != seat):
        return None
    trick = view["current_trick"]
    return (view["round_no"], phase, view["to_act"], view["cards_left"],
            len(view["declarations"]), len(view["tricks"]),
            len(trick["plays"]) if trick else 0)


def standin_action(view: dict[str, Any]) -> list[Any]:
    """The bridge's answer where the bot failed: the first legal choice (a pass while
    cards are drawn or in the final window, RULES §3.3), or the first 8 cards of the hand
    to bury (§4)."""
    listed, _ = choices(view)
    if listed:
        return listed[0]
    return ["bury", view["seat"], " ".join(view["hand"][:8])]


def play_web_seat(
    url: str,
    token: str,
    agent: ExternalAgent,
    *,
    rounds: int | None = None,
    on_state: Callable[[dict[str, Any]], None] | None = None,
) -> dict[str, Any]:
    """Play the token's seat with `agent` until the game ends (or `rounds` rounds have
    ended); returns the last state. Raises `RuntimeError` if the token binds no seat."""
    from websockets.sync.client import connect

    with connect(ws_url(url), max_size=2**22) as ws:
        ws.send(json.dumps({"type": "hello", "token": token, "lang": "en",
                            "history": "full"}))
        answered: tuple[Any, ...] | None = None
        state: dict[str, Any] = {}
        ended: set[int] = set()  # the rounds seen to end
        bound = False
        while True:
            msg = json.loads(ws.recv())
            kind = msg.get("type")
            if kind == "error" and "invalid token" in str(msg.get("message")):
                raise RuntimeError("the bot token binds no seat of this table (a new "
                                   "bot_link replaces the old token)")
            if kind == "error":  # an answer the table had moved past (a declaration or a
                # pass just as the window closed): the next state asks again if need be
                log.warning("bot seat %s: the server refused: %s", agent.seat,
                            msg.get("message"))
                continue
            if kind != "state":
                continue
            seat, view, table = msg["you"], msg["view"], msg["table"]
            if seat is None:  # a state sent before our hello was read, or unbound
                if bound:
                    raise RuntimeError("the seat was taken from this bot (kicked, or a new "
                                       "bot_link replaced its token)")
                continue
            bound, state = True, msg
            if on_state is not None:
                on_state(msg)
            if table["status"] in ("finished", "error") or view is None:
                agent.end(view, (view or {}).get("winner"))
                return state
            if view["result"] is not None:
                ended.add(view["round_no"])
            if rounds is not None and len(ended) >= rounds:
                agent.end(view, None)
                return state
            key = decision_key(view, seat)
            if key is None or key == answered:
                continue
            answered = key
            action = agent.ask(view)
            out = action.to_json() if action is not None else standin_action(view)
            if out[0] == "pass" and view["phase"] == "deal":
                continue  # while cards are drawn, not declaring is saying nothing
            ws.send(json.dumps({"type": "action", "action": out}))
