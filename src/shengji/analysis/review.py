"""A review of one seat's round: every bury and play measured against the alternatives.

For a game record, a round and a seat, `review_round` replays the record and, at each
of that seat's decisions (declarations, the bury, plays), gives two readings of the
same candidate moves:

- **knowledge** (`knowledge_reading`): only the seat's `View` at that moment goes in.
  Worlds are sampled exactly as the expert samples them (`bots.worlds.sample_world`,
  rejection on `play_likelihood` of the others' last trick under the heuristic, the
  expert's `INFER_TRICKS` and tries), and each candidate is played in every world, the
  round finished by the heuristic for every seat (RULES §11: nothing hidden is read).
- **hindsight** (`hindsight_reading`): the true round (the record has every hand), each
  candidate rolled out `rollouts` times with seeded heuristic policies until every hand
  holds at most `endgame` cards (3), the rest solved exactly (`bots.expert.solve_line`:
  alpha-beta over every legal lead and follow, both teams playing their best). It is
  computed only when the round is finished in the record (shown once the round is over).

Candidates (`play_candidates`): the move played, the heuristic's choice, and a few
legal alternatives picked as the expert picks its own (the cheapest, the most
point-giving and the strongest follows; each suit's pairs and tractors, its lowest and
its highest single as leads, §6.1-§6.2). The bury (§4) compares the starter's actual
bury with the heuristic's ranked options. A declaration or a pass in the final window
(§3.3) is compared with passing and every legal declaration, in deal worlds sampled as
the expert samples them (`sample_deal`: the others' cards and the undealt deck), each
finished by the heuristic from the deal on (a world where the first round redeals more
than `MAX_REDEALS` times is left out). Not declaring after a draw is no action in the
record, so it is not reviewed.

Values, for the seat's side: **points** are the opponents' final points (§7-§8.1,
kitty and penalties included), negated for the declaring side, so that more is always
better for the seat (with d decks scaled by 2/d, the bands being 20·d wide, §12.3);
**levels** are the signed levels its side gains (RULES §8.2 table,
`RoundResult.levels_gained`; the 80-115 swap counts 0). The side is the team, or in
friends mode (§12.4) the side the seat ended the round on in that world: a world's
rollout decides who the friends are, as the round would. The exact endgame of the
hindsight reading is for four seats (team against team; N hands branch too widely):
larger tables play it out instead. A candidate's value is its mean
over the worlds (rollouts); every candidate meets the same worlds and rollout seeds.

**Loss** is the best candidate's mean points minus the played move's (0 when the played
move is the best). Classes by points lost (`THRESHOLDS`): best (the best found, or
< 2 points behind it), good (< 5), inaccuracy (< 10), mistake (< 25), blunder (>= 25);
a 40-point step is one level (§8.2), so a mistake costs up to about half a level.
**Accuracy** of a decision is `100 * exp(-loss / ACCURACY_K)` (ACCURACY_K = 20 points:
a 20-point loss scores 37, a 5-point one 78); a round's (or game's) accuracy is the mean
over its decisions, for each reading separately.

Each verdict carries a reason drawn from what was measured (`Reason`): the chance that
the seat's side wins the current trick and the points the trick carries, for the move
played and the best one, and a key (`analysis.reason.*`) for translation; `reason_text`
renders it in English. Deterministic for a seed and a budget (`Budget`: counts of
worlds and rollouts, never wall time).
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Collection, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from ..actions import Bury, Declare, Pass, Play, action_from_json
from ..bots.expert import INFER_TRICKS, follow_options, lead_units, ranked_follows, solve_line
from ..bots.heuristic import HeuristicAgent
from ..bots.worlds import (
    DealFacts,
    WorldError,
    WorldFacts,
    deal_round,
    play_likelihood,
    sample_deal,
    sample_world,
)
from ..cards import CARDS
from ..driver import step
from ..errors import IllegalAction
from ..follow import iter_leads
from ..game import Game
from ..record import GameRecord
from ..round import Round
from ..views import View

__all__ = [
    "ACCURACY_K", "CLASSES", "THRESHOLDS", "Budget", "CandidateValue", "Decision", "Reading",
    "Reason", "RoundReview", "accuracy", "candidates", "classify", "decision_count",
    "hindsight_reading", "knowledge_reading", "play_candidates", "reason_text", "review_lines",
    "review_round",
]

Ids = tuple[int, ...]
Sample = tuple[float, float, float, float]  # points, levels, trick won, trick points

#: (class, points lost below which it applies), in order; above the last: "blunder"
THRESHOLDS: tuple[tuple[str, float], ...] = (
    ("best", 2.0), ("good", 5.0), ("inaccuracy", 10.0), ("mistake", 25.0),
)
CLASSES = ("best", "good", "inaccuracy", "mistake", "blunder")
ACCURACY_K = 20.0  # points: a decision's accuracy is 100 * exp(-loss / ACCURACY_K)
INFER_TRIES = 4  # the expert's default `infer`: worlds drawn at most per world kept


@dataclass(frozen=True)
class Budget:
    """How much search each decision gets: `worlds` sampled worlds (knowledge reading),
    `rollouts` per candidate in the true world (hindsight), at most `candidates` moves;
    in hindsight the tricks left once every hand holds at most `endgame` cards are solved
    exactly (0: played out by the heuristic like the rest)."""

    worlds: int = 8
    rollouts: int = 4
    candidates: int = 6
    endgame: int = 3


@dataclass
class CandidateValue:
    """One candidate's measured worth (means over the worlds or rollouts)."""

    ids: list[int]
    cards: list[str]
    points: float  # the seat's side's signed points (see the module docstring)
    levels: float  # signed levels for the seat's side (RULES §8.2, §12.4)
    trick_win: float  # share of worlds in which the seat's side wins the current trick
    trick_points: float  # mean points the current trick carries


@dataclass
class Reason:
    """Why the verdict: a translation key and the measured figures it quotes."""

    key: str
    loss_points: float
    loss_levels: float
    win_played: float
    win_best: float
    trick_points_played: float
    trick_points_best: float


@dataclass
class Reading:
    """One reading of a decision: every candidate's value, the best, the verdict."""

    candidates: list[CandidateValue]
    played: int  # index of the move actually made
    best: int  # index of the best candidate (most points, then levels)
    loss_points: float
    loss_levels: float
    verdict: str
    accuracy: float
    reason: Reason


@dataclass
class Decision:
    """One decision of the reviewed seat: where it was, what was played, its readings."""

    action_index: int  # index in the record's actions
    kind: str  # "play", "bury" or "declare" (a declaration or a pass, RULES §3.3)
    trick: int | None  # 1-based trick number (plays)
    position: int | None  # 0 leads, 1-3 follow
    played: list[str]
    knowledge: Reading
    hindsight: Reading | None = None


@dataclass
class RoundReview:
    """The review of one seat's round (`review_round`)."""

    seat: int
    round_no: int  # 0-based
    seed: int
    budget: Budget
    finished: bool
    decisions: list[Decision] = field(default_factory=list)

    @property
    def accuracy(self) -> float | None:
        """Mean accuracy of the knowledge readings (None without decisions)."""
        return accuracy([d.knowledge.loss_points for d in self.decisions])

    @property
    def hindsight_accuracy(self) -> float | None:
        """Mean accuracy of the hindsight readings (None when not shown)."""
        hs = [d.hindsight.loss_points for d in self.decisions if d.hindsight is not None]
        return accuracy(hs) if hs and len(hs) == len(self.decisions) else None

    def to_json(self) -> dict[str, Any]:
        """JSON form (stable keys; reasons carry their translation key and figures)."""
        out = asdict(self)
        out["budget"] = asdict(self.budget)
        out["accuracy"] = self.accuracy
        out["hindsight_accuracy"] = self.hindsight_accuracy
        for d, dj in zip(self.decisions, out["decisions"], strict=True):
            for name, r in (("knowledge", d.knowledge), ("hindsight", d.hindsight)):
                if r is not None:
                    dj[name]["reason"]["text"] = reason_text(
                        r.reason, _name(r.candidates[r.best].cards))
        return out


# ==================================================================== verdicts
def classify(loss_points: float, is_best: bool = False) -> str:
    """The class of a decision that lost `loss_points` against the best (THRESHOLDS)."""
    if is_best:
        return "best"
    for name, below in THRESHOLDS:
        if loss_points < below:
            return name
    return "blunder"


def accuracy(losses: Sequence[float]) -> float | None:
    """100 × the mean of exp(-loss / ACCURACY_K) over decisions (None for none)."""
    if not losses:
        return None
    return 100.0 * sum(math.exp(-max(0.0, x) / ACCURACY_K) for x in losses) / len(losses)


REASONS_EN = {
    "analysis.reason.best": "the best play found: the trick is won {win_played:.0%} of the "
    "time ({trick_points_played:.0f} points in it)",
    "analysis.reason.close": "about as good as {best}: {loss_points:.1f} points behind",
    "analysis.reason.loses_trick": "{best} wins the trick {win_best:.0%} of the time, this "
    "play {win_played:.0%}, and {trick_points_played:.0f} points go into it: "
    "{loss_points:.1f} points lost (about {loss_levels:.2f} levels)",
    "analysis.reason.gives_points": "this trick carries {trick_points_played:.0f} points "
    "(against {trick_points_best:.0f} with {best}): {loss_points:.1f} points lost "
    "(about {loss_levels:.2f} levels)",
    "analysis.reason.later": "the trick goes the same way, but {best} does better in the "
    "tricks after it: {loss_points:.1f} points lost (about {loss_levels:.2f} levels)",
    "analysis.reason.bury_best": "the best bury found",
    "analysis.reason.wins_dear": "this play wins the trick {win_played:.0%} of the time "
    "({best}: {win_best:.0%}), but what it spends costs more later: {loss_points:.1f} "
    "points lost (about {loss_levels:.2f} levels)",
    "analysis.reason.declare_best": "the best choice found",
    "analysis.reason.declare": "{best} ends {loss_points:.1f} points better "
    "(about {loss_levels:.2f} levels)",
    "analysis.reason.bury": "burying as {best} ends {loss_points:.1f} points better "
    "(about {loss_levels:.2f} levels)",
}


def reason_text(r: Reason, best: str = "the best play") -> str:
    """The reason in English (the key names the template; `best` names the better play)."""
    return REASONS_EN[r.key].format(best=best, **asdict(r))


def _reading(cands: list[Ids], played: int, vals: list[list[Sample]],
             kind: str) -> Reading:
    def mean(j: int, k: int) -> float:
        return sum(v[k] for v in vals[j]) / len(vals[j])

    values = [
        CandidateValue(
            list(c), [str(CARDS[i]) for i in c], mean(j, 0), mean(j, 1), mean(j, 2), mean(j, 3)
        )
        for j, c in enumerate(cands)
    ]
    best = max(range(len(cands)), key=lambda j: (values[j].points, values[j].levels, j == played))
    b, p = values[best], values[played]
    loss = max(0.0, b.points - p.points)
    lv = b.levels - p.levels
    verdict = classify(loss, is_best=best == played)
    if kind in ("bury", "declare"):
        key = f"analysis.reason.{kind}_best" if best == played else f"analysis.reason.{kind}"
    elif best == played:
        key = "analysis.reason.best"
    elif verdict in ("best", "good"):
        key = "analysis.reason.close"
    elif b.trick_win - p.trick_win >= 0.25:
        key = "analysis.reason.loses_trick"
    elif p.trick_win - b.trick_win >= 0.25:
        key = "analysis.reason.wins_dear"
    elif abs(b.trick_points - p.trick_points) >= loss / 2 and b.trick_points != p.trick_points:
        key = "analysis.reason.gives_points"
    else:
        key = "analysis.reason.later"
    reason = Reason(key, round(loss, 2), round(lv, 3), round(p.trick_win, 3), round(b.trick_win, 3),
                    round(p.trick_points, 1), round(b.trick_points, 1))
    acc = accuracy([loss])
    assert acc is not None
    return Reading(values, played, best, round(loss, 2), round(lv, 3), verdict, round(acc, 1),
                   reason)


# ==================================================================== candidates
def play_candidates(view: View, played: Ids, n: int, seed: int = 0) -> list[Ids]:
    """The moves compared at a play decision: the one played first, the heuristic's
    choice, then alternatives as the expert picks them (RULES §6.1, §6.2); at most `n`
    (the played move and the heuristic's always)."""
    t = view.trump
    assert t is not None
    out: list[Ids] = []

    def add(ids: Sequence[int]) -> None:
        key = tuple(sorted(ids))
        if key not in out:
            out.append(key)

    add(played)
    add(HeuristicAgent(seed).play_ids(view))
    hand = [0] * 54
    for c in view.hand:
        hand[c.id] += 1
    trick = view.current_trick
    if trick is not None and trick.plays:
        lead = [c.id for c in trick.plays[0][1]]
        legal = follow_options(hand, lead, t, view.options.strict_tractor_follow)
        pool = ranked_follows(legal, t)
    else:
        pool = lead_units(hand, t)
        if len(pool) < 2:
            for k, lead_ids in enumerate(iter_leads(hand, t)):
                pool.append(list(lead_ids))
                if k > 50:
                    break
    for p in pool:
        if len(out) >= n:
            break
        add(p)
    return out


# ==================================================================== rollouts
def _signed_points(rnd: Round, me: int) -> float:
    """The finished round's opponents' points, negated when `me`'s side declared (its team,
    or the side it ended on in friends mode, RULES §12.4), in two-deck points: with d
    decks the bands are 20·d wide (§12.3), so the points are scaled by 2/d and the
    classes (`THRESHOLDS`, a 40-point band ~ one level) read the same at every table."""
    res = rnd.result
    assert res is not None
    pts = res.opponents_points * 2 / rnd.n_decks
    return float(-pts if res.declared(me) else pts)


def _finish(rnd: Round, me: int, seed: int, n_trick: int | None, endgame: int = 0) -> Sample:
    """Play the round out with seeded heuristics; (points, levels, trick won, trick points)
    for `me`'s side, the trick being the one at index `n_trick` (None: no trick).

    `endgame` > 0 (the hindsight reading, every hand known): once every hand holds
    `endgame` cards or fewer (mid-trick too: a decision of the last tricks is judged by
    exact play from the move on), the rest is solved exactly (`solve_line`, alpha-beta on
    these points, each team playing its best) instead of played out."""
    n = rnd.n_players
    bots = [HeuristicAgent(seed * 4 + s) for s in range(n)]
    if rnd.phase == "call":  # friends mode, after the bury: the leader calls (§12.4)
        step(rnd, bots)
    if n != 4:
        # the exact endgame is four seats, team against team: in friends mode the sides
        # are not known (§12.4), and N hands of a few cards branch too widely to solve
        endgame = 0
    while rnd.phase == "play":
        s = rnd.to_act
        assert s is not None
        if endgame and max(rnd.hand_sizes) <= endgame:
            rnd = solve_line(rnd, me, lambda r: _signed_points(r, me))[1]
            break
        ids = bots[s].play_ids(rnd.view(s))
        rnd.step(Play(s, tuple(CARDS[i] for i in ids)))
    res = rnd.result
    assert res is not None
    mine = res.declared(me)
    points = _signed_points(rnd, me)
    levels = float(res.levels_gained if (res.gainer == "declarers") == mine
                   else -res.levels_gained)
    won = pts = 0.0
    if n_trick is not None:  # won by `me`'s side (as the sides ended, §12.4)
        tr = rnd.tricks[n_trick]
        won = 1.0 if res.declared(tr.winner) == mine else 0.0
        pts = float(tr.points)
    return points, levels, won, pts


MAX_REDEALS = 2  # a declaration's rollout that redeals more often is left out (§3.5)


def _finish_deal(rnd: Round, me: int, seed: int, endgame: int = 0) -> Sample | None:
    """Finish the deal, the declarations, the bury and the play with seeded heuristics
    (RULES §3-§8); None if the first round redeals more than `MAX_REDEALS` times."""
    bots = [HeuristicAgent(seed * 4 + s) for s in range(rnd.n_players)]
    attempt = rnd.attempt
    while rnd.phase in ("deal", "declare", "kitty"):
        if rnd.attempt > attempt + MAX_REDEALS:
            return None
        step(rnd, bots)
    return _finish(rnd, me, seed, None, endgame)


def _apply(world: Round, me: int, kind: str, ids: Ids) -> Round:
    rnd = world.clone()
    cards = tuple(CARDS[i] for i in ids)
    if kind == "declare":
        if cards:
            rnd.step(Declare(me, cards))
        elif rnd.phase == "declare":
            rnd.step(Pass(me))  # in the deal, "not now" is simply the next draw
        return rnd
    rnd.step(Bury(me, cards) if kind == "bury" else Play(me, cards))
    return rnd


def _add_values(vals: list[list[Sample]], got: list[Sample] | None) -> None:
    """One world's samples, each candidate's to its list (a world left out adds none)."""
    for v, x in zip(vals, got or [], strict=False):
        v.append(x)


def _filled_reading(cands: list[Ids], vals: list[list[Sample]], kind: str,
                    why: str) -> Reading:
    """The reading of the samples, or `WorldError(why)` where no world gave any."""
    if not vals[0]:
        raise WorldError(why)
    return _reading(cands, 0, vals, kind)


def _world_values(world: Round, me: int, kind: str, cands: list[Ids], seed: int,
                  n_trick: int | None, endgame: int = 0) -> list[Sample] | None:
    """Every candidate played out in one world with the same seed (None: left out);
    `endgame`: the last tricks solved exactly (`_finish`, hindsight only)."""
    out: list[Sample] = []
    for c in cands:
        rnd = _apply(world, me, kind, c)
        v = _finish_deal(rnd, me, seed, endgame) if kind == "declare" else _finish(
            rnd, me, seed, n_trick, endgame)
        if v is None:
            return None
        out.append(v)
    return out


def candidates(view: View, kind: str, played: Ids, budget: Budget, seed: int) -> list[Ids]:
    """The moves compared at a decision, the one played first: `play_candidates`; for
    the bury (§4) the heuristic's ranked options; for a declaration (§3.3) passing (or
    "not now" during the deal: the empty tuple) and every legal declaration."""
    if kind == "declare":
        out = [tuple(sorted(played))]
        if () not in out:
            out.append(())
        for cards in view.legal_declarations():
            key = tuple(sorted(c.id for c in cards))
            if key not in out:
                out.append(key)
        return out
    if kind == "bury":
        out = [tuple(sorted(played))]
        for c in HeuristicAgent(seed).bury_options(view, max(2, budget.candidates - 1)):
            key = tuple(sorted(c))
            if key not in out and len(out) < budget.candidates:
                out.append(key)
        return out
    return play_candidates(view, played, budget.candidates, seed)


def _expert_world(view: View, facts: WorldFacts, model: HeuristicAgent,
                  wrng: random.Random, kind: str) -> Round:
    """A world as the expert draws it (`ExpertAgent._search_play`'s rejection on the
    likelihood of the others' last plays; its bury search draws uniformly)."""
    tries = INFER_TRIES if kind == "play" else 1
    for attempt in range(tries):
        hands, kitty = sample_world(facts, wrng)
        if attempt == tries - 1:
            break
        model.rng.seed(wrng.getrandbits(32))
        if wrng.random() < play_likelihood(view, hands, kitty, model, INFER_TRICKS):
            break
    return Round.from_view(view, hands, kitty)


def knowledge_reading(view: View, kind: str, played: Ids, budget: Budget, seed: int,
                      cands: list[Ids] | None = None) -> Reading:
    """The reading from the seat's view only (worlds sampled as the expert samples them);
    `kind` is "play" or "bury", `played` the move made (candidate 0)."""
    me = view.seat
    assert me is not None
    if cands is None:
        cands = candidates(view, kind, played, budget, seed)
    n_trick = len(view.tricks) if kind == "play" else None
    model = HeuristicAgent(seed)
    rng = random.Random(f"{seed}:knowledge")
    vals: list[list[Sample]] = [[] for _ in cands]
    if kind == "declare":
        deal_facts = DealFacts.from_view(view)
    else:
        facts = WorldFacts.from_view(view)
    for _ in range(budget.worlds):
        wrng = random.Random(rng.getrandbits(64))
        try:
            if kind == "declare":  # the expert's deal worlds (`sample_deal`, §3.3)
                hands, undealt = sample_deal(deal_facts, wrng)
                world = deal_round(view, hands, undealt)
            else:
                world = _expert_world(view, facts, model, wrng, kind)
        except WorldError:  # cannot happen for a real round's view
            continue
        _add_values(vals, _world_values(world, me, kind, cands, wrng.getrandbits(32), n_trick))
    return _filled_reading(cands, vals, kind, "no world fits this view")


def hindsight_reading(true: Round, me: int, kind: str, cands: list[Ids], budget: Budget,
                      seed: int) -> Reading:
    """The reading in the true world: each candidate rolled out `budget.rollouts` times
    with the same seeded policies, the last `budget.endgame` tricks solved exactly (all
    hands known; only after the round)."""
    n_trick = true.n_tricks if kind == "play" else None
    rng = random.Random(f"{seed}:hindsight")
    vals: list[list[Sample]] = [[] for _ in cands]
    for _ in range(budget.rollouts):
        _add_values(vals, _world_values(true, me, kind, cands, rng.getrandbits(32), n_trick,
                                        budget.endgame))
    return _filled_reading(cands, vals, kind, "every rollout of this declaration redealt too often")


# ==================================================================== a whole round
def _positions(record: GameRecord, round_no: int, seat: int
               ) -> tuple[list[tuple[int, str, View, Round, Bury | Play | Declare | Pass]], bool]:
    """The seat's bury and plays in the round: (action index, kind, view, true round,
    action), and whether the record finishes the round."""
    game = Game(record.seed, record.options)
    out: list[tuple[int, str, View, Round, Bury | Play | Declare | Pass]] = []
    for i, raw in enumerate(record.actions):
        if game.round_no > round_no:
            break
        a = action_from_json(raw, record.options.n_players)
        if game.round_no == round_no and isinstance(a, (Bury, Play, Declare, Pass)) and \
                a.seat == seat:
            kind = "bury" if isinstance(a, Bury) else "play" if isinstance(a, Play) else \
                "declare"
            out.append((i, kind, game.view(seat), game.round.clone(), a))
        try:
            game.apply(a)
        except IllegalAction as e:
            raise IllegalAction(f"the record does not replay at action {i}: {e}") from None
        if game.is_over:
            break
    if game.round_no < round_no:
        raise IllegalAction(f"the record has no round {round_no + 1}")
    finished = game.round_no > round_no or game.is_over
    return out, finished


def review_round(record: GameRecord, round_no: int, seat: int, budget: Budget | None = None,
                 seed: int = 0, hindsight: bool = True,
                 progress: Callable[[int, int], None] | None = None,
                 only: Collection[int] | None = None) -> RoundReview:
    """Review `seat`'s bury and plays in round `round_no` (0-based) of `record`.

    The hindsight reading is added only when the record finishes the round (and
    `hindsight` is true). Decisions with a single legal move are skipped (nothing to
    choose). `progress(done, total)` is called before the first and after each of the
    seat's decisions in the round (forced ones included), for a line such as
    "analysing 12/27". `only`: review only those of the seat's decisions (their
    0-based order in the round, forced ones counted), for a review worked out in parts;
    each decision's verdict is the same either way (its own seed, `hash_seed`). Raises
    `IllegalAction` for a record that does not replay or lacks the round.
    """
    n = record.options.n_players
    if seat not in range(n):
        raise IllegalAction(f"no seat {seat}: seats are 0-{n - 1}")
    budget = budget or Budget()
    positions, finished = _positions(record, round_no, seat)
    review = RoundReview(seat, round_no, seed, budget, finished)
    for n, (i, kind, view, true, a) in enumerate(positions, 1):
        if progress is not None:
            progress(n - 1, len(positions))
        if only is not None and n - 1 not in only:
            continue
        played = () if isinstance(a, Pass) else tuple(sorted(c.id for c in a.cards))
        dseed = hash_seed(seed, i)
        cands = candidates(view, kind, played, budget, dseed)
        if len(cands) < 2:
            continue  # a forced move: nothing to choose
        try:
            k = knowledge_reading(view, kind, played, budget, dseed, cands)
            h = hindsight_reading(true, seat, kind, cands, budget, dseed) if (
                finished and hindsight) else None
        except WorldError:
            continue  # a declaration no deal world fits (made out of the drawing turn)
        trick = position = None
        if kind == "play":
            trick = len(view.tricks) + 1
            cur = view.current_trick
            position = 0 if cur is None else len(cur.plays)
        review.decisions.append(Decision(i, kind, trick, position,
                                         [str(CARDS[x]) for x in played], k, h))
    if progress is not None:
        progress(len(positions), len(positions))
    return review


def decision_count(record: GameRecord, round_no: int, seat: int) -> int:
    """How many decisions `seat` made in round `round_no` (forced ones included): the
    range of `review_round`'s `only`."""
    return len(_positions(record, round_no, seat)[0])


def hash_seed(seed: int, index: int) -> int:
    """A decision's own seed: the review's seed and the action's index in the record."""
    return random.Random(f"{seed}:{index}").getrandbits(32)



def review_lines(review: RoundReview) -> list[str]:
    """The review as text: one line per decision (trick, cards, class, loss, the better
    play, the reason, the hindsight verdict), then the round's accuracy."""
    lines = [f"Round {review.round_no + 1}, seat {review.seat}: {len(review.decisions)} "
             f"decisions (worlds {review.budget.worlds}, rollouts {review.budget.rollouts}, "
             f"endgame {review.budget.endgame}, seed {review.seed})"]
    for d in review.decisions:
        k = d.knowledge
        where = d.kind if d.kind != "play" else (
            f"trick {d.trick} " + ("lead" if d.position == 0 else f"follow {d.position}"))
        better = _name(k.candidates[k.best].cards)
        line = f"{where:<16} {_name(d.played):<22} {k.verdict:<10}"
        if k.best != k.played:
            line += f" -{k.loss_points:.1f} pts  better: {better}"
        line += f"  ({reason_text(k.reason, better)})"
        if d.hindsight is not None:
            h = d.hindsight
            line += f"  | hindsight: {h.verdict}"
            if h.best != h.played:
                line += f" -{h.loss_points:.1f}, {_name(h.candidates[h.best].cards)}"
        lines.append(line)
    acc = review.accuracy
    line = "Accuracy: " + ("-" if acc is None else f"{acc:.1f}")
    if review.hindsight_accuracy is not None:
        line += f" (with hindsight {review.hindsight_accuracy:.1f})"
    elif not review.finished:
        line += " (the round is unfinished: no hindsight)"
    lines.append(line)
    return lines


def _name(cards: Sequence[str]) -> str:
    return " ".join(cards) if cards else "pass"
