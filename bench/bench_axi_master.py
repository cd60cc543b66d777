"""Throughput of the AXI4 master (hw/lib/axi/master.py) behind a slow memory: lines a cycle
through an AXI4Master and the AXI4 slave model (sim/axi_slave.py) at a fixed latency, for
request patterns like the designs' (several line streams on their own tags interleaved cycle
by cycle, random single-line reads, streams mixed with a write stream), against the ideal
(one line a cycle, or one beat a cycle on a bus narrower than a line); and the latency of a
lone read, what holding a burst open for a partner costs.

Each pattern offers one request a cycle (the master's back-pressure aside) and takes every
response at once; a run ends when every read is answered and the master is idle.
"""

import argparse
import collections
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from amaranth.sim import Simulator  # noqa: E402

from graphgen.reports import base_report, write_json  # noqa: E402
from hw.lib.axi.master import AXI4Master  # noqa: E402
from hw.lib.memory.port import LINE_BITS  # noqa: E402
from sim.axi_slave import AXI4SlaveModel  # noqa: E402

DEFAULT_JSON = Path(__file__).resolve().parent.parent / "build" / "bench" / "axi_master.json"
ADDR_WIDTH = 20
FULL_MASK = (1 << 64) - 1


def streams(k: int, lines: int, rng: random.Random) -> list[dict]:
    """``k`` sequential read streams, stream ``j`` on tag ``j`` from its own start (not page
    aligned), interleaved one request each in turn."""
    per = lines // k
    starts = [rng.randrange(1 << 12) * 64 + rng.randrange(64) for _ in range(k)]
    return [{"addr": starts[j] + n, "write": 0, "tag": j}
            for n in range(per) for j in range(k)]


def random_reads(tags: int, lines: int, rng: random.Random) -> list[dict]:
    return [{"addr": rng.randrange(1 << ADDR_WIDTH), "write": 0, "tag": rng.randrange(tags)}
            for _ in range(lines)]


def mixed(k: int, lines: int, rng: random.Random) -> list[dict]:
    """``k`` read streams and one write stream (a fifth of the requests) to a region of its
    own, interleaved."""
    reads = streams(k, lines - lines // 5, rng)
    base = (1 << ADDR_WIDTH) - (lines // 5) - 64
    out, w = [], 0
    for n, r in enumerate(reads):
        out.append(r)
        if n % 4 == 3:
            out.append({"addr": base + w, "write": 1, "tag": 0})
            w += 1
    return out


PATTERNS = {
    "streams2": lambda n, rng: streams(2, n, rng),
    "streams4": lambda n, rng: streams(4, n, rng),
    "streams8": lambda n, rng: streams(8, n, rng),
    "random8": lambda n, rng: random_reads(8, n, rng),
    "mixed4": lambda n, rng: mixed(4, n, rng),
}


def run(requests: list[dict], *, data_width: int, latency: int, params: dict,
        limit: int = 200_000) -> dict:
    """Cycles from the first request offered to the last read answered (and the master
    idle), and the mean and largest latency of a read (offered to answered)."""
    dut = AXI4Master(addr_width=ADDR_WIDTH, data_width=data_width, id_width=4, **params)
    slave = AXI4SlaveModel(dut.axi, data_width=data_width, latency=(latency, latency),
                           reorder=True)
    reads = sum(1 for r in requests if not r["write"])
    state = {"offered": collections.defaultdict(collections.deque), "latencies": [],
             "end": None, "bursts": 0}

    async def serve(ctx):
        await slave.serve(ctx)

    async def drive(ctx):
        ctx.set(dut.mem.resp.ready, 1)
        cycle, sent, since = 0, 0, None
        while cycle < limit:
            if sent < len(requests):
                r = requests[sent]
                ctx.set(dut.mem.req.valid, 1)
                for name in ("addr", "write", "tag"):
                    ctx.set(getattr(dut.mem.req.payload, name), r[name])
                ctx.set(dut.mem.req.payload.wdata, r["addr"])
                ctx.set(dut.mem.req.payload.wmask, FULL_MASK if r["write"] else 0)
                if since is None:
                    since = cycle
            else:
                ctx.set(dut.mem.req.valid, 0)
            _, _, taken, rvalid, rtag, idle = await ctx.tick().sample(
                dut.mem.req.ready, dut.mem.resp.valid, dut.mem.resp.payload.tag, dut.idle)
            if sent < len(requests) and taken:
                if not requests[sent]["write"]:
                    state["offered"][requests[sent]["tag"]].append(since)
                sent, since = sent + 1, None
            if rvalid:
                state["latencies"].append(cycle - state["offered"][rtag].popleft())
            cycle += 1
            if sent == len(requests) and len(state["latencies"]) == reads and idle and \
                    slave.idle():
                state["end"] = cycle
                return
        raise RuntimeError(f"not done in {limit} cycles")

    sim = Simulator(dut)
    sim.add_clock(1e-8)
    sim.add_testbench(serve, background=True)
    sim.add_testbench(drive)
    sim.run()
    lat = state["latencies"]
    bursts = [b for b in slave.log["bursts"]]
    return {"cycles": state["end"], "lines": len(requests),
            "lines_per_cycle": round(len(requests) / state["end"], 4),
            "read_latency_mean": round(sum(lat) / len(lat), 1) if lat else None,
            "read_latency_max": max(lat) if lat else None,
            "bursts": len(bursts),
            "lines_per_burst": round(len(requests) / max(len(bursts), 1), 2),
            "max_reads_in_flight": slave.log["max_reads"]}


def lone_read(*, data_width: int, latency: int, params: dict) -> int:
    """Cycles from a single read offered to its line answered."""
    result = run([{"addr": 100, "write": 0, "tag": 1}], data_width=data_width,
                 latency=latency, params=params)
    return result["read_latency_max"]


def parse_params(pairs: list[str]) -> dict:
    params = {}
    for pair in pairs or []:
        key, _, value = pair.partition("=")
        params[key] = int(value)
    return params


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=2048, help="requests a pattern offers")
    parser.add_argument("--latency", type=int, default=100)
    parser.add_argument("--data-width", type=int, nargs="+", default=[512, 64])
    parser.add_argument("--pattern", nargs="+", default=list(PATTERNS), choices=PATTERNS)
    parser.add_argument("--set", action="append", metavar="KEY=VALUE",
                        help="an AXI4Master parameter (read_outstanding=64, ...)")
    parser.add_argument("--label", default="", help="a name for the parameter set")
    parser.add_argument("--json", type=Path, default=DEFAULT_JSON)
    args = parser.parse_args()
    params = parse_params(args.set)
    rows = []
    print(f"{'pattern':<10} {'width':>5} {'lines/cyc':>9} {'ideal':>6} {'ratio':>6} "
          f"{'lat mean':>8} {'lat max':>7} {'per burst':>9} {'wall s':>6}")
    for width in args.data_width:
        ideal = min(1.0, width / LINE_BITS)
        for name in args.pattern:
            requests = PATTERNS[name](args.lines, random.Random(name))
            start = time.monotonic()
            result = run(requests, data_width=width, latency=args.latency, params=params)
            wall = time.monotonic() - start
            row = {"pattern": name, "data_width": width, "ideal": ideal,
                   "ratio": round(result["lines_per_cycle"] / ideal, 3), **result,
                   "wall_seconds": round(wall, 1)}
            rows.append(row)
            print(f"{name:<10} {width:>5} {row['lines_per_cycle']:>9} {ideal:>6} "
                  f"{row['ratio']:>6} {row['read_latency_mean']!s:>8} "
                  f"{row['read_latency_max']!s:>7} {row['lines_per_burst']:>9} "
                  f"{row['wall_seconds']:>6}")
        lone = lone_read(data_width=width, latency=args.latency, params=params)
        rows.append({"pattern": "lone_read", "data_width": width, "read_latency": lone})
        print(f"{'lone read':<10} {width:>5} latency {lone} cycles")
    report = base_report("bench", None, None)
    report["figures"] = {"label": args.label, "latency": args.latency, "params": params,
                         "lines": args.lines, "rows": rows}
    args.json.parent.mkdir(parents=True, exist_ok=True)
    write_json(args.json, report)
    print(f"wrote {args.json}")


if __name__ == "__main__":
    main()
