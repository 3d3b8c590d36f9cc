"""Install figures (issue 29 item 12): README's play command from a fresh clone to a
server answering HTTP, with the build cache cold and warm; then adding an extra and
re-running the install with unchanged sources.

Each figure is one fresh `git clone` of this checkout's committed HEAD into a temporary
folder and a fresh virtual environment, run with README's command word for word (plus
`--port` on a free port and `--db` in the temporary folder), with pip as configured on
this machine (its index, its find-links). The build cache is a temporary folder
(`SHENGJI_BUILD_CACHE`): empty for the cold figure, filled by it for the others.
Goals (2 idle cores): cold ≤ 90 s; an extra added or an unchanged re-run ≤ 30 s. Each
figure also gives the CPU seconds the install used (all its processes), a figure a busy
machine inflates less than the wall time.

    python bench/install.py [--extra plot] [--skip-cold] [--cache DIR]
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import socket
import subprocess
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: README's play command, word for word (checked against README.md below)
PLAY = "python3 -m venv .venv && .venv/bin/pip install -e . && .venv/bin/shengji serve"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def answering(port: int) -> bool:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=2) as r:
            return bool(r.status == 200)
    except OSError:
        return False


def cpu() -> float:
    """CPU seconds used so far by the processes this one has waited for (the installs)."""
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def clone(into: Path) -> Path:
    subprocess.run(["git", "clone", "-q", str(ROOT), str(into)], check=True)
    return into


def play(workdir: Path, env: dict[str, str], limit: float) -> float:
    """README's command in `workdir`; seconds until its server answers `GET /`."""
    port = free_port()
    command = f"{PLAY} --port {port} --db sqlite+aiosqlite:///{workdir}/bench.db"
    log = (workdir / "play.log").open("w")
    started = time.monotonic()
    proc = subprocess.Popen(["bash", "-c", command], cwd=workdir, env=env, stdout=log,
                            stderr=subprocess.STDOUT, start_new_session=True)
    try:
        while not answering(port):
            if proc.poll() is not None:
                raise SystemExit(f"README's command stopped ({proc.returncode}); see "
                                 f"{workdir / 'play.log'}:\n" + (workdir / "play.log")
                                 .read_text()[-3000:])
            if time.monotonic() - started > limit:
                raise SystemExit(f"no answer after {limit:.0f}s; see {workdir / 'play.log'}")
            time.sleep(0.2)  # polling the port: the event is the server's first answer
        return time.monotonic() - started
    finally:
        os.killpg(proc.pid, 15)
        proc.wait(timeout=30)
        log.close()


def pip(workdir: Path, env: dict[str, str], *args: str) -> float:
    started = time.monotonic()
    done = subprocess.run([str(workdir / ".venv/bin/pip"), *args], cwd=workdir, env=env,
                          capture_output=True, text=True)
    if done.returncode:
        raise SystemExit(f"pip {' '.join(args)} failed:\n"
                         f"{done.stdout[-2000:]}{done.stderr[-2000:]}")
    return time.monotonic() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--extra", default="plot", help="the extra to add (none with torch)")
    parser.add_argument("--skip-cold", action="store_true", help="use --cache as it is")
    parser.add_argument("--cache", default="", help="the build cache folder (default: temporary)")
    parser.add_argument("--limit", type=float, default=1800, help="seconds before giving up")
    args = parser.parse_args()
    readme = (ROOT / "README.md").read_text()
    if PLAY not in readme:
        raise SystemExit(f"README's play command is no longer {PLAY!r}: update bench/install.py")

    tmp = Path(tempfile.mkdtemp(prefix="shengji-install-"))
    cache = Path(args.cache) if args.cache else tmp / "cache"
    env = dict(os.environ, SHENGJI_BUILD_CACHE=str(cache), SHENGJI_BUILD_PROGRESS="0")
    env.pop("SHENGJI_PURE", None)
    env.pop("PYTHONPATH", None)
    env.pop("VIRTUAL_ENV", None)
    print(f"HEAD {subprocess.run(['git', '-C', str(ROOT), 'rev-parse', '--short', 'HEAD'], capture_output=True, text=True).stdout.strip()}; "  # noqa: E501
          f"{os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}; cache {cache}", flush=True)
    figures: list[tuple[str, float, float, int]] = []

    def figure(name: str, seconds: float, cpu_before: float, goal: int) -> None:
        figures.append((name, seconds, cpu() - cpu_before, goal))
        print(f"{name}: {seconds:.1f}s ({figures[-1][2]:.0f} CPU s)", flush=True)

    try:
        if not args.skip_cold:
            shutil.rmtree(cache, ignore_errors=True)
            before = cpu()
            cold = play(clone(tmp / "cold"), env, args.limit)
            figure("fresh clone -> server answering, cache cold", cold, before, 90)
        before = cpu()
        warm_dir = clone(tmp / "warm")
        warm = play(warm_dir, env, args.limit)
        figure("fresh clone -> server answering, cache warm", warm, before, 90)
        before = cpu()
        extra = pip(warm_dir, env, "install", "-e", f".[{args.extra}]")
        figure(f"pip install -e '.[{args.extra}]' (extra added)", extra, before, 30)
        before = cpu()
        again = pip(warm_dir, env, "install", "-e", ".")
        figure("pip install -e . again, sources unchanged", again, before, 30)
    finally:
        print(f"load now {os.getloadavg()[0]:.1f}")
        for name, seconds, used, goal in figures:
            print(f"  {name:<50} {seconds:7.1f} s wall {used:6.0f} s CPU   "
                  f"goal <= {goal} s (2 idle cores)")
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
