"""The table's seats as one owner (issue 30 item 1): `seats.Seat` and `seats.SeatMap`.

Every change goes through the map's one `save` callback and is shown only once stored;
a refused or failed change leaves the seats as they were; stored seats of any age load.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from shengji.server.connection import ClientError
from shengji.server.seats import Seat, SeatMap
from shengji.server.security import token_matches


class Store:
    """The `save` callback: keeps what was stored, or fails when told to."""

    def __init__(self) -> None:
        self.saved: list[tuple[list[dict[str, Any] | None], int | None]] = []
        self.fail = False

    async def save(self, seats: list[dict[str, Any] | None], host: int | None) -> None:
        if self.fail:
            raise OSError("disk full")
        self.saved.append((seats, host))


def run(coro: Any) -> Any:
    return asyncio.run(coro)


def test_a_map_has_as_many_seats_as_players_and_refuses_a_seat_beyond() -> None:
    store = Store()
    for n in (4, 6, 10):  # RULES §12 tables: 4 to 10 players
        seats = SeatMap([None] * 4, None, n, store.save)
        assert len(seats) == n and list(seats) == [None] * n and not seats.full
        assert seats.index(n - 1) == n - 1
        for bad in (n, -1, True, "1", None):
            with pytest.raises(ClientError, match=f"seat 0-{n - 1}"):
                seats.index(bad)


def test_stored_seats_of_every_age_load_and_store_as_they_were() -> None:
    stored = [
        {"name": "Ann", "kind": "human", "token_hash": "h0"},  # sat down
        {"name": "Random bot", "kind": "random", "token_hash": None, "former": ["h1"]},
        {"name": "Bo", "kind": "human", "token_hash": None, "former": ["h2"], "vacant": True,
         "link_hash": "l2"},
        {"name": "Prog", "kind": "human", "external": True, "token_hash": "h3"},
    ]
    seats = SeatMap(stored, 0, 4, Store().save)
    assert seats.json() == stored and seats.host == 0 and seats.full
    bob = seats[2]
    assert bob is not None and bob.vacant and bob.human and not bob.player
    assert seats[3] is not None and seats[3].external and seats[3].player
    # an old bot seat stored with an empty `former` loads; it is stored without the key
    old = {"name": "Random bot", "kind": "random", "token_hash": None, "former": []}
    assert Seat.from_json(old).to_json() == {"name": "Random bot", "kind": "random",
                                             "token_hash": None}


def test_sit_kick_and_bot_store_through_the_callback_and_keep_former_holders() -> None:
    store = Store()
    seats = SeatMap([None] * 4, None, 4, store.save)
    token = run(seats.sit(1, "Ann", host=True))
    ann = seats[1]
    assert ann is not None and ann.held_by(token) and seats.host == 1
    assert store.saved[-1] == (seats.json(), 1)
    with pytest.raises(ClientError, match="seat 1 is taken"):
        run(seats.sit(1, "Bo", host=False))
    with pytest.raises(ClientError, match="has a player"):
        run(seats.put_bot(1, "random"))
    with pytest.raises(ClientError, match="host cannot kick"):
        run(seats.kick(1, mid_game=False))
    bo_token = run(seats.sit(2, "Bo", host=False))
    assert seats.host == 1  # a player who is not the host does not move it
    assert run(seats.kick(2, mid_game=True)).name == "Bo"
    bo = seats[2]
    assert bo is not None and bo.vacant and bo.token_hash is None
    assert seats.by_token(bo_token) == (None, {2})  # a former holder: spectator only
    with pytest.raises(ClientError, match="already vacant"):
        run(seats.kick(2, mid_game=True))
    bot = run(seats.put_bot(2, "heuristic"))
    assert bot == seats[2] and bot.name == "Heuristic bot" and not bot.human
    assert bot.held_before_by(bo_token)
    assert seats.by_token(token) == (1, set())
    assert len(store.saved) == 4 and store.saved[-1][0] == seats.json()


def test_a_link_is_used_once_and_a_granted_seat_gets_a_new_token() -> None:
    seats = SeatMap([None, {"name": "Random bot", "kind": "random", "token_hash": None},
                     None, None], None, 4, Store().save)
    with pytest.raises(ClientError, match="has a player"):
        run(seats.link(0))  # an empty seat is filled by sitting down
    code = run(seats.link(1))
    assert seats.by_link(code) == 1 and seats.by_link("nope") is None
    again = run(seats.link(1))  # a new link replaces the last
    assert seats.by_link(code) is None and seats.by_link(again) == 1
    run(seats.unlink(1))
    assert seats.by_link(again) is None
    token = run(seats.give(1, "Cy"))
    cy = seats[1]
    assert cy is not None and cy.player and token_matches(token, cy.token_hash)
    assert cy.link_hash is None


def test_swap_moves_the_host_with_its_seat_and_a_bot_link_is_a_program() -> None:
    seats = SeatMap([None] * 4, None, 4, Store().save)
    run(seats.sit(0, "Ann", host=True))
    with pytest.raises(ClientError, match="host's own seat"):
        run(seats.bot_link(0, "Prog"))
    token = run(seats.bot_link(3, "Prog"))
    assert seats.by_token(token) == (3, set())
    run(seats.swap(0, 3))
    assert seats.host == 3 and seats[3] is not None and seats[3].name == "Ann"
    assert seats[0] is not None and seats[0].external
    with pytest.raises(ClientError, match="two different seats"):
        run(seats.swap(2, 2))


def test_a_change_that_cannot_be_stored_leaves_the_seats_as_they_were() -> None:
    store = Store()
    seats = SeatMap([None] * 4, None, 4, store.save)
    run(seats.sit(0, "Ann", host=True))
    before = (seats.json(), seats.host)
    store.fail = True
    for change in (seats.sit(1, "Bo", host=True), seats.put_bot(2, "random"),
                   seats.swap(0, 1), seats.bot_link(3, "Prog")):
        with pytest.raises(OSError):
            run(change)
        assert (seats.json(), seats.host) == before
