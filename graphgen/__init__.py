"""graphgen: a synthesizable hardware generator for graph-analytics accelerators."""
