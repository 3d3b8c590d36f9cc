"""The RL environments: PettingZoo/Gymnasium conformance, masks, slots, honesty (RULES §11)."""

from __future__ import annotations

import random

import numpy as np
import pytest

pytest.importorskip("gymnasium")
pytest.importorskip("pettingzoo")

import gymnasium  # noqa: E402
from gymnasium.utils.env_checker import check_env  # noqa: E402
from pettingzoo.test import api_test, seed_test  # noqa: E402

from shengji.actions import Bury, Play  # noqa: E402
from shengji.cards import CARDS, parse_card  # noqa: E402
from shengji.env import ENV_ID, OBS_SIZE, Table, shengji_v0  # noqa: E402
from shengji.env.encoding import (  # noqa: E402
    CLOSE,
    DECLARE_BJ,
    DECLARE_PAIR,
    DECLARE_RJ,
    DECLARE_SINGLE,
    DONE,
    N_ACTIONS,
    OBS_OFFSETS,
    PASS,
    declaration_action,
    declaration_ids,
    slot_tables,
)
from shengji.env.table import follow_offers  # noqa: E402
from shengji.errors import IllegalAction  # noqa: E402
from shengji.follow import iter_follows  # noqa: E402
from shengji.options import RuleOptions  # noqa: E402
from shengji.round import Round  # noqa: E402
from shengji.shapes import shape_of  # noqa: E402


def _random_step(t: Table, rng: random.Random) -> None:
    assert t.seat is not None
    legal = np.flatnonzero(t.action_mask(t.seat))
    t.step(int(rng.choice(list(legal))))


def _set_selection(t: Table, sel: list[int]) -> None:
    """Make `sel` the acting seat's selection (as if picked one by one), for probing masks."""
    assert t.seat is not None
    t.observer.unpick(t.seat, t.selected)
    t.selected = []
    for i in sel:
        t.selected.append(i)
        t.observer.pick(t.seat, i)
    t._resync()


def _replay_checked(t: Table, starter: int = 0) -> None:
    """Replay every action of the table's round through `Round.step`, which checks each
    one (the table applies the plays its masks offered without the round's follow
    checks, `Round.step_legal_play`): an illegal play the mask offered raises here, and
    the replayed round must end exactly as the table's did."""
    done = t.round
    r = Round(done.seed, done.options, trump_rank=done.levels[starter % 2], starter=starter,
              declaring_team=starter % 2, levels=done.levels)
    for a in done.actions:
        r.step(a)
    assert r.result == done.result
    assert r.tricks == done.tricks and r.failed_throws == done.failed_throws


def _play_to(t: Table, rng: random.Random, until: str, n_tricks: int = 0) -> None:
    while not t.is_over:
        if t.kind == until and len(t.round.trick_views()[0]) >= n_tricks:
            return
        _random_step(t, rng)


# ---------------------------------------------------------------- conformance


def test_pettingzoo_api_test_passes() -> None:
    api_test(shengji_v0.env(), num_cycles=1500, verbose_progress=False)


def test_pettingzoo_seed_test_passes() -> None:
    seed_test(shengji_v0.env, num_cycles=300)


def test_gymnasium_env_checker_passes() -> None:
    env = gymnasium.make(ENV_ID, opponents="random")
    check_env(env.unwrapped, skip_render_check=True)


def test_gymnasium_make_with_heuristic_opponents_plays_a_round() -> None:
    env = gymnasium.make(ENV_ID, opponents="heuristic")
    obs, info = env.reset(seed=3)
    assert obs["observation"].shape == (OBS_SIZE,)
    assert obs["action_mask"].shape == (N_ACTIONS,)
    steps = 0
    while True:
        obs, reward, terminated, truncated, info = env.step(
            env.action_space.sample(obs["action_mask"])
        )
        steps += 1
        if terminated or truncated:
            break
    assert not info.get("illegal_action")
    assert info["result"] is not None
    assert reward in (-3.0, -2.0, -1.0, 0.0, 1.0, 2.0, 3.0) or abs(reward) > 3
    assert steps >= 25  # at least one card per trick


def test_gymnasium_illegal_action_ends_the_episode_with_the_penalty() -> None:
    env = gymnasium.make(ENV_ID, opponents="random", illegal_reward=-7.0)
    obs, _ = env.reset(seed=1)
    bad = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    _, reward, terminated, _, info = env.step(bad)
    assert terminated and reward == -7.0 and info["illegal_action"]


def test_runs_under_async_vector_env() -> None:
    venv = gymnasium.vector.AsyncVectorEnv(
        [lambda: gymnasium.make(ENV_ID, opponents="random") for _ in range(2)]
    )
    try:
        obs, _ = venv.reset(seed=5)
        assert obs["observation"].shape == (2, OBS_SIZE)
        finished = 0
        for _ in range(400):
            acts = [int(np.flatnonzero(m)[-1]) if m.any() else 0 for m in obs["action_mask"]]
            obs, _, term, trunc, _ = venv.step(np.array(acts))
            finished += int(np.sum(term | trunc))
        assert finished >= 1
    finally:
        venv.close()


# ---------------------------------------------------------------- action space


def test_declaration_actions_round_trip_for_every_rank_and_suit() -> None:
    for rank in ("2", "10", "A"):
        for a in range(DECLARE_SINGLE, CLOSE):
            assert declaration_action(declaration_ids(a, rank)) == a
    assert declaration_ids(DECLARE_PAIR + 1, "10") == (parse_card("10H").id,) * 2
    assert declaration_ids(DECLARE_BJ, "5") == (52, 52)
    with pytest.raises(ValueError):
        declaration_ids(PASS, "2")


def test_trump_suit_cards_always_take_the_same_slots() -> None:
    slot_of, id_of, _ = slot_tables("2", "H")
    assert slot_of[parse_card("AH").id] == 47  # top of the trump suit's own block
    assert slot_of[parse_card("3H").id] == 36
    assert slot_of[parse_card("2H").id] == 51  # trump-suit rank card
    assert slot_of[parse_card("2S").id] == 48
    assert slot_of[parse_card("3S").id] == 0 and slot_of[parse_card("AC").id] == 35
    assert slot_of[52] == 52 and slot_of[53] == 53
    slot_of, _, _ = slot_tables("2", "S")
    assert slot_of[parse_card("AS").id] == 47 and slot_of[parse_card("3H").id] == 0
    # a permutation of the 54 card ids, also without a trump suit (two jokers, §5.3)
    for rank, suit in (("7", "D"), ("A", None), ("2", None)):
        slot_of, id_of, _ = slot_tables(rank, suit)
        assert sorted(slot_of.tolist()) == list(range(54))
        assert all(id_of[slot_of[i]] == i for i in range(54))


def test_masks_only_offer_cards_that_complete_a_legal_follow() -> None:
    """Every legal follow can be built card by card, and nothing else can (RULES §6.2)."""
    rng = random.Random(11)
    checked = 0
    for deal in range(6):
        t = Table(deal, starter=deal % 4)
        while not t.is_over:
            if t.kind == "follow" and not t.selected:
                assert t.seat is not None
                v = t.view(t.seat)
                assert v.trump is not None and v.lead is not None
                hand = [0] * 54
                for c in v.hand:
                    hand[c.id] += 1
                shape = shape_of([c.id for c in v.lead], v.trump)
                legal = {tuple(sorted(p)) for p in iter_follows(hand, shape, v.trump)}
                buildable: set[tuple[int, ...]] = set()
                stack: list[list[int]] = [[]]
                while stack and len(buildable) < 5000:
                    sel = stack.pop()
                    if len(sel) == shape.n_cards:
                        buildable.add(tuple(sorted(sel)))
                        continue
                    _set_selection(t, sel)
                    offered = np.flatnonzero(t.action_mask(t.seat))
                    assert DONE not in offered
                    sel_counts = [sel.count(i) for i in range(54)]
                    assert list(offered) == follow_offers(hand, sel_counts, shape, v.trump, False)
                    assert len(offered) > 0, "a dead end: no card completes the follow"
                    for i in offered:
                        if not sel or i >= sel[-1]:  # canonical (sorted) order
                            stack.append(sel + [int(i)])
                _set_selection(t, [])
                assert buildable == legal
                checked += 1
            _random_step(t, rng)
    assert checked > 50


def test_a_lead_is_one_play_suit_and_done_needs_a_card() -> None:
    t = Table(4, starter=0)
    rng = random.Random(0)
    _play_to(t, rng, "lead")
    assert t.seat is not None
    mask = t.action_mask(t.seat)
    assert not mask[DONE]
    v = t.view(t.seat)
    assert v.trump is not None
    first = int(np.flatnonzero(mask[:54])[0])
    t.step(first)
    mask = t.action_mask(t.seat)
    assert mask[DONE]
    ps = v.trump.play_suit
    assert all(ps[i] == ps[first] for i in np.flatnonzero(mask[:54]))
    assert all(ps[i - CLOSE] == ps[first] for i in np.flatnonzero(mask[CLOSE:]) + CLOSE)


def test_a_lead_closes_with_its_last_card_in_one_step() -> None:
    """`CLOSE + id` puts the card down and commits the lead (RULES §6.1): any held card
    leads alone, and a pick (to go on) is offered only while two cards of its play suit
    are left to add, so no decision is offered twice (pick-then-done = close)."""
    rng = random.Random(3)
    leads = multi = 0
    for deal in range(8):
        t = Table(deal, starter=deal % 4)
        while not t.is_over:
            if t.kind == "lead" and t.seat is not None:
                seat = t.seat
                v = t.view(seat)
                assert v.trump is not None
                ps = v.trump.play_suit
                counts = [0] * 54
                for c in v.hand:
                    counts[c.id] += 1
                left = [0] * 5  # cards per play suit still to add
                for i, n in enumerate(counts):
                    left[ps[i]] += n - t.selected.count(i)
                mask = t.action_mask(seat)
                closes = set(np.flatnonzero(mask[CLOSE:]).tolist())
                picks = set(np.flatnonzero(mask[:54]).tolist())
                if not t.selected:
                    assert closes == {i for i in range(54) if counts[i]}
                assert picks == {i for i in closes if left[ps[i]] >= 2}
                assert bool(mask[DONE]) == bool(t.selected)
                if t.selected or rng.random() < 0.5:
                    c = int(rng.choice(sorted(closes)))
                    sel = [*t.selected, c]
                    t.step(CLOSE + c)
                    assert t.kind == "follow" and t.round.current[0][0] == seat
                    led = t.round.current[0][1]
                    # the whole selection was led, or a failed throw's forced part (§6.4)
                    assert set(led) <= set(sel)
                    if len(sel) == 1:
                        assert list(led) == sel
                    leads += 1
                    multi += len(sel) > 1
                elif picks:
                    t.step(int(rng.choice(sorted(picks))))
                else:
                    t.step(CLOSE + int(rng.choice(sorted(closes))))
                continue
            _random_step(t, rng)
    assert leads > 100 and multi > 10


def test_the_bury_is_eight_picks_and_becomes_the_kitty() -> None:
    rng = random.Random(2)
    t = Table(9, starter=1)
    _play_to(t, rng, "bury")
    assert t.seat == 1 and len(t.view(1).hand) == 33
    picks = []
    for _ in range(8):
        a = int(rng.choice(list(np.flatnonzero(t.action_mask(1)))))
        picks.append(a)
        t.step(a)
    v = t.view(1)
    assert v.phase == "play" and len(v.hand) == 25
    assert v.kitty is not None and sorted(c.id for c in v.kitty) == sorted(picks)


def test_illegal_actions_raise_and_change_nothing() -> None:
    t = Table(5)
    assert t.seat is not None
    before = (t.seat, t.kind, len(t.round.actions))
    bad = int(np.flatnonzero(t.action_mask(t.seat) == 0)[0])
    with pytest.raises(ValueError, match="not legal"):
        t.step(bad)
    with pytest.raises(ValueError):
        t.step(N_ACTIONS)
    assert (t.seat, t.kind, len(t.round.actions)) == before


def test_rewards_are_signed_levels_for_each_team() -> None:
    rng = random.Random(8)
    for deal in range(4):
        t = Table(deal, starter=deal % 4, reward_points=0.0)
        _play_to(t, rng, "never")
        res = t.round.result
        assert res is not None
        r = t.rewards()
        assert r[0] == r[2] and r[1] == r[3] and r[0] == -r[1]
        gainer = res.declaring_team if res.gainer == "declarers" else 1 - res.declaring_team
        assert r[gainer] == res.levels_gained
        shaped = Table(deal, starter=deal % 4, reward_points=1.0)
        shaped.round = t.round
        margin = (res.opponents_points - 80) / 80
        attackers = 1 - res.declaring_team
        assert shaped.rewards()[attackers] == pytest.approx(r[attackers] + margin)


def test_strict_tractor_follow_masks_match_the_enumeration() -> None:
    rng = random.Random(3)
    opts = RuleOptions(strict_tractor_follow=True)
    for deal in range(3):
        t = Table(deal, opts)
        _play_to(t, rng, "never")
        assert t.round.result is not None
        _replay_checked(t)  # the engine rejects any illegal play the mask offered


def test_every_masked_play_is_legal_when_replayed_through_the_checked_step() -> None:
    """The table skips the round's own follow checks for masked plays (RULES §6.1-§6.4
    are in the masks); replaying each round through `Round.step` checks every play."""
    rng = random.Random(21)
    throws = 0
    for deal in range(40):
        t = Table(deal, starter=deal % 4)
        _play_to(t, rng, "never")
        _replay_checked(t, starter=deal % 4)
        throws += len(t.round.failed_throws)
    assert throws > 0  # failed throws (§6.4) were among them


def test_the_checked_replay_catches_a_play_the_mask_forbade() -> None:
    """The replay above is a real check: a single the mask forbids (it does not follow
    suit, §6.2), forced through `step_legal_play`, makes the replay raise."""
    rng = random.Random(1)
    for deal in range(30):
        t = Table(deal)
        _play_to(t, rng, "follow")
        if t.is_over or t._lead is None or t._lead.n_cards != 1:
            continue
        seat = t.seat
        assert seat is not None
        mask = t.action_mask(seat)
        forbidden = [i for i in range(54) if t._hand[seat * 54 + i] > 0 and not mask[i]]
        if not forbidden:
            continue
        a = forbidden[0]
        t._play(seat, Play(seat, (CARDS[a],)), (a,), False, True)
        _play_to(t, rng, "never")
        with pytest.raises(IllegalAction, match="RULES §6.2"):
            _replay_checked(t)
        return
    pytest.fail("no follow with a forbidden card in 30 deals")


def test_step_legal_play_refuses_outside_the_play_phase_and_changes_nothing() -> None:
    t = Table(5, starter=0)
    assert t.round.phase != "play"
    before = t.round.actions
    with pytest.raises(IllegalAction, match="RULES §6"):
        t.round.step_legal_play(0, (0,), Play(0, (parse_card("3S"),)))
    assert t.round.actions == before


def test_agents_are_asked_only_when_they_have_a_choice() -> None:
    """With `skip_forced`, no agent step offers one action only."""
    env = shengji_v0.raw_env(starter=None, skip_forced=True)
    rng = random.Random(3)
    steps = 0
    for seed in range(6):
        env.reset(seed=seed)
        for _agent in env.agent_iter():
            obs, _r, term, trunc, _info = env.last()
            if term or trunc:
                env.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            assert len(legal) >= 2, "a forced decision was offered to the agent"
            env.step(int(rng.choice(list(legal))))
            steps += 1
        assert env.table is not None and env.table.forced_steps > 0
    assert steps > 0


@pytest.mark.parametrize("opponents", ["random", "heuristic"])
def test_gymnasium_skip_forced_asks_the_learner_only_for_choices(opponents: str) -> None:
    """The bots' whole actions still go through when the table took forced picks."""
    env = gymnasium.make(ENV_ID, opponents=opponents, seat=None, skip_forced=True)
    for seed in range(6):
        obs, _info = env.reset(seed=seed)
        rng = random.Random(seed)
        terminated = False
        while not terminated:
            legal = np.flatnonzero(obs["action_mask"])
            assert len(legal) >= 2
            obs, _r, terminated, _t, info = env.step(int(rng.choice(list(legal))))
            assert not info.get("illegal_action")
        assert info["result"] is not None


@pytest.mark.parametrize("options", [None, RuleOptions(strict_tractor_follow=True)])
def test_skipping_forced_steps_plays_the_same_round(options: RuleOptions | None) -> None:
    """The same choices at the real decisions give the same round, action for action,
    and the same observations there, whether forced steps are taken by the table
    (`skip_forced`) or by the caller (RULES §6.1-§6.2: the one legal action)."""
    for deal in range(8):
        auto = Table(deal, options, starter=deal % 4, skip_forced=True)
        manual = Table(deal, options, starter=deal % 4)
        rng = random.Random(deal)
        while not auto.is_over:
            seat = auto.seat
            assert seat is not None
            assert manual.seat is not None
            legal = np.flatnonzero(manual.action_mask(manual.seat))
            while len(legal) == 1:  # the caller takes the forced step itself
                manual.step(int(legal[0]))
                assert manual.seat is not None
                legal = np.flatnonzero(manual.action_mask(manual.seat))
            assert manual.seat == seat and manual.kind == auto.kind
            assert np.array_equal(auto.observation(seat), manual.observation(seat))
            assert np.array_equal(auto.action_mask(seat), manual.action_mask(seat))
            a = int(rng.choice(list(legal)))
            auto.step(a)
            manual.step(a)
        while not manual.is_over:  # forced steps may end the round
            legal = np.flatnonzero(manual.action_mask(manual.seat))
            assert len(legal) == 1
            manual.step(int(legal[0]))
        assert auto.round.actions == manual.round.actions
        assert auto.forced_steps > 0


# ---------------------------------------------------------------- honesty (RULES §11)


def _scramble(t: Table, seat: int, rng: random.Random) -> bool:
    """Swap cards between the hidden hands (and the kitty if `seat` cannot see it)."""
    rnd = t.round
    others = [s for s in range(4) if s != seat]
    hands = [list(rnd.hand_counts(s)) for s in range(4)]
    pools: list[list[int]] = [hands[s] for s in others]
    changed = False
    for _ in range(20):
        a, b = rng.sample(range(len(pools)), 2)
        ha, hb = pools[a], pools[b]
        ia = [i for i in range(54) if ha[i]]
        ib = [i for i in range(54) if hb[i]]
        if not ia or not ib:
            continue
        x, y = rng.choice(ia), rng.choice(ib)
        if x == y:
            continue
        ha[x] -= 1
        hb[x] += 1
        hb[y] -= 1
        ha[y] += 1
        changed = True
    kitty = None
    if rnd.phase == "play" and rnd.starter != seat and rnd.kitty:
        k = list(rnd.kitty)
        h = pools[0]
        ids = [i for i in range(54) if h[i] and i != k[0]]
        if ids:
            y = rng.choice(ids)
            h[y] -= 1
            h[k[0]] += 1
            k[0] = y
            kitty = k
            changed = True
    t.round = t.observer.rnd = rnd.with_hidden(hands, kitty=kitty)
    t._resync()
    return changed


@pytest.mark.parametrize("stop", [("declare", 0), ("bury", 0), ("follow", 3), ("lead", 9)])
def test_scrambling_hidden_cards_leaves_the_observation_unchanged(
    stop: tuple[str, int],
) -> None:
    kind, n_tricks = stop
    for deal in range(3):
        a = Table(deal, starter=deal % 4)
        _play_to(a, random.Random(deal), kind, n_tricks)
        if a.is_over:
            continue
        for seat in range(4):
            b = Table(deal, starter=deal % 4)  # the same round, its hidden cards scrambled
            _play_to(b, random.Random(deal), kind, n_tricks)
            before = [b.round.hand(s) for s in range(4) if s != seat]
            assert _scramble(b, seat, random.Random(seat))
            assert [b.round.hand(s) for s in range(4) if s != seat] != before
            np.testing.assert_array_equal(a.observation(seat), b.observation(seat))
            np.testing.assert_array_equal(a.action_mask(seat), b.action_mask(seat))
            # the from-scratch encoding of the scrambled round's view is the same too
            np.testing.assert_array_equal(a.observation(seat), _fresh(b, seat))


def test_observation_blocks_hold_the_hand_and_the_played_cards() -> None:
    rng = random.Random(4)
    t = Table(12, starter=2)
    _play_to(t, rng, "lead", 5)
    assert t.seat is not None
    seat = t.seat
    v = t.view(seat)
    obs = t.observation(seat)
    o = OBS_OFFSETS
    assert obs[o["hand"] : o["hand"] + 54].sum() == len(v.hand)
    played = sum(len(c) for tr in v.tricks for _, c in tr.plays)
    total_played = sum(obs[o[f"played_{n}"] : o[f"played_{n}"] + 54].sum()
                       for n in ("me", "left", "partner", "right"))
    assert total_played == played
    assert obs[o["phase"] + 3] == 1.0  # play
    unseen = obs[o["unseen"] : o["unseen"] + 54].sum()
    kitty = 8 if v.kitty is not None else 0
    assert unseen == 108 - len(v.hand) - played - kitty


def _fresh(t: Table, seat: int) -> np.ndarray:
    """`encode` from scratch of `seat`'s view, with its selection and bury count."""
    from shengji.env.encoding import Tracker, encode

    acting = seat == t.seat
    left = 8 - len(t.selected) if acting and t.kind == "bury" else 0
    return encode(t.view(seat), t.selected if acting else (), Tracker(seat), left)


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"strict_tractor_follow": True, "throw_tractors": "off"},
        {"no_trump_keeps_rank": True, "gap_tractors": "trumps_only",
         "joker_pairs": "red_over_black"},
    ],
)
def test_incremental_observations_equal_a_fresh_encoding_at_random_points(
    options: dict[str, object],
) -> None:
    """The fast path (state updated from events, one gather per observation) equals
    `encode(view)` for all four seats at random points of random deals: declaration
    offers, each bury pick, leads and follows being built, failed throws, the end.
    Seats act card by card through the mask, or with whole engine actions (`act`)."""
    opts = RuleOptions.from_json(options)
    compared = 0
    kinds: set[str] = set()
    flipped = no_trump_suit = 0
    for deal in range(6):
        rng = random.Random(100 + deal)
        always_pass = deal == 5  # nobody declares: the kitty is turned up (§3.5)
        jokers_only = deal == 4
        levels = (rng.choice(["2", "7", "K", "A"]), rng.choice(["2", "10", "A"]))
        t = Table(1000 + deal, opts, starter=rng.randrange(4), levels=levels)
        if jokers_only:  # a deal (found by search) where a seat declares two jokers
            t = Table(1002, opts, starter=2)
        while True:
            if t.is_over or rng.random() < 0.25:
                for seat in range(4):
                    np.testing.assert_array_equal(
                        t.observation(seat), _fresh(t, seat),
                        err_msg=f"deal {deal} seat {seat} {t.kind} after "
                        f"{len(t.round.actions)} actions, selected {t.selected}",
                    )
                compared += 1
                kinds.add(t.kind if not t.selected else t.kind + "+selected")
            if t.is_over:
                break
            assert t.seat is not None
            if always_pass and t.kind == "declare":
                t.step(PASS)
            elif jokers_only and t.kind == "declare":  # a no-trump-suit round (§5.3)
                m = t.action_mask(t.seat)
                t.step(DECLARE_RJ if m[DECLARE_RJ] else DECLARE_BJ if m[DECLARE_BJ] else PASS)
            elif not t.selected and t.kind != "declare" and rng.random() < 0.2:
                t.act(Play(t.seat, t.view(t.seat).random_play(rng))
                      if t.kind != "bury" else Bury(t.seat, t.view(t.seat).random_play(rng)))
            else:
                _random_step(t, rng)
        flipped += bool(t.round.kitty_flip)
        assert t.round.trump is not None
        no_trump_suit += t.round.trump.suit is None
    assert compared > 150
    assert {"declare", "bury", "bury+selected", "lead", "follow", "over"} <= kinds
    assert flipped >= 1 and no_trump_suit >= 1  # the kitty chose; jokers were declared (§5.3)


def test_a_copied_or_pickled_table_keeps_its_observations_in_step() -> None:
    """A deep copy or pickle of a table mid-deal (for search) has its own observation
    state, which stays equal to `encode` of its views as both tables play on."""
    import copy
    import pickle

    rng = random.Random(5)
    t = Table(17, starter=2)
    for _ in range(60):
        _random_step(t, rng)
    copies = [copy.deepcopy(t), pickle.loads(pickle.dumps(t))]
    before = t.observation(0)
    for c in copies:
        np.testing.assert_array_equal(c.observation(0), before)
        for _ in range(25):
            _random_step(c, rng)
        for seat in range(4):
            np.testing.assert_array_equal(c.observation(seat), _fresh(c, seat))
    np.testing.assert_array_equal(t.observation(0), before)  # the original is untouched
    for _ in range(25):
        _random_step(t, rng)
    for seat in range(4):
        np.testing.assert_array_equal(t.observation(seat), _fresh(t, seat))


def _counts_of(ids: list[int]) -> list[int]:
    out = [0] * 54
    for i in ids:
        out[i] += 1
    return out


def test_table_bookkeeping_matches_the_round_and_arrays_are_the_callers() -> None:
    """The table's own copies of the hands (the count buffers the masks are built from)
    and of the selection stay equal to the round's at every step, whether seats act card
    by card or with whole actions; `mask_bits` and `mask_bytes` are the mask array's
    bytes; `observation_into` fills a caller's buffer with the observation; and the
    arrays handed out are new ones that later steps do not change."""
    rng = random.Random(9)
    checked = 0
    for deal in range(3):
        t = Table(300 + deal, starter=deal % 4)
        kept: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = []
        while not t.is_over:
            assert t.seat is not None
            for s in range(4):
                assert bytes(t._hand[s * 54:(s + 1) * 54]) == bytes(t.round.hand_counts(s))
            assert bytes(t._sel) == bytes(_counts_of(t.selected))
            mask = t.action_mask(t.seat)
            assert mask.flags.writeable and mask.dtype == np.int8
            assert int.from_bytes(mask.tobytes(), "little") == t.mask_bits()
            assert mask.tobytes() == t.mask_bytes()
            out = np.full(OBS_SIZE, -1.0, dtype=np.float32)
            assert t.observation_into(t.seat, out) is out
            obs = t.observation(t.seat)
            np.testing.assert_array_equal(out, obs)
            kept.append((obs, obs.copy(), mask, mask.copy()))
            if not t.selected and t.kind in ("lead", "follow") and rng.random() < 0.3:
                t.act(Play(t.seat, t.view(t.seat).random_play(rng)))
            else:
                _random_step(t, rng)
            checked += 1
        assert t.mask_bits() == 0 and t.mask_bytes() == bytes(N_ACTIONS)
        for obs, obs_then, mask, mask_then in kept:  # nothing handed out was reused
            np.testing.assert_array_equal(obs, obs_then)
            np.testing.assert_array_equal(mask, mask_then)
    assert checked > 300


def test_agent_iter_keeps_pettingzoo_iterator_contract() -> None:
    """`raw_env.agent_iter` (compiled with the env) counts down `max_iter`, stops when
    every agent is removed, and each `iter()` of it starts afresh, as PettingZoo's does."""
    env = shengji_v0.raw_env()
    env.reset(seed=1)
    agents = env.agent_iter(max_iter=3)
    seen = []
    for agent in agents:
        assert agent == env.agent_selection
        seen.append(agent)
        obs, *_ = env.last()
        env.step(int(np.flatnonzero(obs["action_mask"])[0]))
    assert len(seen) == 3
    assert len(list(zip(range(2), agents, strict=False))) == 2  # a fresh countdown per iter()
    env.agents = []
    assert list(env.agent_iter()) == []


def test_a_mid_round_env_copies_and_pickles_with_its_state() -> None:
    """`reset` binds `last`/`step` to the round's stepper: a deep copy or a pickle of
    the env steps its own table, not the original's."""
    import copy
    import pickle

    env = shengji_v0.raw_env()
    env.reset(seed=3)
    for _ in range(40):
        obs, *_ = env.last()
        env.step(int(np.flatnonzero(obs["action_mask"])[0]))
    for twin in (copy.deepcopy(env), pickle.loads(pickle.dumps(env))):
        a, b = env.last()[0], twin.last()[0]
        assert a is not None and b is not None
        np.testing.assert_array_equal(a["observation"], b["observation"])
        twin.step(int(np.flatnonzero(b["action_mask"])[-1]))
        assert twin.table is not env.table
        assert env.last()[0]["observation"].tobytes() == a["observation"].tobytes()


def test_env_observations_are_new_arrays_the_agent_may_keep() -> None:
    env = shengji_v0.raw_env()
    env.reset(seed=4)
    first = env.observe(env.agent_selection)
    saved = {k: v.copy() for k, v in first.items()}
    for _ in range(30):
        obs, *_ = env.last()
        legal = np.flatnonzero(obs["action_mask"])
        obs["action_mask"][:] = 0  # the agent's own array: scribbling on it changes nothing
        env.step(int(legal[0]))
    for k in saved:
        np.testing.assert_array_equal(first[k], saved[k])


def test_observer_follows_a_round_from_its_start_and_masks_are_per_seat() -> None:
    from shengji.env.observer import Observer

    t = Table(2, starter=0)
    with pytest.raises(ValueError, match="from its start"):
        Observer(t.round)
    assert t.seat is not None
    for seat in range(4):
        if seat != t.seat:
            assert not t.action_mask(seat).any()
    assert t.action_mask(t.seat).any()


def test_incremental_observation_equals_a_fresh_encoding_while_building() -> None:
    from shengji.env.encoding import Tracker, encode

    rng = random.Random(6)
    t = Table(21, starter=3)
    seen = 0
    while not t.is_over and seen < 40:
        assert t.seat is not None
        if t.selected or t.kind == "bury":
            left = 8 - len(t.selected) if t.kind == "bury" else 0
            fresh = encode(t.view(t.seat), t.selected, Tracker(t.seat), left)
            np.testing.assert_array_equal(t.observation(t.seat), fresh)
            seen += 1
        _random_step(t, rng)
    assert seen >= 8


def test_a_seat_that_did_not_follow_suit_shows_void_in_every_observation() -> None:
    from shengji.env.encoding import suit_block

    rng = random.Random(13)
    for deal in range(8):
        t = Table(deal, starter=deal % 4)
        _play_to(t, rng, "lead", 12)
        if t.is_over or t.seat is None:
            continue
        v = t.view(t.seat)
        assert v.trump is not None
        ps = v.trump.play_suit
        shown = set()
        for trick in v.tricks:
            lead = trick.plays[0][1]
            suit = ps[lead[0].id]
            for seat, cards in trick.plays[1:]:
                if sum(1 for c in cards if ps[c.id] == suit) < len(lead):
                    shown.add((seat, suit))
        if not shown:
            continue
        blocks = suit_block(v.trump)
        for me in range(4):
            obs = t.observation(me)
            void = obs[OBS_OFFSETS["void"] : OBS_OFFSETS["void"] + 20].reshape(4, 5)
            want = np.zeros((4, 5), dtype=np.float32)
            for seat, suit in shown:
                want[(seat - me) % 4, blocks[suit]] = 1.0
            np.testing.assert_array_equal(void, want)
        return
    pytest.fail("no deal showed a void")
