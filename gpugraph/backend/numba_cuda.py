"""Loading numba-cuda safely, whatever NumPy is installed.

numba-cuda 0.30.4 registers an overload for ``np.row_stack`` while it builds its typing registry,
the first time any kernel is compiled. NumPy 2.5 removed ``np.row_stack`` (deprecated in 2.0 as an
alias of ``np.vstack``), so on NumPy >= 2.5 every kernel compilation fails with an AttributeError.
We restore the alias *before* numba-cuda is imported. The alias is exactly what NumPy itself
provided until 2.5, so no user-visible NumPy behaviour changes.

This module is imported only when a CUDA backend (or the CUDA simulator) is actually requested:
importing :mod:`gpugraph` never touches CUDA.
"""

from __future__ import annotations

import importlib
import sys
import warnings

import numpy as np

from gpugraph.errors import DeviceError

_ROW_STACK_SHIM_APPLIED = False


def apply_numpy_compat() -> bool:
    """Restore ``np.row_stack`` as an alias of ``np.vstack`` when NumPy lacks it.

    Returns
    -------
    bool
        ``True`` if the alias had to be added (NumPy >= 2.5), ``False`` if NumPy already had it.
    """
    global _ROW_STACK_SHIM_APPLIED
    with warnings.catch_warnings():
        # NumPy 2.0-2.4 still have the alias but warn that it is deprecated.
        warnings.simplefilter("ignore", DeprecationWarning)
        has_row_stack = hasattr(np, "row_stack")
    if not has_row_stack:
        np.row_stack = np.vstack
        _ROW_STACK_SHIM_APPLIED = True
    return _ROW_STACK_SHIM_APPLIED


def load_numba_cuda():
    """Import ``numba.cuda`` after applying the NumPy compatibility shim.

    Returns
    -------
    module
        The ``numba.cuda`` module.

    Raises
    ------
    DeviceError
        If numba-cuda is not installed.
    """
    apply_numpy_compat()
    try:
        cuda = importlib.import_module("numba.cuda")
    except ImportError as exc:  # pragma: no cover - depends on the installation
        raise DeviceError(
            "numba-cuda is not installed; install the GPU extra: pip install 'gpugraph[gpu]'"
        ) from exc
    # Small launches (a frontier of a few vertices) are expected in graph traversals; numba-cuda
    # would warn about low occupancy on each one. Its config module is read when numba.cuda
    # loads, after numba itself, so the setting is changed here rather than by environment.
    for name in ("numba.cuda.core.config", "numba.core.config"):
        module = sys.modules.get(name)
        if module is not None and hasattr(module, "CUDA_LOW_OCCUPANCY_WARNINGS"):
            module.CUDA_LOW_OCCUPANCY_WARNINGS = 0
    return cuda


def simulator_enabled() -> bool:
    """Whether numba's CUDA simulator is on (``NUMBA_ENABLE_CUDASIM=1``)."""
    from numba import config as numba_config

    return bool(getattr(numba_config, "ENABLE_CUDASIM", 0))
