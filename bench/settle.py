"""The expert's early stop (`expert:settle=1`, issue 35), measured decision by decision.

Plays fixed seeded rounds with the heuristic at every seat; at each searched decision of
seats 1 and 2 (the kitty and plays) it asks the expert at a rollout count twice on the
same view and seed, with the whole budget and with `settle=1`, and prints:
- how often the two choose the same move (the settled search reads a prefix of the same
  worlds, so it differs only where it stopped before a late change of mind);
- for comparison, how often the whole budget agrees with itself under another seed (the
  search's own noise: two equally strong searches disagree that often);
- the rollouts and the CPU the settled search spent, as shares of the whole budget's;
- the gap: over every decision, the whole search's value of its own move less its value of
  the settled move, on the whole search's worlds (0 where they agree; biased in the whole
  search's favour, since it chose its move on those very worlds), and the same gap read on
  the other seed's worlds (`fresh`: no such bias; where that search dropped one of the two
  moves early, the decision is left out of it and counted apart).

`--sweep` also tries other (SETTLE_AT, SETTLE_K) pairs on the same decisions.

    python bench/settle.py --deals 4 --seed 7000
    python bench/settle.py --deals 4 --seed 7000 --sweep 8:2.5,12:3.5,16:6
"""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass

from shengji.actions import Action, Draw
from shengji.arena.run import deal_round
from shengji.bots import ExpertAgent, HeuristicAgent
from shengji.bots import expert as E


def _key(move: Action) -> tuple[int, ...]:
    """A bury or a play, as its sorted card ids."""
    return tuple(sorted(c.id for c in getattr(move, "cards", ())))


@dataclass
class Tally:
    """One stop rule's figures over the searched decisions."""

    agree: int = 0  # the same move as the whole budget
    done: int = 0  # rollouts
    cpu: float = 0.0  # seconds
    gap: float = 0.0  # on the whole search's worlds
    fresh: float = 0.0  # on the other seed's worlds
    unread: int = 0  # differing moves the other seed's search did not keep both of


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--deals", type=int, default=4)
    p.add_argument("--seed", type=int, default=7000)
    p.add_argument("--iters", type=int, default=400, help="the rollout count (web 'expert')")
    p.add_argument("--sweep", default="", help="more AT:K pairs, e.g. 8:2.5,12:3.5")
    args = p.parse_args()
    shipped = (E.SETTLE_AT, E.SETTLE_K)
    variants = [shipped] + [(int(a), float(k)) for a, _, k in
                            (x.partition(":") for x in args.sweep.split(",") if x)]
    tally = {v: Tally() for v in variants}
    n = whole_done = self_agree = 0
    whole_cpu = 0.0
    for d in range(args.deals):
        rnd = deal_round(args.seed + d)
        bots = [HeuristicAgent(args.seed + 4 * d + s) for s in range(4)]
        while not rnd.is_over:
            dec = rnd.decision()
            seat = dec.seat
            if dec.phase == "deal":
                rnd.step(Draw())
                continue
            assert seat is not None
            view = rnd.view(seat)
            if dec.phase in ("kitty", "play") and seat in (1, 2):
                seed = 1000 * d + n
                whole = ExpertAgent(seed, iters=args.iters)
                whole.keep_values = True
                t0 = time.process_time()
                mine = _key(whole.act(view))
                whole_s = time.process_time() - t0
                if whole.last_search is not None and whole.last_values is not None:
                    n += 1
                    whole_cpu += whole_s  # searched decisions only, as the settled ones
                    whole_done += int(whole.last_search["done"] or 0)
                    values = {tuple(sorted(c)): v for c, v in whole.last_values}
                    other = ExpertAgent(seed + 500_000, iters=args.iters)
                    other.keep_values = True
                    self_agree += _key(other.act(view)) == mine
                    again = {tuple(sorted(c)): v for c, v in other.last_values or ()}
                    for v, t in tally.items():
                        E.SETTLE_AT, E.SETTLE_K = v
                        settled = ExpertAgent(seed, iters=args.iters, settle=1)
                        t0 = time.process_time()
                        theirs = _key(settled.act(view))
                        t.cpu += time.process_time() - t0
                        assert settled.last_search is not None
                        t.done += int(settled.last_search["done"] or 0)
                        if theirs == mine:
                            t.agree += 1
                            continue
                        t.gap += E.paired_difference(values[mine], values[theirs])[0]
                        a, b = again.get(mine, []), again.get(theirs, [])
                        if len(a) >= 2 and len(b) >= 2:
                            t.fresh += E.paired_difference(a, b)[0]
                        else:
                            t.unread += 1
                    E.SETTLE_AT, E.SETTLE_K = shipped
            rnd.step(bots[seat].act(view))
    print(f"# expert:iters={args.iters}, {args.deals} heuristic deals from seed {args.seed}: "
          f"{n} searched decisions (seats 1, 2)")
    print(f"whole budget vs itself (another seed): same move {self_agree}/{n} "
          f"({self_agree / n:.1%})")
    for v, t in tally.items():
        tag = " (shipped)" if v == shipped else ""
        print(f"settle AT={v[0]} K={v[1]}{tag}: same move {t.agree}/{n} ({t.agree / n:.1%}), "
              f"rollouts {t.done / whole_done:.1%}, CPU {t.cpu / whole_cpu:.1%} of the whole "
              f"budget's; gap {t.gap / n:+.4f} utility a decision, fresh {t.fresh / n:+.4f} "
              f"({t.unread} not read)")


if __name__ == "__main__":
    main()
