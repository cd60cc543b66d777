# Two commands do all the set-up on a fresh machine: `make run` and `make test`.
# Both create (or refresh) .venv from pyproject.toml and constraints.txt (pinned versions), with
# the optional board extra (LiteX), so that the tests cover the board flow too, and the
# baseline extra (the CPU graph libraries the benches compare with).

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-$(shell cat pyproject.toml constraints.txt | sha256sum | cut -c1-12)
GRAPHGEN := $(BIN)/graphgen
OSU018_LIB := /usr/share/qflow/tech/osu018/osu018_stdcells.lib
# The CPU's power in W for the CPU baseline's energy (make bench CPU_WATTS=11): the bench reads
# no package counter, so without it the CPU rows have no energy estimate.
CPU_WATTS ?=

.PHONY: venv system-deps run test bench soak clean

venv: $(STAMP)

$(STAMP): pyproject.toml constraints.txt
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11))' || \
		{ echo "error: Python 3.11 or newer is needed ($(PYTHON))"; exit 2; }
	rm -f $(VENV)/.installed-*
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --disable-pip-version-check -c constraints.txt -e ".[board,baseline]"
	touch $@

# Optional system packages: Icarus Verilog (second simulator), the OSU 0.18 um Liberty
# file (ASIC area), OpenSTA (the ASIC clock, `sta`), LZ4's header (Verilator's FST
# waveforms, --trace) and headless Chromium (the test that opens graphgen report's page).
# Installed when we are root with apt-get; otherwise only a warning.
system-deps:
	@missing=""; \
	command -v iverilog >/dev/null || missing="$$missing iverilog"; \
	[ -f $(OSU018_LIB) ] || missing="$$missing qflow-tech-osu018"; \
	command -v sta >/dev/null || missing="$$missing opensta"; \
	[ -f /usr/include/lz4.h ] || missing="$$missing liblz4-dev"; \
	command -v chromium-headless-shell >/dev/null || missing="$$missing chromium-headless-shell"; \
	if [ -n "$$missing" ]; then \
		if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
			echo "installing$$missing"; \
			(apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null) \
				|| echo "warning: could not install$$missing"; \
		else echo "warning: not installed:$$missing (needs root and apt-get)"; fi; \
	fi

# The main job on an embedded default: the accelerator's Verilog, BFS on the bundled graph in
# RTL simulation checked against the golden model, the same configuration's ASIC area by unit
# (OSU 0.18 um, one Yosys run per unit), and build/run/report.html: the page of that run
# (configuration, the check, cycles, edges per cycle, the same per iteration from the counters
# the testbench read at each iteration's end, memory channels, stalls, area by unit).
# ECP5 place and route of this configuration is left out to keep this target short (it fills
# 94% of an LFE5U-85F's LUT4s; on a shared two-core machine Yosys and nextpnr had not routed
# it after 58 minutes, 29 of them CPU time): a report of
# `graphgen synth --design graphicionado $(RUN_SETS) --target ecp5 --json build/run/synth-ecp5.json`
# put in build/run/ joins the page (its Fmax); `make bench` measures other configurations' Fmax.
RUN_GRAPH := data/kron11.mtx
RUN_ROOT := 10
RUN_SETS := --set algo=bfs --set max_vertices=4096 --set streams_src=2 --set streams_dst=2 \
	--set memory_channels=2

run: venv system-deps
	mkdir -p build/run
	$(GRAPHGEN) verilog --design graphicionado $(RUN_SETS) -o build/run/graphicionado.v
	$(GRAPHGEN) sim --design graphicionado --algo bfs --graph $(RUN_GRAPH) --root $(RUN_ROOT) \
		$(RUN_SETS) --mem channels=2 --json build/run/sim-bfs.json
	$(GRAPHGEN) synth --design graphicionado $(RUN_SETS) --target asic --per-unit \
		--json build/run/synth-asic.json
	$(GRAPHGEN) report build/run -o build/run/report.html
	@echo "reports in build/run/; the page: build/run/report.html"

test: venv system-deps
	$(BIN)/pytest -q -n 2 --durations=15 -m "not soak"

bench: venv system-deps
	mkdir -p build/bench
	$(BIN)/python bench/bench_golden.py --json build/bench/golden.json
	$(BIN)/python bench/bench_cam_sim.py --json build/bench/cam-sim.json
	$(BIN)/python bench/bench_graphicionado.py --json build/bench/graphicionado.json
	$(BIN)/python bench/bench_graphicionado_streams.py --json build/bench/graphicionado-streams.json
	$(BIN)/python bench/bench_roofline.py --json build/bench/roofline.json
	$(GRAPHGEN) synth --design graphicionado --set algo=pagerank --set streams_src=2 \
		--set streams_dst=2 --target ecp5 --json build/bench/graphicionado-pagerank-2x2-ecp5.json
	$(BIN)/python bench/bench_graphicionado_slicing.py --json build/bench/graphicionado-slicing.json
	$(BIN)/python bench/bench_graphicionado_cf.py --json build/bench/graphicionado-cf.json
	$(BIN)/python bench/bench_graphicionado_symmetric.py --json build/bench/graphicionado-symmetric.json
	$(BIN)/python bench/bench_graphicionado_extended.py --json build/bench/graphicionado-extended.json
	$(BIN)/python bench/bench_program_area.py --json build/bench/program-area.json
	$(BIN)/python bench/bench_programs.py --json build/bench/programs.json
	$(GRAPHGEN) synth --design graphicionado-cf --target asic --json build/bench/graphicionado-cf-asic.json
	$(GRAPHGEN) synth --design graphicionado-cf --target ecp5 --json build/bench/graphicionado-cf-ecp5.json
	$(GRAPHGEN) synth --design graphicionado --set algo=pagerank --set streams_src=8 \
		--set streams_dst=8 --set edge_readers=2 --set memory_channels=8 --target asic \
		--per-unit --json build/bench/graphicionado-pagerank-8x8-asic.json
	$(GRAPHGEN) synth --design graphicionado --set algo=pagerank --target ecp5 --seeds 3 \
		--json build/bench/graphicionado-pagerank-ecp5.json
	$(GRAPHGEN) synth --design graphicionado --set algo=pagerank --target asic \
		--json build/bench/graphicionado-pagerank-asic.json
	$(BIN)/python bench/bench_program_ops.py --json build/bench/program-ops.json
	$(BIN)/python bench/bench_depgraph_golden.py --json build/bench/depgraph-golden.json
	$(BIN)/python bench/bench_depgraph_models.py --json build/bench/depgraph-models.json
	$(BIN)/python bench/bench_depgraph_rtl.py --json build/bench/depgraph-rtl.json
	$(BIN)/python bench/bench_depgraph_rtl.py --graph grid:rows=48,cols=48,seed=1,weights=uniform:1:255 \
		--hub off --walks 16 --json build/bench/depgraph-rtl-grid.json
	$(BIN)/python bench/bench_depgraph_walks.py --json build/bench/depgraph-walks.json
	$(BIN)/python bench/bench_depgraph_sweep.py --json build/bench/depgraph-sweep.json
	$(BIN)/python bench/bench_depgraph_sweep.py --configs defaults --engines 2,4 \
		--graphs rmat12,rmat14-ef16,kron12,kron14-ef16,grid64 \
		--json build/bench/depgraph-defaults.json
	$(BIN)/python bench/bench_depgraph_sweep.py --configs defaults --engines 2,4 \
		--graphs road4k,karate,davis,florentine,lesmis --algos sssp,pagerank,bfs,cc \
		--json build/bench/depgraph-defaults-new-kinds.json
	$(GRAPHGEN) synth --design depgraph --set preset=ecp5 --set bank_vertices=4096 --set algo=sssp \
		--target ecp5 --clock-mhz 80 --seeds 4 --jobs 2 --json build/bench/depgraph-2e-ecp5.json
	$(BIN)/python bench/bench_bfs.py --json build/bench/bfs.json
	$(BIN)/python bench/bench_bfs_frontier.py --json build/bench/bfs-frontier.json
	$(BIN)/python bench/bench_bfs_frontier.py --defaults-only --scan-roots 8 --skip-queues \
		--json build/bench/bfs-frontier-8-roots.json
	$(BIN)/python bench/bench_dyngraph.py --json build/bench/dyngraph.json
	$(BIN)/python bench/bench_axi.py --axi data_width=64 --axi data_width=512 \
		--axi data_width=512,burst_hold=0 --json build/bench/axi.json
	$(BIN)/python bench/bench_axi_master.py --json build/bench/axi-master.json
	$(BIN)/python bench/area_axi_master.py --json build/bench/axi-master-area.json
	$(BIN)/python bench/bench_sweep.py --json build/bench/sweep.json
	$(BIN)/python bench/bench_design_table.py --time-limit 3600 --json build/bench/design-table.json
	$(GRAPHGEN) synth --design bfs --target asic --per-unit --json build/bench/bfs-asic.json
	$(GRAPHGEN) synth --design bfs --target ecp5 --set lanes=2 --set bu_slots=32 \
		--set read_window=16 --set scan_window=16 --set memory_outstanding=64 \
		--json build/bench/bfs-ecp5.json
	$(GRAPHGEN) synth --design dyngraph --target asic --per-unit --json build/bench/dyngraph-asic.json
	$(BIN)/python bench/bench_cpu_baseline.py \
		--ecp5 graphicionado-1x1=build/bench/graphicionado-pagerank-ecp5.json \
		--asic graphicionado-1x1=build/bench/graphicionado-pagerank-asic.json \
		--asic graphicionado-8x8=build/bench/graphicionado-pagerank-8x8-asic.json \
		--ecp5 depgraph=build/bench/depgraph-2e-ecp5.json \
		--ecp5 bfs=build/bench/bfs-ecp5.json --asic bfs=build/bench/bfs-asic.json \
		--asic dyngraph=build/bench/dyngraph-asic.json $(if $(CPU_WATTS),--cpu-watts $(CPU_WATTS)) \
		--json build/bench/cpu-baseline.json
	$(GRAPHGEN) sim --design bfs --algo bfs --graph kron:scale=11,ef=16,seed=1,undirected=1 \
		--roots 4 --set lanes=2 --set bu_slots=32 --set read_window=16 --set scan_window=16 \
		--set memory_outstanding=64 --json build/bench/bfs-teps.json
	$(BIN)/python bench/bench_axi_area.py --configs smallest --json build/bench/axi-area-smallest.json
	$(BIN)/python bench/bench_axi_area.py --json build/bench/axi-area.json
	$(BIN)/python bench/bench_board.py --json build/bench/board.json

# The tests marked soak (too long for make test's budget), then long random runs against
# the golden model (SOAK_MINUTES, default 30).
SOAK_MINUTES ?= 30
soak: venv system-deps
	$(BIN)/pytest -q -n 2 -m soak
	$(BIN)/python bench/soak.py --minutes $(SOAK_MINUTES)

clean:
	rm -rf build .pytest_cache
