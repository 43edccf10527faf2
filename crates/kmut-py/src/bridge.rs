//! `Module`: a CUBIN in a device's primary context, launched on torch's streams.

use pyo3::prelude::*;

use crate::errors;

/// A loaded image. `kmut.bridge.Launcher` is the Python-facing wrapper.
#[pyclass(module = "kmut._native", unsendable)]
pub struct Module {
    inner: kmut_cuda::Module,
}

#[pymethods]
impl Module {
    #[new]
    fn new(py: Python<'_>, device: i32, image: &[u8]) -> PyResult<Self> {
        let inner = kmut_cuda::Module::load(device, image).map_err(|e| errors::cuda(py, &e))?;
        Ok(Module { inner })
    }

    /// Byte size of each parameter of `kernel`, or None where the driver cannot tell.
    fn param_sizes(&mut self, py: Python<'_>, kernel: &str) -> PyResult<Option<Vec<usize>>> {
        self.inner.param_sizes(kernel).map_err(|e| errors::launch(py, &e))
    }

    /// Launch `kernel`; `args` holds the exact bytes of each parameter, in order.
    #[pyo3(signature = (kernel, grid, block, args, stream, shared_bytes = 0))]
    #[expect(clippy::too_many_arguments, clippy::needless_pass_by_value, reason = "the Python signature")]
    fn launch(
        &mut self,
        py: Python<'_>,
        kernel: &str,
        grid: (u32, u32, u32),
        block: (u32, u32, u32),
        args: Vec<Vec<u8>>,
        stream: usize,
        shared_bytes: u32,
    ) -> PyResult<()> {
        let config = kmut_cuda::LaunchConfig { grid: [grid.0, grid.1, grid.2], block: [block.0, block.1, block.2], shared_bytes };
        self.inner.launch(kernel, config, &args, stream).map_err(|e| errors::launch(py, &e))
    }

    /// Wait for `stream`; a fault inside an earlier kernel is raised here as `CudaError`.
    fn synchronize(&self, py: Python<'_>, stream: usize) -> PyResult<()> {
        let driver = self.inner.driver();
        py.detach(|| driver.synchronize(stream)).map_err(|e| errors::cuda(py, &e))
    }
}
