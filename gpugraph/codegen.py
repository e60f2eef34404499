"""Compiling users' plain Python functions into CPU and CUDA kernels, cached on disk.

A user writes a scalar function — "what happens on one edge", "what happens to one vertex" —
in plain Python. An operator of :mod:`gpugraph.ops` writes the source text of a kernel that loops
over the frontier and calls that function by name. This module turns the pair into a kernel:

1. :class:`UserFunction` checks the function's parameters against the names the operator can
   bind, compiles it once on the CPU to learn its types (so mistakes surface as a
   :class:`~gpugraph.errors.ProgramError` naming the function, not as a Numba stack dump), and
   wraps it for a target: ``numba.njit`` or ``numba.cuda.jit(device=True)``.
2. :func:`build_kernel` and :meth:`GeneratedKernel.specialize` write the kernel source to a
   file in the kernel cache directory, named by a hash of the source, the target, the Numba
   version, the user functions' code and the argument types, and import it with the user
   functions injected as module globals. The kernel is declared with ``cache=True``, so Numba
   keeps its machine code next to the file: a second process loads it instead of compiling
   (the first-launch time of :mod:`gpugraph.backend.kernels` shows which).

The same user function therefore runs unchanged on either device.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import inspect
import os
import re
import sys
import tempfile
import time
import types
import weakref

import numpy as np

from gpugraph import config
from gpugraph.errors import ProgramError

_TARGETS = ("cpu", "cuda")
_HEADERS = {
    "cpu": "import numba\nimport numpy as np\n",
    "cuda": (
        "import numba\nimport numpy as np\n"
        "from gpugraph.backend.numba_cuda import load_numba_cuda\ncuda = load_numba_cuda()\n"
        "from gpugraph.backend.cuda_device import last_at_most\n"
    ),
}
_kernels: dict[str, "GeneratedKernel"] = {}
_wrappers: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()
_return_types: dict[tuple, object] = {}
_ANSI = re.compile(r"\x1b\[[0-9;]*m")


class UserFunction:
    """A user's scalar function and the kind of step it implements.

    Parameters
    ----------
    function:
        A plain Python function (``def`` or ``lambda``) with positional parameters only. Its
        parameter *names* say what it receives: the operator binds each name to a value (the
        current vertex, an edge's weight, a state array, a constant).
    kind:
        What the function is for, used in messages: ``"EDGE"``, ``"VERTEX"``, ``"gather"``...

    Raises
    ------
    ProgramError
        If ``function`` is not a Python function or has ``*args``, ``**kwargs`` or
        keyword-only parameters.
    """

    def __init__(self, function, kind: str):
        self.kind = kind
        if isinstance(function, UserFunction):
            function = function.function
        if not inspect.isfunction(function):
            raise ProgramError(f"{kind} function must be a Python function, got {type(function).__name__}")
        self.function = function
        parameters = inspect.signature(function).parameters.values()
        plain = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
        odd = [p.name for p in parameters if p.kind not in plain]
        if odd:
            raise ProgramError(
                f"parameters are bound by name, so *args, **kwargs and keyword-only parameters "
                f"are not allowed ({', '.join(odd)})",
                self.label,
            )
        self.parameters = tuple(p.name for p in parameters)
        self._targets: dict[str, object] = {}
        self._fingerprint: str | None = None

    @classmethod
    def of(cls, function, kind: str) -> "UserFunction":
        """The wrapper of ``function`` for ``kind``, created once per function object, so its
        compiled forms and fingerprint are reused by every operator call."""
        if isinstance(function, UserFunction):
            return function
        try:
            by_kind = _wrappers.setdefault(function, {})
        except TypeError:  # not weak-referenceable: not a function, the constructor says so
            return cls(function, kind)
        if kind not in by_kind:
            by_kind[kind] = cls(function, kind)
        return by_kind[kind]

    @property
    def label(self) -> str:
        """``"KIND function name (file:line)"``, as error messages show it."""
        code = self.function.__code__
        return f"{self.kind} function {self.function.__name__} ({code.co_filename}:{code.co_firstlineno})"

    def check_names(self, available) -> None:
        """Check that every parameter can be bound.

        Parameters
        ----------
        available:
            The names the operator binds.

        Raises
        ------
        ProgramError
            Naming the first unknown parameter and listing what is available.
        """
        known = set(available)
        for name in self.parameters:
            if name not in known:
                raise ProgramError(
                    f"unknown parameter {name!r}; a {self.kind} function can take "
                    f"{', '.join(sorted(known))}",
                    self.label,
                )

    def for_target(self, target: str):
        """The function compiled lazily for ``"cpu"`` (``njit``) or ``"cuda"`` (device function)."""
        if target not in self._targets:
            if target == "cpu":
                import numba

                # Not cached on disk by Numba: its cache entry would name the module the
                # function was imported as, and fail to load when the same file runs as a
                # script. The generated kernels that inline it are cached (``build_kernel``).
                self._targets[target] = numba.njit(self.function)
            else:
                from gpugraph.backend.numba_cuda import load_numba_cuda

                self._targets[target] = load_numba_cuda().jit(device=True)(self.function)
        return self._targets[target]

    def return_type(self, argument_types):
        """Compile for the CPU with the given Numba argument types and return the result type.

        Raises
        ------
        ProgramError
            If the function does not compile for those types.
        """
        from gpugraph.backend.kernels import add_compile_seconds

        signature = tuple(argument_types)
        # Keyed by the code's fingerprint, so a program rebuilt with fresh closures of the same
        # code and values (as example functions do on every call) is not typed again.
        key = (self.fingerprint(), signature)
        if key not in _return_types:
            dispatcher = self.for_target("cpu")
            start = time.perf_counter()
            with compile_errors(self):
                dispatcher.compile(signature)
            add_compile_seconds(time.perf_counter() - start)
            _return_types[key] = dispatcher.overloads[signature].signature.return_type
        return _return_types[key]

    def fingerprint(self) -> str:
        """A hash of the function's module and name, code, constants, closure values and
        referenced globals."""
        if self._fingerprint is None:
            digest = hashlib.sha256()
            _hash_function(self.function, digest, depth=0)
            self._fingerprint = digest.hexdigest()
        return self._fingerprint


def _hash_code(code, digest) -> None:
    digest.update(code.co_code)
    digest.update(repr((code.co_names, code.co_varnames, code.co_freevars)).encode())
    for constant in code.co_consts:
        if isinstance(constant, types.CodeType):
            _hash_code(constant, digest)
        else:
            digest.update(repr(constant).encode())


def _hash_value(value, digest, depth: int) -> None:
    if isinstance(value, np.ndarray):
        digest.update(repr((value.dtype, value.shape)).encode() + value.tobytes())
    elif inspect.isfunction(value) or hasattr(value, "py_func"):
        function = getattr(value, "py_func", value)
        if depth < 4:
            _hash_function(function, digest, depth + 1)
        digest.update(function.__qualname__.encode())
    elif isinstance(value, types.ModuleType):
        digest.update(value.__name__.encode())
    else:
        digest.update(repr(value).encode())


def _hash_function(function, digest, depth: int) -> None:
    code = function.__code__
    # The module name matters too: Numba's cache entry of a kernel re-imports the modules of
    # the functions compiled into it, so the same file imported as a module and run as a
    # script must not share entries.
    digest.update(f"{function.__module__}.{function.__qualname__}".encode())
    _hash_code(code, digest)
    digest.update(repr(function.__defaults__).encode())
    for cell in function.__closure__ or ():
        _hash_value(cell.cell_contents, digest, depth)
    for name in code.co_names:
        if name in function.__globals__:
            _hash_value(function.__globals__[name], digest, depth)


@contextlib.contextmanager
def compile_errors(*functions: UserFunction):
    """Turn Numba compilation errors raised inside the block into a :class:`ProgramError`.

    The error names the user function the compiler was working on when the message mentions
    one of ``functions`` by name (otherwise the first), with Numba's first line of reason.
    """
    from numba.core.errors import NumbaError

    try:
        yield
    except NumbaError as exc:
        text = _ANSI.sub("", str(exc))
        culprit = next((f for f in functions if f.function.__name__ in text), functions[0] if functions else None)
        raise ProgramError(_reason(text), culprit.label if culprit else None) from None


def _reason(text: str) -> str:
    """The useful part of a Numba error message: its lines before the traceback-like details."""
    lines = []
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith(("During:", "File ", "- Resolution failure")) or stripped.startswith("^"):
            break
        if stripped:
            lines.append(stripped)
    reason = " ".join(lines) or text.strip().splitlines()[0]
    return reason if len(reason) <= 400 else reason[:397] + "..."


def _importable(function) -> bool:
    """Whether a later process could re-import the module ``function`` was defined in."""
    module = sys.modules.get(getattr(function, "__module__", None) or "")
    return module is not None and getattr(module, "__dict__", None) is function.__globals__


def cache_dir() -> str:
    """The directory holding generated kernel sources and Numba's cache of their machine code.

    ``$GPUGRAPH_CACHE_DIR`` if set, else ``~/.cache/gpugraph/kernels``; a temporary directory
    when neither can be created.
    """
    wanted = os.path.expanduser(os.environ.get(config.KERNEL_CACHE_ENV_VAR) or config.KERNEL_CACHE_DEFAULT)
    for directory in (wanted, os.path.join(tempfile.gettempdir(), f"gpugraph-kernels-{os.getuid()}")):
        try:
            os.makedirs(directory, exist_ok=True)
            if os.access(directory, os.W_OK):
                return directory
        except OSError:
            continue
    return tempfile.mkdtemp(prefix="gpugraph-kernels-")


def build_kernel(name: str, source: str, target: str, functions: dict[str, UserFunction]) -> "GeneratedKernel":
    """Prepare generated kernel source for a target, with the user functions it calls.

    Parameters
    ----------
    name:
        Short name of the kernel template (part of the file name, for people reading the cache).
    source:
        Python source defining a function ``kernel`` decorated for the target
        (``@numba.njit(parallel=True, cache=True)`` or ``@cuda.jit(cache=True)``); ``numba``,
        ``np`` and (for CUDA) ``cuda`` are imported for it.
    target:
        ``"cpu"`` or ``"cuda"``.
    functions:
        Global name in ``source`` -> the user function it calls.

    Returns
    -------
    GeneratedKernel
        Call :meth:`GeneratedKernel.specialize` with the launch arguments to get the dispatcher.
    """
    if target not in _TARGETS:
        raise ValueError(f"unknown target {target!r}")
    import numba

    digest = hashlib.sha256()
    digest.update(f"{target}\n{numba.__version__}\n{sys.version_info[:2]}\n{source}".encode())
    for global_name in sorted(functions):
        digest.update(f"{global_name}={functions[global_name].fingerprint()}".encode())
    key = digest.hexdigest()
    if key not in _kernels:
        _kernels[key] = GeneratedKernel(name, source, target, functions, key)
    return _kernels[key]


class GeneratedKernel:
    """Generated kernel source, compiled once per argument types into its own cached module.

    One file (and so one Numba cache index) per argument-type signature: processes that compile
    different signatures of the same source at the same time never share a cache index (Numba
    numbers the compiled versions in one index per file, and two processes adding versions at
    once could give one number to two signatures).
    """

    def __init__(self, name: str, source: str, target: str, functions: dict, key: str):
        self.name, self.source, self.target, self.functions, self.key = name, source, target, functions, key
        self._dispatchers: dict[tuple, object] = {}

    def specialize(self, args) -> object:
        """The dispatcher compiled (or loaded from the cache) for these argument types."""
        types_key = tuple(_argument_key(value) for value in args)
        dispatcher = self._dispatchers.get(types_key)
        if dispatcher is None:
            dispatcher = self._load(hashlib.sha256(f"{self.key}{types_key}".encode()).hexdigest())
            self._dispatchers[types_key] = dispatcher
        return dispatcher

    def _load(self, digest: str):
        module_name = f"gg_{self.name}_{self.target}_{digest[:24]}"
        source = self.source
        if not all(_importable(function.function) for function in self.functions.values()):
            # Numba's cache entry would name a module no later process can import (functions
            # made by exec or in a deleted module): compile in every process instead.
            source = source.replace("cache=True", "cache=False")
            module_name += "_uncached"
        path = os.path.join(cache_dir(), module_name + ".py")
        if not os.path.exists(path):
            # Written once and never touched again: Numba's cache is keyed on the file's timestamp.
            temporary = f"{path}.{os.getpid()}.tmp"
            with open(temporary, "w") as handle:
                handle.write(_HEADERS[self.target] + "\n" + source)
            os.replace(temporary, path)
        spec = importlib.util.spec_from_file_location(module_name, path)
        module = importlib.util.module_from_spec(spec)
        for global_name, function in self.functions.items():
            setattr(module, global_name, function.for_target(self.target))
        # Registered like any imported module: Numba re-imports a cached kernel's module by name.
        sys.modules[module_name] = module
        spec.loader.exec_module(module)
        return module.kernel


def _argument_key(value):
    """What decides a kernel argument's Numba type: dtype, rank and layout, or the scalar type."""
    dtype = getattr(value, "dtype", None)
    ndim = getattr(value, "ndim", 0)
    if dtype is not None and ndim:
        return (dtype.str, ndim, bool(value.flags.c_contiguous))
    return type(value).__name__
