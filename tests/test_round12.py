"""The round at larger tables and in friends mode (RULES §12.1, §12.2, §12.4)."""

from __future__ import annotations

import json
import random

import pytest

from conftest import C
from shengji.actions import Call, Play, action_from_json
from shengji.cards import N_IDS
from shengji.errors import IllegalAction, MalformedAction
from shengji.options import RuleOptions
from shengji.round import Round
from shengji.vocab import Phase

#: §12.1's tables: every player count with its default decks, and two-deck tables
PAIRS = [(4, 2), (5, 2), (6, 3), (7, 3), (8, 4), (9, 4), (10, 5), (6, 2), (8, 2)]


def _tables() -> list[tuple[int, int, str]]:
    out = []
    for n, d in PAIRS:
        for mode in ("teams", "friends"):
            if mode == "teams" and n % 2:
                continue  # §12.1: teams need an even table
            out.append((n, d, mode))
    return out


def _views_json(rnd: Round) -> str:
    return json.dumps([rnd.view(s).to_json() for s in [None, *range(rnd.n_players)]])


@pytest.mark.parametrize(("n", "d", "mode"), _tables())
def test_random_rounds_play_to_the_end_with_every_card_accounted_for(
    n: int, d: int, mode: str
) -> None:
    """RULES §12.1: 54·d cards, equal hands, the kitty's size, tricks of N plays; a replay
    of the same actions gives the same round (views and result)."""
    opts = RuleOptions(players=n, decks=d, mode=mode)
    for seed in range(2):
        rnd = Round(seed, opts) if mode == "friends" else Round(
            seed, opts, trump_rank="2", starter=seed % n, declaring_team=seed % n % 2
        )
        assert (rnd.n_players, rnd.n_decks, rnd.n_kitty) == (n, d, opts.n_kitty)
        assert len(rnd.deck) == 54 * d and rnd.n_hand * n + rnd.n_kitty == 54 * d
        rng = random.Random(seed)
        while not rnd.is_over:
            d_ = rnd.decision()
            if d_.phase is Phase.PLAY and not rnd.current:
                assert len(set(rnd.hand_sizes)) == 1  # every seat played every trick
            if d_.phase is Phase.KITTY:
                assert set(rnd.hand_sizes) == {rnd.n_hand, rnd.n_hand + rnd.n_kitty}
                assert len(rnd.kitty_taken) == rnd.n_kitty
            rnd.apply(rnd.random_action(rng))
            rnd.counts_check()
            assert len(rnd.view(None).hand_sizes) == n
        assert len(rnd.kitty) == rnd.n_kitty
        assert all(len(t.plays) == n for t in rnd.tricks)
        result = rnd.result
        assert result is not None
        if mode == "friends":
            assert len(rnd.calls) == n // 2 - 1
            assert rnd.starter not in rnd.friends and len(set(rnd.friends)) == len(rnd.friends)
            assert len(result.levels_after) == n and result.declaring_team == -1
            sides = rnd.sides()
            assert sides.count("leader") == 1 and None not in sides
            assert [s for s in range(n) if sides[s] == "friend"] == sorted(rnd.friends)
        else:
            assert len(result.levels_after) == 2
            assert rnd.calls == () and rnd.view(0).to_json().get("calls") is None
        # the same actions again: the same round
        again = Round(seed, opts) if mode == "friends" else Round(
            seed, opts, trump_rank="2", starter=seed % n, declaring_team=seed % n % 2
        )
        for a in rnd.actions:
            again.apply(a)
        assert _views_json(again) == _views_json(rnd)
        assert again.result == result


def test_teams_at_six_seats_are_the_seats_of_each_parity_and_rotate_by_two() -> None:
    """RULES §12.2: teams by seat parity; the declaring team keeps the deal with
    `(starter + 2) % N`, the opponents take it with `(starter + 1) % N`."""
    opts = RuleOptions(players=6, decks=2)
    for seed in range(6):
        rnd = Round(seed, opts, trump_rank="2", starter=5, declaring_team=1)
        rng = random.Random(seed)
        while not rnd.is_over:
            rnd.apply(rnd.random_action(rng))
        r = rnd.result
        assert r is not None
        assert r.next_starter == (1 if r.gainer == "declarers" else 0)
        assert r.next_declaring_team == r.next_starter % 2
        assert [rnd.on_declaring_side(s) for s in range(6)] == [s % 2 == 1 for s in range(6)]


# ---------------------------------------------------------------- friends: hand-built

FOUR_FRIENDS = RuleOptions(players=4, decks=2, mode="friends")


def _four(kitty: str = "4D 5D 6D 7D 8D 9D 2C 3H") -> Round:
    """Four players, friends mode (one call), seat 0 leads; trump ♠, rank 2."""
    hands = [C("3C 4C 5C"), C("KC 6C AH"), C("8C 9C 7H"), C("QC JC 3D")]
    return Round.from_position(
        hands, kitty=C(kitty), trump_suit="S", leader=0, declaring_team=0,
        options=FOUR_FRIENDS,
    )


def _play(rnd: Round, seat: int, cards: str) -> list[str]:
    return [e.kind for e in rnd.apply(Play(seat, tuple(C(cards))))]


def test_a_friend_joins_when_the_trick_ends_and_brings_their_tricks() -> None:
    """RULES §12.4: the player of the called copy joins when that trick ends, everyone
    sees it; points count by the side each player is on at the end."""
    rnd = _four()
    assert rnd.decision().phase is Phase.CALL and rnd.decision().seat == 0
    events = rnd.apply(Call(0, ((C("AH")[0], 1),)))
    assert [e.kind for e in events] == ["called"]
    _play(rnd, 0, "3C"), _play(rnd, 1, "KC"), _play(rnd, 2, "8C"), _play(rnd, 3, "QC")
    assert rnd.tricks[-1].winner == 1 and rnd.opponents_points == 10  # seat 1: not known
    _play(rnd, 1, "6C"), _play(rnd, 2, "9C"), _play(rnd, 3, "JC"), _play(rnd, 0, "4C")
    _play(rnd, 3, "3D"), _play(rnd, 0, "5C")
    assert _play(rnd, 1, "AH") == ["played"]
    for seat in [None, 0, 1, 2, 3]:  # played, but the trick has not ended: no join yet
        v = rnd.view(seat)
        assert v.friends == () and v.calls[0][2] is None and v.sides[1] is None
    kinds = _play(rnd, 2, "7H")
    assert kinds[:3] == ["played", "trick_won", "friend_joined"] and kinds[-1] == "round_over"
    assert rnd.friends == (1,)
    assert rnd.view(2).calls == ((C("AH")[0], 1, 1, False),)
    assert rnd.view(None).sides == ("leader", "friend", "opponent", "opponent")
    r = rnd.result
    assert r is not None
    # seat 1's 10 points came with it to the leader's side; seat 3 won the last trick
    # (the 5♣ in it) and the kitty's 5♦ counts twice (§8.1)
    assert r.opponents_points == 5 + 10 and r.kitty_points == 10
    assert r.gainer == "declarers" and r.levels_gained == 2
    assert r.levels_after == ("4", "4", "2", "2") and r.next_starter == 1


def test_the_join_event_names_the_seat_and_the_call() -> None:
    rnd = _four()
    rnd.apply(Call(0, ((C("AH")[0], 1),)))
    for seat, cards in [(0, "3C"), (1, "KC"), (2, "8C"), (3, "QC"), (1, "AH"), (2, "7H"),
                        (3, "JC")]:
        _play(rnd, seat, cards)
    events = rnd.apply(Play(0, tuple(C("4C"))))
    joined = [e for e in events if e.kind == "friend_joined"]
    assert len(joined) == 1 and joined[0].to_json() == {
        "type": "friend_joined", "seat": 1, "call": 0, "card": "AH", "ordinal": 1, "trick": 1,
    }


def test_the_leader_playing_the_called_card_spends_the_call() -> None:
    """RULES §12.4: if the leader plays it, the call is spent and the side stays smaller."""
    rnd = _four()
    rnd.apply(Call(0, ((C("3C")[0], 1),)))
    _play(rnd, 0, "3C"), _play(rnd, 1, "KC"), _play(rnd, 2, "8C")
    events = rnd.apply(Play(3, tuple(C("QC"))))
    assert [e.kind for e in events] == ["played", "trick_won", "call_spent"]
    assert rnd.friends == () and rnd.view(1).calls == ((C("3C")[0], 1, 0, True),)


def test_a_call_on_a_copy_in_the_kitty_is_counted_honestly() -> None:
    """§12.4 with the kitty holding one of two A♥: the 1st A♥ played is the other one, so
    a call of the 1st makes its player a friend; a call of the 2nd can never be met and
    is spent, which nobody but the leader can know before the round ends (§11)."""
    kitty = "AH 5D 6D 7D 8D 9D 2C 3H"
    first = _four(kitty)
    first.apply(Call(0, ((C("AH")[0], 1),)))
    second = _four(kitty)
    second.apply(Call(0, ((C("AH")[0], 2),)))
    plays = [(0, "3C"), (1, "KC"), (2, "8C"), (3, "QC"), (1, "6C"), (2, "9C"), (3, "JC"),
             (0, "4C"), (3, "3D"), (0, "5C"), (1, "AH"), (2, "7H")]
    for k, (seat, cards) in enumerate(plays):
        if k == len(plays) - 1:
            # every A♥ outside the kitty is out; the 2nd still shows as not yet played
            assert second.view(None).calls == ((C("AH")[0], 2, None, False),)
            assert second.view(2).calls == ((C("AH")[0], 2, None, False),)
        _play(first, seat, cards), _play(second, seat, cards)
    assert first.friends == (1,)
    assert second.friends == () and second.view(None).calls == ((C("AH")[0], 2, None, True),)
    assert second.view(None).sides == ("leader", "opponent", "opponent", "opponent")


def test_two_calls_met_by_one_player_make_one_friend() -> None:
    """§12.4 at six players (two calls): one player plays both called copies; they join
    once and the second call is spent."""
    opts = RuleOptions(players=6, decks=2, mode="friends")
    hands = [C("3C 4C"), C("5C 6C"), C("AH KH"), C("7C 8C"), C("9C 10C"), C("JC QC")]
    rnd = Round.from_position(hands, kitty=C("3D 4D 5D 6D 7D 8D"), trump_suit="S",
                              leader=0, declaring_team=0, options=opts)
    rnd.apply(Call(0, ((C("AH")[0], 1), (C("KH")[0], 1))))
    for seat, cards in [(0, "3C"), (1, "5C"), (2, "AH"), (3, "7C"), (4, "9C")]:
        _play(rnd, seat, cards)
    assert "friend_joined" in _play(rnd, 5, "JC")
    for seat, cards in [(5, "QC"), (0, "4C"), (1, "6C"), (2, "KH"), (3, "8C")]:
        _play(rnd, seat, cards)
    assert "call_spent" in _play(rnd, 4, "10C")
    assert rnd.friends == (2,)
    assert rnd.view(None).calls == ((C("AH")[0], 1, 2, False), (C("KH")[0], 1, 2, True))
    assert rnd.sides() == ("leader", "opponent", "friend", "opponent", "opponent", "opponent")
    r = rnd.result
    assert r is not None and len(r.levels_after) == 6


@pytest.mark.parametrize(
    ("seat", "calls", "words"),
    [
        (0, [("BJ", 1)], "joker"),
        (0, [("2C", 1)], "trump rank"),
        (0, [("AS", 0)], "ordinal"),
        (0, [("AS", 3)], "ordinal"),
        (0, [("AS", 1), ("KH", 1)], "calls 1 friend, not 2"),
        (0, [], "calls 1 friend, not 0"),
        (1, [("AS", 1)], "only the leader"),
    ],
)
def test_bad_calls_are_refused_naming_the_rule_and_change_nothing(
    seat: int, calls: list[tuple[str, int]], words: str
) -> None:
    rnd = _four()
    before = _views_json(rnd)
    call = Call(seat, tuple((C(c)[0], j) for c, j in calls))
    with pytest.raises(IllegalAction, match=r"RULES §12\.4") as err:
        rnd.apply(call)
    assert words in str(err.value)
    assert _views_json(rnd) == before and rnd.actions == ()
    with pytest.raises(IllegalAction, match=r"RULES §6: .*\(now: call\)"):  # the call first
        rnd.apply(Play(0, tuple(C("3C"))))


def test_a_call_twice_of_one_copy_is_refused() -> None:
    opts = RuleOptions(players=6, decks=2, mode="friends")
    rnd = Round.from_position([C(c) for c in ["3C", "4C", "5C", "6C", "7C", "8C"]],
                              kitty=C("3D 4D 5D 6D 7D 8D"),
                              trump_suit="S", leader=0, declaring_team=0, options=opts)
    with pytest.raises(IllegalAction, match=r"RULES §12\.4: AS #1 is called twice"):
        rnd.apply(Call(0, ((C("AS")[0], 1), (C("AS")[0], 1))))


def test_a_call_has_a_compact_json_form() -> None:
    call = Call(2, ((C("AS")[0], 2), (C("KH")[0], 1)))
    assert call.to_json() == ["call", 2, [["AS", 2], ["KH", 1]]]
    assert action_from_json(call.to_json(), players=6) == call
    for bad in (["call", 0, [["AS"]]], ["call", 0, [["AS", "2"]]], ["call", 0, "AS"],
                ["call", 0, [["AS KH", 1]]], ["call", 7, [["AS", 1]]]):
        with pytest.raises(MalformedAction):
            action_from_json(bad, players=6)


# ---------------------------------------------------------------- hidden information


@pytest.mark.parametrize(("n", "d"), [(6, 2), (6, 3), (8, 4), (5, 2)])
def test_no_view_says_who_holds_a_called_card_before_it_is_played(n: int, d: int) -> None:
    """RULES §11, §12.4: the calls and joins are public, the holder of a called card is
    not. Moving an unplayed called copy from one hand to another changes no view but
    those two seats' own hands."""
    opts = RuleOptions(players=n, decks=d, mode="friends")
    checked = 0
    for seed in range(3):
        rnd = Round(seed, opts)
        rng = random.Random(seed)
        while not rnd.is_over:
            if rnd.phase is Phase.PLAY and rnd.current == ():
                leader = rnd.starter
                for (cid, _), by in zip(rnd.calls, rnd.call_by, strict=True):
                    holders = [s for s in range(n) if s != leader
                               and rnd.hand_counts(s)[cid]]
                    others = [s for s in range(n) if s != leader and s not in holders]
                    if by is not None or not holders or not others:
                        continue
                    h, o = holders[0], others[0]
                    x = next(i for i in range(N_IDS) if rnd.hand_counts(o)[i] and i != cid)
                    hands = [list(rnd.hand_counts(s)) for s in range(n)]
                    hands[h][cid] -= 1
                    hands[h][x] += 1
                    hands[o][x] -= 1
                    hands[o][cid] += 1
                    moved = rnd.with_hidden(hands)
                    for seat in [None, *range(n)]:
                        if seat in (h, o):
                            assert (moved.view(seat).public_json()
                                    == rnd.view(seat).public_json())
                        else:
                            assert moved.view(seat).to_json() == rnd.view(seat).to_json()
                    v = rnd.view(None)
                    assert all(s in ("leader", "friend", None) for s in v.sides)
                    assert v.sides[h] is None or h in rnd.friends
                    checked += 1
            rnd.apply(rnd.random_action(rng))
    assert checked > 0


def test_views_show_a_join_to_every_seat_alike() -> None:
    """§11: what every seat sees of the calls, joins and sides is the same."""
    opts = RuleOptions(players=6, decks=2, mode="friends")
    rnd = Round(3, opts)
    rng = random.Random(3)
    while not rnd.is_over:
        rnd.apply(rnd.random_action(rng))
        views = [rnd.view(s).public_json() for s in [None, *range(6)]]
        assert all(v == views[0] for v in views)
        if rnd.phase is not Phase.DEAL and rnd.phase is not Phase.DECLARE:
            assert len(views[0]["sides"]) == 6


@pytest.mark.parametrize(("n", "d", "mode"), [(6, 2, "friends"), (8, 2, "teams"), (5, 2, "friends"),
                                              (6, 3, "friends"), (8, 4, "teams")])
def test_clones_and_worlds_work_at_n_seats(n: int, d: int, mode: str) -> None:
    """`clone`, `with_hidden` and `from_view` at N seats (RULES §12.1): a clone goes on
    like its original; the world a view is rebuilt from, with the true hidden cards, is
    the same position (views) and plays on the same."""
    opts = RuleOptions(players=n, decks=d, mode=mode)
    rnd = Round(1, opts) if mode == "friends" else Round(
        1, opts, trump_rank="2", starter=1, declaring_team=1
    )
    rng = random.Random(1)
    checked = 0
    while not rnd.is_over:
        if rnd.phase in (Phase.PLAY, Phase.CALL, Phase.KITTY) and rng.random() < 0.2:
            seat = rnd.decision().seat
            assert seat is not None
            twin = rnd.clone()
            hands = [list(rnd.hand_counts(s)) for s in range(n)]
            same = rnd.with_hidden(hands)
            kitty = rnd.kitty if rnd.phase is Phase.PLAY else rnd.kitty_taken
            world = Round.from_view(rnd.view(seat), hands, kitty)
            world.counts_check()
            assert world.view(seat).to_json() == rnd.view(seat).to_json()
            assert world.view(None).public_json() == rnd.view(None).public_json()
            action = rnd.random_action(random.Random(checked))
            for r in (twin, same, world):
                r.apply(action)
            rnd.apply(action)
            for r in (twin, same):
                assert _views_json(r) == _views_json(rnd)
            assert world.view(seat).to_json() == rnd.view(seat).to_json()
            checked += 1
        else:
            rnd.apply(rnd.random_action(rng))
    assert checked > 3


@pytest.mark.parametrize(("n", "d", "mode"), [(6, 2, "friends"), (5, 2, "friends"),
                                              (8, 2, "teams"), (7, 3, "friends")])
def test_random_agents_play_any_table_through_the_driver(n: int, d: int, mode: str) -> None:
    """The random bot plays every table and both modes from its views alone (§11): it
    declares, buries `n_kitty` cards, calls friends (§12.4) and plays every trick."""
    from shengji.bots import make_agent
    from shengji.driver import play_round

    opts = RuleOptions(players=n, decks=d, mode=mode)
    for seed in range(2):
        rnd = Round(seed, opts) if mode == "friends" else Round(
            seed, opts, trump_rank="2", starter=0, declaring_team=0
        )
        play_round(rnd, [make_agent("random", 10 * seed + s) for s in range(n)])
        assert rnd.result is not None
        for seat in range(n):  # every seat played its whole hand
            assert sum(len(ids) for t in rnd.tricks for s, ids in t.plays if s == seat) == (
                rnd.n_hand
            )
        assert any(type(a) is Call for a in rnd.actions) == (mode == "friends")
