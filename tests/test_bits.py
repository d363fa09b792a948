"""The bit helpers of the kernels, against plain Python, from Python and inside a kernel."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from numba import njit

from nanpure.generator.bits import POPCOUNT, high_bit_index, low_bit_index


@njit(cache=False)
def _indexes(words: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """low/high_bit_index of int64 words, of their uint64 views and of uint16 masks."""
    out = np.empty((words.shape[0], 5), dtype=np.int64)
    unsigned = words.view(np.uint64)
    for i in range(words.shape[0]):
        out[i, 0] = low_bit_index(words[i])
        out[i, 1] = high_bit_index(words[i])
        out[i, 2] = low_bit_index(unsigned[i])
        out[i, 3] = high_bit_index(unsigned[i])
        out[i, 4] = low_bit_index(masks[i]) * 100 + high_bit_index(masks[i])
    return out


def _low(x: int) -> int:
    return (x & -x).bit_length() - 1 if x else 64


def _high(x: int) -> int:
    return x.bit_length() - 1 if x else -1


def test_popcount_table():
    assert POPCOUNT.shape == (512,)
    assert all(POPCOUNT[m] == bin(m).count("1") for m in range(512))


def test_nine_bit_masks_from_python():
    for m in range(512):
        assert (low_bit_index(m), high_bit_index(m)) == (_low(m), _high(m))


@settings(deadline=None)  # the first example compiles the kernel
@given(st.lists(st.integers(0, 2**64 - 1), min_size=1, max_size=20))
def test_words_in_a_kernel(values):
    unsigned = np.array(values, dtype=np.uint64)
    masks = (unsigned & np.uint64(0xFFFF)).astype(np.uint16)
    got = _indexes(unsigned.view(np.int64), masks)
    for row, x, m in zip(got.tolist(), values, masks.tolist(), strict=True):
        assert row[:4] == [_low(x), _high(x), _low(x), _high(x)]
        assert row[4] == _low(m) * 100 + _high(m)


def test_empty_mask():
    assert _indexes(np.zeros(1, dtype=np.int64), np.zeros(1, dtype=np.uint16)).tolist() == [
        [64, -1, 64, -1, 64 * 100 - 1]
    ]
