//! Rust errors as the Python exceptions of `kmut.exceptions` (declared there, once).

use std::fmt::Write as _;

use pyo3::call::PyCallArgs;
use pyo3::prelude::*;

/// Build an instance of `kmut.exceptions.<class>` with `args`.
pub fn raise<'py, A>(py: Python<'py>, class: &str, args: A) -> PyErr
where
    A: PyCallArgs<'py>,
{
    let made = py.import("kmut.exceptions").and_then(|m| m.getattr(class)).and_then(|cls| cls.call1(args));
    match made {
        Ok(instance) => PyErr::from_value(instance),
        Err(e) => e,
    }
}

pub fn cuda(py: Python<'_>, e: &kmut_cuda::CudaError) -> PyErr {
    raise(py, "CudaError", (e.to_string(), e.name.clone(), e.call))
}

pub fn launch(py: Python<'_>, e: &kmut_cuda::LaunchError) -> PyErr {
    match e {
        kmut_cuda::LaunchError::Cuda(c) => cuda(py, c),
        other => raise(py, "LaunchArgumentError", (other.to_string(),)),
    }
}

pub fn nvrtc(py: Python<'_>, e: &kmut_nvrtc::NvrtcError) -> PyErr {
    let mut text = e.to_string();
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        let _ = write!(text, "\n  Caused by: {s}");
        source = s.source();
    }
    raise(py, "NvrtcError", (text,))
}
