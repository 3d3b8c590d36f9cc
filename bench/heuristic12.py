"""The heuristic against random at the larger tables of RULES §12, with friends mode read
by how the sides formed.

Run: `PYTHONPATH=src python bench/heuristic12.py [--deals 100] [--players 6]`.

The arena (`shengji arena --players 6 --mode friends --a heuristic --b random`) seats A
on one parity and B on the other; in friends mode (§12.4) the sides form during the
round from the leader's calls, so a random seat often ends up on the heuristic's side
and gains levels with it (and heuristic seats on a random leader's side lose with it).
The arena's leveling rate (levels gained by A / by both) is therefore capped well below
100% however well A plays. This script plays the arena's mirrored deals (the same seeds,
`arena.run.deal_seed`) and splits them:

- `all`: every played half, as the arena counts it;
- `pure`: the halves whose final sides (`RoundResult.sides`) put every A seat on one side
  and every B seat on the other: there the levels measure A against B head to head;
- `mixed`: the rest, where both kinds sat on one side;
- `lost`: the halves where B's seats gained and no A seat did (the side that gained held
  no heuristic): the deals the heuristic lost outright.
"""

from __future__ import annotations

import argparse

from shengji.arena.run import _agents, deal_round, deal_seed
from shengji.driver import play_round
from shengji.options import RuleOptions


def run(deals: int, players: int, seed: int = 0) -> dict[str, list[int]]:
    """[A levels, B levels, halves] per group over `deals` mirrored deals."""
    opts = RuleOptions(players=players, mode="friends")
    out = {"all": [0, 0, 0], "pure": [0, 0, 0], "mixed": [0, 0, 0], "lost": [0, 0, 0]}
    for index in range(deals):
        s = deal_seed(seed, index)
        for a_team in (0, 1):
            rnd = deal_round(s, opts)
            play_round(rnd, _agents("heuristic", "random", a_team, s, rnd))
            res = rnd.result
            assert res is not None and res.level_gains is not None and res.sides is not None
            gains = res.level_gains
            la = sum(g for i, g in enumerate(gains) if i % 2 == a_team)
            lb = sum(g for i, g in enumerate(gains) if i % 2 != a_team)
            on_lead = {i % 2 == a_team for i, side in enumerate(res.sides)
                       if side in ("leader", "friend")}
            off = {i % 2 == a_team for i, side in enumerate(res.sides) if side == "opponent"}
            group = "pure" if len(on_lead) == 1 and len(off) == 1 and on_lead != off else "mixed"
            groups = ("all", group, "lost") if lb and not la else ("all", group)
            for g in groups:
                out[g][0] += la
                out[g][1] += lb
                out[g][2] += 1
    return out


def main() -> None:
    """Print the split for the table asked."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int, default=100)
    ap.add_argument("--players", type=int, default=6)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    for group, (la, lb, n) in run(args.deals, args.players, args.seed).items():
        rate = la / (la + lb) if la + lb else float("nan")
        print(f"{group:6} halves {n:4}  levels A:B {la}:{lb}  leveling rate {rate:.1%}")


if __name__ == "__main__":
    main()
