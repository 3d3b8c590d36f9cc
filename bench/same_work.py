"""The same four measurements on any version of shengji, to compare versions on one
machine (issue 9: the issue's figures were taken on another machine, at commit 601218c).

    python bench/same_work.py                                   # this checkout
    git worktree add /tmp/base 601218c
    PYTHONPATH=/tmp/base/src python bench/same_work.py          # the code the issue timed

Prints, as medians of this process's CPU time (one core): a full deal of four heuristic
bots (`play_round`), a full deal of uniformly random legal actions applied with
`Round.apply` (events built; `Round.step` did not exist then), the public
`is_legal_follow` from card lists, and the public `trick_winner` of four tractors. Only
API that every version has is used, so the figures compare like with like.
"""

from __future__ import annotations

import random
import statistics
import time
from collections.abc import Callable

from shengji import Round, Trump, is_legal_follow, parse_cards
from shengji.actions import Draw
from shengji.bots import make_agent
from shengji.driver import play_round

try:
    from shengji import trick_winner
except ImportError:  # older versions exported it from the trick module only
    from shengji.trick import trick_winner

clock = time.process_time


def median_ms(run: Callable[[int], object], seeds: int) -> float:
    out = []
    for seed in range(1, seeds + 1):
        t0 = clock()
        run(seed)
        out.append(clock() - t0)
    return statistics.median(out) * 1e3


def heuristic_deal(seed: int) -> None:
    play_round(Round(seed), [make_agent("heuristic", 10 * seed + s) for s in range(4)])


def random_deal(seed: int) -> None:
    rnd = Round(seed)
    rng = random.Random(seed)
    while not rnd.is_over:
        a = rnd.random_action(rng)
        rnd.apply(a if a is not None else Draw())  # early versions returned None to draw


def per_call_us(
    fn: Callable[[], object], calls: int = 2000, repeats: int = 15,
    clock: Callable[[], float] = clock,
) -> float:
    """Median over `repeats` batches of `calls` calls, in µs per call (of `clock`: CPU time
    unless told)."""
    out = []
    for _ in range(repeats):
        t0 = clock()
        for _ in range(calls):
            fn()
        out.append((clock() - t0) / calls * 1e6)
    return statistics.median(out)


def main() -> None:
    heuristic_deal(1)
    random_deal(1)
    h = statistics.median(median_ms(heuristic_deal, 100) for _ in range(3))
    r = statistics.median(median_ms(random_deal, 300) for _ in range(3))
    t = Trump("2", "H")
    hand = parse_cards(
        "3S 3S 4S 4S 6S 9S JS QS KS 3D 5D 5D 8D 9D JD 4C 6C 6C 9C QC AC 3H 7H BJ RJ")
    lead, play = parse_cards("7S 7S 8S 8S"), parse_cards("3S 3S 4S 4S")
    f = per_call_us(lambda: is_legal_follow(hand, lead, play, t))
    plays = [parse_cards(p) for p in ("7S 7S 8S 8S", "3S 3S 9S 9S", "3H 3H 4H 4H",
                                      "QS QS KS KS")]
    w = per_call_us(lambda: trick_winner(plays, t))
    print(f"heuristic deal {h:.3f} ms | random deal (apply) {r:.3f} ms | "
          f"is_legal_follow {f:.2f} µs | trick_winner {w:.2f} µs")


if __name__ == "__main__":
    main()
