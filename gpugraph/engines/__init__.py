"""Engines: executors of one graph program.

``bsp``   synchronous rounds with a barrier (:mod:`gpugraph.engines.bsp`); runs EMV and GAS
          programs.
``path``  DiGraph's path-based asynchronous engine (:mod:`gpugraph.engines.path`): PageRank,
          adsorption, SSSP and k-core as accumulative / monotone arc updates, with the
          baselines it is measured against (bsp, bsp-delta, async); ``solve(graph, algorithm)``.

``ENGINES`` lists the engines EMV and GAS programs can name.
"""

ENGINES = ("bsp",)
