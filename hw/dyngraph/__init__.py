"""The dynamic graph unit: a slab-hash adjacency store in accelerator memory with batched edge
and vertex updates (Awad et al., "Dynamic Graphs on the GPU"; Ashkiani et al.'s slab hash).
"""
