"""Formal proof harnesses (verification only; run by ``sim/formal.py``, tests in
``tests/test_formal.py``).

Each harness is an Amaranth elaboratable that drives one design from ``AnySeq``/``AnyConst``
values, models what the design must do, and states it with ``Assert``. Each also has broken
variants of its design (``mutants``) for which the proof must fail, so each checker is shown
to fire.

| harness | design | proven |
| --- | --- | --- |
| ``cam.CAMHarness`` | ``AtomicUpdateCAM`` | an id is never held twice; an inserted id stays held until removed; a remove of a held id frees it; occupancy and ``remove_miss`` are right (k-induction) |
| ``stream_order.StreamOrderHarness`` | ``StreamFIFO`` (both kinds), ``StreamRegisterSlice`` | no word dropped, duplicated or reordered; level right; no word kept back; output keeps the stream rules (bounded) |
| ``register_slice.RegisterSliceHarness`` | ``StreamRegisterSlice`` | the same, unbounded (k-induction) |
| ``memory_arbiter.ArbiterHarness`` | ``MemoryArbiter`` | every read answered exactly once, to its requester, in its order (bounded) |
"""
