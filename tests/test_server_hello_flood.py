"""Issue 28 item 5: a seat's extra connections saying hello over and over (with its token,
then without) do not make the table send every client a state each time."""

from __future__ import annotations

from pathlib import Path

from server_harness import new_table, seated_host, serve


def test_re_hello_of_a_present_seat_sends_the_others_nothing(tmp_path: Path) -> None:
    with serve(tmp_path / "t.db", rate_per_s=1000, burst=1000) as client:
        tid, host = new_table(client)
        with client.websocket_connect(f"/ws/{tid}") as seat0, \
                client.websocket_connect(f"/ws/{tid}") as other, \
                client.websocket_connect(f"/ws/{tid}") as flood:
            seat0.send_json({"type": "hello", "token": host})
            assert seat0.receive_json()["type"] == "state"
            seat0.send_json({"type": "sit", "seat": 0, "name": "Me"})
            token = next(m for m in iter(lambda: seat0.receive_json(), None)
                         if m["type"] == "seated")["token"]
            other.send_json({"type": "hello"})
            other.send_json({"type": "ping"})  # past what it was sent before
            while other.receive_json()["type"] != "pong":
                pass
            flood.send_json({"type": "ping"})
            while flood.receive_json()["type"] != "pong":
                pass
            for i in range(60):  # seat 0 stays connected (seat0) all along
                flood.send_json({"type": "hello", "token": token if i % 2 == 0 else None})
                m = flood.receive_json()
                assert m["type"] == "state" and m["you"] == (0 if i % 2 == 0 else None)
            flood.send_json({"type": "ping"})
            assert flood.receive_json()["type"] == "pong"
            other.send_json({"type": "ping"})
            seen = []
            while (m := other.receive_json())["type"] != "pong":
                seen.append(m["type"])
            # before the fix: one state per hello (60) plus the seat taken
            assert seen.count("state") <= 1


def test_a_flood_of_presence_changes_is_coalesced_per_window(tmp_path: Path) -> None:
    """Issue 28 item 5: one connection, the only one of seat 1, flipping hello between its
    token and none changes the seat's presence every time; a bystander is sent at most
    one state per `PRESENCE_WINDOW_S` (plus the one at the window's end), not one per
    hello, and its last state shows the seat as it ended."""
    import time

    from server_harness import WSPlayer
    from shengji.server.tables import PRESENCE_WINDOW_S

    with serve(tmp_path / "t.db") as client:
        tid, host, bystander = seated_host(client, 0, "Me")
        flood = WSPlayer(client, tid)
        flood.hello()
        flood.sit(1, "Flood")
        token = flood.token
        bystander.sync()
        flood.sync()
        before = len([m for m in bystander.log if m["type"] == "state"])
        hellos = 200
        start = time.monotonic()
        for i in range(hellos):  # ends on a hello without the token: seat 1 is absent
            flood.send({"type": "hello", "token": token if i % 2 == 0 else None})
        flood.sync()  # every hello was handled
        elapsed = time.monotonic() - start
        own = [m for m in flood.log if m["type"] == "state"]
        assert own[-1]["you"] is None  # the flooder got its own state for each hello
        # The window's last state reaches the bystander: seat 1 shown absent.
        bystander.until(lambda m: m["type"] == "state"
                        and m["table"]["seats"][1]["connected"] is False, timeout=10)
        bystander.sync()
        got = len([m for m in bystander.log if m["type"] == "state"]) - before
        windows = elapsed / PRESENCE_WINDOW_S + 1  # the windows the flood touched
        assert got <= 2 * windows + 2, (got, elapsed)  # before the fix: 200
        assert got < hellos / 4
