"""kmut: mutation analysis of the correctness checkers of GPU-kernel benchmarks.

The command line (`kmut --help`) is the main interface. This package holds the Python edge:
the substrate contract (`kmut.contract`), substrate loading and validation, and the GPU workers.
"""

__all__ = ["__version__"]

try:
    from ._native import __version__
except ImportError:  # the native module is not built (a source checkout without `maturin develop`)
    __version__ = "0+unknown"
