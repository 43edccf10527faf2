//! A CUBIN loaded into a device's primary context, and kernel launches from it.

use std::collections::HashMap;
use std::ffi::{c_void, CString};
use std::sync::Arc;

use crate::driver::{CuContext, CuDevice, CuFunction, CuModule, CuStream, CudaError, Driver, CUDA_ERROR_INVALID_VALUE, CUDA_SUCCESS};

/// Grid, block and dynamic shared memory of one launch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LaunchConfig {
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub shared_bytes: u32,
}

/// A loaded image. Functions are looked up once and cached.
pub struct Module {
    driver: Arc<Driver>,
    device: CuDevice,
    context: CuContext,
    handle: CuModule,
    functions: HashMap<String, CuFunction>,
}

// SAFETY: driver handles are usable from any thread once the context is made current, which
// every method does first.
unsafe impl Send for Module {}

/// What went wrong before or during a launch.
#[derive(Debug, thiserror::Error)]
pub enum LaunchError {
    #[error(transparent)]
    Cuda(#[from] CudaError),
    #[error("kernel `{kernel}` takes {expected} parameter(s) of {sizes:?} bytes, but the launch passes {given} argument(s) of {given_sizes:?} bytes")]
    Arguments { kernel: String, expected: usize, sizes: Vec<usize>, given: usize, given_sizes: Vec<usize> },
    #[error("kernel name `{0}` contains a NUL byte")]
    Name(String),
}

impl Module {
    /// Load `image` into the primary context of device `ordinal` and make that context current.
    pub fn load(ordinal: i32, image: &[u8]) -> Result<Module, CudaError> {
        let driver = Driver::get()?;
        let mut device: CuDevice = 0;
        // SAFETY: valid out-pointer.
        driver.check("cuDeviceGet", unsafe { (driver.device_get)(&raw mut device, ordinal) })?;
        let mut context: CuContext = std::ptr::null_mut();
        // SAFETY: valid out-pointer and device.
        driver.check("cuDevicePrimaryCtxRetain", unsafe { (driver.primary_retain)(&raw mut context, device) })?;
        // SAFETY: a context just retained.
        driver.check("cuCtxSetCurrent", unsafe { (driver.ctx_set_current)(context) })?;
        let mut module: CuModule = std::ptr::null_mut();
        // SAFETY: `image` is a complete CUBIN that outlives the call (the driver copies it).
        let loaded = unsafe { (driver.module_load_data)(&raw mut module, image.as_ptr().cast()) };
        if let Err(e) = driver.check("cuModuleLoadData", loaded) {
            // SAFETY: balances the retain above.
            unsafe { (driver.primary_release)(device) };
            return Err(e);
        }
        Ok(Module { driver, device, context, handle: module, functions: HashMap::new() })
    }

    fn make_current(&self) -> Result<(), CudaError> {
        // SAFETY: the retained primary context.
        self.driver.check("cuCtxSetCurrent", unsafe { (self.driver.ctx_set_current)(self.context) })
    }

    fn function(&mut self, kernel: &str) -> Result<CuFunction, LaunchError> {
        if let Some(&f) = self.functions.get(kernel) {
            return Ok(f);
        }
        let name = CString::new(kernel).map_err(|_| LaunchError::Name(kernel.to_owned()))?;
        let mut f: CuFunction = std::ptr::null_mut();
        // SAFETY: valid out-pointer, live module, C string.
        self.driver.check("cuModuleGetFunction", unsafe { (self.driver.module_get_function)(&raw mut f, self.handle, name.as_ptr()) })?;
        self.functions.insert(kernel.to_owned(), f);
        Ok(f)
    }

    /// Byte sizes of the kernel's parameters, or `None` where the driver cannot tell (< 12.4).
    pub fn param_sizes(&mut self, kernel: &str) -> Result<Option<Vec<usize>>, LaunchError> {
        self.make_current()?;
        let f = self.function(kernel)?;
        let Some(info) = self.driver.func_get_param_info else {
            return Ok(None);
        };
        let mut sizes = Vec::new();
        loop {
            let (mut offset, mut size) = (0usize, 0usize);
            // SAFETY: live function; valid out-pointers.
            let rc = unsafe { info(f, sizes.len(), &raw mut offset, &raw mut size) };
            match rc {
                CUDA_SUCCESS => sizes.push(size),
                CUDA_ERROR_INVALID_VALUE => return Ok(Some(sizes)),
                other => return Err(self.driver.check("cuFuncGetParamInfo", other).unwrap_err().into()),
            }
        }
    }

    /// Launch `kernel` with `args`, each the exact bytes of one parameter, on `stream` (a
    /// `CUstream` handle, 0 for the legacy default stream). The launch is asynchronous: errors
    /// inside the kernel surface at the next [`Driver::synchronize`].
    pub fn launch(&mut self, kernel: &str, config: LaunchConfig, args: &[Vec<u8>], stream: usize) -> Result<(), LaunchError> {
        if let Some(sizes) = self.param_sizes(kernel)? {
            let given_sizes: Vec<usize> = args.iter().map(Vec::len).collect();
            if sizes != given_sizes {
                return Err(LaunchError::Arguments { kernel: kernel.to_owned(), expected: sizes.len(), sizes, given: args.len(), given_sizes });
            }
        }
        let f = self.function(kernel)?;
        // Copy each argument into 8-byte-aligned storage; the driver reads each through a pointer.
        let mut storage: Vec<Vec<u64>> = args
            .iter()
            .map(|a| {
                let mut words = vec![0u64; a.len().div_ceil(8).max(1)];
                // SAFETY: `words` has at least a.len() bytes.
                unsafe { std::ptr::copy_nonoverlapping(a.as_ptr(), words.as_mut_ptr().cast::<u8>(), a.len()) };
                words
            })
            .collect();
        let mut pointers: Vec<*mut c_void> = storage.iter_mut().map(|w| w.as_mut_ptr().cast()).collect();
        let [gx, gy, gz] = config.grid;
        let [bx, by, bz] = config.block;
        // SAFETY: `pointers` holds one valid pointer per parameter, sizes checked above where the
        // driver allows; the stream is a handle in the current context.
        let rc = unsafe {
            (self.driver.launch_kernel)(f, gx, gy, gz, bx, by, bz, config.shared_bytes, stream as CuStream, pointers.as_mut_ptr(), std::ptr::null_mut())
        };
        self.driver.check("cuLaunchKernel", rc)?;
        Ok(())
    }

    pub fn driver(&self) -> &Driver {
        &self.driver
    }
}

impl Drop for Module {
    fn drop(&mut self) {
        // Best effort: a poisoned context fails both calls, and the process is about to end.
        // SAFETY: handles owned by this module, released once.
        unsafe {
            (self.driver.ctx_set_current)(self.context);
            (self.driver.module_unload)(self.handle);
            (self.driver.primary_release)(self.device);
        }
    }
}
