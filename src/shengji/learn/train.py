"""Deep Monte-Carlo self-play training (DouZero-style) with local-process or Ray actors.

Actors play whole deals with the current network (epsilon-greedy) and return, for
every play a learning seat made, its (state, play) feature row and the seat's final
return: signed levels for its team (RULES §8.2) plus `reward_points` x the point
margin. The learner regresses Q(row) on that return (mean squared error) and sends
fresh weights with the next task. Actors see only their own views (RULES §11).
"""

from __future__ import annotations

import math
import multiprocessing
import random
import time
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch

from ..actions import Play
from ..bots import Agent, make_agent
from ..cards import CARDS, RANKS
from ..driver import advance
from ..env.observer import Observer
from ..round import Round
from .agent import DMCAgent
from ..env.encoding import OBS_SIZE
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
    save_minutes: float = 2.0
    snapshots: str | None = None
    device: str = "auto"
    init: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)


# ---------------------------------------------------------------- actors


def _init_worker() -> None:
    torch.set_num_threads(1)


def play_deals(
    weights: Weights, hidden: tuple[int, ...], seed: int, n: int, epsilon: float,
    reward_points: float, vs_bots: float,
) -> Batch:
    """Play `n` deals; return (rows, returns, stats) for the learning seats' plays.

    With probability `vs_bots` a deal pits one learning team against "random" or
    "heuristic" bots; otherwise all four seats are the learner (self-play).
    """
    torch.set_num_threads(1)
    model = QNet(hidden)
    model.load_state_dict({k: torch.from_numpy(v) for k, v in weights.items()})
    model.eval()
    rng = random.Random(seed)
    rows: list[torch.Tensor] = []
    targets: list[float] = []
    rewards: list[float] = []
    for _ in range(n):
        deal_seed = rng.getrandbits(48)
        starter = rng.randrange(4)
        levels = ("2", "2") if rng.random() < 0.5 else (
            RANKS[rng.randrange(13)], RANKS[rng.randrange(13)]
        )
        rnd = Round(
            deal_seed, trump_rank=levels[starter % 2], starter=starter,
            declaring_team=starter % 2, levels=levels,
        )
        learners = [DMCAgent(model, rng.getrandbits(32), epsilon) for _ in range(4)]
        agents: list[Agent] = list(learners)
        learning = [True] * 4
        if rng.random() < vs_bots:
            bot_team = rng.randrange(2)
            kind = rng.choice(("random", "heuristic"))
            for s in range(4):
                if s % 2 == bot_team:
                    agents[s] = make_agent(kind, rng.getrandbits(32))
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
        res = rnd.result
        assert res is not None
        gainer = res.declaring_team if res.gainer == "declarers" else 1 - res.declaring_team
        margin = (res.opponents_points - 80) / 80.0
        for s in range(4):
            if not learning[s]:
                continue
            team = s % 2
            g = float(res.levels_gained if team == gainer else -res.levels_gained)
            g += reward_points * (margin if team != res.declaring_team else -margin)
            rewards.append(g)
            rows += chosen[s]
            targets += [g] * len(chosen[s])
    x = torch.stack(rows).numpy() if rows else np.zeros((0, OBS_SIZE + model.action_size), np.float32)
    y = np.asarray(targets, dtype=np.float32)
    return x, y, {"deals": float(n), "mean_return": float(np.mean(rewards)) if rewards else 0.0}


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
    """Train for `cfg.minutes` wall-clock minutes, or until this run has played
    `cfg.stop_deals` deals if that comes first; write the checkpoint to `cfg.out`.
    Seeded by `cfg.seed` (the weights, the actors' deals, the minibatches), so a run
    stopped by deals with one worker is the same run every time.

    Returns a summary: deals played, rows learned from, SGD steps, the history.
    """
    say = log or (lambda _m: None)
    torch.manual_seed(cfg.seed)
    rng = random.Random(cfg.seed)
    batch_rng = np.random.default_rng(cfg.seed)  # the minibatches (not numpy's global one)
    device = _device(cfg.device)
    if device.type == "cpu":
        torch.set_num_threads(1)  # idle intra-op threads spin and starve the actors
    model = QNet(cfg.hidden)
    deals = 0
    history: list[dict[str, float]] = []
    earlier = 0.0
    if cfg.init:  # continue from a checkpoint: its weights, deal count, clock and log
        from .model import load_checkpoint

        data = load_checkpoint(cfg.init)
        model = QNet(tuple(data["config"].get("hidden", cfg.hidden)))
        model.load_state_dict(data["model"])
        deals, earlier, history = int(data["deals"]), float(data["seconds"]), data["history"]
    model = model.to(device)
    opt = torch.optim.Adam(model.parameters(), lr=cfg.lr)
    deals_before = deals
    start = time.monotonic()
    end = start + cfg.minutes * 60.0
    workers = max(1, cfg.workers)
    actors: LocalActors | RayActors = (
        RayActors(cfg.ray, workers) if cfg.ray else LocalActors(workers)
    )
    buf_x = np.zeros((cfg.buffer, OBS_SIZE + model.action_size), dtype=np.float32)
    buf_y = np.zeros(cfg.buffer, dtype=np.float32)
    filled = 0
    head = 0
    rows_seen = 0
    steps = 0
    returns: list[float] = []
    losses: list[float] = []
    last_save = start
    last_log = start
    snap_k = 0
    config = {k: v for k, v in asdict(cfg).items() if k != "extra"}

    def weights() -> Weights:
        return {k: v.detach().cpu().numpy().copy() for k, v in model.state_dict().items()}

    def task_args(w: Weights) -> tuple[Any, ...]:
        return (w, model.hidden, rng.getrandbits(48), cfg.deals_per_task, cfg.epsilon,
                cfg.reward_points, cfg.vs_bots)

    def checkpoint(path: str | Path) -> None:
        save_checkpoint(path, model, deals=deals, seconds=earlier + time.monotonic() - start,
                        history=history, config=config)

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
            w_new = None
            n_steps = math.ceil(cfg.reuse * n / cfg.batch) if filled >= cfg.batch else 0
            model.train()
            for _ in range(n_steps):
                idx = batch_rng.integers(0, filled, cfg.batch)
                xb = torch.from_numpy(buf_x[idx]).to(device)
                yb = torch.from_numpy(buf_y[idx]).to(device)
                loss = torch.nn.functional.mse_loss(model(xb), yb)
                opt.zero_grad()
                loss.backward()  # type: ignore[no-untyped-call]
                torch.nn.utils.clip_grad_norm_(model.parameters(), 10.0)
                opt.step()
                losses.append(float(loss.item()))
                steps += 1
            model.eval()
            w_new = weights()
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
                    f"return {row['mean_return']:+.2f}"
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
    checkpoint(cfg.out)
    if cfg.snapshots:
        Path(cfg.snapshots).mkdir(parents=True, exist_ok=True)
        checkpoint(Path(cfg.snapshots) / f"snap{snap_k + 1:03d}-{deals}.pt")
    return {"deals": deals, "rows": rows_seen, "steps": steps, "history": history,
            "seconds": earlier + time.monotonic() - start}


__all__ = ["LocalActors", "RayActors", "TrainConfig", "play_deals", "train"]
