"""Small real graphs for the RTL tests: networkx's bundled graphs, symmetric, with integer
weights derived from the endpoints."""

import networkx as nx
import numpy as np

import golden


def networkx_graph(name):
    graph = {"karate": nx.karate_club_graph, "lesmis": nx.les_miserables_graph,
             "florentine": nx.florentine_families_graph}[name]()
    graph = nx.convert_node_labels_to_integers(graph)
    edges = np.array(list(graph.edges()), dtype=np.int64)
    src = np.concatenate([edges[:, 0], edges[:, 1]])
    dst = np.concatenate([edges[:, 1], edges[:, 0]])
    weight = (src * 7 + dst * 3) % 13 + 1
    return golden.Graph.from_edges(graph.number_of_nodes(), src, dst, weight, symmetric=True)
