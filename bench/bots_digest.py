"""Digests of what the bots decide and infer, to prove a refactor changes nothing.

Run: `PYTHONPATH=src python bench/bots_digest.py [--deals 60]` at two commits (or with
two source trees on PYTHONPATH) and compare the lines. Hashed, over seeded deals under
four sets of house rules (RULES §10), heuristic and random seats mixed:
- `heuristic`: every action of every deal and each round's result;
- `facts`: `WorldFacts.from_view` (two seats at every kitty and play decision) and the
  world `sample_world` draws from it; `DealFacts.from_view` and `sample_deal` during the
  deal (§3);
- `expert`: the expert's decisions (`iters=16`) at a few positions.
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import json
import random

from shengji.bots import ExpertAgent, make_agent
from shengji.bots.worlds import DealFacts, WorldFacts, sample_deal, sample_world
from shengji.driver import advance, step
from shengji.options import RuleOptions
from shengji.round import Round


def rules(seed: int) -> RuleOptions:
    """The house rules of deal `seed` (four sets in turn)."""
    return [RuleOptions(), RuleOptions(strict_tractor_follow=True),
            RuleOptions(gap_tractors="trumps_only"),
            RuleOptions(throw_tractors="off", kitty_multiplier="power")][seed % 4]


def digests(n_deals: int) -> dict[str, str]:
    """The three digests (and how many facts were hashed) over `n_deals` deals."""
    h, hf, he = hashlib.sha256(), hashlib.sha256(), hashlib.sha256()
    n_facts = n_deal_facts = 0
    for seed in range(n_deals):
        rnd = (Round(seed, rules(seed)) if seed % 5 == 0 else
               Round(seed, rules(seed), trump_rank="2", starter=seed % 4,
                     declaring_team=seed % 2))
        kinds = ["heuristic"] * 4 if seed % 3 else ["random", "heuristic", "heuristic", "random"]
        agents = [make_agent(kinds[s], 10 * seed + s) for s in range(4)]
        while not rnd.is_over:
            d = rnd.decision()
            if d.phase in ("deal", "declare") and d.seat is not None and seed % 2:
                df = DealFacts.from_view(rnd.view(d.seat))
                hf.update(json.dumps([df.seat, df.hand, df.pool, df.sizes, df.n_undealt,
                                      df.pinned]).encode())
                hf.update(json.dumps(sample_deal(df, random.Random(seed))).encode())
                n_deal_facts += 1
            if d.phase in ("kitty", "play") and d.seat is not None:
                for seat in (d.seat, (d.seat + 1) % 4):
                    f = WorldFacts.from_view(rnd.view(seat))
                    hf.update(json.dumps([f.seat, f.hand, f.pool, f.capacity, f.void, f.nopair,
                                          f.pinned, f.kitty_known]).encode())
                    hf.update(json.dumps(sample_world(f, random.Random(seed))).encode())
                    n_facts += 1
            for action, _ in advance(rnd, agents):
                h.update(json.dumps(action.to_json()).encode())
                break
        result = dataclasses.asdict(rnd.result) if rnd.result is not None else None
        if result is not None:  # the friends-mode fields (RULES §12.4), None here
            result = {k: v for k, v in result.items() if v is not None}
        h.update(json.dumps(result, default=str).encode())
    for seed in range(6):
        rnd = Round(100 + seed, rules(seed), trump_rank="2", starter=0, declaring_team=0)
        agents = [make_agent("heuristic", s) for s in range(4)]
        n = 0
        while not rnd.is_over:
            d = rnd.decision()
            if d.seat is not None and d.phase in ("kitty", "play") and n % 9 == 0:
                he.update(json.dumps(ExpertAgent(seed, iters=16).act(rnd.view(d.seat))
                                     .to_json()).encode())
            n += 1
            step(rnd, agents)
    return {"heuristic": h.hexdigest()[:16],
            "facts": f"{hf.hexdigest()[:16]} ({n_facts} world, {n_deal_facts} deal)",
            "expert": he.hexdigest()[:16]}


def main() -> None:
    """Print the digests."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int, default=60)
    args = ap.parse_args()
    for name, value in digests(args.deals).items():
        print(f"{name:10s} {value}")


if __name__ == "__main__":
    main()
