"""The expert agent: determinized (PIMC) search over worlds consistent with its view.

For each decision it samples worlds — the hidden cards dealt consistently with
everything its seat has seen (`worlds.sample_world`, RULES §11), drawn by
rejection on how well each world explains the others' recent plays under the
heuristic policy (`worlds.play_likelihood`, one `worlds.Likelihood` per decision) —
and plays each of a few candidate moves in every world, finishing the round with the
heuristic policy on a cloned state (`rollout.play_out`, compiled). Every candidate
meets the same worlds and rollout seeds, so comparisons are paired; clearly worse
candidates are dropped as worlds accrue, and the heuristic's own move stands unless
another beats it by a standard error. The utility is half the levels won (§8.2) and
half a smooth reading of the points.
The budget is `iters` rollouts (deterministic for a seed) or `ms` milliseconds per
decision (250 when neither is given). `cap_ms` is a safety cap on the wall clock over
either: a count budget that the cap cuts short is a *degraded* decision, recorded with
the rollouts done and asked in `last_search` (what web tables report, issue 35). The
kitty is buried the same way (candidates from the heuristic's ranking, §4).
Declarations (§3.3) are searched too: "not now" (a pass) and every legal
declaration or overturn meet the same sampled deals — the others' cards so far and
the rest of the deck, the seat's own later cards included (`worlds.sample_deal`) —
each finished by the heuristic (declaring, burying, playing) on a cloned round.
"""

from __future__ import annotations

import gc
import os
import pickle
import random
import time
from collections.abc import Callable, Sequence
from typing import IO

from ..actions import Action, Bury, Declare, Draw, Pass, Play
from ..cards import CARDS, POINTS
from ..errors import IllegalAction
from ..follow import iter_follows, iter_leads
from ..round import Round
from ..shapes import Unit, decompose, shape_of
from ..trump import TRUMP, Trump
from ..views import View
from .heuristic import HeuristicAgent
from .heuristic_base import units_of
from .knowledge import Knowledge, other_seats
from .rollout import play_out, utility
from .worlds import (
    DealFacts,
    Likelihood,
    WorldError,
    WorldFacts,
    deal_round,
    sample_deal,
    sample_world,
)

Ids = list[int]
WorldMaker = Callable[[random.Random], tuple[Round, list[list[int]], list[int]]]
Evaluator = Callable[[Round, list[list[int]], list[int], int, list[int]], list[float]]
# After this many worlds, drop candidates whose mean is this far (levels) below the best.
# After this many worlds, drop candidates that trail the best by this many standard
# errors of the paired difference (the heuristic's own move always stays).
PRUNE_AT = {4: 2.5, 6: 2.0, 10: 1.5, 16: 1.2}
INFER_TRICKS = 1  # completed tricks whose plays the likelihood looks back on
DEVIATE_Z = 1.0  # how many standard errors a move must beat the heuristic's by

__all__ = ["ExpertAgent", "utility"]

#: a plain `expert` (no budget given) thinks this many milliseconds per decision: the
#: issue's time goal on any machine (`expert:iters=N` is the deterministic budget)
DEFAULT_MS = 250
MAX_REDEALS = 2  # a deal rollout in a first round gives up (utility 0) after this many
# Below this many milliseconds a declaration is not searched: one sampled deal played out
# for each candidate takes ~10 ms per candidate compiled (several times that pure).
MIN_DECLARE_MS = 60
# Time allocation (`alloc=1`): the budget follows the decision's difficulty. Candidates
# that are the same play up to equivalent cards answer at once; a leader ahead of every
# other candidate by STOP_Z standard errors (and STOP_MARGIN utility) after STOP_AT
# worlds stops the search; leads get LEAD_MULT times the base budget, follows
# FOLLOW_MULT, and a close call
# (the top two within CLOSE_Z standard errors when the budget is spent) up to CLOSE_MULT.
STOP_AT = 4
STOP_Z = 3.0
STOP_MARGIN = 0.1
LEAD_MULT = 1.5
FOLLOW_MULT = 0.5
CLOSE_Z = 0.5
CLOSE_MULT = 1.6
# `throws=1`: the most throws (`throw_leads`) added to a lead's candidates
MAX_THROWS = 2
# `settle=1`: from SETTLE_AT worlds on, the search stops once the choice it would make
# at the end of its budget is settled: for every candidate, the paired difference the
# choice reads could not cross its threshold (`_choose`) unless its mean at the end of
# the budget lay more than SETTLE_K standard deviations of its predictive spread from
# the mean now (`_settled`)
SETTLE_AT = 16
SETTLE_K = 2.5


class ExpertAgent:
    """PIMC search over sampled worlds with heuristic rollouts; deterministic given its
    seed and an iteration budget (`iters`); `ms` caps the time per decision instead
    (with neither, `DEFAULT_MS`: about a quarter of a second, whatever the machine).

    `worlds` caps the worlds per decision, `candidates` the moves compared in each;
    `infer` is how many worlds are drawn at most per world kept, by the likelihood of the
    others' recent plays (1: no inference, uniform worlds), and `back` how many finished
    tricks those plays go back (besides the current trick's). `endgame` > 0 solves each
    rollout exactly (alpha-beta over the sampled world, `solve`) once every hand holds at
    most that many cards at a trick's start; 0 (the default) plays it out by the heuristic.
    `workers` > 1 evaluates that many worlds at once, in forked copies of this process
    (`_Helper`): the same decisions as one process for an iteration budget, more worlds
    within a time budget where cores are free.
    `alloc=1` spends the budget where it matters (`_pimc`): near-forced plays stop early,
    leads, the bury and close calls get more (up to `CLOSE_MULT` times); 0 spends it evenly.
    `throws=1` adds to a lead's candidates the throws the search can test (`throw_leads`);
    `passes=1` also weighs worlds by the final declaration window (`worlds.Likelihood`): a
    seat that passed holding a declaration the heuristic would have made is less likely.
    `settle=1` stops a search once its choice is settled (`_settled`): the move the whole
    budget would choose, but for rare close calls, at a fraction of the rollouts.
    """

    def __init__(
        self,
        seed: int,
        ms: int | None = None,
        iters: int | None = None,
        worlds: int | None = None,
        candidates: int = 6,
        infer: int = 4,
        back: int = INFER_TRICKS,
        endgame: int = 0,
        workers: int = 1,
        cap_ms: int | None = None,
        alloc: int = 0,
        throws: int = 0,
        passes: int = 0,
        settle: int = 0,
    ) -> None:
        self.seed = seed
        self.rng = random.Random(seed)
        self.ms = ms if ms is not None or iters is not None else DEFAULT_MS
        self.iters = iters
        self.cap_ms = cap_ms
        # the last decision's search: rollouts asked (None: a time budget) and done, and
        # whether `cap_ms` cut it short (`_pimc`); None when it did not search
        self.last_search: dict[str, int | bool | None] | None = None
        #: with `keep_values`: the last searched decision's candidates (the heuristic's
        #: first) and each one's rollout values, world by world (paired: the same worlds
        #: in the same order); None when it was not searched (a learner distils these,
        #: `shengji train --teacher`, issue 34)
        self.keep_values = False
        self.last_values: list[tuple[Ids, list[float]]] | None = None
        self.max_worlds = worlds
        self.n_candidates = candidates
        self.infer_tries = infer
        if back < 0:
            raise ValueError(f"back={back}: the finished tricks the inference looks back on "
                             "(0: the current trick only)")
        self.infer_back = back
        self.endgame = endgame
        if workers > 1 and not hasattr(os, "fork"):
            raise ValueError(f"workers={workers}: a search over several processes needs "
                             "os.fork (Linux, macOS); use workers=1 here")
        self.workers = max(1, workers)
        if alloc not in (0, 1):
            raise ValueError(f"alloc={alloc}: 0 (an even budget) or 1 (time allocation)")
        self.alloc = alloc
        if throws not in (0, 1):
            raise ValueError(f"throws={throws}: 0 (the heuristic's throws only) or 1 (also "
                             "the throws the search can test)")
        self.throws = throws
        if passes not in (0, 1):
            raise ValueError(f"passes={passes}: 0 (the declaration window read as silent) or 1 "
                             "(a seat that passed could not or would not declare)")
        self.passes = passes
        if settle not in (0, 1):
            raise ValueError(f"settle={settle}: 0 (the whole budget) or 1 (stop once the "
                             "choice is settled)")
        self.settle = settle
        self.policy = HeuristicAgent(seed)  # the rollout policy
        self.model = HeuristicAgent(seed)  # the model of the others, for inference
        self.decisions = 0

    def __repr__(self) -> str:
        budget = f"ms={self.ms}" if self.ms is not None else f"iters={self.iters}"
        return f"ExpertAgent(seed={self.seed}, {budget})"

    # ================================================================ entry point
    def act(self, view: View) -> Action:
        """Declare, bury or play (all searched) for this seat's view.

        The garbage collector is paused for the decision: a search allocates and frees
        millions of short-lived lists, none kept in a cycle past its rollout, and the
        collector's young passes over them cost ~3% of the search (bench/search.py)."""
        collecting = gc.isenabled()
        if collecting:
            gc.disable()
        try:
            return self._act(view)
        finally:
            if collecting:
                gc.enable()

    def _act(self, view: View) -> Action:
        seat = view.seat
        assert seat is not None, "an agent plays a seat"
        self.decisions += 1
        self.last_search = None
        self.last_values = None
        # Each decision gets its own generator, so that one decision's search does not
        # depend on how much time an earlier one had.
        rng = random.Random(f"{self.seed}:{self.decisions}")
        self.policy.rng = random.Random(rng.getrandbits(32))
        if view.phase in ("deal", "declare"):
            return self._declare(view, rng)
        if view.phase == "call":  # friends mode: the leader calls as the heuristic does (§12.4)
            return self.policy.act(view)
        if view.phase not in ("kitty", "play"):
            raise ValueError(f"nothing to do in phase {view.phase!r}")
        try:
            ids = self._search_bury(view, rng) if view.phase == "kitty" else \
                self._search_play(view, rng)
        except WorldError:
            # No world fits what this seat believes (cannot happen in a real round):
            # play the heuristic's move rather than fail.
            return self.policy.act(view)
        cards = tuple(CARDS[i] for i in ids)
        return Bury(seat, cards) if view.phase == "kitty" else Play(seat, cards)

    # ================================================================ candidates
    def _play_candidates(self, view: View, k: Knowledge) -> list[Ids]:
        """A few sensible plays, the heuristic's own choice first (§6.1, §6.2)."""
        t = k.t
        trick = view.current_trick
        plays = [] if trick is None else [(s, [c.id for c in cs]) for s, cs in trick.plays]
        out: list[Ids] = []
        seen: set[tuple[int, ...]] = set()

        def add(ids: Sequence[int]) -> None:
            key = tuple(sorted(ids))
            if key not in seen:
                seen.add(key)
                out.append(sorted(ids))

        add(self.policy.choose_play(k, plays))
        if plays:
            legal = follow_options(k.hand, plays[0][1], t, k.strict)
            if len(legal) <= self.n_candidates:
                for p in legal:
                    add(p)
                return out
            for p in ranked_follows(legal, t):
                if len(out) >= self.n_candidates:
                    return out
                add(p)
            return out
        hand = k.hand
        for unit in lead_units(hand, t):
            if len(out) >= self.n_candidates:
                break
            add(unit)
        if self.throws:  # beyond the cap: at most MAX_THROWS more
            for throw in throw_leads(k)[:MAX_THROWS]:
                add(throw)
        if len(out) < 2:
            for n, lead in enumerate(iter_leads(hand, t)):
                add(list(lead))
                if len(out) >= self.n_candidates or n > 50:
                    break
        return out

    # ================================================================ search
    def _true_world(self, view: View) -> tuple[Round, list[list[int]], list[int]] | None:
        """The world every search samples from: None here, so worlds are sampled from what
        the view shows (RULES §11). Only the arena's research bot `omniscient` (bots/
        omniscient.py) returns the real round instead."""
        return None

    def _budget(self) -> tuple[int | None, float | None, float | None]:
        """The base budget: rollouts (`iters`) and the time (seconds) per decision, and
        the safety cap's deadline (`time.perf_counter()` seconds; None when not set)."""
        cap = None if self.cap_ms is None else time.perf_counter() + self.cap_ms / 1000
        return self.iters, None if self.ms is None else self.ms / 1000, cap

    def _search_play(self, view: View, rng: random.Random) -> Ids:
        t = view.trump
        assert t is not None and view.seat is not None
        k0 = Knowledge(view, t)
        cands = self._play_candidates(view, k0)
        if len(cands) == 1:
            return cands[0]
        if self.alloc and _all_equivalent(k0, cands):
            return cands[0]  # the same play up to equivalent cards: nothing to search
        leading = view.current_trick is None or not view.current_trick.plays
        facts = WorldFacts.from_view(view)
        me = view.seat
        likelihood = Likelihood(view, self.infer_back, passes=bool(self.passes))  # every world

        plays = [Play(me, tuple([CARDS[i] for i in c])) for c in cands]
        pool = k0.pool()  # the same in every world

        def evaluate(world: Round, hands: list[list[int]], kitty: list[int],
                     seed: int, which: list[int]) -> list[float]:
            out = []
            for j in which:
                rnd = world.clone()
                try:
                    rnd.step(plays[j])
                except IllegalAction:  # cannot happen for a legal candidate
                    out.append(-99.0)
                    continue
                ks = k0.world(hands, kitty, rnd.starter or 0, pool)
                ks_observe(ks, rnd, me)
                out.append(self._rollout(rnd, ks, me, seed))
            return out

        def make_world(wrng: random.Random) -> tuple[Round, list[list[int]], list[int]]:
            true = self._true_world(view)
            if true is not None:
                return true
            # Rejection sampling by the likelihood of the others' recent plays.
            tries = self.infer_tries
            for attempt in range(tries):
                hands, kitty = sample_world(facts, wrng)
                if attempt == tries - 1:
                    break
                self.model.rng.seed(wrng.getrandbits(32))
                # the acceptance draw comes first (the model has its own generator), so
                # the weighing stops as soon as the world is sure to be rejected
                if likelihood.accepts(hands, kitty, self.model, wrng.random()):
                    break
            world = Round.from_view(view, hands, kitty)
            return world, hands, kitty

        return self._pimc(cands, make_world, evaluate, rng,
                          boost=1.0 if not self.alloc else LEAD_MULT if leading else FOLLOW_MULT)

    def _pimc(
        self, cands: list[Ids], make_world: WorldMaker, evaluate: Evaluator,
        rng: random.Random, scale: int = 1, boost: float = 1.0,
    ) -> Ids:
        """Evaluate the candidates in the same sampled worlds until the budget is spent.

        Candidates clearly behind the leader after a few worlds are dropped, so the
        rest of the budget sharpens the close calls; when every candidate has scored
        the same in the first worlds, the choice does not matter and search stops.
        The heuristic's own move (candidate 0) is kept unless another beats it by more
        than `DEVIATE_Z` standard errors of the paired difference: picking the best of
        several noisy means otherwise favours lucky candidates.

        `scale` multiplies the rollout budget (the bury: 2). With `alloc=1` the budget
        (rollouts, worlds and time alike) is `boost` times the base (leads), a clear
        leader after `STOP_AT` worlds stops the search (`_clear_leader`), and a close call
        at the end of the budget (`_close_call`) goes on up to `CLOSE_MULT` times it.
        """
        iters, seconds, cap = self._budget()
        start = time.perf_counter()
        alloc = self.alloc
        mult = boost if alloc else 1.0  # the budget's multiple for this decision
        asked = None if iters is None else round(iters * scale * mult)
        cut = False
        n = len(cands)
        vals: list[list[float]] = [[] for _ in range(n)]
        active = list(range(n))
        n_worlds = 0
        spent = 0
        cap_worlds = self.max_worlds
        # workers > 1: forked copies of this process evaluate more worlds of each batch
        # (the same seeds, so the same values as one process would find, in order).

        def spent_at(times: float, n_worlds: int, need: int) -> bool:
            """Whether the budget times `times` is spent after `n_worlds` worlds, when one
            more would bring the rollouts to `need`."""
            return (
                (cap_worlds is not None and n_worlds >= cap_worlds * times)
                or (iters is not None and need > iters * scale * times)
                or (seconds is not None and time.perf_counter() - start >= seconds * times))

        def worlds_left(n_worlds: int, spent: int, width: int) -> float:
            """How many more worlds the budget (times `mult`) would play, `width`
            candidates a world: the least its rollouts, worlds and time allow."""
            left = float("inf")
            if iters is not None:
                left = (iters * scale * mult - spent) // width
            if cap_worlds is not None:
                left = min(left, cap_worlds * mult - n_worlds)
            if seconds is not None:
                used = time.perf_counter() - start
                left = min(left, n_worlds * max(0.0, seconds * mult - used) / max(used, 1e-9))
            return max(0.0, left)

        helpers: list[_Helper] = []
        for _ in range(self.workers - 1):
            helpers.append(_Helper(make_world, evaluate, helpers))
        try:
            done = False
            while not done:
                seeds = [rng.getrandbits(64) for _ in range(1 + len(helpers))]
                which = list(active)
                for h, seed in zip(helpers, seeds[1:], strict=True):
                    h.ask(seed, which)
                batch = [_one_world(make_world, evaluate, seeds[0], which)]
                batch += [h.answer() for h in helpers]
                for got in batch:
                    kept = [(j, v) for j, v in zip(which, got, strict=True) if j in active]
                    for j, v in kept:
                        vals[j].append(v)
                    n_worlds += 1
                    spent += len(kept)
                    done = True
                    if n_worlds == 3 and len({tuple(vals[j]) for j in active}) == 1:
                        break
                    if n_worlds in PRUNE_AT and len(active) > 2:
                        best = max(active, key=lambda j: (sum(vals[j]), -j))
                        z = PRUNE_AT[n_worlds]
                        active = [j for j in active
                                  if j in (0, best) or _within(vals[best], vals[j], z)]
                    if alloc and n_worlds >= STOP_AT and _clear_leader(vals, active):
                        break
                    if self.settle and n_worlds >= SETTLE_AT and _settled(
                            vals, active, n_worlds, worlds_left(n_worlds, spent, len(active))):
                        break
                    need = spent + len(active)  # the rollouts after one more world
                    if spent_at(mult, n_worlds, need) and (
                            not alloc or spent_at(CLOSE_MULT, n_worlds, need)
                            or not _close_call(vals, active)):
                        break
                    if cap is not None and time.perf_counter() >= cap:
                        cut = True  # the count (or time) budget was not spent: degraded
                        break
                    done = False
        finally:
            for h in helpers:
                h.close()
        self.last_search = {"asked": asked, "done": spent, "degraded": cut}
        if self.keep_values:
            self.last_values = [(c, v) for c, v in zip(cands, vals, strict=True)]
        return cands[_choose(vals, active)]

    def _rollout(self, rnd: Round, ks: list[Knowledge], me: int, seed: int) -> float:
        """Finish the round with the heuristic policy for every seat (`rollout.play_out`,
        compiled; the last tricks solved exactly with `endgame`); `me`'s utility."""
        policy = self.policy
        policy.rng.seed(seed)
        # the exact endgame plays team against team: not in friends mode, where the sides
        # are not known until the calls are played (RULES §12.4)
        endgame = 0 if rnd.friends_mode else self.endgame
        if not play_out(policy, rnd, ks, endgame):
            return solve(rnd, me)
        return utility(rnd, me)

    # ================================================================ declaring (§3.3)
    def _declare(self, view: View, rng: random.Random) -> Action:
        """Pass or declare: the heuristic's answer unless search finds a better one.

        Candidates: the heuristic's answer, "not now" (a pass) and every legal
        declaration (a single or a pair of a suit, two jokers; an overturn when one
        stands). Each is played out in the same sampled deals; the heuristic decides
        for every seat from then on (this seat's later chances to declare included).
        """
        seat = view.seat
        assert seat is not None
        # A fresh heuristic per decision: its memory of asks without a declaration must
        # not carry over from the rollouts' worlds.
        mine = HeuristicAgent(rng.getrandbits(32)).act(view)
        legal = view.legal_declarations()
        if not legal:
            return mine
        cands: list[Ids] = []
        for ids in (
            [c.id for c in mine.cards] if isinstance(mine, Declare) else [],
            [],
            *([c.id for c in cards] for cards in legal),
        ):
            if ids not in cands:
                cands.append(ids)
        if self.iters is not None and self.iters < 2 * len(cands):
            return mine  # too small a budget to compare them on two deals each
        if self.ms is not None and self.iters is None and self.ms < MIN_DECLARE_MS:
            return mine
        try:
            ids = self._search_declaration(view, cands, rng)
        except WorldError:
            return mine
        if not ids:
            return Pass(seat)
        return Declare(seat, tuple(CARDS[i] for i in ids))

    def declaration_values(self, view: View, n_worlds: int, seed: int = 0) -> dict[str, float]:
        """Mean utility of passing and of each legal declaration over `n_worlds` sampled
        deals (for tests and analysis): keys "pass" and the declared cards ("2H 2H")."""
        legal = view.legal_declarations()
        cands: list[Ids] = [[]] + [[c.id for c in cards] for cards in legal]
        vals: list[list[float]] = [[] for _ in cands]
        make_world, evaluate = self._declaration_search(view, cands)
        rng = random.Random(seed)
        for _ in range(n_worlds):
            wrng = random.Random(rng.getrandbits(64))
            world, hands, undealt = make_world(wrng)
            got = evaluate(world, hands, undealt, wrng.getrandbits(32), list(range(len(cands))))
            for v, x in zip(vals, got, strict=True):
                v.append(x)
        names = ["pass"] + [" ".join(str(CARDS[i]) for i in c) for c in cands[1:]]
        return {n: sum(v) / len(v) for n, v in zip(names, vals, strict=True)}

    def _declaration_search(
        self, view: View, cands: list[Ids]
    ) -> tuple[WorldMaker, Evaluator]:
        me = view.seat
        assert me is not None
        facts = DealFacts.from_view(view)
        window = view.phase == "declare"

        def make_world(wrng: random.Random) -> tuple[Round, list[list[int]], list[int]]:
            true = self._true_world(view)
            if true is not None:
                return true
            hands, undealt = sample_deal(facts, wrng)
            return deal_round(view, hands, undealt), hands, undealt

        def evaluate(world: Round, hands: list[list[int]], undealt: list[int],
                     seed: int, which: list[int]) -> list[float]:
            out = []
            for c in (cands[j] for j in which):
                rnd = world.clone()
                if c:
                    rnd.step(Declare(me, tuple(CARDS[i] for i in c)))
                elif window:
                    rnd.step(Pass(me))
                out.append(self._rollout_deal(rnd, me, seed))
            return out

        return make_world, evaluate

    def _search_declaration(self, view: View, cands: list[Ids], rng: random.Random) -> Ids:
        make_world, evaluate = self._declaration_search(view, cands)
        return self._pimc(cands, make_world, evaluate, rng)

    def _rollout_deal(self, rnd: Round, me: int, seed: int) -> float:
        """Finish the deal, the declarations and the kitty with the heuristic, then play
        the round out (`_rollout`); `me`'s utility."""
        bot = HeuristicAgent(seed)  # fresh: its declaration memory belongs to one world
        draw = Draw()
        attempt = rnd.attempt
        while rnd.phase == "deal" or rnd.phase == "declare":
            if rnd.attempt > attempt + MAX_REDEALS:
                return 0.0  # nobody declares in this first round's redeals (§3.5)
            d = rnd.decision()
            if d.phase == "deal":
                rnd.step(draw)
                after = rnd.decision()
                s = after.last_drawer
                if after.phase == "deal" and s is not None and rnd.has_declaration(s):
                    a = bot.act(rnd.view(s))
                    if isinstance(a, Declare):
                        rnd.step(a)
            else:
                assert d.seat is not None
                rnd.step(bot.act(rnd.view(d.seat)))
        starter = rnd.starter
        t = rnd.trump
        assert starter is not None and t is not None
        rnd.step(bot.act(rnd.view(starter)))  # the bury (§4)
        if rnd.phase == "call":  # friends mode: the leader's calls (§12.4)
            rnd.step(bot.act(rnd.view(starter)))
        k0 = Knowledge(rnd.view(starter), t)
        ks = k0.world([rnd.hand_counts(s) for s in range(rnd.n_players)], list(rnd.kitty),
                      starter)
        return self._rollout(rnd, ks, me, seed)

    # ================================================================ the kitty (§4)
    def _search_bury(self, view: View, rng: random.Random) -> Ids:
        t = view.trump
        assert t is not None and view.seat is not None
        cands = self.policy.bury_options(view, max(2, self.n_candidates - 2))
        if len(cands) == 1:
            return cands[0]
        me = view.seat
        k0 = Knowledge(view, t)
        facts = WorldFacts.from_view(view)

        def make_world(wrng: random.Random) -> tuple[Round, list[list[int]], list[int]]:
            true = self._true_world(view)
            if true is not None:
                return true
            hands, kitty = sample_world(facts, wrng)
            return Round.from_view(view, hands, kitty), hands, kitty

        def evaluate(world: Round, hands: list[list[int]], kitty: list[int],
                     seed: int, which: list[int]) -> list[float]:
            out = []
            for c in (cands[j] for j in which):
                rnd = world.clone()
                rnd.step(Bury(me, tuple(CARDS[i] for i in c)))
                k = k0
                if rnd.phase == "call":  # friends mode: the heuristic's calls (§12.4)
                    rnd.step(self.policy.act(rnd.view(me)))
                    k = Knowledge(rnd.view(me), t)
                ks = k.world([rnd.hand_counts(s) for s in range(rnd.n_players)], c, me)
                out.append(self._rollout(rnd, ks, me, seed))
            return out

        # The bury shapes the whole round: it gets a few decisions' worth of budget.
        return self._pimc(cands, make_world, evaluate, rng, scale=2,
                          boost=LEAD_MULT if self.alloc else 1.0)


def _one_world(make_world: WorldMaker, evaluate: Evaluator, seed: int,
               which: list[int]) -> list[float]:
    """The candidates `which` evaluated in the world drawn from `seed` (`ExpertAgent._pimc`)."""
    wrng = random.Random(seed)
    world, hands, kitty = make_world(wrng)
    return evaluate(world, hands, kitty, wrng.getrandbits(32), which)


class _Helper:
    """A forked copy of the searching process that evaluates worlds on request, over pipes
    (`expert:workers=N`). Forked at the decision, it has the decision's closures, view and
    budget as they are; it exits when the decision ends (`close`)."""

    _out: IO[bytes]  # requests to the helper
    _inp: IO[bytes]  # its answers

    def __init__(self, make_world: WorldMaker, evaluate: Evaluator,
                 others: Sequence[_Helper] = ()) -> None:
        to_child, from_parent = os.pipe()
        to_parent, from_child = os.pipe()
        pid = os.fork()
        if pid == 0:  # the helper: answer requests until the pipe closes
            os.close(from_parent)
            os.close(to_parent)
            for o in others:  # the earlier helpers' pipes: theirs alone, or they never end
                os.close(o._out.fileno())
                os.close(o._inp.fileno())
            code = 0
            try:
                with os.fdopen(to_child, "rb") as inp, os.fdopen(from_child, "wb") as out:
                    while True:
                        try:
                            seed, which = pickle.load(inp)
                        except EOFError:
                            break
                        try:
                            reply: tuple[str, object] = (
                                "ok", _one_world(make_world, evaluate, seed, which))
                        except Exception as e:  # reported to the searching process
                            reply = ("error", f"{type(e).__name__}: {e}")
                        pickle.dump(reply, out)
                        out.flush()
            except BaseException:
                code = 1
            finally:
                os._exit(code)
        os.close(to_child)
        os.close(from_child)
        self.pid = pid
        self._out = os.fdopen(from_parent, "wb")
        self._inp = os.fdopen(to_parent, "rb")

    def ask(self, seed: int, which: list[int]) -> None:
        """Start evaluating the candidates `which` in the world of `seed`."""
        pickle.dump((seed, which), self._out)
        self._out.flush()

    def answer(self) -> list[float]:
        """The values of the world last asked for."""
        kind, value = pickle.load(self._inp)
        if kind != "ok":
            raise RuntimeError(f"expert search helper failed: {value}")
        assert isinstance(value, list)
        return value

    def close(self) -> None:
        """End the helper and reap it."""
        self._out.close()
        self._inp.close()
        os.waitpid(self.pid, 0)


def _clear_leader(vals: list[list[float]], active: list[int]) -> bool:
    """Whether the best active candidate beats every other active one by more than
    `STOP_Z` standard errors and `STOP_MARGIN` (so `_choose` would pick it anyway)."""
    if len(active) < 2:
        return True
    best = max(active, key=lambda j: (sum(vals[j]) / len(vals[j]), -j))
    for j in active:
        if j != best:
            d, se = paired_difference(vals[best], vals[j])
            if d <= STOP_Z * se or d <= STOP_MARGIN:
                return False
    return True


def _settled(vals: list[list[float]], active: list[int], n: int, left: float) -> bool:
    """Whether `_choose` would make the same choice after `left` more worlds than the
    `n` played, unless a paired mean ended more than `SETTLE_K` of its predictive
    standard deviations from where it is now (`settle=1`).

    The worlds to come are taken to spread as those played did, about a true mean that is
    itself known only to within se: a paired difference of mean d and standard error se
    now ends, after `left` more worlds, with a mean whose predictive spread about d is
    se * sqrt(left / (n + left)), and with a standard error of se * sqrt(n / (n + left)).
    (The worlds to come weigh left / (n + left) of the end's mean, and their own mean
    strays from d with a variance of se^2 for the true mean's uncertainty plus
    se^2 * n / left for their sampling noise.) The choice is settled when the heuristic's
    move stays (no candidate could end more than `DEVIATE_Z` standard errors ahead of it),
    or when the current choice stays that far ahead of it and ahead of every other
    candidate.

    As `left` grows the spread tends to K * se, the true mean's own uncertainty, so a
    large budget stops no sooner than its first worlds can tell (bench/results/settle/:
    the same move as the whole budget in 99% of decisions at 400 and 1,200 rollouts)."""
    if left <= 0:
        return True
    end = n + left
    spread = SETTLE_K * (left / end) ** 0.5  # times se: how far the end's mean may lie
    shrink = (n / end) ** 0.5  # times se: the standard error at the end
    choice = _choose(vals, active)  # candidate 0 is always active (`_pimc`'s pruning)
    if choice == 0:  # no rival could end DEVIATE_Z standard errors ahead of it
        return all(d + spread * se <= DEVIATE_Z * shrink * se + 1e-9 for d, se in (
            paired_difference(vals[j], vals[0]) for j in active if j != 0))
    d, se = paired_difference(vals[choice], vals[0])
    if d - spread * se <= DEVIATE_Z * shrink * se + 1e-9:
        return False
    return all(d - spread * se > 0 for d, se in (
        paired_difference(vals[choice], vals[j]) for j in active if j not in (0, choice)))


def _close_call(vals: list[list[float]], active: list[int]) -> bool:
    """Whether the top two active candidates are within `CLOSE_Z` standard errors."""
    if len(active) < 2:
        return False
    top = sorted(active, key=lambda j: (-sum(vals[j]) / len(vals[j]), j))[:2]
    d, se = paired_difference(vals[top[0]], vals[top[1]])
    return abs(d) <= CLOSE_Z * se


def _all_equivalent(k: Knowledge, cands: list[Ids]) -> bool:
    """Whether every candidate is the same play up to equivalent cards: cards held once,
    of the same play suit and points, with no card of unknown place (`Knowledge.unseen`)
    ranked between them or level with them (RULES §5: then no other hand can tell them
    apart, now or later)."""
    t = k.t
    key: dict[int, tuple[int, ...]] = {}
    for ps in range(5):
        block = 0
        for ids in t.ids_at_level[ps]:
            if any(k.unseen[i] for i in ids):
                block += 1
                for i in ids:
                    key[i] = (ps, block, 1)
                block += 1
            else:
                for i in ids:
                    key[i] = (ps, block, 0)

    def canon(c: Ids) -> list[tuple[int, ...]]:
        return sorted((*key[i], POINTS[i]) if k.hand[i] == 1 else (-1, i) for i in c)

    first = canon(cands[0])
    return all(canon(c) == first for c in cands[1:])


def _choose(vals: list[list[float]], active: list[int]) -> int:
    """The candidate to play: the best mean among those still active, unless it does not
    beat candidate 0 (the heuristic's move) clearly on the worlds both were played in."""
    def mean(j: int) -> float:
        return sum(vals[j]) / len(vals[j])

    best = max(active, key=lambda j: (mean(j), -j))
    if best == 0 or 0 not in active:
        return best
    d, se = paired_difference(vals[best], vals[0])
    if len(vals[best]) < 2:
        return 0
    return best if d > DEVIATE_Z * se + 1e-9 else 0


def _within(a: list[float], b: list[float], z: float) -> bool:
    """Whether `b` trails `a` by at most `z` standard errors of their paired difference."""
    d, se = paired_difference(a, b)
    return d <= z * se


def paired_difference(a: list[float], b: list[float]) -> tuple[float, float]:
    """Mean and standard error of a - b over the worlds both were played in (candidates'
    rollout values, world by world: `_pimc`'s pruning and choice, and the learner's
    advantages, `shengji train --teacher`)."""
    m = min(len(a), len(b))
    if m == 0:
        return 0.0, 0.0
    diffs = [a[w] - b[w] for w in range(m)]
    d = sum(diffs) / m
    if m < 2:
        return d, abs(d)
    var = sum((x - d) ** 2 for x in diffs) / (m - 1)
    return d, (var / m) ** 0.5


def _cost(t: Trump, ids: Sequence[int]) -> tuple[float, tuple[int, ...]]:
    """What a play gives up: levels, trumps and points (cheapest first)."""
    c = 0.0
    for i in ids:
        c += t.level[i] + (20 if t.play_suit[i] == TRUMP else 0) + 2 * POINTS[i]
    return c, tuple(ids)


def _power(t: Trump, ids: Sequence[int]) -> int:
    return max(t.level[i] + (40 if t.play_suit[i] == TRUMP else 0) for i in ids)


def follow_options(hand: Sequence[int], lead: Sequence[int], t: Trump, strict: bool,
                   cap: int = 40) -> list[Ids]:
    """The first `cap` + 1 legal follows (§6.2) of `lead` from the counts `hand`."""
    legal: list[Ids] = []
    for follow in iter_follows(hand, shape_of(lead, t), t, strict):
        legal.append(list(follow))
        if len(legal) > cap:
            break
    return legal


def ranked_follows(legal: list[Ids], t: Trump) -> list[Ids]:
    """Follows in the order the search tries them when there are many: the two cheapest,
    the most point-giving, the strongest, then the rest cheapest first."""
    ranked = sorted(legal, key=lambda p: _cost(t, p))
    by_points = sorted(legal, key=lambda p: (-sum(POINTS[i] for i in p), _cost(t, p)))
    by_power = sorted(legal, key=lambda p: (-_power(t, p), _cost(t, p)))
    return ranked[:2] + by_points[:1] + by_power[:1] + ranked[2:]


def lead_units(hand: Sequence[int], t: Trump) -> list[Ids]:
    """The natural leads of the counts `hand` (§6.1), in the order the search tries them:
    every pair or tractor (longest first), then each suit's cheapest and highest single.
    Throws are left to the heuristic."""
    units: list[tuple[float, Ids]] = []
    for ps in range(5):
        in_suit = [i for i in t.suit_ids[ps] for _ in range(hand[i])]
        if not in_suit:
            continue
        us = decompose(in_suit, t)
        singles = [u for u in us if u.npairs == 0]
        units += [(0.0 - u.npairs, list(u.ids)) for u in us if u.npairs > 0]
        if singles:
            lo = min(singles, key=lambda u: (POINTS[u.ids[0]], u.top))
            hi = max(singles, key=lambda u: u.top)
            units += [(1.0, list(lo.ids)), (0.5, list(hi.ids))]
    units.sort(key=lambda x: (x[0], x[1]))
    return [u for _, u in units]


def throw_leads(k: Knowledge) -> list[Ids]:
    """Throws (RULES §6.1) for the search to test in its worlds (`throws=1`): per play
    suit with at least two units in hand, the units no other hand can beat (the sure
    throw, which the heuristic declines when a ruff looks likely), and those with the
    suit's highest beatable unit added (a throw that fails only in the worlds where a
    higher unit is held: the rollouts apply the failure and its penalty, §6.4). At most
    two per suit, the likeliest first."""
    t = k.t
    others = other_seats(k.me, k.n)
    out: list[Ids] = []
    for ps in range(5):
        cards = [i for i in t.suit_ids[ps] for _ in range(k.hand[i])]
        units = units_of(cards, t)
        if len(units) < 2:
            continue
        sure: Ids = []
        n_sure = 0
        risky: Unit | None = None
        for u in units:
            if not k.unit_beatable(ps, u.npairs, u.top, others, u.k):
                sure.extend(u.ids)
                n_sure += 1
            elif risky is None or (u.npairs, u.top) > (risky.npairs, risky.top):
                risky = u
        if n_sure >= 2:
            out.append(sorted(sure))
        if risky is not None and n_sure >= 1:
            out.append(sorted(sure + list(risky.ids)))
    return out


def solve(rnd: Round, me: int, alpha: float = -1e9, beta: float = 1e9) -> float:
    """The exact worth to `me` (`utility`) of finishing the round in this world with every
    seat seeing every hand (`solve_line`). Meant for the last tricks of a rollout's
    sampled world (a few cards per hand): the tree grows fast with the hand size."""
    return solve_line(rnd, me, lambda r: utility(r, me), alpha, beta)[0]


def solve_line(rnd: Round, me: int, value: Callable[[Round], float], alpha: float = -1e9,
               beta: float = 1e9) -> tuple[float, Round]:
    """Alpha-beta over every legal lead (throws included, RULES §6.1) and follow (§6.2) to
    the round's end, `me`'s team maximizing `value` of the finished round and the other
    team minimizing it: the exact value and the finished round of a line that reaches it
    (fail-soft, so the value returned is always a real line's). `rnd` may be stepped."""
    if rnd.phase != "play":
        return value(rnd), rnd
    seat = rnd.to_act
    t = rnd.trump
    assert seat is not None and t is not None
    hand = rnd.hand_counts(seat)
    plays = rnd.current
    if plays:
        moves = list(iter_follows(hand, shape_of(plays[0][1], t), t,
                                  rnd.options.strict_tractor_follow))
    else:
        moves = list(iter_leads(hand, t))
    if len(moves) == 1:  # forced: no branching
        rnd.step(Play(seat, tuple(CARDS[i] for i in moves[0])))
        return solve_line(rnd, me, value, alpha, beta)
    maximize = seat % 2 == me % 2  # teams (§12.2); friends mode is not solved (`_rollout`)
    best = -1e9 if maximize else 1e9
    line = rnd
    for ids in moves:
        child = rnd.clone()
        child.step(Play(seat, tuple(CARDS[i] for i in ids)))
        v, end = solve_line(child, me, value, alpha, beta)
        if maximize and v > best:
            best, line = v, end
            alpha = max(alpha, v)
        elif not maximize and v < best:
            best, line = v, end
            beta = min(beta, v)
        if alpha >= beta:
            break
    return best, line


def ks_observe(ks: list[Knowledge], rnd: Round, seat: int) -> None:
    """Tell every seat's knowledge about `seat`'s play just applied to `rnd`."""
    on_table = rnd.current and rnd.current[-1][0] == seat
    trick = rnd.current if on_table else rnd.tricks[-1][1]
    actual = trick[-1][1]
    lead = trick[0][1] if len(trick) > 1 else None
    for k in ks:
        k.observe(seat, actual, lead)
    ks[0].observe_public(seat, actual, lead)
