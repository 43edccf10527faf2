//! The launch bridge: load a CUBIN into a device's *primary* context (the one torch uses, so
//! pointers from torch tensors are valid in it) and launch its kernels on a stream torch owns.
//!
//! The driver is loaded at run time (`libcuda.so.1`), so this crate builds and its users run on
//! machines without a GPU; only calling into it needs one. The handful of entry points kmut uses
//! are declared here directly: the surface is small, and `cuFuncGetParamInfo` lets every launch
//! be checked against the kernel's real parameter list before it is sent.

mod driver;
mod module;

pub use driver::{CudaError, Driver};
pub use module::{LaunchConfig, LaunchError, Module};
