"""Each design's simulation hooks (:class:`graphgen.simulation.Simulation`), one module a
design: how its host code in ``sim/<design>/run.py`` runs a request, and how its figures read
on the terminal. The registry (:mod:`graphgen.designs`) attaches them to the designs."""
