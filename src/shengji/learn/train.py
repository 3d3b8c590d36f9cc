"""Deep Monte-Carlo self-play training (DouZero-style) with local-process or Ray actors.

An optional warm start first imitates a teacher (`imitate` deals, all four seats the
`teacher`: the heuristic agent, or the expert's search at some budget, whose decisions
beat the heuristic's): a cross-entropy loss over each decision's candidate scores with
the teacher's choice as the label, plus the squared error of the chosen candidate's
score against the seat's final return (so the scores start on the return's scale). The
teacher's deals are played a few chunks ahead in `workers` processes.

Then actors play whole deals with the current network (epsilon-greedy) and return, for
every play a learning seat made, its (state, play) feature row and the seat's final
return: signed levels for its team (RULES §8.2) plus `reward_points` x the point
margin. The learner regresses Q(row) on that return (mean squared error) and sends
fresh weights with the next task. With probability `vs_bots` a deal pits the learning
team against a pool of its past selves (a snapshot every `pool_every` deals, the last
`pool_size` kept), the heuristic or random bots (`mix`). Actors see only their own
views (RULES §11).
"""

from __future__ import annotations

import collections
import itertools
import math
import multiprocessing
import random
import re
import time
from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch

from ..actions import Play
from ..bots import Agent, make_agent
from ..bots.expert import paired_difference
from ..cards import CARDS, RANKS
from ..driver import advance
from ..env.encoding import OBS_SIZE
from ..env.observer import Observer
from ..round import Round
from .agent import DMCAgent
from .features import ACTION_SIZE, FEATURE_VERSION
from .model import QNet, save_checkpoint

Weights = dict[str, np.ndarray[Any, Any]]
Batch = tuple[np.ndarray[Any, Any], np.ndarray[Any, Any], dict[str, float]]


@dataclass
class TrainConfig:
    """Settings of `shengji train` (see `train`)."""

    minutes: float = 60.0  # wall-clock limit (with `stop_deals`: whichever comes first)
    stop_deals: int = 0  # stop once this run has played this many deals (0: no limit)
    out: str = "ckpt.pt"
    seed: int = 0
    workers: int = 1
    ray: str | None = None
    deals_per_task: int = 4
    epsilon: float = 0.1
    lr: float = 3e-4
    batch: int = 256
    reuse: float = 2.0
    buffer: int = 60_000
    reward_points: float = 0.5
    vs_bots: float = 0.5
    hidden: tuple[int, ...] = (256, 256, 128)
    cap: int = 48  # candidate follows sampled per decision (more are sampled down)
    imitate: int = 0  # warm start: deals of imitating the teacher before self-play
    teacher: str = "heuristic"  # whom the warm start imitates (an agent spec)
    imitate_cache: str | None = None  # a folder keeping each chunk's data (same data)
    teach_z: float | None = None  # the expert's play is the label only this many SEs ahead
    teach_values: float = 0.0  # weight of the searched advantages' regression
    imitate_lr: float | None = None  # the warm start's learning rate (None: `lr`)
    imitate_chunk: int = 16  # imitation deals played per learning round
    imitate_batch: int = 32  # decisions (each with all its candidates) per imitation step
    mix: str = "heuristic=0.5,past=0.35,random=0.15"  # opponents of `vs_bots` deals
    pool_size: int = 8  # past selves kept as opponents
    pool_every: int = 200  # deals between snapshots into the pool
    save_minutes: float = 2.0
    snapshots: str | None = None
    device: str = "auto"
    init: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)


# ---------------------------------------------------------------- actors


def _init_worker() -> None:
    torch.set_num_threads(1)


def parse_mix(mix: str) -> list[tuple[str, float]]:
    """`"heuristic=0.5,past=0.35,random=0.15"` → its (kind, weight) pairs; raises
    `ValueError` naming what is wrong."""
    out: list[tuple[str, float]] = []
    for part in mix.split(","):
        kind, _, w = part.strip().partition("=")
        if kind not in ("heuristic", "past", "random"):
            raise ValueError(f"--mix: {kind!r} is not heuristic, past or random")
        try:
            weight = float(w)
        except ValueError:
            raise ValueError(f"--mix: {part!r} is not KIND=WEIGHT") from None
        if weight < 0:
            raise ValueError(f"--mix: {part!r} has a negative weight")
        out.append((kind, weight))
    if not out or sum(w for _k, w in out) <= 0:
        raise ValueError("--mix needs a positive weight")
    return out


def _net(weights: Weights, hidden: tuple[int, ...], features: int) -> QNet:
    model = QNet(hidden, features)
    model.load_state_dict({k: torch.from_numpy(v) for k, v in weights.items()})
    model.eval()
    return model


def _deal(rng: random.Random) -> Round:
    deal_seed = rng.getrandbits(48)
    starter = rng.randrange(4)
    levels = ("2", "2") if rng.random() < 0.5 else (
        RANKS[rng.randrange(13)], RANKS[rng.randrange(13)]
    )
    return Round(
        deal_seed, trump_rank=levels[starter % 2], starter=starter,
        declaring_team=starter % 2, levels=levels,
    )


def _seat_return(rnd: Round, seat: int, reward_points: float) -> float:
    res = rnd.result
    assert res is not None
    gainer = res.declaring_team if res.gainer == "declarers" else 1 - res.declaring_team
    margin = (res.opponents_points - 80) / 80.0
    team = seat % 2
    g = float(res.levels_gained if team == gainer else -res.levels_gained)
    return g + reward_points * (margin if team != res.declaring_team else -margin)


def play_deals(
    weights: Weights, hidden: tuple[int, ...], seed: int, n: int, epsilon: float,
    reward_points: float, vs_bots: float, pool: Weights | None = None,
    mix: str = "heuristic=0.5,random=0.5", cap: int = 48, features: int = FEATURE_VERSION,
) -> Batch:
    """Play `n` deals; return (rows, returns, stats) for the learning seats' plays.

    With probability `vs_bots` a deal pits one learning team against opponents drawn
    from `mix`: "heuristic", "random" or "past" (the `pool` weights, greedy; the
    heuristic when there are none); otherwise all four seats are the learner.
    """
    torch.set_num_threads(1)
    model = _net(weights, hidden, features)
    past = _net(pool, hidden, features) if pool is not None else None
    kinds = parse_mix(mix)
    rng = random.Random(seed)
    rows: list[torch.Tensor] = []
    targets: list[float] = []
    rewards: list[float] = []
    for _ in range(n):
        rnd = _deal(rng)
        learners = [DMCAgent(model, rng.getrandbits(32), epsilon, cap) for _ in range(4)]
        agents: list[Agent] = list(learners)
        learning = [True] * 4
        if rng.random() < vs_bots:
            bot_team = rng.randrange(2)
            kind = rng.choices([k for k, _w in kinds], [w for _k, w in kinds])[0]
            if kind == "past" and past is None:
                kind = "heuristic"
            for s in range(4):
                if s % 2 == bot_team:
                    agents[s] = (
                        DMCAgent(past, rng.getrandbits(32), 0.0, cap) if kind == "past"
                        and past is not None else make_agent(kind, rng.getrandbits(32))
                    )
                    learning[s] = False
        chosen: list[list[torch.Tensor]] = [[], [], [], []]
        obs = Observer(rnd)  # the seats' observations, kept up to date from the events

        while not rnd.is_over:
            d = rnd.decision()
            seat = d.seat
            if d.phase == "play" and seat is not None and learning[seat]:
                ids, row = learners[seat].choose(rnd.view(seat), obs.observation(seat))
                obs.feed(rnd.apply(Play(seat, tuple(CARDS[i] for i in ids))))
                chosen[seat].append(row)
                continue
            for _action, events in advance(rnd, agents):
                obs.feed(events)
        for s in range(4):
            if not learning[s]:
                continue
            g = _seat_return(rnd, s, reward_points)
            rewards.append(g)
            mine = chosen[s] + learners[s].decided  # its plays, declarations, bury picks
            rows += mine
            targets += [g] * len(mine)
    width = OBS_SIZE + model.action_size
    x = torch.stack(rows).numpy() if rows else np.zeros((0, width), np.float32)
    y = np.asarray(targets, dtype=np.float32)
    return x, y, {"deals": float(n), "mean_return": float(np.mean(rewards)) if rewards else 0.0}


Imitation = tuple[
    np.ndarray[Any, Any], np.ndarray[Any, Any], np.ndarray[Any, Any], np.ndarray[Any, Any],
    np.ndarray[Any, Any], np.ndarray[Any, Any], np.ndarray[Any, Any], np.ndarray[Any, Any],
]
#: the arrays of `Imitation`, in order (also the names in a cached chunk)
IMITATION_FIELDS = ("states", "acts", "group", "target", "returns", "adv", "adv_se", "base")


def imitation_deals(
    seed: int, n: int, reward_points: float, cap: int = 48, teacher: str = "heuristic"
) -> Imitation:
    """Play `n` deals with the `teacher` bot at all four seats (an agent spec: the
    heuristic, or the expert at some budget); for every decision with more than one
    candidate (plays; on feature version 3 also declarations and bury picks): states
    (d, OBS_SIZE), candidate rows (r, ACTION_SIZE), each row's decision (r,), the
    teacher's candidate per decision (d,), the seat's final return (d,); and where the
    expert searched a play, what its search found: per row, the candidate's mean
    advantage over the expert's own heuristic candidate on the worlds both were played
    in (`adv`, NaN where the search did not play it) and that mean's standard error
    (`adv_se`), and per decision that heuristic candidate's row (`base`, -1 where none).
    The features still mark the heuristic's choice, so a network learns where the
    teacher departs from it."""
    torch.set_num_threads(1)
    shell = QNet((8,))  # only its feature version matters: candidates, not scores
    rng = random.Random(seed)
    taught = teacher != "heuristic"
    states: list[np.ndarray[Any, Any]] = []
    acts: list[np.ndarray[Any, Any]] = []
    group: list[np.ndarray[Any, Any]] = []
    target: list[int] = []
    seats: list[int] = []
    returns: list[float] = []
    adv: list[np.ndarray[Any, Any]] = []
    adv_se: list[np.ndarray[Any, Any]] = []
    base: list[int] = []
    for _ in range(n):
        rnd = _deal(rng)
        agents = [DMCAgent(shell, rng.getrandbits(32), 0.0, cap) for _ in range(4)]
        for agent in agents:
            agent.imitating = []  # declarations, bury picks: recorded, the teacher's played
            if taught:
                agent.teacher = make_agent(teacher, rng.getrandbits(32))
                if hasattr(agent.teacher, "keep_values"):
                    agent.teacher.keep_values = True
        obs = Observer(rnd)
        first = len(states)
        while not rnd.is_over:
            d = rnd.decision()
            seat = d.seat
            if d.phase == "play" and seat is not None:
                view = rnd.view(seat)
                label: tuple[int, ...] | None = None
                found: list[tuple[list[int], list[float]]] | None = None
                must: tuple[tuple[int, ...], ...] = ()
                if taught:  # the teacher's play, and every play its search tried
                    act = agents[seat].teacher.act(view)
                    assert isinstance(act, Play)
                    label = tuple(sorted(c.id for c in act.cards))
                    found = getattr(agents[seat].teacher, "last_values", None)
                    must = (label, *(tuple(sorted(c)) for c, _v in found or ()))
                plays, marked, state, a = agents[seat].candidates(
                    view, obs.observation(seat), must
                )
                assert marked is not None
                if label is None:
                    label = marked
                if len(plays) > 1:
                    group.append(np.full(len(plays), len(states), dtype=np.int64))
                    states.append(state)
                    acts.append(a)
                    keys = [tuple(sorted(p)) for p in plays]
                    target.append(keys.index(label))
                    seats.append(seat)
                    row_adv, row_se, b = _advantages(keys, found)
                    adv.append(row_adv)
                    adv_se.append(row_se)
                    base.append(b)
                obs.feed(rnd.apply(Play(seat, tuple(CARDS[i] for i in label))))
                continue
            for _action, events in advance(rnd, agents):
                obs.feed(events)
        for s, agent in enumerate(agents):
            assert agent.imitating is not None
            for state, acts_s, k in agent.imitating:
                group.append(np.full(len(acts_s), len(states), dtype=np.int64))
                states.append(state)
                acts.append(acts_s)
                target.append(k)
                seats.append(s)
                adv.append(np.full(len(acts_s), np.nan, np.float32))
                adv_se.append(np.full(len(acts_s), np.nan, np.float32))
                base.append(-1)
        returns += [_seat_return(rnd, s, reward_points) for s in seats[first:]]
    if not states:
        return (np.zeros((0, OBS_SIZE), np.float32), np.zeros((0, ACTION_SIZE), np.float32),
                np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, np.float32),
                np.zeros(0, np.float32), np.zeros(0, np.float32), np.zeros(0, np.int64))
    return (np.stack(states), np.concatenate(acts), np.concatenate(group),
            np.asarray(target, dtype=np.int64), np.asarray(returns, dtype=np.float32),
            np.concatenate(adv), np.concatenate(adv_se), np.asarray(base, dtype=np.int64))


def _advantages(
    keys: list[tuple[int, ...]], found: list[tuple[list[int], list[float]]] | None
) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any], int]:
    """Per candidate (`keys`, sorted ids): the mean and standard error of its advantage
    over the search's first candidate (the expert's heuristic move) on the worlds both
    were played in, NaN where the search did not play it; and that first candidate's
    index (-1 with no search)."""
    out = np.full(len(keys), np.nan, np.float32)
    se = np.full(len(keys), np.nan, np.float32)
    if not found:
        return out, se, -1
    first = found[0][1]
    for cand, vals in found:
        k = keys.index(tuple(sorted(cand)))
        out[k], se[k] = paired_difference(vals, first)
    return out, se, keys.index(tuple(sorted(found[0][0])))


def _imitation_chunks(
    chunks: list[tuple[int, int]], cfg: TrainConfig, workers: int
) -> Iterator[tuple[int, Imitation]]:
    """(deals, `imitation_deals` data) of each chunk, in the chunks' order: played in
    this process, or with `workers` > 1 in that many forked processes a few chunks
    ahead of the learner (the same data either way, so the same run)."""
    def args(seed: int, n: int) -> tuple[Any, ...]:
        return seed, n, cfg.reward_points, cfg.cap, cfg.teacher

    cache = Path(cfg.imitate_cache) if cfg.imitate_cache else None

    def cached(seed: int, n: int) -> Path | None:
        if cache is None:
            return None
        name = (f"{cfg.teacher}-f{FEATURE_VERSION}-d{len(IMITATION_FIELDS)}-cap{cfg.cap}-"
                f"r{cfg.reward_points:g}-{seed}-{n}")
        return cache / (re.sub(r"[^A-Za-z0-9.=_-]", "_", name) + ".npz")

    def keep(path: Path | None, data: Imitation) -> Imitation:
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_suffix(".tmp.npz")
            arrays = dict(zip(IMITATION_FIELDS, data, strict=True))
            np.savez_compressed(tmp, **arrays)  # type: ignore[arg-type]  # (names, not flags)
            tmp.replace(path)  # whole or absent, even if the run is stopped here
        return data

    def load(path: Path) -> Imitation:
        with np.load(path) as z:
            a = [z[name] for name in IMITATION_FIELDS]
        return a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7]

    pending = [(seed, n, cached(seed, n)) for seed, n in chunks]
    if workers <= 1 or len(chunks) <= 1:
        for seed, n, path in pending:
            yield n, load(path) if path is not None and path.exists() else keep(
                path, imitation_deals(*args(seed, n)))
        return
    ctx = multiprocessing.get_context("fork")
    todo = iter(pending)
    with ProcessPoolExecutor(workers, mp_context=ctx, initializer=_init_worker) as pool:
        ahead: collections.deque[tuple[int, Path | None, Future[Imitation] | None]] = (
            collections.deque())

        def start(seed: int, n: int, path: Path | None) -> None:
            ready = path is not None and path.exists()
            ahead.append((n, path, None if ready else
                          pool.submit(imitation_deals, *args(seed, n))))

        for item in itertools.islice(todo, 2 * workers):
            start(*item)
        while ahead:
            n, path, fut = ahead.popleft()
            nxt = next(todo, None)
            if nxt is not None:
                start(*nxt)
            if fut is None:
                assert path is not None
                yield n, load(path)
            else:
                yield n, keep(path, fut.result())


#: the expert's utility is half levels, half points (`bots.rollout.utility`); a seat's
#: return here is levels plus `reward_points` x the points margin: its advantages count
#: about double on the return's scale
ADV_SCALE = 2.0
#: the standard error (utility) from which an advantage counts fully in `--teach-values`
SE_FULL = 0.05


def imitation_loss(
    model: QNet, data: Imitation, pick: np.ndarray[Any, Any], device: torch.device,
    teach_z: float | None = None, values: float = 0.0,
) -> torch.Tensor:
    """Cross-entropy of the teacher's choice over the candidate scores of decisions
    `pick`, plus the squared error of the chosen score against the return.

    Where the expert searched the play: with `teach_z`, its choice is the label only if
    it beat the expert's heuristic candidate by `teach_z` standard errors (else that
    candidate is); with `values` > 0, also that weight times the squared error of each
    searched candidate's score less the heuristic candidate's against its advantage
    (`ADV_SCALE` x the search's mean), so the network learns by how much, not only which."""
    states, acts, group, target, returns, adv, adv_se, base = data
    tgt_np = target[pick].copy()
    starts = np.searchsorted(group, pick)
    b = base[pick]
    searched = b >= 0
    if teach_z is not None and searched.any():
        row = starts[searched] + tgt_np[searched]
        with np.errstate(divide="ignore", invalid="ignore"):
            z = adv[row] / adv_se[row]
        tgt_np[searched] = np.where(z >= teach_z, tgt_np[searched], b[searched])
    ends = np.searchsorted(group, pick, side="right")
    rows = np.concatenate([np.arange(a, b) for a, b in zip(starts, ends, strict=True)])
    local = np.concatenate([np.full(b - a, k) for k, (a, b) in
                            enumerate(zip(starts, ends, strict=True))])
    pos = rows - np.repeat(starts, ends - starts)
    g = torch.from_numpy(local).to(device)
    q = model.score_groups(torch.from_numpy(states[pick]).to(device),
                           torch.from_numpy(acts[rows]).to(device), g)
    width = int((ends - starts).max())
    logits = torch.full((len(pick), width), -1e9, device=device)
    logits[g, torch.from_numpy(pos).to(device)] = q
    tgt = torch.from_numpy(tgt_np).to(device)
    ce = torch.nn.functional.cross_entropy(logits, tgt)
    chosen = logits[torch.arange(len(pick), device=device), tgt]
    mse = torch.nn.functional.mse_loss(chosen, torch.from_numpy(returns[pick]).to(device))
    if values <= 0:
        return ce + mse
    a = adv[rows]
    has = np.isfinite(a) & np.isfinite(adv_se[rows]) & (pos != b[local])  # (not the base)
    if not has.any():
        return ce + mse
    k = torch.from_numpy(local[has]).to(device)
    ref = logits[k, torch.from_numpy(b[local[has]]).to(device)]
    gap = logits[k, torch.from_numpy(pos[has]).to(device)] - ref
    want = torch.from_numpy(ADV_SCALE * a[has]).to(device)
    # each advantage weighed by its precision, capped at that of a standard error of
    # `SE_FULL`: the many loosely estimated ones must not drown the few sharp ones
    se = adv_se[rows][has]
    w = torch.from_numpy(np.minimum(1.0, (SE_FULL / np.maximum(se, 1e-6)) ** 2)
                         .astype(np.float32)).to(device)
    return ce + mse + values * (w * (gap - want) ** 2).sum() / w.sum()



def _descend(model: QNet, opt: torch.optim.Optimizer, loss: torch.Tensor) -> float:
    """One optimiser step down `loss` (gradients clipped to norm 10); the loss's value."""
    opt.zero_grad()
    loss.backward()  # type: ignore[no-untyped-call]
    torch.nn.utils.clip_grad_norm_(model.parameters(), 10.0)
    opt.step()
    return float(loss.item())

# ---------------------------------------------------------------- actor pools


class LocalActors:
    """Actors as local processes (fork), each task one `play_deals` call."""

    def __init__(self, workers: int) -> None:
        ctx = multiprocessing.get_context("fork")
        self.pool = ProcessPoolExecutor(workers, mp_context=ctx, initializer=_init_worker)

    def submit(self, *args: Any) -> Future[Batch]:
        """Start one `play_deals(*args)` task on the pool; its future."""
        return self.pool.submit(play_deals, *args)

    def wait_one(self, pending: list[Any]) -> tuple[Any, Batch]:
        """Block until one of the `pending` futures is done: (that future, its batch)."""
        done, _ = wait(pending, return_when=FIRST_COMPLETED)
        f = next(iter(done))
        return f, f.result()

    def close(self) -> None:
        """Stop the worker processes, dropping tasks not yet started."""
        self.pool.shutdown(wait=True, cancel_futures=True)


class RayActors:
    """Actors as Ray tasks on a cluster (`address`: "auto", "local" or host:port)."""

    def __init__(self, address: str, workers: int) -> None:
        from .cluster import ray_init

        self.ray = ray = ray_init(address, workers)
        self.remote = ray.remote(num_cpus=1)(play_deals)
        self._weights_ref: Any = None
        self._weights_id: int | None = None

    def submit(self, weights: Weights, *args: Any) -> Any:
        """Start one `play_deals(weights, *args)` Ray task; its object ref. The weights
        are put in Ray's object store once per weights object, not once per task."""
        if self._weights_id != id(weights):
            self._weights_ref = self.ray.put(weights)
            self._weights_id = id(weights)
        return self.remote.remote(self._weights_ref, *args)

    def wait_one(self, pending: list[Any]) -> tuple[Any, Batch]:
        """Block until one of the `pending` refs is done: (that ref, its batch)."""
        done, _ = self.ray.wait(pending, num_returns=1)
        ref = done[0]
        return ref, self.ray.get(ref)

    def close(self) -> None:
        """Disconnect from Ray (and stop a local instance this process started)."""
        self.ray.shutdown()


# ---------------------------------------------------------------- the learner


def _device(name: str) -> torch.device:
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    return torch.device(name)


def train(
    cfg: TrainConfig, log: Callable[[str], None] | None = None
) -> dict[str, Any]:
    """Imitate `cfg.teacher` for `cfg.imitate` deals (a warm start), then train by
    self-play for `cfg.minutes` wall-clock minutes, or until this run has played
    `cfg.stop_deals` self-play deals if that comes first; write the checkpoint to
    `cfg.out`. Seeded by `cfg.seed` (the weights, the actors' deals, the minibatches),
    so a run stopped by deals with one worker is the same run every time. With
    `cfg.init` it continues that checkpoint: weights, optimiser state, the deal, row
    and step counters, the clock and the log (the command line's settings apply).

    Returns a summary: deals played, rows learned from, SGD steps, the history.
    """
    say = log or (lambda _m: None)
    parse_mix(cfg.mix)  # a bad --mix fails before anything starts
    torch.manual_seed(cfg.seed)
    rng = random.Random(cfg.seed)
    batch_rng = np.random.default_rng(cfg.seed)  # the minibatches (not numpy's global one)
    device = _device(cfg.device)
    if device.type == "cpu":
        torch.set_num_threads(1)  # idle intra-op threads spin and starve the actors
    model = QNet(cfg.hidden)
    deals = rows_seen = steps = imitated = 0
    history: list[dict[str, float]] = []
    earlier = 0.0
    opt_state: dict[str, Any] | None = None
    if cfg.init:  # continue from a checkpoint: weights, optimiser, counters, clock, log
        from .model import load_checkpoint, model_from_checkpoint

        data = load_checkpoint(cfg.init)
        model = model_from_checkpoint(data)
        deals, earlier, history = int(data["deals"]), float(data["seconds"]), data["history"]
        rows_seen, steps = int(data.get("rows", 0)), int(data.get("steps", 0))
        imitated = int(data["config"].get("imitated", 0))
        opt_state = data.get("optimizer")
    model = model.to(device)
    opt = torch.optim.Adam(model.parameters(), lr=cfg.lr)
    if opt_state is not None:
        opt.load_state_dict(opt_state)

    def set_lr(lr: float) -> None:
        for group in opt.param_groups:
            group["lr"] = lr

    set_lr(cfg.lr)  # the command line's rate (also over a resumed optimiser's)
    deals_before, rows_before = deals, rows_seen
    start = time.monotonic()
    end = start + cfg.minutes * 60.0
    workers = max(1, cfg.workers)
    width = OBS_SIZE + model.action_size
    buf_x = np.zeros((cfg.buffer, width), dtype=np.float32)
    buf_y = np.zeros(cfg.buffer, dtype=np.float32)
    filled = 0
    head = 0
    returns: list[float] = []
    losses: list[float] = []
    last_save = start
    last_log = start
    snap_k = 0
    config: dict[str, Any] = {k: v for k, v in asdict(cfg).items() if k != "extra"}

    def weights() -> Weights:
        return {k: v.detach().cpu().numpy().copy() for k, v in model.state_dict().items()}

    def checkpoint(path: str | Path) -> None:
        config["imitated"] = imitated
        save_checkpoint(path, model, deals=deals, seconds=earlier + time.monotonic() - start,
                        history=history, config=config, rows=rows_seen, steps=steps,
                        optimizer=opt.state_dict())

    since = [start]

    def rate(now: float) -> str:
        dt = max(now - since[0], 1e-9)
        return (f"{(deals - deals_before) / dt:5.2f} deals/s  "
                f"{(rows_seen - rows_before) / dt:6.0f} rows/s")

    # ------------------------------------------------ warm start: imitate the teacher
    target = cfg.imitate
    if imitated < target and cfg.imitate_lr is not None:
        set_lr(cfg.imitate_lr)
    chunks: list[tuple[int, int]] = []  # (seed, deals), drawn in order: the same run
    left = target - imitated
    while left > 0:
        chunks.append((rng.getrandbits(48), min(cfg.imitate_chunk, left)))
        left -= chunks[-1][1]
    for n, data_i in _imitation_chunks(chunks, cfg, workers):
        imitated += n
        d = len(data_i[0])
        model.train()
        for _ in range(math.ceil(cfg.reuse * d / cfg.imitate_batch) if d else 0):
            pick = np.sort(batch_rng.integers(0, d, cfg.imitate_batch))
            loss = imitation_loss(model, data_i, pick, device, cfg.teach_z, cfg.teach_values)
            losses.append(_descend(model, opt, loss))
            steps += 1
        model.eval()
        now = time.monotonic()
        if now - last_log >= 30 or imitated >= target:
            dt = max(now - start, 1e-9)
            say(f"imitation: {imitated}/{target} deals  steps {steps}  "
                f"loss {np.mean(losses[-200:]):.3f}  {imitated / dt:.2f} deals/s")
            last_log = now
    losses.clear()
    set_lr(cfg.lr)  # self-play's rate
    pool: list[Weights] = [weights()]
    next_pool = deals + cfg.pool_every
    since[0] = time.monotonic()  # rates count self-play only

    actors: LocalActors | RayActors = (
        RayActors(cfg.ray, workers) if cfg.ray else LocalActors(workers)
    )

    def task_args(w: Weights) -> tuple[Any, ...]:
        return (w, model.hidden, rng.getrandbits(48), cfg.deals_per_task, cfg.epsilon,
                cfg.reward_points, cfg.vs_bots, pool[rng.randrange(len(pool))], cfg.mix,
                cfg.cap, model.features)

    try:
        w = weights()
        pending = [actors.submit(*task_args(w)) for _ in range(2 * workers)]
        while True:
            done, (x, y, stats) = actors.wait_one(pending)
            pending.remove(done)
            now = time.monotonic()
            deals += int(stats["deals"])
            returns.append(stats["mean_return"])
            n = len(y)
            rows_seen += n
            for j in range(n):  # ring buffer of the most recent rows
                buf_x[head] = x[j]
                buf_y[head] = y[j]
                head = (head + 1) % cfg.buffer
            filled = min(cfg.buffer, filled + n)
            if now >= end or (cfg.stop_deals and deals - deals_before >= cfg.stop_deals):
                break
            n_steps = math.ceil(cfg.reuse * n / cfg.batch) if filled >= cfg.batch else 0
            model.train()
            for _ in range(n_steps):
                idx = batch_rng.integers(0, filled, cfg.batch)
                xb = torch.from_numpy(buf_x[idx]).to(device)
                yb = torch.from_numpy(buf_y[idx]).to(device)
                loss = torch.nn.functional.mse_loss(model(xb), yb)
                losses.append(_descend(model, opt, loss))
                steps += 1
            model.eval()
            w_new = weights()
            if deals >= next_pool:  # a past self joins the opponents' pool
                pool.append(w_new)
                del pool[: max(0, len(pool) - cfg.pool_size)]
                next_pool = deals + cfg.pool_every
            pending.append(actors.submit(*task_args(w_new)))
            if now - last_log >= 30 or not history:
                row = {
                    "minutes": (earlier + now - start) / 60.0, "deals": float(deals),
                    "rows": float(rows_seen), "steps": float(steps),
                    "loss": float(np.mean(losses[-200:])) if losses else math.nan,
                    "mean_return": float(np.mean(returns[-50:])),
                }
                history.append(row)
                say(
                    f"{row['minutes']:6.1f} min  deals {deals:7d}  rows {rows_seen:8d}  "
                    f"steps {steps:6d}  loss {row['loss']:.3f}  "
                    f"return {row['mean_return']:+.2f}  {rate(now)}"
                )
                last_log = now
            if now - last_save >= cfg.save_minutes * 60:
                checkpoint(cfg.out)
                if cfg.snapshots:
                    Path(cfg.snapshots).mkdir(parents=True, exist_ok=True)
                    snap_k += 1
                    checkpoint(Path(cfg.snapshots) / f"snap{snap_k:03d}-{deals}.pt")
                last_save = now
    except KeyboardInterrupt:  # Ctrl-C: stop early but keep what was learned
        say("interrupted: writing the checkpoint")
    finally:
        actors.close()
    say(f"self-play: {deals - deals_before} deals, {rows_seen - rows_before} rows  "
        f"{rate(time.monotonic())}")
    checkpoint(cfg.out)
    if cfg.snapshots:
        Path(cfg.snapshots).mkdir(parents=True, exist_ok=True)
        checkpoint(Path(cfg.snapshots) / f"snap{snap_k + 1:03d}-{deals}.pt")
    return {"deals": deals, "rows": rows_seen, "steps": steps, "history": history,
            "imitated": imitated, "seconds": earlier + time.monotonic() - start}


__all__ = ["LocalActors", "RayActors", "TrainConfig", "imitation_deals", "imitation_loss",
           "parse_mix", "play_deals", "train"]
