"""The BFS engine of the two GPU papers in hardware: Enterprise (Liu & Huang, SC'15) and
Luo, Wong & Hwu (DAC'10). See :mod:`hw.bfs.top` for the whole."""
