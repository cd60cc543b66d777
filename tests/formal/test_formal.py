"""Formal proofs (SymbiYosys, smtbmc + Yices) of the CAM, the stream buffers, the memory
arbiter and the AXI4 master (against a free and against a legal AXI slave), and for each
checker a broken variant of its design that the proof must catch.

Harnesses: ``hw/formal/``; driver: ``tests/formal/runner.py`` (results cached in ``build/formal``).
"""

import os

import pytest

from hw.lib.cam import AtomicUpdateCAM, CAMConfig
from tests.formal.harnesses import axi_master as axi_proof
from tests.formal.harnesses import cam as cam_proof
from tests.formal.harnesses import memory_arbiter as arbiter_proof
from tests.formal.harnesses import register_slice as slice_proof
from tests.formal.harnesses import stream_order
from hw.lib.stream.fifo import StreamFIFO
from tests.formal.runner import run_proof

WIDTH = 4


def prove(harness, name, **kwargs):
    result = run_proof(harness, name, **kwargs)
    assert result.status in ("PASS", "FAIL"), result.summary()
    return result


def assert_caught(harness, result, prop):
    """The proof failed with a counterexample from reset, and ``prop`` is among the
    properties that failed."""
    assert result.status == "FAIL", result.summary()
    assert prop in harness.properties.failed(result.failures), result.summary()


# Stream FIFOs and the register slice: no word dropped, duplicated or reordered (BMC).

FIFOS = [(depth, buffered) for depth in (1, 2, 3, 4) for buffered in (False, True)]


@pytest.mark.parametrize("depth, buffered", FIFOS,
                         ids=[f"d{d}-{'buffered' if b else 'unbuffered'}" for d, b in FIFOS])
def test_stream_fifo_proof(depth, buffered):
    bound = 2 * depth + 6       # fill, wrap the pointers and drain, from reset
    harness = stream_order.fifo_harness(WIDTH, depth, buffered, bound)
    result = prove(harness, f"fifo-d{depth}-{'b' if buffered else 'u'}", depth=bound)
    assert result.passed, result.summary()


@pytest.mark.parametrize("lanes", [1, 3])
def test_register_slice_proof(lanes):
    harness = stream_order.slice_harness(WIDTH, bound=12, lanes=lanes)
    result = prove(harness, f"register-slice-l{lanes}", depth=12)
    assert result.passed, result.summary()


@pytest.mark.parametrize("lanes", [1, 3])
def test_register_slice_forward_only_proof(lanes):
    harness = stream_order.slice_harness(WIDTH, bound=12, skid=False, lanes=lanes)
    result = prove(harness, f"register-slice-forward-l{lanes}", depth=12)
    assert result.passed, result.summary()


@pytest.mark.parametrize("mutant, buffered, prop", [
    (stream_order.FIFODropsWhenFull, False, "order"),
    (stream_order.FIFODropsWhenFull, True, "order"),
    (stream_order.FIFORepeatsAWord, False, "order"),
    (stream_order.FIFORepeatsAWord, True, "order"),
    (stream_order.FIFORepeatsAWord, False, "level"),
    (stream_order.FIFOWithdrawsValid, False, "output_rule"),
])
def test_stream_fifo_proof_catches(mutant, buffered, prop):
    """Each broken FIFO fails the proof on the one property named (the others left out)."""
    dut = mutant(StreamFIFO(WIDTH, 2, buffered=buffered), WIDTH)
    harness = stream_order.fifo_harness(WIDTH, 2, buffered, 10, dut=dut, only={prop})
    result = prove(harness, f"fifo-mutant-{mutant.__name__}-{prop}-{int(buffered)}", depth=10)
    assert_caught(harness, result, prop)


@pytest.mark.parametrize("bug", ["take_while_refilling", "skid_overtaken"])
def test_register_slice_proof_catches(bug):
    dut = stream_order.MutatedRegisterSlice(WIDTH, bug)
    harness = stream_order.slice_harness(WIDTH, 12, dut=dut, only={"order"})
    result = prove(harness, f"slice-mutant-{bug}", depth=12)
    assert_caught(harness, result, "order")


def test_register_slice_induction_proof():
    """Unbounded: k-induction over a bounded harness state and the slice's registers."""
    harness = slice_proof.RegisterSliceHarness(WIDTH)
    result = prove(harness, "register-slice-induction", mode="prove", depth=2)
    assert result.passed, result.summary()


@pytest.mark.parametrize("bug", ["take_while_refilling", "skid_overtaken"])
def test_register_slice_induction_proof_catches(bug):
    harness = slice_proof.RegisterSliceHarness(
        WIDTH, dut=stream_order.MutatedRegisterSlice(WIDTH, bug), only={"order"})
    result = prove(harness, f"slice-induction-mutant-{bug}", depth=8)
    assert_caught(harness, result, "order")


# The atomic-update CAM: no id held twice, none lost (k-induction: unbounded).

CAMS = [
    (CAMConfig(entries=4, ways=2, id_width=4), True),
    (CAMConfig(entries=4, ways=2, id_width=4), False),
    (CAMConfig(entries=4, ways=1, id_width=4), True),     # direct mapped
    (CAMConfig(entries=4, ways=4, id_width=4), True),     # fully associative
    (CAMConfig(entries=8, ways=2, id_width=5), True),
    (CAMConfig(), True),                                  # the paper's: 16 entries, 4 ways, 32 bits
]


@pytest.mark.parametrize("config, checked", CAMS, ids=[
    f"e{c.entries}w{c.ways}i{c.id_width}-{'checked' if k else 'unchecked'}" for c, k in CAMS])
def test_cam_proof(config, checked):
    harness = cam_proof.CAMHarness(config, insert_checked=checked)
    result = prove(harness, f"cam-e{config.entries}w{config.ways}i{config.id_width}-{int(checked)}",
                   mode="prove", depth=2)
    assert result.passed, result.summary()


@pytest.mark.parametrize("mutant, prop", [
    (cam_proof.CAMTakesHeldId, "no_second_copy"),
    (cam_proof.CAMDropsRemoveDuringInsert, "tracked"),
    (cam_proof.CAMRemovesWithoutValid, "tracked"),
])
def test_cam_proof_catches(mutant, prop):
    config = CAMConfig(entries=4, ways=2, id_width=4)
    harness = cam_proof.CAMHarness(config, dut=mutant(config), only={prop})
    # BMC from reset, deep enough for CAMRemovesWithoutValid's eighth cycle.
    result = prove(harness, f"cam-mutant-{mutant.__name__}-{prop}", depth=12)
    assert_caught(harness, result, prop)


def test_cam_proof_catches_a_second_copy():
    """The CAM without the insert tag comparison, used by a user that may offer a held id
    (which that mode forbids), takes it again: two ways hold one id."""
    config = CAMConfig(entries=4, ways=2, id_width=4)
    harness = cam_proof.CAMHarness(config, dut=AtomicUpdateCAM(config, insert_checked=False),
                                   only={"unique"})
    result = prove(harness, "cam-mutant-unchecked-unique", depth=6)
    assert_caught(harness, result, "unique")


# The memory arbiter: every read answered once, to its requester, in order (BMC).

# 8 cycles take about 7 s; 9 about 50 s, 10 over two minutes: deeper runs on request.
ARBITER_DEPTH = int(os.environ.get("GRAPHGEN_FORMAL_ARBITER_DEPTH", "8"))


def test_memory_arbiter_proof():
    harness = arbiter_proof.ArbiterHarness(bound=ARBITER_DEPTH)
    result = prove(harness, "memory-arbiter", depth=ARBITER_DEPTH,
                   script=arbiter_proof.SCRIPT)
    assert result.passed, result.summary()


def test_memory_arbiter_proof_depth_reaches_interleaved_responses():
    """The bounded proof's depth is enough for two responses to one client and one to the
    other (the covers are reached)."""
    harness = arbiter_proof.ArbiterHarness(bound=ARBITER_DEPTH)
    result = prove(harness, "memory-arbiter-cover", mode="cover", depth=ARBITER_DEPTH,
                   script=arbiter_proof.SCRIPT)
    assert result.passed, result.summary()


@pytest.mark.parametrize("mutant, prop", [
    (arbiter_proof.ArbiterSwapsResponses, "order"),
    (arbiter_proof.ArbiterDropsAResponse, "order"),
    (arbiter_proof.ArbiterDropsAResponse, "delivered"),
])
def test_memory_arbiter_proof_catches(mutant, prop):
    harness = arbiter_proof.ArbiterHarness(bound=ARBITER_DEPTH, dut=mutant(2, 4, 4),
                                           only={prop})
    result = prove(harness, f"arbiter-mutant-{mutant.__name__}-{prop}",
                   depth=ARBITER_DEPTH, script=arbiter_proof.SCRIPT)
    assert_caught(harness, result, prop)


# The AXI4 master: valid held and payload stable on AW, W and AR, no burst across 4 KiB,
# W beats per burst = awlen + 1 (BMC).

# 12 cycles take about 13 s, 16 about 30 s: deeper runs on request.
AXI_DEPTH = int(os.environ.get("GRAPHGEN_FORMAL_AXI_DEPTH", "12"))


def test_axi_master_proof():
    harness = axi_proof.AXIMasterHarness(bound=AXI_DEPTH)
    result = prove(harness, "axi-master", depth=AXI_DEPTH, script=axi_proof.SCRIPT)
    assert result.passed, result.summary()


def test_axi_master_proof_depth_reaches_bursts():
    """The depth reaches the last beat of a two-line write burst and a read line put back
    together and handed on."""
    harness = axi_proof.AXIMasterHarness(bound=AXI_DEPTH)
    result = prove(harness, "axi-master-cover", mode="cover", depth=AXI_DEPTH,
                   script=axi_proof.SCRIPT)
    assert result.passed, result.summary()


@pytest.mark.parametrize("mutant, prop", [
    (axi_proof.MasterWithEarlyWlast, "w_count"),
    (axi_proof.MasterWithdrawsAW, "aw_rule"),
    (axi_proof.MasterShiftsReads, "page"),
])
def test_axi_master_proof_catches(mutant, prop):
    harness = axi_proof.AXIMasterHarness(bound=AXI_DEPTH, dut=mutant(), only={prop})
    result = prove(harness, f"axi-master-mutant-{mutant.__name__}", depth=AXI_DEPTH,
                   script=axi_proof.SCRIPT)
    assert_caught(harness, result, prop)


# The AXI4 master against a legal slave: every read answered exactly once with its tag and
# line, nothing lost once idle, bursts in flight within the configured limits (BMC).

# 10 cycles take about 25 s here, 11 about 80 s (make soak), 12 over the 600 s timeout.
AXI_LEGAL_DEPTH = int(os.environ.get("GRAPHGEN_FORMAL_AXI_LEGAL_DEPTH", "10"))


def test_axi_master_answers_proof():
    harness = axi_proof.AXIMasterHarness(bound=AXI_LEGAL_DEPTH, slave="legal")
    result = prove(harness, "axi-master-legal", depth=AXI_LEGAL_DEPTH, script=axi_proof.SCRIPT)
    assert result.passed, result.summary()


@pytest.mark.soak
def test_axi_master_answers_proof_deeper():
    harness = axi_proof.AXIMasterHarness(bound=11, slave="legal")
    result = prove(harness, "axi-master-legal", depth=11, script=axi_proof.SCRIPT)
    assert result.passed, result.summary()


def test_axi_master_answers_proof_depth_reaches_idle_after_answers():
    """Against the legal slave, the depth reaches the master idle again after two reads of
    one tag answered, and after a read and a write answered (the covers are reached)."""
    harness = axi_proof.AXIMasterHarness(bound=AXI_LEGAL_DEPTH, slave="legal")
    result = prove(harness, "axi-master-legal-cover", mode="cover", depth=AXI_LEGAL_DEPTH,
                   script=axi_proof.SCRIPT)
    assert result.passed, result.summary()


@pytest.mark.parametrize("mutant, prop", [
    (axi_proof.MasterLosesAResponse, "drained"),
    (axi_proof.MasterRepeatsAResponse, "answered"),
    (axi_proof.MasterWithMoreReadsInFlight, "outstanding"),
])
def test_axi_master_answers_proof_catches(mutant, prop):
    harness = axi_proof.AXIMasterHarness(bound=AXI_LEGAL_DEPTH, slave="legal", dut=mutant(),
                                         only={prop})
    result = prove(harness, f"axi-master-legal-mutant-{mutant.__name__}",
                   depth=AXI_LEGAL_DEPTH, script=axi_proof.SCRIPT)
    assert_caught(harness, result, prop)


def test_axi_master_harness_refuses_an_unknown_slave():
    with pytest.raises(ValueError, match="slave must be one of"):
        axi_proof.AXIMasterHarness(slave="lenient")
