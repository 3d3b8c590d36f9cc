"""Reviews for `GET /api/tables/{id}/review?seat=S&round=N` (issue 32): one seat's round.

The review (`shengji.analysis.review_round`: each decision's class, loss, better play and
reason, with the seat's knowledge and with hindsight) is worked out in the bots' worker
pool (`Manager.review`, `compute` here), never on the event loop, and kept in memory by
`ReviewJobs`, keyed by (table, round, seat, budget, seed): asking again costs nothing, and
requests that arrive while it is being computed wait for the same computation.

Who may see it: the round must be finished (its hindsight shows what every hand held, so
it comes only after the round, RULES §11). Once the game is over the replay shows every
hand to anyone, and so does the review; while the game is still being played the replay
shows public plays only, so a finished round's review goes only to the seat it reviews
(its seat token as `Authorization: Bearer`), never to the other players or spectators.

Progress and storage: a review is worked out a few decisions at a time (`compute` with
`part`, at most `PARTS` pool tasks one after another, so the bots' own moves are never
queued behind a whole review), and `ReviewJobs` counts the decisions done ("analysing
12/27"). Once
complete it is kept with the game (`Store.save_review`, keyed by table, round, seat,
budget and seed): a replay, a reload or another server reads it back, never recomputes.
The parts' merge (`merge`) equals the review computed in one go (each decision has its
own seed, `analysis.review.hash_seed`).

The round summary (`GET /api/tables/{id}/accuracy?round=N`) shows every human seat's
accuracy with the seat's knowledge, a figure with no cards in it; hindsight figures and
the review itself (which draws the seat's cards) follow the rule above.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

from shengji.analysis import Budget, accuracy, decision_count, review_round
from shengji.options import RuleOptions
from shengji.record import GameRecord

from .replay import LruCache

#: the search each reviewed decision gets on the server (about 2 s for one seat's round
#: on one core; `shengji analyse` defaults to the same counts)
REVIEW_BUDGET = Budget()
REVIEW_SEED = 0
ROUND_UNFINISHED = "round_unfinished"
#: a review is worked out in at most this many pool tasks (each replays the log up to the
#: round: a few ms a round; more parts would show finer progress for more replays)
PARTS = 9
REVIEW_OWN_SEAT = "review_own_seat"
REVIEW_FAILED = "review_failed"


def budget_key(budget: Budget) -> str:
    """The budget as stored with a review: "worlds/rollouts/candidates/endgame" (a review
    stored before hindsight solved the last tricks has no endgame part, so it is not
    read back as one that did)."""
    return f"{budget.worlds}/{budget.rollouts}/{budget.candidates}/{budget.endgame}"


def count_parts(seed: int | str, options: RuleOptions, actions: list[Any], round_no: int,
                seat: int) -> int:
    """How many decisions of `seat` round `round_no` has (forced ones included): the
    parts `compute` is asked for, one by one (a replay of the log: milliseconds)."""
    record = GameRecord(options=options, seed=seed, actions=actions)
    return decision_count(record, round_no, seat)


def compute(seed: int | str, options: RuleOptions, actions: list[Any], round_no: int,
            seat: int, budget: Budget, review_seed: int,
            part: tuple[int, int] | None = None) -> dict[str, Any]:
    """The review's JSON of `seat` in round `round_no` (0-based) of the log (run in a
    worker process: see `Manager.review`); with `part` (first, stop), only those
    decisions' (in `count_parts`'s order; `merge` joins the parts)."""
    record = GameRecord(options=options, seed=seed, actions=actions)
    only = None if part is None else range(*part)
    return review_round(record, round_no, seat, budget, seed=review_seed, only=only).to_json()


def split(total: int, parts: int = PARTS) -> list[tuple[int, int]]:
    """`total` decisions in at most `parts` runs (first, stop) of nearly equal length."""
    size = max(1, -(-total // parts))
    return [(i, min(total, i + size)) for i in range(0, total, size)]


def merge(parts: list[dict[str, Any]]) -> dict[str, Any]:
    """One review from its parts (`compute(..., part=n)` for every n): their decisions
    in order, the accuracies over all of them (as `RoundReview` computes them)."""
    out = dict(parts[0])
    decisions = sorted((d for p in parts for d in p["decisions"]),
                       key=lambda d: d["action_index"])
    out["decisions"] = decisions
    out["accuracy"] = accuracy([d["knowledge"]["loss_points"] for d in decisions])
    hs = [d["hindsight"]["loss_points"] for d in decisions if d["hindsight"] is not None]
    out["hindsight_accuracy"] = accuracy(hs) if hs and len(hs) == len(decisions) else None
    return out


class ReviewJobs(LruCache):
    """The last `size` reviews in memory, and the ones being computed with their
    progress. A review being computed is shared by everyone who asks for it meanwhile;
    least recently used entries go first."""

    def __init__(self, size: int = 128) -> None:
        super().__init__(size)
        self._pending: dict[tuple[Any, ...], asyncio.Future[dict[str, Any]]] = {}
        self._progress: dict[tuple[Any, ...], tuple[int, int]] = {}
        self.failed: dict[tuple[Any, ...], str] = {}  # a computation that raised: why

    def progress(self, key: tuple[Any, ...]) -> tuple[int, int] | None:
        """(parts done, parts in all) of a review being computed; None if it is not."""
        if key not in self._pending:
            return None
        return self._progress.get(key, (0, 0))

    def start(self, key: tuple[Any, ...], work: Callable[[Callable[[int, int], None]],
                                                          Awaitable[dict[str, Any]]]
              ) -> asyncio.Future[dict[str, Any]]:
        """The computation under `key`, started now unless it already runs; `work` gets a
        `progress(done, total)` callback. Its result is kept in memory when done."""
        pending = self._pending.get(key)
        if pending is not None:
            return pending

        def progress(done: int, total: int) -> None:
            self._progress[key] = (done, total)

        async def run() -> dict[str, Any]:
            try:
                body = await work(progress)
                self.put(key, body)
                self.failed.pop(key, None)
                return body
            except Exception as exc:  # (the review is deterministic: asking again fails
                self.failed[key] = str(exc)  # again; the summary shows it, not a spinner)
                raise
            finally:
                self._pending.pop(key, None)
                self._progress.pop(key, None)

        pending = self._pending[key] = asyncio.ensure_future(run())
        pending.add_done_callback(lambda f: f.cancelled() or f.exception())  # no warning
        return pending

    async def get_or_compute(self, key: tuple[Any, ...],
                             work: Callable[[Callable[[int, int], None]],
                                            Awaitable[dict[str, Any]]]) -> dict[str, Any]:
        """The review under `key`, computed by `work` once (concurrent askers share it)."""
        body = self.get(key)
        if body is not None:
            return body
        return await asyncio.shield(self.start(key, work))
