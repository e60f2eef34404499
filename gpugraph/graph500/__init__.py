"""Graph500 BFS harness: the benchmark's runs and the statistics block it prints after them.

Modules
-------
summary
    The statistics of the timed searches (order statistics, mean and standard deviation,
    harmonic mean TEPS and its standard error) and the ``name: value`` text block of the
    Graph500 reference code.
"""
