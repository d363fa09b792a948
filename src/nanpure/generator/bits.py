"""Bit helpers for the kernels: counting and locating the set bits of a mask.

Masks are candidate masks (bit ``d-1`` for digit ``d``), house-position masks (bit ``k``
for the k-th cell of a house) and the ``int64`` words of cell sets. The index helpers
compile to one instruction (count trailing / leading zeros) and are inlined into the
kernels that call them, so a loop over the set bits costs no calls::

    while mask:
        k = low_bit_index(mask)
        mask &= mask - 1

An empty mask has no set bit: :func:`low_bit_index` returns 64 for it and
:func:`high_bit_index` returns -1, what the instructions give; callers test for an empty
mask first when it can happen. With ``NUMBA_DISABLE_JIT=1`` (debugging, coverage) the
same answers come from plain Python, as intrinsics only exist in compiled code.
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import config, njit, types
from numba.extending import intrinsic

#: POPCOUNT[m] is the number of set bits of the 9-bit mask m (m < 512).
POPCOUNT = np.array([bin(m).count("1") for m in range(512)], dtype=np.int64)


@intrinsic
def _trailing_zeros(typingctx, word):
    """The number of zero bits below the lowest set bit of an int64 (64 for 0)."""
    if word != types.int64:
        return None

    def codegen(context, builder, signature, args):
        return builder.cttz(args[0], ir.Constant(ir.IntType(1), 0))

    return types.int64(types.int64), codegen


@intrinsic
def _leading_zeros(typingctx, word):
    """The number of zero bits above the highest set bit of an int64 (64 for 0)."""
    if word != types.int64:
        return None

    def codegen(context, builder, signature, args):
        return builder.ctlz(args[0], ir.Constant(ir.IntType(1), 0))

    return types.int64(types.int64), codegen


@njit(cache=True, inline="always")
def low_bit_index(mask) -> int:
    """Index of the lowest set bit of an integer mask (up to 64 bits); 64 for 0.

    >>> low_bit_index(0b10100), low_bit_index(0)
    (2, 64)
    """
    return _trailing_zeros(np.int64(mask))


@njit(cache=True, inline="always")
def high_bit_index(mask) -> int:
    """Index of the highest set bit of an integer mask (up to 64 bits); -1 for 0.

    >>> high_bit_index(0b10100), high_bit_index(0)
    (4, -1)
    """
    return 63 - _leading_zeros(np.int64(mask))


if config.DISABLE_JIT:
    # intrinsics cannot run as Python: give the same answers from Python's integers

    def low_bit_index(mask) -> int:  # noqa: F811
        word = int(mask) & 0xFFFF_FFFF_FFFF_FFFF
        return (word & -word).bit_length() - 1 if word else 64

    def high_bit_index(mask) -> int:  # noqa: F811
        return (int(mask) & 0xFFFF_FFFF_FFFF_FFFF).bit_length() - 1
