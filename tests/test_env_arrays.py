"""The observation and mask arrays a step hands out (`shengji.env.arrays`, issue 12): the
C build (`arrays.pyx`) gives exactly what the numpy reference (`arrays.py`) gives, and
refuses arrays it would misread instead of reading outside them."""

from __future__ import annotations

import importlib.util
import random
from array import array
from pathlib import Path

import numpy as np
import pytest

from shengji.env import arrays
from shengji.env.encoding import N_ACTIONS

_REFERENCE = Path(arrays.__file__).parent / "arrays.py"
COMPILED = not str(arrays.__file__).endswith(".py")


def reference() -> object:
    """arrays.py loaded from source, whichever build `shengji.env.arrays` is."""
    spec = importlib.util.spec_from_file_location("shengji.env._arrays_reference", _REFERENCE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def random_runs(rng: np.random.Generator, size: int, k: int) -> np.ndarray:
    starts = rng.integers(0, size, k)
    lengths = rng.integers(0, 12, k)
    return np.stack([starts, np.minimum(lengths, size - starts)], axis=1).astype(np.int64)


def test_gather_runs_is_take_of_the_runs_entries_in_both_builds() -> None:
    ref = reference()
    rng = np.random.default_rng(5)
    for size, k in ((1, 1), (7, 30), (3000, 60), (5, 0)):
        state = rng.random(size, dtype=np.float32)
        runs = random_runs(rng, size, k)
        index = [s + d for s, n in runs.tolist() for d in range(n)]
        want = state.take(np.array(index, dtype=np.int64))
        for mod in (arrays, ref):
            got = mod.gather_runs(state, runs)  # type: ignore[attr-defined]
            assert got.dtype == np.float32 and got.flags.writeable and got.flags.owndata
            np.testing.assert_array_equal(got, want)
            out = np.full(len(index), -1.0, dtype=np.float32)
            assert mod.gather_runs(state, runs, out) is out  # type: ignore[attr-defined]
            np.testing.assert_array_equal(out, want)
            for bad in ([[-1, 1]], [[size - 1, 2]], [[0, -1]]):  # outside the state
                with pytest.raises(IndexError):
                    mod.gather_runs(state, np.array(bad, dtype=np.int64))  # type: ignore[attr-defined]
        if index:
            a, b = arrays.gather_runs(state, runs), arrays.gather_runs(state, runs)
            a[0] = 42.0  # each call's array is the caller's own, not a view of the state
            assert b[0] == want[0] and 42.0 not in state


def test_mask_array_copies_one_byte_per_action_in_both_builds() -> None:
    ref = reference()
    rnd = random.Random(3)
    for _ in range(50):
        legal = [a for a in range(N_ACTIONS) if rnd.random() < 0.2]
        buf = array("b", bytes(N_ACTIONS))
        for a in legal:
            buf[a] = 1
        for mod in (arrays, ref):
            m = mod.mask_array(buf)  # type: ignore[attr-defined]
            assert m.dtype == np.int8 and m.shape == (N_ACTIONS,) and m.flags.writeable
            assert np.flatnonzero(m).tolist() == legal
            m[:] = 1  # the caller's to scribble on: neither the buffer nor the next array
            assert buf.tolist().count(1) == len(legal)
            assert np.flatnonzero(mod.mask_array(buf)).tolist() == legal  # type: ignore[attr-defined]
    assert arrays.mask_array(array("b")).shape == (0,)


@pytest.mark.skipif(not COMPILED, reason="the pure-Python build is numpy's own take")
def test_the_c_gather_refuses_arrays_it_would_misread() -> None:
    state = np.zeros(10, dtype=np.float32)
    runs = np.array([[0, 2], [5, 2]], dtype=np.int64)
    bad = [
        (state.astype(np.float64), runs),  # another dtype
        (state, runs.astype(np.int32)),
        (state.reshape(2, 5), runs),  # not one dimension
        (np.zeros(20, dtype=np.float32)[::2], runs),  # not contiguous
        (state, np.array([0, 2, 5, 2], dtype=np.int64)),  # not (k, 2)
        (state, np.zeros((2, 4), dtype=np.int64)[:, ::2]),
    ]
    for s, r in bad:
        with pytest.raises(TypeError):
            arrays.gather_runs(s, r)
    for out in (np.zeros(3, np.float32), np.zeros(4, np.float64), np.zeros(8, np.float32)[::2]):
        with pytest.raises(TypeError):
            arrays.gather_runs(state, runs, out)
    frozen = np.zeros(4, np.float32)
    frozen.flags.writeable = False
    with pytest.raises(TypeError):
        arrays.gather_runs(state, runs, frozen)
