"""Every exception kmut raises to Python callers, declared once. The native module raises these
same classes (it looks them up here), so `except kmut.exceptions.CudaError` catches launch faults.
"""

from __future__ import annotations


class KmutError(Exception):
    """Base of every kmut error."""


class SubstrateImportError(KmutError):
    """A substrate file could not be imported or registered cleanly."""

    def __init__(self, location: str, phase: str, message: str):
        super().__init__(f"{location}: {message}")
        self.location = location
        self.phase = phase
        self.message = message


class ContractError(KmutError):
    """A substrate's fields or launch descriptor break the contract in `substrates/SPEC.md`."""

    def __init__(self, location: str, field: str, message: str):
        super().__init__(f"{location}: field `{field}`: {message}")
        self.location = location
        self.field = field
        self.message = message


class CompileError(KmutError):
    """NVRTC rejected a substrate's CUDA source. The message holds the rendered log."""


class NvrtcError(KmutError):
    """NVRTC itself could not be found, loaded or called."""


class CudaError(KmutError):
    """A CUDA driver call failed. `name` is the driver's error name, e.g. CUDA_ERROR_ILLEGAL_ADDRESS."""

    def __init__(self, message: str, name: str = "", call: str = ""):
        super().__init__(message)
        self.name = name
        self.call = call


class LaunchArgumentError(KmutError):
    """A launch's arguments do not match the compiled kernel's parameters."""
