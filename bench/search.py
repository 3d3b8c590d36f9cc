"""The expert's search, timed: per-rollout CPU, rollouts per second and decision times
(issue 31), on this checkout and, paired, on any other (`--against`).

    python bench/search.py                      # this checkout
    python bench/search.py --quick              # one round, a handful of timed decisions
    python bench/search.py --against /work/main # paired: this checkout vs that one
    python bench/search.py --kind omniscient    # the research bot (it sees every hand)

The positions are fixed: seeded arena deals (`shengji.arena.deal_round`) played out by
four heuristic bots, so every version of the expert is asked about the very same play
decisions whatever it would have chosen. At each of them an expert (one per seat, seeded)
is asked for its play and timed in CPU seconds of this process (one core):

- at a fixed search size, `expert:iters=100000,worlds=10` (10 sampled worlds, every
  candidate played in each; deterministic), played twice: first with a timer around each
  rollout, for the time inside the rollouts alone (that pass's own per-rollout figure,
  timer and a fresh process's memo filling included, is printed as "first pass"); then
  only counting them, for per-rollout CPU (decision time / rollouts) and the decision
  time median and p95, with the memos as warm as a long-lived process has them;
- at the default budget (plain `expert`, wall-clock bound): rollouts per second and the
  decision times, on every `--stride`-th decision only (it takes 250 ms each).

Rollouts are counted by wrapping the agent's `_rollout` method, which every version of the
expert has. `--against DIR` runs this same file with `PYTHONPATH=DIR/src` in a
subprocess, alternating with this checkout (`--repeats` pairs), and prints both and their
ratio (the medians of the pairs); only the public API of `shengji` is used, so it compares
like with like. The engine build in use (mypyc-compiled or pure Python) is printed: compare
a checkout without compiled extensions with one that has them only under `--pure`.
Figures on a busy machine are noisy: compare paired runs only.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

clock = time.process_time
FIXED = "expert:iters=100000,worlds=10"


def _pct(xs: list[float], q: float) -> float:
    if not xs:
        return float("nan")
    s = sorted(xs)
    return s[min(len(s) - 1, int(q * len(s)))]


class _Probe:
    """Plays the heuristic's move; at chosen play decisions also asks the expert, timed."""

    def __init__(self, seat: int, seed: int, spec: str, every: int, limit: int,
                 stats: dict[str, list[float]], timed: bool = True) -> None:
        from shengji.bots import make_agent

        self.base = make_agent("heuristic", seed)
        self.expert: Any = make_agent(spec, seed + 1)
        self.every, self.limit, self.stats = every, limit, stats
        self.plays = 0
        inner = self.expert._rollout
        self.rollouts = 0
        self.rollout_s = 0.0

        def timed_rollout(*args: Any, **kw: Any) -> Any:
            t0 = clock()
            try:
                return inner(*args, **kw)
            finally:
                self.rollout_s += clock() - t0
                self.rollouts += 1

        def counted(*args: Any, **kw: Any) -> Any:
            self.rollouts += 1
            return inner(*args, **kw)

        # The timer's two process_time() calls (~0.6 us each, a system call) are not the
        # expert's: per-rollout CPU is read from a pass that only counts (`measure`).
        self.expert._rollout = timed_rollout if timed else counted

    def act(self, view: Any) -> Any:
        if view.phase == "play":
            self.plays += 1
            if self.plays % self.every == 0 and len(self.stats["decision_s"]) < self.limit:
                n0, r0 = self.rollouts, self.rollout_s
                w0, t0 = time.perf_counter(), clock()
                self.expert.act(view)
                cpu, wall = clock() - t0, time.perf_counter() - w0
                self.stats["decision_s"].append(cpu)
                self.stats["wall_s"].append(wall)
                self.stats["rollouts"].append(float(self.rollouts - n0))
                self.stats["rollout_s"].append(self.rollout_s - r0)
        return self.base.act(view)


def measure(spec: str, rounds: int, every: int, limit: int, timed: bool = True
            ) -> dict[str, float]:
    """Time the expert `spec` at the play decisions of `rounds` fixed deals (`timed`: also
    the time inside its rollouts, with a timer around each)."""
    from shengji.arena import deal_round, deal_seed
    from shengji.driver import play_round

    stats: dict[str, list[float]] = {"decision_s": [], "wall_s": [], "rollouts": [],
                                     "rollout_s": []}
    for r in range(rounds):
        if len(stats["decision_s"]) >= limit:
            break
        rnd = deal_round(deal_seed(31, r))
        probes = [_Probe(s, 100 * r + 10 * s, spec, every, limit, stats, timed)
                  for s in range(4)]
        for p in probes:
            if getattr(p.expert, "sees_all", False):  # omniscient reads the real round
                p.expert.attach(rnd)
        play_round(rnd, probes)
    d = stats["decision_s"]
    n = sum(stats["rollouts"])
    searched = [x for x, k in zip(d, stats["rollouts"], strict=True) if k > 0]
    return {
        "decisions": len(d),
        "rollouts": n,
        "rollout_ms": 1e3 * sum(d) / n if n else float("nan"),
        "in_rollout_ms": (1e3 * sum(stats["rollout_s"]) / n if n and timed
                          else float("nan")),
        "rollouts_per_s": n / sum(stats["wall_s"]) if sum(stats["wall_s"]) else float("nan"),
        "decision_ms_median": 1e3 * statistics.median(d) if d else float("nan"),
        "decision_ms_p95": 1e3 * _pct(d, 0.95),
        "searched_ms_median": 1e3 * statistics.median(searched) if searched else float("nan"),
    }


def run_here(quick: bool, spec: str = "expert") -> dict[str, Any]:
    """Both measurements in this process (`spec`: the kind timed, its settings added)."""
    rounds, limit = (1, 10) if quick else (4, 40)
    from shengji.bots import make_agent

    make_agent("heuristic", 0)  # warm imports
    fixed_spec = _with(spec, FIXED.partition(":")[2])
    # The same decisions twice (the fixed search is deterministic): timed around each
    # rollout, for the part inside; then counted only, for the decision and per-rollout
    # CPU, with the engine's memos (plays, shapes, trump units) as warm as a long-lived
    # process has them: the first pass pays their filling.
    inside = measure(fixed_spec, rounds, 1, 10_000, timed=True)
    fixed = measure(fixed_spec, rounds, 1, 10_000, timed=False)
    if inside["rollouts"] != fixed["rollouts"]:
        raise SystemExit(f"the fixed search is not deterministic: {fixed['rollouts']} "
                         f"rollouts, then {inside['rollouts']}")
    fixed["in_rollout_ms"] = inside["in_rollout_ms"]
    fixed["timed_rollout_ms"] = inside["rollout_ms"]
    return {
        "fixed": fixed,
        "default": measure(spec, rounds, 10 if not quick else 9, limit),
        "python": sys.version.split()[0],
        "build": _build(),
        "kind": spec,
    }


def _with(spec: str, settings: str) -> str:
    """`spec` with more settings: `master` + `worlds=10` -> `master:worlds=10`."""
    return f"{spec},{settings}" if ":" in spec else f"{spec}:{settings}"


def _build() -> str:
    """Which engine build ran: "compiled" (mypyc), "pure" or "mixed" (older: "?")."""
    try:
        from shengji._build import engine_build
    except ImportError:
        return "?"
    return engine_build()


def _subprocess(src: Path, quick: bool, pure: bool, kind: str) -> dict[str, Any]:
    env = dict(os.environ, PYTHONPATH=str(src))
    if pure:
        env["SHENGJI_PURE"] = "1"
    cmd = [sys.executable, __file__, "--json", "--kind", kind] + (["--quick"] if quick else [])
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


ROWS = (
    ("fixed", "rollout_ms", "per-rollout CPU (10 worlds), ms"),
    ("fixed", "in_rollout_ms", "  of which inside rollouts, ms"),
    ("fixed", "timed_rollout_ms", "  first pass (memos cold, timer on), ms"),
    ("fixed", "decision_ms_median", "decision CPU (10 worlds) median, ms"),
    ("fixed", "searched_ms_median", "  searched decisions only, median, ms"),
    ("fixed", "decision_ms_p95", "decision CPU (10 worlds) p95, ms"),
    ("default", "rollouts_per_s", "rollouts/s at default budget (wall)"),
    ("default", "decision_ms_median", "decision CPU at default budget median, ms"),
    ("default", "decision_ms_p95", "decision CPU at default budget p95, ms"),
)


def show(res: dict[str, Any]) -> None:
    f, d = res["fixed"], res["default"]
    print(f"engine build: {res.get('build', '?')}; Python {res['python']}")
    kind = res.get("kind", "expert")
    label = kind + (" (cheating: sees all hands)" if kind.startswith("omniscient") else "")
    print(f"kind: {label}")
    print(f"fixed search {_with(kind, FIXED.partition(':')[2])}: {f['decisions']} decisions, "
          f"{f['rollouts']:.0f} rollouts")
    print(f"default budget '{kind}': {d['decisions']} decisions, {d['rollouts']:.0f} rollouts")
    for part, key, label in ROWS:
        print(f"  {label:44s} {res[part][key]:10.3f}")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="one round, 10 default-budget decisions")
    p.add_argument("--against", metavar="CHECKOUT", help="another checkout (its src/ is used)")
    p.add_argument("--repeats", type=int, default=3, help="pairs of runs with --against")
    p.add_argument("--pure", action="store_true",
                   help="with --against: both sides run the pure-Python engine (SHENGJI_PURE=1), "
                   "so an uncompiled checkout compares with a compiled one like with like")
    p.add_argument("--kind", default="expert",
                   help="the searching kind timed: expert (default), fast, master, "
                   "expert:workers=2, or the research bot omniscient (given the real round)")
    p.add_argument("--json", action="store_true", help="print one JSON line (for --against)")
    args = p.parse_args()
    if args.against is None:
        res = run_here(args.quick, args.kind)
        if args.json:
            print(json.dumps(res))
        else:
            show(res)
        return
    here = Path(__file__).resolve().parent.parent / "src"
    there = Path(args.against).resolve() / "src"
    if not (there / "shengji").is_dir():
        sys.exit(f"--against {args.against}: no src/shengji there")
    pairs = []
    for _ in range(max(1, args.repeats)):
        pairs.append((_subprocess(here, args.quick, args.pure, args.kind),
                      _subprocess(there, args.quick, args.pure, args.kind)))
    builds = [f"{x.get('build', '?')}/{y.get('build', '?')}" for x, y in pairs[:1]]
    print(f"paired, {len(pairs)} pair(s), medians; A = {here.parent}, B = {there.parent}; "
          f"engine builds A/B: {builds[0]}")
    print(f"  {'':44s} {'A':>10s} {'B':>10s} {'A/B':>7s}")
    for part, key, label in ROWS:
        a = statistics.median(x[part][key] for x, _ in pairs)
        b = statistics.median(y[part][key] for _, y in pairs)
        ratio = statistics.median(x[part][key] / y[part][key] for x, y in pairs
                                  if y[part][key])
        print(f"  {label:44s} {a:10.3f} {b:10.3f} {ratio:7.2f}")


if __name__ == "__main__":
    main()
