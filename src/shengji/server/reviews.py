"""Reviews for `GET /api/tables/{id}/review?seat=S&round=N` (issue 32): one seat's round.

The review (`shengji.analysis.review_round`: each decision's class, loss, better play and
reason, with the seat's knowledge and with hindsight) is worked out in the bots' worker
pool (`Manager.review`, `compute` here), never on the event loop, and kept in memory by
`ReviewCache`, keyed by (table, round, seat, log length): asking again costs nothing, and
requests that arrive while it is being computed wait for the same computation.

Who may see it: the round must be finished (its hindsight shows what every hand held, so
it comes only after the round, RULES §11). Once the game is over the replay shows every
hand to anyone, and so does the review; while the game is still being played the replay
shows public plays only, so a finished round's review goes only to the seat it reviews
(its seat token as `Authorization: Bearer`), never to the other players or spectators.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

from shengji.analysis import Budget, review_round
from shengji.options import RuleOptions
from shengji.record import GameRecord

from .replay import LruCache

#: the search each reviewed decision gets on the server (about 2 s for one seat's round
#: on one core; `shengji analyse` defaults to the same counts)
REVIEW_BUDGET = Budget()
REVIEW_SEED = 0
ROUND_UNFINISHED = "round_unfinished"
REVIEW_OWN_SEAT = "review_own_seat"
REVIEW_TABLE = "review_table"  # a RULES §12 table: the search reviews four-player teams only


def compute(seed: int | str, options: RuleOptions, actions: list[Any], round_no: int,
            seat: int, budget: Budget, review_seed: int) -> dict[str, Any]:
    """The review's JSON of `seat` in round `round_no` (0-based) of the log (run in a
    worker process: see `Manager.review`)."""
    record = GameRecord(options=options, seed=seed, actions=actions)
    return review_round(record, round_no, seat, budget, seed=review_seed).to_json()


class ReviewCache(LruCache):
    """The last `size` reviews, keyed by (table id, round, seat, log length); a review
    being computed is shared by everyone who asks for it meanwhile. Least recently used
    entries go first."""

    def __init__(self, size: int = 128) -> None:
        super().__init__(size)
        self._pending: dict[tuple[Any, ...], asyncio.Future[dict[str, Any]]] = {}

    async def get_or_compute(self, key: tuple[Any, ...],
                             work: Callable[[], Awaitable[dict[str, Any]]]) -> dict[str, Any]:
        """The review under `key`, computed by `work` once (concurrent askers share it)."""
        body = self.get(key)
        if body is not None:
            return body
        pending = self._pending.get(key)
        if pending is None:
            pending = asyncio.ensure_future(work())
            self._pending[key] = pending
            try:
                body = await pending
            finally:
                del self._pending[key]
            self.put(key, body)
            return body
        return await asyncio.shield(pending)
