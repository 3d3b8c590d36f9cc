"""The browser tests' server fixture survives a test that kills or breaks its server
(issue #29 item 13): the next test gets a live server, started again.

The fixture works across tests, so this runs a small pytest session of its own (in a
subprocess, in order) with tests/conftest.py as its plugin, and reads each test's
outcome from its JUnit XML report.
"""

from __future__ import annotations

import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent

INNER = '''
import urllib.request

SEEN = {}


def get(url):
    with urllib.request.urlopen(url + "/api/tables", timeout=10) as r:
        return r.status


def test_1_kills_its_server(server, server_process):
    SEEN["killed"] = server_process.proc.pid
    assert get(server) == 200
    server_process.proc.kill()
    server_process.proc.wait(10)


def test_2_gets_a_live_server_after_a_kill(server, server_process):
    assert server_process.proc.pid != SEEN["killed"]
    assert get(server) == 200
    SEEN["second"] = server_process.proc.pid


def test_3_keeps_a_healthy_server(server, server_process):
    assert server_process.proc.pid == SEEN["second"]  # not restarted for nothing
    assert server_process.starts == 2


def test_4_fails(server, server_process):
    SEEN["failed"] = server_process.proc.pid
    assert get(server) == 200
    raise AssertionError("this test fails on purpose")


def test_5_gets_a_fresh_server_after_a_failure(server, server_process):
    assert server_process.proc.pid != SEEN["failed"]
    assert server_process.starts == 3
    assert get(server) == 200
'''


@pytest.mark.timeout(240)
def test_a_killed_or_failed_test_never_breaks_the_next_ones_server(tmp_path: Path) -> None:
    from browser_helpers import CHROMIUM
    from server_harness import skip_or_fail

    if not os.path.exists(CHROMIUM):  # the fixture itself needs Chromium
        skip_or_fail(f"{CHROMIUM} is missing")
    (tmp_path / "test_inner.py").write_text(INNER)
    report = tmp_path / "report.xml"
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(  # (absolute: the session runs in tmp_path)
        [str(TESTS)] + [os.path.abspath(p) for p in env.get("PYTHONPATH", "").split(os.pathsep)
                        if p]
    )
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "conftest", "-p", "no:randomly",
         "-p", "no:cacheprovider", f"--junitxml={report}", "--rootdir", str(tmp_path),
         str(tmp_path / "test_inner.py")],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=220,
    )
    assert report.exists(), run.stdout + run.stderr
    outcomes = {}
    for case in ET.parse(report).getroot().iter("testcase"):
        kids = [k.tag for k in case if k.tag in ("failure", "error", "skipped")]
        outcomes[case.get("name")] = kids[0] if kids else "passed"
        if kids == ["failure"]:
            assert "this test fails on purpose" in (case[0].get("message") or ""), run.stdout
    assert outcomes == {
        "test_1_kills_its_server": "passed",
        "test_2_gets_a_live_server_after_a_kill": "passed",
        "test_3_keeps_a_healthy_server": "passed",
        "test_4_fails": "failure",
        "test_5_gets_a_fresh_server_after_a_failure": "passed",
    }, run.stdout + run.stderr
