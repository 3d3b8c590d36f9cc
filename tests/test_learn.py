"""The Deep Monte-Carlo learner: candidates, the network, the dmc agent kind, training."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("gymnasium")

from helpers import at_the_kitty  # noqa: E402
from shengji.actions import Play  # noqa: E402
from shengji.arena import run_pairing  # noqa: E402
from shengji.bots import make_agent  # noqa: E402
from shengji.bots.base import is_agent_kind  # noqa: E402
from shengji.driver import advance, play_round, step  # noqa: E402
from shengji.env.encoding import OBS_SIZE, Tracker  # noqa: E402
from shengji.learn.agent import DMCAgent  # noqa: E402
from shengji.learn.features import (  # noqa: E402
    ACTION_SIZE,
    BURY_COL,
    DECLARE_COL,
    FEATURE_SIZE,
    FEATURE_VERSION,
    PASS_COL,
    decision_rows,
    play_candidates,
)
from shengji.learn.model import QNet, load_checkpoint, save_checkpoint  # noqa: E402
from shengji.learn.train import TrainConfig, play_deals, train  # noqa: E402
from shengji.round import Round  # noqa: E402


def _to_play(seed: int, n_steps: int) -> Round:
    rnd = Round(seed, trump_rank="2", starter=seed % 4, declaring_team=seed % 2)
    agents = [make_agent("random", seed * 4 + s) for s in range(4)]
    while rnd.decision().phase != "play":
        step(rnd, agents)
    for _ in range(n_steps):
        step(rnd, agents)
    return rnd


@pytest.fixture(scope="module")
def ckpt(tmp_path_factory: pytest.TempPathFactory) -> Path:
    torch.manual_seed(0)
    path = tmp_path_factory.mktemp("dmc") / "init.pt"
    save_checkpoint(path, QNet((64, 32)), deals=0, seconds=0.0, history=[], config={})
    return path


def test_every_candidate_is_a_legal_play_and_leads_include_units() -> None:
    rng = random.Random(1)
    leads = follows = 0
    for seed in range(6):
        rnd = _to_play(seed, 0)
        for _ in range(60):
            if rnd.is_over:
                break
            seat = rnd.decision().seat
            assert seat is not None
            v = rnd.view(seat)
            plays = play_candidates(v, rng, cap=16)
            assert plays and len(set(plays)) == len(plays)
            assert len(plays) <= 16 or v.lead is None
            from shengji.cards import CARDS

            for p in plays:
                assert v.is_legal(tuple(CARDS[i] for i in p)), p
            if v.lead is None:
                leads += 1
                hand_ids = {c.id for c in v.hand}
                assert {p[0] for p in plays if len(p) == 1} == hand_ids  # every single
            else:
                follows += 1
            rnd.apply(Play(seat, tuple(CARDS[i] for i in rng.choice(plays))))
    assert leads > 10 and follows > 30


def test_score_equals_the_network_on_concatenated_rows() -> None:
    torch.manual_seed(0)
    net = QNet((32, 16))
    state = torch.randn(OBS_SIZE)
    acts = torch.randn(5, ACTION_SIZE)
    rows = torch.cat([state.expand(5, -1), acts], dim=1)
    assert rows.shape[1] == FEATURE_SIZE
    assert torch.allclose(net.score(state, acts), net(rows), atol=1e-5)


def test_dmc_kind_plays_whole_rounds_from_a_checkpoint(ckpt: Path) -> None:
    kind = f"dmc:{ckpt}"
    assert is_agent_kind(kind) and not is_agent_kind("dmc:")
    rnd = Round(3, trump_rank="2", starter=0, declaring_team=0)
    play_round(rnd, [make_agent(kind, s) for s in range(4)])
    assert rnd.result is not None
    rnd.counts_check()


def test_a_version_3_agent_declares_and_buries_by_its_network(ckpt: Path) -> None:
    """Feature version 3: the network answers declaration offers (RULES §3.3) and makes
    the bury (§4) as eight picks, every one legal; a version 2 network leaves both to
    the heuristic."""
    from shengji.actions import Bury, Declare

    for seed in (4, 5):
        rnd = Round(seed)  # a first round: declarations decide the trump
        agents = [DMCAgent(ckpt, seed=s) for s in range(4)]
        seen: list[object] = []
        while not rnd.is_over:
            for action, _ in advance(rnd, agents):
                seen.append(action)
        rnd.counts_check()
        kinds = [a.model.features for a in agents]
        assert kinds == [3] * 4
        rows = [r for a in agents for r in a.decided]
        flags = torch.stack(rows)[:, OBS_SIZE + DECLARE_COL : OBS_SIZE + BURY_COL + 1]
        assert (flags[:, 2] == 1).sum() == 8  # the starter's picks, each one row
        # every declaration made was the network's answer to an offer (a declined offer
        # in the deal is not an action: RULES §3.3)
        declared = sum(isinstance(a, Declare) for a in seen)
        assert (flags[:, 0] == 1).sum() >= declared >= 1
        assert ((flags[:, 1] == 1) <= (flags[:, 0] == 1)).all()  # a pass answers an offer
        assert any(isinstance(a, Bury) for a in seen)
    torch.manual_seed(1)
    v2 = DMCAgent(QNet((16,), features=2), seed=1)
    rnd = at_the_kitty(3)
    view = rnd.view(rnd.decision().seat)
    assert v2.act(view) == v2.heuristic.act(view) and not v2.decided


def test_declarations_and_the_bury_are_chosen_from_the_view_only(ckpt: Path) -> None:
    """RULES §11: scrambling the cards a seat cannot see changes neither its bury nor
    its answer to a declaration offer."""
    from helpers import at_the_kitty, deal_asks_in, scramble

    rng = random.Random(2)
    for seed in (1, 2):
        rnd = at_the_kitty(seed)
        seat = rnd.decision().seat
        assert seat is not None
        other = scramble(rnd, seat, rng)
        assert other.view(seat) == rnd.view(seat)
        assert any(other.hand_counts(s) != rnd.hand_counts(s) for s in range(4))
        assert (DMCAgent(ckpt, seed=seed).act(rnd.view(seat))
                == DMCAgent(ckpt, seed=seed).act(other.view(seat)))
    asked = 0
    for at, seat in deal_asks_in(Round(6), [make_agent("heuristic", s) for s in range(4)]):
        if not at.view(seat).legal_declarations():
            continue
        other = scramble(at, seat, rng)
        assert other.view(seat) == at.view(seat)
        assert (DMCAgent(ckpt, seed=seat).act(at.view(seat))
                == DMCAgent(ckpt, seed=seat).act(other.view(seat)))
        asked += 1
    assert asked >= 1


def test_not_a_checkpoint_is_a_clear_error(tmp_path: Path) -> None:
    bad = tmp_path / "x.pt"
    bad.write_text("hello")
    with pytest.raises(ValueError, match="not a shengji DMC checkpoint"):
        load_checkpoint(bad)
    with pytest.raises(ValueError, match="no checkpoint"):
        make_agent(f"dmc:{tmp_path / 'missing.pt'}", 0)


def test_the_agent_decides_from_its_view_only(ckpt: Path) -> None:
    """Scrambling the other hands (RULES §11) changes nothing the agent chooses."""
    for seed in range(4):
        rnd = _to_play(seed, 5)
        seat = rnd.decision().seat
        assert seat is not None
        a, b = [s for s in range(4) if s != seat][:2]
        hands = [list(rnd.hand_counts(s)) for s in range(4)]
        ha, hb = hands[a], hands[b]
        x = next(i for i in range(54) if ha[i] and not hb[i])
        y = next(i for i in range(54) if hb[i] and not ha[i])
        ha[x], hb[x], hb[y], ha[y] = ha[x] - 1, hb[x] + 1, hb[y] - 1, ha[y] + 1
        other = rnd.with_hidden(hands)
        assert other.hand(a) != rnd.hand(a)
        first = DMCAgent(ckpt, seed=seed).act(rnd.view(seat))
        second = DMCAgent(ckpt, seed=seed).act(other.view(seat))
        assert first == second


def test_actors_return_one_row_per_learning_play_with_the_seat_return() -> None:
    net = QNet((32, 16))
    weights = {k: v.numpy() for k, v in net.state_dict().items()}
    x, y, stats = play_deals(weights, (32, 16), 7, 2, 0.1, 0.0, 0.0)
    assert x.shape == (len(y), FEATURE_SIZE)
    # self-play, four learning seats, no shaping: returns are signed levels
    assert stats["deals"] == 2.0 and len(y) >= 2 * 4 * 25 - 50
    assert set(y.tolist()) <= {-6, -5, -4, -3.0, -2.0, -1.0, 0.0, 1.0, 2.0, 3.0, 4, 5, 6}
    # rows are (state, candidate) features (feature version 3): a play holds at least
    # one card, a bury pick one, a declaration offer's answer none (a pass) to two
    cards = x[:, OBS_SIZE : OBS_SIZE + 54].sum(axis=1)
    declare, bury = x[:, OBS_SIZE + DECLARE_COL] == 1, x[:, OBS_SIZE + BURY_COL] == 1
    plays = ~declare & ~bury
    assert (cards[plays] >= 1).all() and (cards[bury] == 1).all()
    assert ((cards[declare] <= 2) & ((cards[declare] == 0) == (x[declare, OBS_SIZE + PASS_COL]
                                                               == 1))).all()
    assert bury.sum() == 2 * 8 and declare.sum() >= 2  # every seat learns: 8 picks a deal


def test_decision_rows_repeat_the_state_for_every_candidate() -> None:
    rnd = _to_play(2, 1)
    seat = rnd.decision().seat
    assert seat is not None
    v = rnd.view(seat)
    plays = play_candidates(v, random.Random(0))
    rows = decision_rows(v, Tracker(seat), plays)
    assert rows.shape == (len(plays), FEATURE_SIZE)
    assert (rows[:, :OBS_SIZE] == rows[0, :OBS_SIZE]).all()


def test_a_short_training_run_writes_a_playable_checkpoint(tmp_path: Path) -> None:
    out = tmp_path / "c.pt"
    summary = train(TrainConfig(minutes=10, stop_deals=8, out=str(out), workers=1,
                                hidden=(64, 32), deals_per_task=2, batch=64))
    assert summary["deals"] == 8 and out.exists()  # stopped on deals, not on the clock
    data = load_checkpoint(out)
    assert data["deals"] == summary["deals"] and data["config"]["hidden"] == (64, 32)
    rnd = Round(1, trump_rank="2", starter=1, declaring_team=1)
    play_round(rnd, [make_agent(f"dmc:{out}", s) for s in range(4)])
    assert rnd.result is not None
    more = tmp_path / "more.pt"  # continuing keeps the count of deals and the clock
    train(TrainConfig(minutes=10, stop_deals=4, out=str(more), workers=1, init=str(out),
                      seed=1, deals_per_task=2, batch=64))
    later = load_checkpoint(more)
    assert later["deals"] == data["deals"] + 4 and later["seconds"] > data["seconds"]
    assert later["config"]["hidden"] == (64, 32)


def test_a_seeded_run_stopped_on_deals_is_the_same_run_every_time(tmp_path: Path) -> None:
    """Issue 29 item 13 / #34: stopped by deals, seeded, one worker: the same weights,
    bit for bit, however fast the machine is (minibatches from the run's own generator)."""
    import torch

    cfg = {"minutes": 10, "stop_deals": 8, "workers": 1, "hidden": (64, 32),
           "deals_per_task": 2, "batch": 64, "seed": 5}
    runs = []
    for k in range(2):
        summary = train(TrainConfig(out=str(tmp_path / f"r{k}.pt"), **cfg))
        runs.append((summary["deals"], summary["steps"], summary["rows"],
                     load_checkpoint(tmp_path / f"r{k}.pt")["model"]))
    (d0, s0, r0, w0), (d1, s1, r1, w1) = runs
    assert (d0, s0, r0) == (d1, s1, r1) and d0 == 8 and s0 > 0
    assert w0.keys() == w1.keys() and all(torch.equal(w0[k], w1[k]) for k in w0)
    other = train(TrainConfig(out=str(tmp_path / "o.pt"), **{**cfg, "seed": 6}))
    w2 = load_checkpoint(tmp_path / "o.pt")["model"]
    assert other["deals"] == 8 and not all(torch.equal(w0[k], w2[k]) for k in w0)


@pytest.mark.slow
def test_a_minute_of_training_beats_random_significantly(tmp_path: Path) -> None:
    """400 seeded deals (about a minute on two idle cores), stopped on deals: the same
    run on a busy machine, only slower."""
    out = tmp_path / "m.pt"
    summary = train(TrainConfig(minutes=30, stop_deals=400, out=str(out), workers=1, seed=3))
    assert summary["deals"] == 400
    res = run_pairing(f"dmc:{out}", "random", 40, seed=11, workers=1)
    rate = res.leveling_rate()
    assert rate is not None and rate.lo > 0.6, rate
    assert res.levels_per_deal().lo > 0


@pytest.mark.slow
def test_training_and_arena_run_on_a_local_ray_instance(tmp_path: Path) -> None:
    ray = pytest.importorskip("ray")
    try:
        out = tmp_path / "r.pt"
        summary = train(TrainConfig(minutes=10, stop_deals=8, out=str(out), workers=2,
                                    ray="local", hidden=(64, 32), deals_per_task=2, batch=64))
        assert summary["deals"] == 8 and out.exists()
        local = run_pairing("heuristic", "random", 3, seed=5, workers=1)
        remote = run_pairing("heuristic", "random", 3, seed=5, workers=2, ray="local")
        assert remote.deals == local.deals  # the same deals, whatever runs them
    finally:
        if ray.is_initialized():
            ray.shutdown()


@pytest.mark.slow
def test_shengji_train_command_writes_a_checkpoint_for_the_dmc_kind(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from shengji.cli import app

    out = tmp_path / "cli.pt"
    res = CliRunner().invoke(
        app, ["train", "--deals", "8", "--out", str(out), "--workers", "1", "--seed", "4"]
    )
    assert res.exit_code == 0, res.output
    assert out.exists() and f"dmc:{out}" in res.output.replace("\n", "")
    res = CliRunner().invoke(app, ["arena", "--a", f"dmc:{out}", "--b", "random",
                                   "--deals", "1", "--workers", "1"])
    assert res.exit_code == 0, res.output
    res = CliRunner().invoke(app, ["arena", "--a", "dmc:", "--deals", "1"])
    assert res.exit_code != 0


def test_trick_features_say_who_wins_what_is_at_stake_and_throws_are_candidates() -> None:
    """Feature version 2: column 60 is 'wins the trick now' (RULES §6.3, checked against
    the engine's winner once the play is made), 61 the points at stake, 62 partner
    winning, 63 a throw (§6.1), 65 the heuristic's choice (always a candidate)."""
    from shengji.bots.heuristic import HeuristicAgent
    from shengji.cards import CARDS, POINTS
    from shengji.learn.features import action_features
    from shengji.trick import trick_winner

    assert FEATURE_VERSION >= 2 and ACTION_SIZE >= 66  # version 3 adds columns after these
    rng = random.Random(3)
    checked = throws = 0
    for seed in range(8):
        rnd = _to_play(seed, 0)
        heur = [HeuristicAgent(seed * 4 + s) for s in range(4)]
        while not rnd.is_over:
            seat = rnd.decision().seat
            assert seat is not None
            v = rnd.view(seat)
            h = heur[seat].act(v)
            assert isinstance(h, Play)
            mark = tuple(sorted(c.id for c in h.cards))
            plays = play_candidates(v, rng, 16, (mark,))
            assert mark in {tuple(sorted(p)) for p in plays}
            assert v.trump is not None
            acts = action_features(plays, v.trump, v, mark)
            assert acts[:, 65].sum() == 1.0
            assert not acts[:, 66:].any()  # version 3's declaration and bury columns
            before = v.current_trick.plays if v.current_trick else ()
            for p, row in zip(plays, acts, strict=True):
                cards = tuple(CARDS[i] for i in p)
                if before:
                    won = trick_winner([c for _s, c in before] + [cards], v.trump) == len(before)
                    assert row[60] == float(won)
                    checked += 1
                pts = sum(POINTS[i] for i in p) + (v.current_trick.points if before else 0)
                assert abs(row[61] - pts / 50.0) < 1e-6
            throws += int(acts[:, 63].sum() > 0)
            rnd.apply(Play(seat, tuple(CARDS[i] for i in rng.choice(plays))))
    assert checked > 100 and throws > 0


def test_old_checkpoints_load_on_their_own_features_and_unknown_ones_are_refused(
    tmp_path: Path,
) -> None:
    torch.manual_seed(0)
    old = QNet((32, 16), features=1)
    path = tmp_path / "v1.pt"
    save_checkpoint(path, old, deals=0, seconds=0.0, history=[], config={})
    data = torch.load(path, weights_only=True)
    del data["features"]  # written before versions were recorded
    torch.save(data, path)
    rnd = Round(2, trump_rank="2", starter=0, declaring_team=0)
    play_round(rnd, [make_agent(f"dmc:{path}", s) for s in range(4)])
    assert rnd.result is not None
    data["features"] = 99
    torch.save(data, path)
    with pytest.raises(ValueError, match="features version 99"):
        load_checkpoint(path)


def test_init_resumes_the_optimiser_and_counters_and_every_setting_is_stored(
    tmp_path: Path,
) -> None:
    first = tmp_path / "a.pt"
    cfg = {"minutes": 10, "workers": 1, "hidden": (32, 16), "deals_per_task": 2,
           "batch": 32, "lr": 1e-3, "epsilon": 0.2, "seed": 2}
    s1 = train(TrainConfig(stop_deals=4, out=str(first), **cfg))
    a = load_checkpoint(first)
    assert a["rows"] == s1["rows"] > 0 and a["steps"] == s1["steps"] > 0
    assert a["features"] == FEATURE_VERSION == 3 and a["optimizer"]["state"]
    for key, value in {**cfg, "stop_deals": 4, "mix": TrainConfig().mix, "cap": 48,
                       "reuse": 2.0, "buffer": 60_000, "pool_size": 8}.items():
        assert a["config"][key] == value, key
    more = tmp_path / "b.pt"
    s2 = train(TrainConfig(stop_deals=4, out=str(more), init=str(first), **cfg))
    b = load_checkpoint(more)
    assert b["deals"] == 8 and b["rows"] == s2["rows"] > a["rows"]
    assert b["steps"] == s2["steps"] > a["steps"]
    step_a = next(iter(a["optimizer"]["state"].values()))["step"]
    step_b = next(iter(b["optimizer"]["state"].values()))["step"]
    assert float(step_b) == float(step_a) + (b["steps"] - a["steps"])  # Adam went on


def test_imitation_learns_the_heuristic_choice_and_is_reproducible(tmp_path: Path) -> None:
    """The warm start (cross-entropy on the heuristic's candidate): after 24 deals the
    network agrees with the heuristic on held-out decisions far above chance."""
    import numpy as np

    from shengji.learn.model import model_from_checkpoint
    from shengji.learn.train import imitation_deals

    cfg = {"minutes": 10, "workers": 1, "hidden": (64, 32), "imitate": 24,
           "imitate_chunk": 8, "stop_deals": 2, "deals_per_task": 2, "seed": 9,
           "epsilon": 0.0}
    for k in range(2):
        train(TrainConfig(out=str(tmp_path / f"i{k}.pt"), **cfg))
    w0, w1 = (load_checkpoint(tmp_path / f"i{k}.pt") for k in range(2))
    assert w0["config"]["imitated"] == 24
    assert all(torch.equal(w0["model"][k], w1["model"][k]) for k in w0["model"])
    model = model_from_checkpoint(w0)
    states, acts, group, target, *_ = imitation_deals(12345, 3, 0.5)
    with torch.no_grad():
        q = model.score_groups(torch.from_numpy(states), torch.from_numpy(acts),
                               torch.from_numpy(group)).numpy()
    hits = chance = 0.0
    for d in range(len(states)):
        rows = np.flatnonzero(group == d)
        hits += float(int(np.argmax(q[rows])) == int(target[d]))
        chance += 1.0 / len(rows)
    assert len(states) > 100 and hits / len(states) > 2 * chance / len(states)


def test_the_shipped_checkpoints_load_and_play() -> None:
    """models/dmc-v3-seed1.pt (feature version 3), dmc-v2-seed1.pt (version 2, docs/ENV.md's
    tables) and the v1 one."""
    root = Path(__file__).resolve().parents[1] / "models"
    v2 = load_checkpoint(root / "dmc-v2-seed1.pt")
    assert v2["features"] == 2 and v2["config"]["imitated"] == 2000 and v2["deals"] > 0
    v3 = load_checkpoint(root / "dmc-v3-seed1.pt")
    assert v3["features"] == 3 and v3["config"]["imitated"] == 2000 and v3["deals"] == 3000
    assert v3["config"]["imitate_lr"] == 5e-4 and v3["config"]["lr"] == 5e-5
    for name in ("dmc-v3-seed1.pt", "dmc-v2-seed1.pt", "dmc-seed1.pt"):
        rnd = Round(5, trump_rank="2", starter=2, declaring_team=0)
        play_round(rnd, [make_agent(f"dmc:{root / name}", s) for s in range(4)])
        assert rnd.result is not None


def test_a_teacher_labels_the_decisions_and_the_heuristic_stays_marked(tmp_path: Path) -> None:
    """`--teacher expert:...`: the warm start's label is the teacher's answer (plays,
    declarations, bury picks; RULES §3.3, §4, §6), while the features still mark the
    heuristic's, so some labels sit on unmarked candidates; with the heuristic as the
    teacher every label is the marked candidate. The chunk cache gives the same data."""
    import numpy as np

    from shengji.learn.features import MARKED_COL
    from shengji.learn.train import _imitation_chunks, imitation_deals

    def marked_labels(data: tuple[np.ndarray, ...]) -> np.ndarray:
        _states, acts, group, target, *_ = data
        starts = np.searchsorted(group, np.arange(len(target)))
        return acts[starts + target, MARKED_COL]

    plain = imitation_deals(77, 2, 0.5)
    assert len(plain[3]) > 50 and (marked_labels(plain) == 1.0).all()
    assert (plain[7] == -1).all() and np.isnan(plain[5]).all()  # no search, no advantages
    taught = imitation_deals(77, 2, 0.5, teacher="expert:iters=60")
    labels = marked_labels(taught)
    assert len(labels) > 50 and 0 < int((labels == 0.0).sum()) < len(labels)
    assert (taught[1][:, BURY_COL] == 1.0).any()  # the bury picks are taught too
    # the searched plays: each candidate's advantage over the expert's heuristic move,
    # zero for that move itself; a label off it is a candidate the search found ahead
    _s, _a, group, target, _r, adv, adv_se, base = taught
    starts = np.searchsorted(group, np.arange(len(target)))
    searched = np.flatnonzero(base >= 0)
    assert len(searched) > 20
    assert (adv[starts[searched] + base[searched]] == 0.0).all()
    off = [d for d in searched if target[d] != base[d]]
    assert off and all(adv[starts[d] + target[d]] > 0 for d in off)
    assert np.isfinite(adv_se[starts[searched] + target[searched]]).all()

    cfg = TrainConfig(teacher="expert:iters=60", imitate_cache=str(tmp_path / "cache"))
    first = [d for _n, d in _imitation_chunks([(77, 2)], cfg, 1)][0]
    again = [d for _n, d in _imitation_chunks([(77, 2)], cfg, 1)][0]  # read from the cache
    assert len(list((tmp_path / "cache").glob("*.npz"))) == 1
    for a, b, c in zip(first, again, taught, strict=True):  # (NaN where no search)
        np.testing.assert_array_equal(a, b)
        np.testing.assert_array_equal(a, c)


def test_the_train_command_refuses_a_teacher_that_cannot_teach() -> None:
    from typer.testing import CliRunner

    from shengji.cli import app

    for spec, why in (("random", "heuristic or an expert level"),
                      ("omniscient", "heuristic or an expert level"),
                      ("expert:foo=1", "no setting 'foo'")):
        res = CliRunner().invoke(app, ["train", "--teacher", spec, "--imitate", "1"])
        assert res.exit_code == 2 and why in " ".join(res.output.split()), res.output


def test_the_searched_advantages_shape_the_imitation_loss() -> None:
    """`--teach-z`: a label the search did not find far enough ahead of its heuristic
    move falls back to that move; `--teach-values`: the score gaps are regressed on the
    search's advantages (a loss that grows with the gap to them)."""
    import numpy as np

    from shengji.learn.train import imitation_deals, imitation_loss

    data = imitation_deals(77, 2, 0.5, teacher="expert:iters=60")
    _s, _a, _g, target, _r, _adv, _se, base = data
    pick = np.arange(len(target))
    model = QNet((64, 32))
    device = torch.device("cpu")
    with torch.no_grad():
        plain = float(imitation_loss(model, data, pick, device))
        same = float(imitation_loss(model, data, pick, device, teach_z=-1e9))
        strict = float(imitation_loss(model, data, pick, device, teach_z=1e9))
        valued = float(imitation_loss(model, data, pick, device, values=1.0))
        # the same network asked to meet labels that are all the heuristic's move:
        relabelled = (*data[:3], np.where(base >= 0, base, target), *data[4:])
        fallback = float(imitation_loss(model, relabelled, pick, device))
    assert plain == same and strict == fallback and strict != plain
    assert valued > plain
