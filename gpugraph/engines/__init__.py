"""Engines: executors of one graph program.

``bsp``  synchronous rounds with a barrier (:mod:`gpugraph.engines.bsp`). The asynchronous and
         path-based (DiGraph) engines run the same GAS programs and arrive with their issues.
"""

ENGINES = ("bsp",)
