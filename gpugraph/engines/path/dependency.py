"""The path dependency graph, its SCCs contracted into a DAG sketch, and layers (DiGraph §3.2.1).

Path ``q`` depends on path ``p`` when ``p`` enters a vertex that ``q`` leaves: a new state of
that vertex computed on ``p`` must be propagated by ``q``. Instead of writing that relation out
(a vertex entered by ``a`` paths and left by ``b`` gives ``a * b`` pairs), the graph is kept
bipartite: path -> vertex for every vertex a path enters, vertex -> path for every vertex a path
leaves. Its strongly connected components are those of the dependency graph with vertex nodes
added, and contracting them gives the DAG sketch. A path's layer is the most path-holding SCCs on
any chain of predecessors in the sketch, so paths of one layer depend only on lower layers;
the paths of one large SCC share a layer and are processed over several rounds.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components

from gpugraph.engines.path import _partition_cpu as kernels


@dataclass
class Dependencies:
    """Layers of the paths.

    Attributes
    ----------
    scc:
        int64 per path, the SCC-vertex of the DAG sketch it belongs to.
    layer:
        int64 per path, its layer (0 for paths depending on no other SCC).
    num_sccs:
        SCC-vertices holding at least one path.
    largest_scc:
        Paths in the largest SCC-vertex.
    """

    scc: np.ndarray
    layer: np.ndarray
    num_sccs: int
    largest_scc: int

    @property
    def num_layers(self) -> int:
        """Number of distinct layers."""
        return int(self.layer.max()) + 1 if self.layer.size else 0


def path_dependencies(paths, num_vertices: int) -> Dependencies:
    """SCC-vertices and layers of ``paths`` (module docstring).

    Parameters
    ----------
    paths:
        :class:`gpugraph.engines.path.partition.Paths`.
    num_vertices:
        Vertices of the graph they cover.

    Returns
    -------
    Dependencies
    """
    num_paths = paths.num_paths
    path = paths.path_of_position()
    last = np.zeros(paths.vertices.size, dtype=bool)
    last[paths.offsets[1:] - 1] = True
    first = np.zeros(paths.vertices.size, dtype=bool)
    first[paths.offsets[:-1]] = True
    vertex_node = num_paths + paths.vertices
    source = np.concatenate((path[~first], vertex_node[~last]))  # p enters v; v is left by q
    target = np.concatenate((vertex_node[~first], path[~last]))
    nodes = num_paths + num_vertices
    graph = sp.csr_array((np.ones(source.size, dtype=np.int32), (source, target)), shape=(nodes, nodes))
    count, label = connected_components(graph, directed=True, connection="strong")
    label = label.astype(np.int64)
    dag = sp.csr_array((np.ones(source.size, dtype=np.int32), (label[source], label[target])), shape=(count, count))
    dag.setdiag(0)
    dag.eliminate_zeros()
    holds_paths = np.zeros(count, dtype=np.int64)
    holds_paths[label[:num_paths]] = 1
    component_layer = kernels.longest_path_layers(
        dag.indptr.astype(np.int64), dag.indices.astype(np.int64), holds_paths)
    scc = label[:num_paths]
    sizes = np.bincount(scc, minlength=count)
    return Dependencies(
        scc=scc,
        layer=component_layer[scc],
        num_sccs=int(np.count_nonzero(sizes)),
        largest_scc=int(sizes.max()) if num_paths else 0,
    )
