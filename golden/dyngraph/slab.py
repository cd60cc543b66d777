"""The slab: the unit of a vertex's adjacency hash table (Ashkiani et al.'s slab hash, as used
by Awad et al., "Dynamic Graphs on the GPU").

A slab is 128 bytes, 32 words of 32 bits, two 64-byte memory lines:

======== =====================================================================
word      meaning
======== =====================================================================
2i, 2i+1  pair i (0 <= i < 15): key (the destination vertex) and value (the weight)
30        auxiliary word: the vertex that owns the slab, ``FREE_OWNER`` when free
31        next: the index of the next slab of the bucket's chain, ``NULL_SLAB`` at the end
======== =====================================================================

Key sentinels: ``EMPTY_KEY`` marks a cell never written since the slab was handed out,
``TOMBSTONE_KEY`` a deleted pair.  Insertion fills the first free cell (empty or tombstone)
of the chain, so the empty cells of a chain are always a suffix of it: a search may stop at
the first slab holding an empty cell (the slab hash's rule).  The paper keeps 4 bytes of
auxiliary data without saying what for; here it names the owner, so a sequential sweep of the
slab pool knows whose pairs it reads (vertex deletion, the analytics reader) without walking
chains.

The bucket of key ``v`` in a table of ``B`` buckets is Fibonacci hashing followed by a
multiply-high range reduction, ``((v * 0x9E3779B1 mod 2^32) * B) >> 32``: two multiplies in
hardware and no division, for any ``B`` (the paper's universal hash ``((a k + b) mod p) mod B``
needs two modulo units).
"""

from __future__ import annotations

import numpy as np

__all__ = ["SLAB_PAIRS", "SLAB_WORDS", "SLAB_BYTES", "LINE_WORDS", "AUX_WORD", "NEXT_WORD",
           "EMPTY_KEY", "TOMBSTONE_KEY", "NULL_SLAB", "FREE_OWNER", "HASH_MULTIPLIER",
           "MAX_VERTEX_ID", "bucket_of", "empty_slab"]

SLAB_PAIRS = 15
SLAB_WORDS = 32
SLAB_BYTES = 4 * SLAB_WORDS
LINE_WORDS = 16
AUX_WORD = 30
NEXT_WORD = 31

EMPTY_KEY = 0xFFFF_FFFF
TOMBSTONE_KEY = 0xFFFF_FFFE
NULL_SLAB = 0xFFFF_FFFF
FREE_OWNER = 0xFFFF_FFFF
HASH_MULTIPLIER = 0x9E37_79B1

# Vertex ids stay clear of the two key sentinels.
MAX_VERTEX_ID = TOMBSTONE_KEY - 1


def bucket_of(keys, buckets):
    """The bucket of each key (scalar or array) in tables of ``buckets`` buckets (>= 1)."""
    keys = np.asarray(keys, dtype=np.uint64)
    buckets = np.asarray(buckets, dtype=np.uint64)
    hashed = (keys * np.uint64(HASH_MULTIPLIER)) & np.uint64(0xFFFF_FFFF)
    result = (hashed * buckets) >> np.uint64(32)
    return result.astype(np.int64) if result.ndim else int(result)


def empty_slab(owner: int) -> np.ndarray:
    """A slab as the allocator hands it out to ``owner``: every key empty, no next slab."""
    slab = np.zeros(SLAB_WORDS, dtype=np.uint32)
    slab[0:2 * SLAB_PAIRS:2] = EMPTY_KEY
    slab[AUX_WORD] = owner
    slab[NEXT_WORD] = NULL_SLAB
    return slab
