"""Programming models: users write plain Python functions, the runtime runs them in parallel.

:mod:`gpugraph.model.emv`  Medusa's EMV model (ELIST, EDGE, MLIST, MESSAGE, VERTEX, Combiner)
:mod:`gpugraph.model.gas`  gather / apply / scatter (PowerGraph)
"""

from gpugraph.model import emv, gas

__all__ = ["emv", "gas"]
