"""The card counter at the web table (issue 32): `view.counter` only where the host chose it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from server_harness import HUMAN_WINDOW_MS, Human, WSPlayer, host_table, new_table, serve

pytestmark = [pytest.mark.filterwarnings("ignore::DeprecationWarning"), pytest.mark.timeout(60)]


def _in_play(m: dict[str, Any]) -> bool:
    # a state in the play with at least one trick done and seat 0 to act (RULES §6)
    return (m["type"] == "state" and m["view"] is not None and m["view"]["phase"] == "play"
            and len(m["view"]["tricks"]) >= 1 and m["view"]["to_act"] == 0)


def test_the_state_carries_the_counter_only_when_the_table_has_it_on(tmp_path: Path) -> None:
    bots = {1: "random", 2: "random", 3: "random"}
    with serve(tmp_path / "db.sqlite", window_ms=HUMAN_WINDOW_MS, seed_source=lambda: 4) as client:
        p, table = host_table(client, bots, card_counter=True)
        assert p.state is not None and p.state["table"]["settings"]["card_counter"] is True
        watcher = WSPlayer(client, p.table_id)
        watcher.hello()
        st = Human(p, table, seed=4).play_until(_in_play, timeout=30)
        counter = st["view"]["counter"]
        v = st["view"]
        tricks = v["tricks"] + ([v["current_trick"]] if v["current_trick"] else [])
        played = sum(len(cs) for t in tricks for _, cs in t["plays"])
        assert sum(s["out"] for s in counter["suits"].values()) == (
            108 - played - len(st["view"]["hand"]))  # RULES §1: 108 cards
        assert {s for s in counter["suits"]} == {"S", "H", "D", "C", "T"}
        # the spectator gets its own counter, with no hand to take away
        seen = watcher.until(lambda m: m["type"] == "state" and m["view"]["phase"] == "play"
                             and m["view"]["counter"] is not None)
        spec = seen["view"]["counter"]
        assert sum(s["mine"] for s in spec["suits"].values()) == 0
        p.close()
        watcher.close()
        # off (the default): no counter anywhere in the state
        p, table = host_table(client, bots)
        assert p.state is not None and p.state["table"]["settings"]["card_counter"] is False
        st = Human(p, table, seed=4).play_until(_in_play, timeout=30)
        assert "counter" not in st["view"]
        assert all("counter" not in (m.get("view") or {}) for m in p.log)
        p.close()


def test_card_counter_must_be_true_or_false(tmp_path: Path) -> None:
    with serve(tmp_path / "db.sqlite") as client:
        for bad in (1, "yes", None):
            r = client.post("/api/tables", json={"name": "x", "card_counter": bad})
            assert r.status_code == 422 and r.json()["field"] == "card_counter", r.text
        tid, _ = new_table(client, card_counter=True)
        assert client.get(f"/api/tables/{tid}").json()["settings"]["card_counter"] is True
