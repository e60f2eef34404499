"""Graph500 BFS across processes (Pan et al.'s degree separation) and the benchmark's harness.

Modules
-------
separation
    Delegates (vertices of degree above TH) and normal vertices; the automatic threshold.
distributor
    The process layout, the edge distributor (Algorithm 1) and the four local subgraphs.
bfs
    One process's search: the level loop, direction optimisation per subgraph, communication.
validate
    The specification's validation of a BFS tree from the input edges and the parent array.
summary
    The statistics of the timed searches and the ``name: value`` text block of the reference code.
harness
    The benchmark on one or several processes: generation, construction, roots, searches,
    validation, output (``gpugraph graph500``).
"""
