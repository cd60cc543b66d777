"""Formal proof harnesses (verification only; run by ``tests/formal/runner.py``, tests in
``tests/formal/test_formal.py``).

Each harness is an Amaranth elaboratable that drives one design from ``AnySeq``/``AnyConst``
values, models what the design must do, and states it with ``Assert``. Each also has broken
variants of its design for which the proof must fail, so each checker is shown
to fire.

- ``cam.CAMHarness`` (``AtomicUpdateCAM``, k-induction): an id is never held twice; an
  inserted id stays held until removed; a remove of a held id frees it; ``occupancy`` and
  ``remove_miss`` are right.
- ``stream_order.StreamOrderHarness`` (``StreamFIFO`` of both kinds,
  ``StreamRegisterSlice``; bounded): no word dropped, duplicated or reordered; ``level``
  right; no word kept back; the output keeps the stream rules.
- ``register_slice.RegisterSliceHarness`` (``StreamRegisterSlice``, k-induction): the same,
  unbounded.
- ``memory_arbiter.ArbiterHarness`` (``MemoryArbiter``, bounded): every read answered
  exactly once, to its requester, in its order.
- ``axi_master.AXIMasterHarness`` (``AXI4Master``, bounded): valid held and payload stable
  on AW, W and AR; no burst across 4 KiB; W beats per burst = ``awlen + 1``; against a legal
  slave (``slave="legal"``) every read answered exactly once with its tag and line, nothing
  lost once idle, no more bursts in flight than configured.
"""
