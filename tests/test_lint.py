"""Code quality gates run with the tests: ruff on everything, mypy --strict on src/."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def run(*cmd: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=600)


def test_ruff_clean():
    r = run(sys.executable, "-m", "ruff", "check", "src", "tests", "bench")
    assert r.returncode == 0, r.stdout + r.stderr


def test_mypy_strict_clean_on_src():
    r = run(sys.executable, "-m", "mypy", "--strict", "src/shengji")
    assert r.returncode == 0, r.stdout + r.stderr
