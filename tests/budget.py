"""make test's budget (20 minutes on a fresh clone of the 2-core machine): the tests moved
to ``make soak``. make test took 51 minutes in CI at 0eeb9bf's stop and 59 on a fresh clone
of 0eeb9bf with another job beside it; with the first tests here moved, 25 minutes on an idle
fresh clone of 29253fe, whose slowest tests were then the next users of the moved tests'
builds, so those followed. CI took 20 min 40 s (1,240 s) at the next stop, 19 min 1 s idle
here: the checks of the checker, the iteration snapshots, the run folder's cleanup, three
DRAM model settings, four AXI master error cases and two more unit cases followed (seconds
measured with other jobs beside the run).

Each entry is a test (by module, then its name with its parameters) and the seconds its call
took in the fresh-clone run it was moved after (``pytest --durations``, a Verilator or Yosys
build included when the test was the first to need it); ``tests/conftest.py`` marks them
``soak``. ``None``: not among the slowest, moved because it shares a build with a moved test
(keeping it would keep the build's minutes), or a slow case added since. The second stall
pattern of every stream test (``pause2`` of ``tests.support.stream_drivers.PAUSES``) is soak
only as well.

What make test keeps: one Verilator run of every design (Graphicionado BFS in
``tests/hw/graphicionado/test_rtl.py``, the other three through the AXI top in
``tests/hw/lib/test_axi_top.py``), every block's unit tests but for their slowest cases, the
golden models, the command line and the tool flows on the CAM. A test added to make test
that takes more than about 10 s moves another here.
"""

__all__ = ["MOVED_TO_SOAK", "moved_to_soak"]

MOVED_TO_SOAK = {
    "tests/formal/test_formal.py": {
        "test_axi_master_answers_proof": 36,
        "test_axi_master_answers_proof_depth_reaches_idle_after_answers": 10,
    },
    "tests/golden/test_depgraph.py": {
        "test_pagerank_converges_to_the_fixpoint[kron9]": 43,
        "test_pagerank_converges_to_the_fixpoint[rmat9]": 15,
        "test_several_walks_in_flight_reach_the_same_fixpoint[False-pagerank]": 8,
    },
    "tests/hw/bfs/test_rtl.py": {
        "test_counters_add_up_and_unreached_stay_unreached": None,
        "test_rtl_matches_golden[auto-l4-x4-ch2-hier-cache-stalls]": 183,
        "test_the_checks_fire": None,
    },
    "tests/hw/depgraph/test_engine.py": {
        "test_engines_reach_the_golden_fixpoint[bfs-e1-d3-w1-csr-pause1]": None,
        "test_engines_reach_the_golden_fixpoint[bfs-e1-d4-w4-weighted-pause1]": 11,
        "test_engines_reach_the_golden_fixpoint[cc-e2-d4-w1-onchip-csr-pause1]": 10,
        "test_engines_reach_the_golden_fixpoint[pagerank-e1-d3-w4-onchip-csr-pause1]": 16,
        "test_engines_reach_the_golden_fixpoint[sssp-e2-d2-w2-onchip-csr-pause1]": 9,
        "test_engines_reach_the_golden_fixpoint[widest-e2-d3-w2-onchip-csr-pause1]": None,
    },
    "tests/hw/depgraph/test_hub_index_learner.py": {
        "test_hub_index_learner[pagerank]": 11,
    },
    "tests/hw/depgraph/test_linear_fit.py": {
        "test_linear_fit[1]": 10,
        "test_linear_fit[2]": 11,
    },
    "tests/hw/depgraph/test_op_picker.py": {
        "test_op_picker[10-2]": 12,
        "test_op_picker[4-1]": 14,
    },
    "tests/hw/depgraph/test_rtl.py": {
        "test_pagerank_against_networkx_fixpoint": 8,
        "test_rtl_matches_golden[pagerank-e2-d10-w2-hub-s20-u4-lines]": 120,
        "test_rtl_matches_golden[sssp-e4-d2-w2-hub-s0-offmem-u4]": 134,
    },
    "tests/hw/depgraph/test_vertex_store.py": {
        "test_sum_random[3]": 9,
        "test_sum_random[4]": 10,
    },
    "tests/hw/dyngraph/test_rtl.py": {
        "test_rtl_matches_golden[s4-ports2-ch2-stalls]": 329,
    },
    "tests/hw/dyngraph/test_slab_blocks.py": {
        "test_slab_compare_reads_all_fifteen_keys[pause1]": 10,
    },
    "tests/hw/dyngraph/test_top.py": {
        "test_a_batch_and_its_compaction_equal_the_golden_model[nopause]": 103,
        "test_a_batch_and_its_compaction_equal_the_golden_model[pause1]": 90,
    },
    "tests/hw/graphicionado/test_apply.py": {
        "test_apply_cf[pause1]": 17,
    },
    "tests/hw/graphicionado/test_cf_datapath.py": {
        "test_three_paths_against_the_cf_program[pause1]": 9,
    },
    "tests/hw/graphicionado/test_flit_process_edge.py": {
        "test_cf_process_edge[8-4-nopause]": 10,
    },
    "tests/hw/graphicionado/test_rtl.py": {
        "test_compact_edges[sssp-2x1-sliced-coarsened]": 76,
        "test_graph_slicing[cc-3]": 55,
        "test_graph_slicing[pagerank-4]": 70,
        "test_graph_slicing[sssp-4]": 48,
        "test_rtl_matches_golden[cc-grid]": 51,
        "test_rtl_matches_golden[cc-karate]": None,
        "test_rtl_matches_golden[pagerank-grid]": 67,
        "test_rtl_matches_golden[pagerank-karate]": None,
        "test_rtl_matches_golden[sssp-grid]": 49,
        "test_rtl_matches_golden[sssp-karate]": None,
        "test_rtl_programs[spmv-1x1-kron7]": 29,
        "test_rtl_programs[spmv-1x1-lesmis]": 33,
        "test_rtl_under_hostile_memory[pagerank]": None,
    },
    "tests/hw/graphicionado/test_top.py": {
        "test_collaborative_filtering[4-streams0]": 63,
        "test_destination_property_read[bfs-0]": 27,
        "test_example_programs[labelprop]": 32,
        "test_example_programs[ppr]": 29,
        "test_example_programs[spmv]": 15,
        "test_example_programs[widest]": 43,
        "test_extended_slicing[streams0]": 57,
        "test_frontier_algorithms[bfs-4-40-coo]": 29,
        "test_frontier_algorithms[cc-1-0-coo]": 22,
        "test_frontier_algorithms[sssp-4-40-csr]": 58,
        "test_graph_slicing[pagerank-streams1-16]": 73,
        "test_pagerank_bit_exact[40]": 41,
        "test_parallel_streams[pagerank-streams2]": 61,
    },
    "tests/hw/lib/test_axi_master.py": {
        "test_master_stops_on_an_error_response[False-AXIResp.DECERR-512-pause1]": 9,
        "test_master_stops_on_an_error_response[False-AXIResp.SLVERR-64-pause1]": 11,
        "test_master_stops_on_an_error_response[True-AXIResp.DECERR-128-nopause]": 10,
        "test_master_stops_on_an_error_response[True-AXIResp.SLVERR-512-pause1]": 9,
        "test_a_waiting_write_lets_reads_of_other_lines_pass": 16,
        "test_master_bursts_are_capped": 45,
        "test_master_ids_fold_tags": 25,
        "test_master_interleaved_streams_form_bursts_in_order[64-4-nopause]": 14,
        "test_master_interleaved_streams_form_bursts_in_order[64-4-pause1]": 17,
        "test_master_keeps_the_bus_busy[512-512-0.8-reads]": 22,
        "test_master_keeps_the_bus_busy[512-512-0.8-writes]": 22,
        "test_master_keeps_the_bus_busy[64-256-0.95-reads]": 27,
        "test_master_keeps_the_bus_busy[64-256-0.95-writes]": 22,
        "test_master_matches_memory[512-3-pause1]": 25,
        "test_master_matches_memory[64-4-nopause]": 33,
        "test_master_matches_memory[64-4-pause1]": 42,
    },
    "tests/hw/lib/test_axi_top.py": {
        "test_a_base_register_past_the_memory_refuses_start": 17,
        "test_an_error_mid_bfs_ends_the_run_and_the_next_run_is_right[False-40-AXIResp.SLVERR]": 17,
        "test_an_error_mid_bfs_ends_the_run_and_the_next_run_is_right[True-3-AXIResp.DECERR]": 13,
        "test_every_design_emits_vivado_port_names[bfs]": 41,
        "test_graphicionado_bfs_through_the_axi_top[1-64-1]": 15,
        "test_graphicionado_bfs_through_the_axi_top[2-128-2]": 15,
    },
    "tests/hw/lib/test_cam.py": {
        "test_unchecked_insert_matches_checked[e8w2i16]": 9,
        "test_cam_verilator[e16w4i32]": 13,
        "test_cam_verilator[e4w1i10]": 10,
        "test_cam_verilator[e8w2i16]": 11,
    },
    "tests/hw/lib/test_fp32.py": {
        "test_divider_hypothesis": 9,
    },
    "tests/hw/lib/test_memory_interconnect.py": {
        "test_memory_interconnect_contract[8-2-8-4-pause1]": 13,
    },
    "tests/hw/lib/test_program_datapath.py": {
        "test_synthetic[vectors-pause1]": 9,
        "test_verilog_of_the_largest": 11,
    },
    "tests/sim/gateware/test_axi_dram.py": {
        "test_adapter_under_axi_master[512]": 10,
    },
    "tests/sim/gateware/test_dram_model.py": {
        "test_dram_runtime_settings[bw21.25-pushback10]": 11,
        "test_dram_runtime_settings[fixed]": 10,
        "test_dram_runtime_settings[reorder-tail]": 8,
        "test_dram_default_latency_full_size": 10,
        "test_dram_verilator[latency20-hex]": 10,
    },
    "tests/sim/test_checker_fires.py": {
        "test_one_vertex_changed_is_caught": 27,
        "test_hang_is_caught_by_the_watchdog": 68,
    },
    "tests/sim/test_iterations.py": {
        "test_graphicionado_bfs_iterations_match_the_golden_levels": 30,
        "test_dyngraph_batches_add_up_to_the_operations": 116,
    },
    "tests/tools/test_board.py": {
        "test_cam_bitstream_for_ulx3s": 35,
    },
    "tests/tools/test_board_soc.py": {
        "test_each_memory_channel_gets_a_litedram_port": 21,
        "test_run_command_through_the_driver": 29,
    },
    "tests/tools/test_cli.py": {
        "test_synth_ecp5_reports_fmax_and_luts": 25,
    },
    "tests/tools/test_driver.py": {
        "test_simulator_bus_memory_and_registers": 37,
    },
    "tests/tools/test_driver_cocotb.py": {
        "test_design_through_the_driver_over_cocotb[bfs-2]": 243,
        "test_memory_errors_end_the_run_and_the_next_is_right": 169,
    },
    "tests/tools/test_fusesoc_core.py": {
        "test_the_lint_target_fails_without_the_waivers": 38,
    },
    "tests/tools/test_lint.py": {
        "test_design_verilog_lints_clean[depgraph-bfs-e1-w2-stalls-offmem]": 24,
        "test_design_verilog_lints_clean[depgraph-cc-hub_off]": 18,
        "test_design_verilog_lints_clean[depgraph-pagerank-hub_on]": 29,
        "test_design_verilog_lints_clean[depgraph-sssp-hub_on]": 20,
        "test_design_verilog_lints_clean[graphicionado-bfs-p4]": 12,
        "test_design_verilog_lints_clean[graphicionado-bfs-stalls]": 23,
        "test_design_verilog_lints_clean[graphicionado-cc]": 13,
        "test_design_verilog_lints_clean[graphicionado-crossbar-8x8]": 12,
        "test_design_verilog_lints_clean[graphicionado-sssp]": 13,
        "test_sim_top_lints_clean_with_dram[depgraph]": 25,
        "test_sim_top_lints_clean_with_dram[graphicionado]": 14,
    },
    "tests/tools/test_run_cleanup.py": {
        "test_graphgen_test_removes_its_run_folder_unless_kept": 22,
    },
    "tests/tools/test_sweep.py": {
        "test_ctrl_c_leaves_the_finished_points_saved": 10,
        "test_sweep_caches_records_failures_and_reports": 20,
        "test_sweep_runs_on_a_batch_queue[pbs]": 10,
        "test_sweep_runs_on_a_batch_queue[slurm]": 10,
        "test_the_sweep_simulates_through_the_design_hooks": 29,
    },
    "tests/tools/test_synth.py": {
        "test_depgraph_ddmu_generic": 13,
        "test_ecp5_design_too_big_is_reported_not_failed": 24,
        "test_ecp5_per_unit_breakdown_adds_up": 19,
        "test_ecp5_seed_sweep_reports_the_best_seed": 25,
    },
    "tests/tools/test_synth_axi.py": {
        "test_axi_top_is_cut_into_masters_register_slave_and_design": 34,
    },
}


def moved_to_soak(nodeid: str) -> bool:
    """Whether the test of pytest node id ``nodeid`` is one of :data:`MOVED_TO_SOAK`."""
    module, _, name = nodeid.partition("::")
    return name in MOVED_TO_SOAK.get(module, {})
