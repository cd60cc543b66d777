"""A line memory for unit tests of memory clients in Amaranth's own simulator.

Serves one :class:`hw.lib.memory.port.MemoryPortSignature` port, or a tagged one
(:func:`hw.lib.memory.port.mem_port_signature`): reads answered after ``latency`` (+ random
jitter) cycles with their request's tag, in order or (``reorder``) in any order across tags,
writes applied with their byte mask, random stalls of the request channel. The cocotb tests
use the Verilog DRAM model instead.
"""

import collections
import random

import numpy as np


__all__ = ["LineMemoryModel", "serve_ports", "words_to_lines", "lines_to_words"]


def words_to_lines(words, base_line: int = 0) -> dict[int, int]:
    """Pack uint32 words into 512-bit line integers (word i at bits 32*i)."""
    words = np.asarray(words, dtype=np.uint32)
    padded = np.zeros(-(-len(words) // 16) * 16, dtype=np.uint32)
    padded[:len(words)] = words
    return {base_line + i: int.from_bytes(padded[16 * i:16 * i + 16].tobytes(), "little")
            for i in range(len(padded) // 16)}


def lines_to_words(lines: dict[int, int], base_line: int, count: int) -> np.ndarray:
    raw = b"".join(lines.get(base_line + i, 0).to_bytes(64, "little")
                   for i in range(-(-count // 16)))
    return np.frombuffer(raw, dtype=np.uint32)[:count].copy()


class LineMemoryModel:
    def __init__(self, lines: dict[int, int] | None = None, *, latency: int = 10,
                 jitter: int = 0, stall_probability: float = 0.0, seed: int = 1,
                 reorder: bool = False):
        self.lines = dict(lines or {})
        self.reorder = reorder
        self.latency, self.jitter = latency, jitter
        self.stall_probability = stall_probability
        self.rng = random.Random(seed)
        self.reads = self.writes = 0

    async def serve(self, ctx, port):
        await serve_ports(ctx, [(self, port)])

    def _start(self, port):
        return {"port": port, "pending": collections.deque(),   # (due, data, tag), oldest first
                "tagged": "tag" in port.req.payload.shape().members,
                "cycle": 0, "last_due": 0, "answer": None, "ready": False}

    def _offer(self, ctx, state):
        """Drive this cycle's ``req.ready`` and response."""
        port = state["port"]
        state["ready"] = self.rng.random() >= self.stall_probability
        ctx.set(port.req.ready, state["ready"])
        if state["answer"] is None:
            # The oldest read of each tag (of all reads in order) that is due.
            seen, due_now = set(), []
            for entry in state["pending"]:
                chain = entry[2] if self.reorder else 0
                if chain not in seen and entry[0] <= state["cycle"]:
                    due_now.append(entry)
                seen.add(chain)
            if due_now:
                # (No draw for a single candidate: in order, the draws stay as they were.)
                state["answer"] = self.rng.choice(due_now) if len(due_now) > 1 else due_now[0]
        answer = state["answer"]
        ctx.set(port.resp.valid, answer is not None)
        if answer is not None:
            ctx.set(port.resp.payload.rdata, answer[1])
            if state["tagged"]:
                ctx.set(port.resp.payload.tag, answer[2])

    def _complete(self, ctx, state):
        """Take this cycle's transfers (after every port's offer is driven)."""
        port, answer = state["port"], state["answer"]
        if state["ready"] and ctx.get(port.req.valid):
            addr = ctx.get(port.req.payload.addr)
            if ctx.get(port.req.payload.write):
                self._write(addr, ctx.get(port.req.payload.wdata),
                            ctx.get(port.req.payload.wmask))
            else:
                self.reads += 1
                due = state["cycle"] + self.latency + self.rng.randint(0, self.jitter)
                if not self.reorder:
                    due = max(due, state["last_due"] + 1)
                state["last_due"] = due
                tag = ctx.get(port.req.payload.tag) if state["tagged"] else 0
                state["pending"].append((due, self.lines.get(addr, 0), tag))
        if answer is not None and ctx.get(port.resp.ready):
            state["pending"].remove(answer)
            state["answer"] = None

    def _write(self, addr, wdata, wmask):
        self.writes += 1
        old = self.lines.get(addr, 0)
        mask = 0
        for byte in range(64):
            if wmask >> byte & 1:
                mask |= 0xFF << (8 * byte)
        self.lines[addr] = (old & ~mask) | (wdata & mask)


async def serve_ports(ctx, served):
    """Serve several ports, ``(model, port)`` pairs, in one testbench: every port's outputs are
    driven before any transfer is taken, so a design whose ``ready`` on one port depends on
    another port's ``valid`` (the channels of a memory interconnect) is sampled consistently."""
    states = [(model, model._start(port)) for model, port in served]
    while True:
        for model, state in states:
            model._offer(ctx, state)
        for model, state in states:
            model._complete(ctx, state)
        await ctx.tick()
        for _, state in states:
            state["cycle"] += 1
