"""Graphicionado's golden models beyond the basic executor (:mod:`golden.vertex_program`):
graph slicing (§VI.A), and the symmetric-graph optimisation with extended slicing (§IV.D,
§VI.B)."""

from .extended_slicing import SliceStep, execute_symmetric, extended_schedule, stored_edges
from .slicing import execute_sliced, slice_bounds, slice_of, sliced_edges, slices_needed

__all__ = ["slices_needed", "slice_bounds", "slice_of", "sliced_edges", "execute_sliced",
           "SliceStep", "extended_schedule", "stored_edges", "execute_symmetric"]
