"""The HTTP side of the server: table creation, lobby, pages, static files, replays."""

from __future__ import annotations

from pathlib import Path

import pytest

from server_harness import WSPlayer, new_table, serve

pytestmark = [pytest.mark.filterwarnings("ignore::DeprecationWarning"), pytest.mark.timeout(60)]


def test_create_table_validates_its_options_and_settings(tmp_path: Path) -> None:
    with serve(tmp_path / "db.sqlite") as client:
        r = client.post("/api/tables", json={
            "name": "  Friday   night ", "options": {"strict_tractor_follow": True},
            "deal_ms": 40, "bot_timeout_s": 30,
        })
        assert r.status_code == 200
        tid = r.json()["id"]
        assert len(r.json()["host_token"]) >= 40
        info = client.get(f"/api/tables/{tid}").json()
        assert info["name"] == "Friday night"
        assert info["options"]["strict_tractor_follow"] is True
        assert info["options"]["band_80_115"] == "swap"  # the defaults fill in
        assert info["settings"]["deal_ms"] == 40 and info["settings"]["bot_timeout_s"] == 30
        assert "host_token_hash" not in str(info) and "token" not in str(info)
        for bad in (
            {"options": {"nope": 1}},
            {"options": {"first_drawer": 7}},
            {"options": {"self_reinforce": "yes"}},
            {"options": {"throw_penalty_per_card": "x"}},
            {"name": ""},
            {"name": "a\x00b"},
            {"deal_ms": -5},
            {"deal_ms": 10**7},
            {"bot_timeout_s": -1},
        ):
            r = client.post("/api/tables", json={"name": "t", **bad})
            assert r.status_code == 422, (bad, r.text)
            assert r.json()["code"] in ("bad_option", "bad_setting", "bad_name"), r.text
        assert client.post("/api/tables", json={"options": []}).status_code == 422
        assert client.post("/api/tables", content=b"{oops").status_code == 422
        lobby = client.get("/api/tables").json()
        assert [t["id"] for t in lobby] == [tid]
        assert lobby[0]["seats"] == [None, None, None, None]


def test_unknown_tables(tmp_path: Path) -> None:
    with serve(tmp_path / "db.sqlite") as client:
        for path in ("/api/tables/nope", "/api/tables/nope/replay", "/api/tables/a.b"):
            assert client.get(path).status_code == 404
        p = WSPlayer(client, "nope")
        assert p.recv()["type"] == "error"
        with pytest.raises(ConnectionError):
            p.recv()
        tid, _ = new_table(client)
        assert client.get(f"/api/tables/{tid}/replay").status_code == 409  # not started


def test_pages_and_static_files(tmp_path: Path) -> None:
    static = tmp_path / "static"
    static.mkdir()
    (static / "index.html").write_text("<!doctype html><title>shengji</title>")
    (static / "app.js").write_text("export {};")
    with serve(tmp_path / "db.sqlite", static_dir=static) as client:
        for path in ("/", "/t/abc", "/games/abc"):
            r = client.get(path)
            assert r.status_code == 200 and "shengji" in r.text
        assert client.get("/static/app.js").text == "export {};"
        assert client.get("/static/missing.js").status_code == 404
        assert client.get("/static/../storage.py").status_code == 404
    with serve(tmp_path / "db2.sqlite", static_dir=tmp_path / "none") as client:
        assert client.get("/").status_code == 404
        assert client.get("/api/tables").status_code == 200


def test_the_shipped_client_is_served_when_present(tmp_path: Path) -> None:
    index = Path(__file__).parents[1] / "src" / "shengji" / "server" / "static" / "index.html"
    if not index.is_file():
        pytest.skip("the browser client is not there yet")
    with serve(tmp_path / "db.sqlite") as client:
        assert client.get("/").status_code == 200


def test_tables_survive_a_restart_of_the_app(tmp_path: Path) -> None:
    db = tmp_path / "db.sqlite"
    with serve(db) as client:
        tid, host = new_table(client, name="Kept")
        p = WSPlayer(client, tid)
        p.hello(host)
        p.sit(2, "Zoe")
        token = p.token
    with serve(db) as client:
        assert [t["name"] for t in client.get("/api/tables").json()] == ["Kept"]
        q = WSPlayer(client, tid)
        st = q.hello(token)
        assert st["you"] == 2 and st["is_host"] and st["table"]["seats"][2]["name"] == "Zoe"
