"""The host side of the BFS engine's RTL runs: its memory image and the run against the
golden model (:mod:`sim.bfs.image`, :mod:`sim.bfs.run`)."""
