//! `libcuda.so.1`, loaded once per process, and CUDA errors that carry the driver's own names.

use std::ffi::{c_char, c_int, c_uint, c_void, CStr};
use std::sync::{Arc, OnceLock};

use libloading::Library;

pub type CuResult = c_int;
pub type CuDevice = c_int;
pub type CuContext = *mut c_void;
pub type CuModule = *mut c_void;
pub type CuFunction = *mut c_void;
pub type CuStream = *mut c_void;

pub const CUDA_SUCCESS: CuResult = 0;
/// Returned by `cuFuncGetParamInfo` for an index past the last parameter.
pub const CUDA_ERROR_INVALID_VALUE: CuResult = 1;

/// A failed driver call, with the driver's error name (`CUDA_ERROR_ILLEGAL_ADDRESS`) and text.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{call} failed: {name} ({message})")]
pub struct CudaError {
    pub call: &'static str,
    pub code: i32,
    pub name: String,
    pub message: String,
}

#[derive(Debug, thiserror::Error)]
#[error("the CUDA driver library `libcuda.so.1` could not be loaded (no NVIDIA driver on this machine?)")]
pub struct DriverMissing(#[source] pub libloading::Error);

type InitFn = unsafe extern "C" fn(c_uint) -> CuResult;
type DeviceGetFn = unsafe extern "C" fn(*mut CuDevice, c_int) -> CuResult;
type DeviceCountFn = unsafe extern "C" fn(*mut i32) -> CuResult;
type PrimaryRetainFn = unsafe extern "C" fn(*mut CuContext, CuDevice) -> CuResult;
type PrimaryReleaseFn = unsafe extern "C" fn(CuDevice) -> CuResult;
type CtxSetFn = unsafe extern "C" fn(CuContext) -> CuResult;
type ModuleLoadFn = unsafe extern "C" fn(*mut CuModule, *const c_void) -> CuResult;
type ModuleUnloadFn = unsafe extern "C" fn(CuModule) -> CuResult;
type GetFunctionFn = unsafe extern "C" fn(*mut CuFunction, CuModule, *const c_char) -> CuResult;
type ParamInfoFn = unsafe extern "C" fn(CuFunction, usize, *mut usize, *mut usize) -> CuResult;
type LaunchFn =
    unsafe extern "C" fn(CuFunction, c_uint, c_uint, c_uint, c_uint, c_uint, c_uint, c_uint, CuStream, *mut *mut c_void, *mut *mut c_void) -> CuResult;
type StreamSyncFn = unsafe extern "C" fn(CuStream) -> CuResult;
type ErrorTextFn = unsafe extern "C" fn(CuResult, *mut *const c_char) -> CuResult;

/// The loaded driver. Shared by every module of the process.
pub struct Driver {
    _lib: Library,
    pub(crate) device_get: DeviceGetFn,
    device_count: DeviceCountFn,
    pub(crate) primary_retain: PrimaryRetainFn,
    pub(crate) primary_release: PrimaryReleaseFn,
    pub(crate) ctx_set_current: CtxSetFn,
    pub(crate) module_load_data: ModuleLoadFn,
    pub(crate) module_unload: ModuleUnloadFn,
    pub(crate) module_get_function: GetFunctionFn,
    /// Absent before CUDA 12.4 drivers; launches are then checked by count only upstream.
    pub(crate) func_get_param_info: Option<ParamInfoFn>,
    pub(crate) launch_kernel: LaunchFn,
    pub(crate) stream_synchronize: StreamSyncFn,
    error_name: ErrorTextFn,
    error_string: ErrorTextFn,
}

// SAFETY: the driver API is thread-safe; the struct holds only function pointers.
unsafe impl Send for Driver {}
unsafe impl Sync for Driver {}

static DRIVER: OnceLock<Result<Arc<Driver>, String>> = OnceLock::new();

impl Driver {
    /// The process's driver, loaded and initialised on first use.
    pub fn get() -> Result<Arc<Driver>, CudaError> {
        DRIVER.get_or_init(|| Driver::load().map(Arc::new)).clone().map_err(|message| CudaError {
            call: "dlopen(libcuda.so.1)",
            code: -1,
            name: "DRIVER_NOT_LOADED".into(),
            message,
        })
    }

    fn load() -> Result<Driver, String> {
        // SAFETY: loading the driver runs only its initialisers.
        let lib = unsafe { Library::new("libcuda.so.1") }.map_err(|e| DriverMissing(e).to_string())?;
        macro_rules! sym {
            ($name:literal) => {{
                // SAFETY: the type matches the driver API prototype of this symbol.
                let s = unsafe { lib.get(concat!($name, "\0").as_bytes()) }.map_err(|e| format!("libcuda.so.1 lacks {}: {e}", $name))?;
                *s
            }};
        }
        let init: InitFn = sym!("cuInit");
        // SAFETY: a plain symbol lookup of an optional entry point.
        let param_info = unsafe { lib.get::<ParamInfoFn>(b"cuFuncGetParamInfo\0") }.ok().map(|s| *s);
        let driver = Driver {
            device_get: sym!("cuDeviceGet"),
            device_count: sym!("cuDeviceGetCount"),
            primary_retain: sym!("cuDevicePrimaryCtxRetain"),
            primary_release: sym!("cuDevicePrimaryCtxRelease_v2"),
            ctx_set_current: sym!("cuCtxSetCurrent"),
            module_load_data: sym!("cuModuleLoadData"),
            module_unload: sym!("cuModuleUnload"),
            module_get_function: sym!("cuModuleGetFunction"),
            func_get_param_info: param_info,
            launch_kernel: sym!("cuLaunchKernel"),
            stream_synchronize: sym!("cuStreamSynchronize"),
            error_name: sym!("cuGetErrorName"),
            error_string: sym!("cuGetErrorString"),
            _lib: lib,
        };
        // SAFETY: cuInit(0) is always valid to call, and idempotent.
        driver.check("cuInit", unsafe { init(0) }).map_err(|e| e.to_string())?;
        Ok(driver)
    }

    /// `Ok` for success, otherwise a [`CudaError`] naming `call` and the driver's error.
    pub fn check(&self, call: &'static str, code: CuResult) -> Result<(), CudaError> {
        if code == CUDA_SUCCESS {
            return Ok(());
        }
        Err(CudaError {
            call,
            code,
            name: Self::text(self.error_name, code).unwrap_or_else(|| format!("CUDA_ERROR_{code}")),
            message: Self::text(self.error_string, code).unwrap_or_else(|| "unknown error".to_owned()),
        })
    }

    fn text(f: ErrorTextFn, code: CuResult) -> Option<String> {
        let mut ptr: *const c_char = std::ptr::null();
        // SAFETY: valid out-pointer; the driver returns a static string or an error.
        if unsafe { f(code, &raw mut ptr) } != CUDA_SUCCESS || ptr.is_null() {
            return None;
        }
        // SAFETY: non-null, static, NUL-terminated.
        Some(unsafe { CStr::from_ptr(ptr) }.to_string_lossy().into_owned())
    }

    /// How many devices the driver shows this process (after `CUDA_VISIBLE_DEVICES`).
    pub fn device_count(&self) -> Result<usize, CudaError> {
        let mut n = 0i32;
        // SAFETY: valid out-pointer.
        self.check("cuDeviceGetCount", unsafe { (self.device_count)(&raw mut n) })?;
        Ok(n.max(0) as usize)
    }

    /// Wait for `stream` and report the first error of anything it ran (the way an illegal
    /// address inside a kernel surfaces).
    pub fn synchronize(&self, stream: usize) -> Result<(), CudaError> {
        // SAFETY: the caller passes a stream handle valid in the current context (or 0).
        self.check("cuStreamSynchronize", unsafe { (self.stream_synchronize)(stream as CuStream) })
    }
}
