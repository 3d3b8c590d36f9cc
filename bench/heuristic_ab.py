"""A/B of the heuristic bot against an earlier version of itself, on mirrored deals.

Run: `PYTHONPATH=src python bench/heuristic_ab.py [--ref main] [--deals 500]`.
The baseline is the heuristic as committed at `--ref` (`src/shengji/bots/heuristic.py`
with its `heuristic_*.py` and `knowledge.py` siblings, read with `git show` and imported
as a package of their own; the engine imports point at the installed package), so no
old copy lives in `src/`. Every deal is played twice with the same cards: the new
bot on the declaring team (seats 0, 2), then on the other team. Printed: the new
bot's levels per deal (mean over mirror pairs, 95% CI), its win rate in each role,
and how often the declaring team wins when new plays new (the deal's balance).
`--option name=value` sets house rules (RULES §10), as `shengji arena` does.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.abc
import importlib.util
import math
import random
import re
import statistics
import subprocess
import sys
import time
import types
from collections.abc import Sequence
from pathlib import Path

from shengji.bots.heuristic import HeuristicAgent
from shengji.driver import Agent, play_round
from shengji.options import RuleOptions
from shengji.round import Round

ROOT = Path(__file__).resolve().parent.parent


class _AtRef(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Imports `<package>.<module>` from sources read out of git (the bot at a ref)."""

    def __init__(self, package: str, sources: dict[str, str]) -> None:
        self.package, self.sources = package, sources

    def find_spec(self, fullname: str, path: object, target: object = None) -> object:
        if fullname == self.package or fullname.removeprefix(self.package + ".") in self.sources:
            return importlib.util.spec_from_loader(
                fullname, self, is_package=fullname == self.package)
        return None

    def create_module(self, spec: object) -> None:
        return None

    def exec_module(self, module: types.ModuleType) -> None:
        name = module.__name__.removeprefix(self.package).lstrip(".")
        if name:
            src = self.sources[name]
            exec(compile(src, f"{self.package}/{name}.py", "exec"), module.__dict__)  # noqa: S102


def load_baseline(ref: str) -> type:
    """The `HeuristicAgent` class of the heuristic at git `ref`: `bots/heuristic.py` and,
    since the bot was split by decision (issue 30), its sibling modules `heuristic_*.py`
    and `knowledge.py` at that ref, imported as a package of their own (the engine's
    modules, `from ..`, are the installed package's)."""
    listed = subprocess.run(
        ["git", "ls-tree", "--name-only", f"{ref}:src/shengji/bots"],
        cwd=ROOT, check=True, capture_output=True, text=True,
    ).stdout.split()
    names = [n[:-3] for n in listed
             if n.endswith(".py") and (n.startswith("heuristic") or n == "knowledge.py")]
    sources = {}
    for name in names:
        src = subprocess.run(
            ["git", "show", f"{ref}:src/shengji/bots/{name}.py"],
            cwd=ROOT, check=True, capture_output=True, text=True,
        ).stdout
        sources[name] = src.replace("from ..", "from shengji.")
    package = "heuristic_at_" + re.sub(r"\W", "_", ref)
    sys.meta_path.insert(0, _AtRef(package, sources))
    cls: type = importlib.import_module(f"{package}.heuristic").HeuristicAgent
    return cls


def mean_ci(xs: Sequence[float]) -> tuple[float, float]:
    """Mean and the half-width of its 95% CI (normal approximation)."""
    m = statistics.fmean(xs)
    if len(xs) < 2:
        return m, math.inf
    return m, 1.96 * statistics.stdev(xs) / math.sqrt(len(xs))


def play_half(seed: int, new_team: int, old_cls: type, options: RuleOptions,
              salt: int, new_cls: type = HeuristicAgent) -> tuple[int, int, int]:
    """One half: (levels for new, levels for old, whether new's side gained the deal)."""
    rnd = Round(seed, options, trump_rank="2", starter=0, declaring_team=0)
    agents: list[Agent] = [
        new_cls(salt * 8 + s) if s % 2 == new_team else old_cls(salt * 8 + s)
        for s in range(4)
    ]
    play_round(rnd, agents)
    res = rnd.result
    assert res is not None
    gainer = res.declaring_team if res.gainer == "declarers" else 1 - res.declaring_team
    lv = res.levels_gained
    return (lv if gainer == new_team else 0), (0 if gainer == new_team else lv), int(
        gainer == new_team
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--ref", default="main", help="git ref of the baseline heuristic")
    ap.add_argument("--deals", type=int, default=500)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--option", action="append", default=[], help="house rule name=value")
    ap.add_argument("--set", action="append", default=[],
                    help="tunable of the new bot, name=value (a class attribute, for tuning)")
    args = ap.parse_args()
    tunables: dict[str, float] = {}
    for item in args.set:
        name, _, value = item.partition("=")
        if not hasattr(HeuristicAgent, name):
            raise SystemExit(f"--set: HeuristicAgent has no tunable {name!r}")
        tunables[name] = float(value)
    new_cls: type = type("Tuned", (HeuristicAgent,), tunables) if tunables else HeuristicAgent
    options = RuleOptions.parse(args.option) if args.option else RuleOptions()
    old = load_baseline(args.ref)
    pair: list[float] = []
    decl_new: list[int] = []
    def_new: list[int] = []
    t0 = time.perf_counter()
    for d in range(args.deals):
        seed = random.Random(f"heuristic-ab:{args.seed}:{d}").getrandbits(48)
        # The same agent seeds per seat in both halves: equal bots replay the same game.
        n0, o0, w0 = play_half(seed, 0, old, options, d, new_cls)
        n1, o1, w1 = play_half(seed, 1, old, options, d, new_cls)
        pair.append(((n0 - o0) + (n1 - o1)) / 2)
        decl_new.append(w0)
        def_new.append(w1)
    m, h = mean_ci(pair)
    print(f"new heuristic {' '.join(args.set)} vs {args.ref}: {args.deals} mirrored deals, "
          f"seed {args.seed}, {time.perf_counter() - t0:.0f}s")
    print(f"levels/deal for new: {m:+.3f}  95% CI [{m - h:+.3f}, {m + h:+.3f}]")
    print(f"new's side gains the deal as declarers {statistics.fmean(decl_new):.3f}, "
          f"as opponents {statistics.fmean(def_new):.3f}")


if __name__ == "__main__":
    main()
