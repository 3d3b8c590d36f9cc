"""The review panel on the replay page, in headless Chromium (issue 32).

The page is the real client served by the real server; the replay and the review it
fetches are answered by the test with the real payloads of one recorded round
(`replay.replay_payload` and `analysis.review_round` on a game whose seat 0 played at
random, so that it has marked decisions). Clicking Review for seat 0 asks
/api/tables/{id}/review?seat=0&round=1; the panel shows the accuracy, every class's
count, the marked decisions with their class badge, loss and better play drawn as
cards, and the evaluation graph (inline SVG: a bar per trick that lost points and the
running loss with knowledge and with hindsight).

The round summary at a table (its WebSocket answered by the test with a real view just
after round 1): it asks /api/tables/{id}/accuracy?round=1, shows "analysing 3/27" while
the server says so, then an accuracy line for every human seat; the player's own seat
has a Review entry that opens the same panel for that seat (its progress shown while
the review is answered 202), the others have none.
"""

# ruff: noqa: F811  (the test_browser fixtures `server` and `browser` are parameters here)
from __future__ import annotations

import json
import os
from functools import cache
from typing import Any

import pytest

from browser_helpers import FakeServer, _advance, new_page, show_fake, state_of
from shengji import Game
from shengji.analysis import Budget, review_round
from shengji.bots.heuristic import HeuristicAgent
from shengji.bots.random_agent import RandomAgent
from shengji.driver import step
from shengji.record import GameRecord
from shengji.server.replay import replay_payload

browser_only = pytest.mark.browser
SMALL = Budget(worlds=2, rollouts=1, candidates=3)
SEATS = [{"name": "Ann", "kind": "human"}, {"name": "Heuristic bot", "kind": "heuristic"},
         {"name": "Bea", "kind": "human"}, {"name": "Heuristic bot", "kind": "heuristic"}]


@cache
def _record() -> GameRecord:
    """A first round played to its end: seat 0 at random, the others heuristic."""
    g = Game(11)
    bots: list[Any] = [RandomAgent(seed=2)] + [HeuristicAgent(s) for s in (1, 2, 3)]
    while g.round_no == 0:
        step(g, bots)
    return g.record


def open_review(page: Any, base: str, asked: list[str]
                ) -> tuple[dict[str, Any], dict[str, Any]]:
    """The replay page of table `fake` with the recorded round; returns the review and
    the replay."""
    record = _record()
    actions = [list(a) for a in record.actions]
    replay = replay_payload(record.seed, record.options, actions, True)
    review = review_round(record, 0, 0, SMALL, seed=1).to_json()

    def answer(route: Any) -> None:
        url = route.request.url
        if "/review?" in url:
            asked.append(url.split("/api/", 1)[1])
            body: Any = review
        elif url.endswith("/replay"):
            body = {**replay, "chat": []}
        else:
            body = {"id": "fake", "name": "Review night", "seats": SEATS, "status": "playing"}
        route.fulfill(status=200, content_type="application/json", body=json.dumps(body))

    page.route("**/api/tables/fake**", answer)
    page.goto(base + "/games/fake")
    page.wait_for_selector("#review-panel")
    return review, replay


@browser_only
@pytest.mark.timeout(90)
def test_the_review_panel_shows_classes_better_plays_and_the_graph(server: str, browser: Any
                                                                   ) -> None:
    asked: list[str] = []
    with new_page(browser, viewport={"width": 1100, "height": 1400}) as page:
        review, replay = open_review(page, server, asked)
        marked = [d for d in review["decisions"]
                  if {d["knowledge"]["verdict"], d["hindsight"]["verdict"]}
                  & {"inaccuracy", "mistake", "blunder"}]
        assert marked, "a seat playing at random makes marked decisions"
        page.click("#review-btn")
        page.wait_for_selector("#review-body")
        assert asked == ["tables/fake/review?seat=0&round=1&wait=false"]
        acc = page.inner_text("#review-accuracy")
        assert f"Accuracy {review['accuracy']:.1f}" in acc
        assert f"with hindsight {review['hindsight_accuracy']:.1f}" in acc
        # every class's count, as the review measured it
        for c in ("best", "good", "inaccuracy", "mistake", "blunder"):
            n = sum(d["knowledge"]["verdict"] == c for d in review["decisions"])
            assert page.inner_text(f".review-counts [data-class='{c}']").endswith(str(n))
        # the marked decisions only, each with its class badge, loss and better play
        items = page.locator("#review-list .review-item")
        assert items.count() == len(marked)
        for i, d in enumerate(marked):
            item = items.nth(i)
            k = d["knowledge"]
            assert item.get_attribute("data-verdict") == k["verdict"]
            badge = item.locator(".review-verdict").first.locator(".review-badge")
            assert badge.inner_text() == k["verdict"].capitalize()
            if k["best"] != k["played"]:
                assert f"−{k['loss_points']:.1f} points" in item.inner_text()
                better = k["candidates"][k["best"]]["cards"]
                shown = item.locator(".review-verdict").first.locator(".review-better .card")
                assert shown.count() == len(better)
            assert item.locator(".review-reason").inner_text().strip()
        # the graph: a bar for each trick that lost points, two running-loss lines
        lost = {d["trick"] if d["kind"] == "play" else 0 for d in review["decisions"]
                if d["knowledge"]["loss_points"] > 0}
        bars = page.locator("#review-graph rect.bar")
        assert sorted(int(bars.nth(i).get_attribute("data-trick") or -1)
                      for i in range(bars.count())) == sorted(lost)
        assert page.locator("#review-graph polyline.run-knowledge").count() == 1
        assert page.locator("#review-graph polyline.run-hindsight").count() == 1
        points = page.get_attribute("#review-graph polyline.run-knowledge", "points") or ""
        assert len(points.split()) == len(replay["steps"][0]["tricks"]) + 1
        # every decision on demand
        page.check("#review-all")
        assert items.count() == len(review["decisions"])
        shot = os.environ.get("SHENGJI_REVIEW_SCREENSHOT")
        if shot:  # docs/screenshots/review.png is made this way
            page.uncheck("#review-all")
            page.set_viewport_size({"width": 1100, "height": 3000})  # nothing under the top bar
            page.evaluate("window.scrollTo(0, 0)")
            page.locator("#review-panel").screenshot(path=shot)


def _after_round_one(g: Game) -> bool:
    return g.round_no == 1 and g.decision().phase in ("deal", "declare")


@browser_only
@pytest.mark.timeout(120)
def test_the_round_summary_shows_accuracy_lines_and_opens_the_review(server: str,
                                                                     browser: Any) -> None:
    g = _advance(7, _after_round_one, limit=20_000)
    review = review_round(g.record, 0, 0, SMALL, seed=1).to_json()
    assert review["decisions"]
    partner = {"seat": 2, "name": "Chen", "may_review": False, "status": "done",
               "accuracy": 64.25, "decisions": 24, "hindsight_accuracy": None}
    done = {"seat": 0, "name": "Alice", "may_review": True, "status": "done",
            "accuracy": review["accuracy"], "decisions": len(review["decisions"]),
            "hindsight_accuracy": review["hindsight_accuracy"]}
    asked: list[str] = []

    def accuracy(route: Any) -> None:
        asked.append(route.request.url.split("/api/", 1)[1])
        rows = [done, partner] if len(asked) > 1 else [
            {"seat": 0, "name": "Alice", "may_review": True, "status": "analysing",
             "done": 3, "total": 27}, partner]
        route.fulfill(status=200, content_type="application/json",
                      body=json.dumps({"round": 1, "seats": rows}))

    reviews: list[str] = []

    def answer_review(route: Any) -> None:
        reviews.append(route.request.url.split("/api/", 1)[1])
        if len(reviews) <= 2:  # being worked out: its progress
            route.fulfill(status=202, content_type="application/json", body=json.dumps(
                {"code": "analysing", "done": 5, "total": 27, "detail": "analysing 5/27"}))
        else:
            route.fulfill(status=200, content_type="application/json", body=json.dumps(review))

    with new_page(browser, viewport={"width": 1366, "height": 1000}) as page:
        page.route("**/api/tables/fake/accuracy**", accuracy)
        page.route("**/api/tables/fake/review**", answer_review)
        show_fake(page, server, FakeServer(state_of(g, 0)))
        page.wait_for_selector("#summary #sum-accuracy")
        progress = page.wait_for_selector(".sum-acc-row[data-seat='0'][data-status='analysing']")
        assert "analysing 3/27" in progress.inner_text()
        mine = page.wait_for_selector(".sum-acc-row[data-seat='0'][data-status='done']")
        assert asked[0] == "tables/fake/accuracy?round=1"
        assert f"Accuracy {review['accuracy']:.1f}" in mine.inner_text()
        assert f"with hindsight {review['hindsight_accuracy']:.1f}" in mine.inner_text()
        theirs = page.locator(".sum-acc-row[data-seat='2']")
        assert "Accuracy 64.3" in theirs.inner_text() and "hindsight" not in theirs.inner_text()
        assert theirs.locator("[data-review-seat]").count() == 0  # not theirs to review
        assert page.locator(".sum-acc-row").count() == 2  # the human seats the server named
        page.click("[data-review-seat='0']")
        page.wait_for_function("() => (document.querySelector('#summary #review-btn') || {})"
                               ".textContent?.includes('analysing 5/27')")
        page.wait_for_selector("#summary #review-body")
        assert reviews[0] == "tables/fake/review?seat=0&round=1&wait=false"
        acc = page.inner_text("#summary #review-accuracy")
        assert f"Accuracy {review['accuracy']:.1f}" in acc
        assert page.locator("#summary #review-seat").count() == 0  # that seat only
        assert page.locator("#summary #review-graph polyline.run-knowledge").count() == 1
