"""DepGraph (Zhang et al., HPCA 2021) in hardware: engines of HDTL, FIFO edge buffer and
processing element over their partitions, vertex-store banks, circular queues in memory and
the DDMU with its hub index. The plan is docs/depgraph-hardware.md."""
