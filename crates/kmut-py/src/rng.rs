//! `kmut._native.torch_uniform_f32`: `torch.rand`'s float32 values from a CPU generator state,
//! written into a tensor's memory, with the state torch would be left in (`kmut-rng`).

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

/// Fill `n` float32 values at address `data` (a contiguous CPU tensor's `data_ptr()`, which
/// the caller keeps alive and owns exclusively for the call) as `torch.rand` would from the
/// generator state `state` (`torch.default_generator.get_state()`'s bytes), on up to
/// `threads` threads; return the state to set afterwards. The GIL is released meanwhile.
/// `jump_min_blocks` (default `kmut_rng::JUMP_MIN_BLOCKS`) is the draw length, in blocks of 624,
/// from which every thread starts at its own block; a huge value keeps the twist on one thread.
#[pyfunction]
#[pyo3(signature = (state, data, n, threads, jump_min_blocks = kmut_rng::JUMP_MIN_BLOCKS))]
pub fn torch_uniform_f32<'py>(py: Python<'py>, state: &[u8], data: usize, n: usize, threads: usize, jump_min_blocks: usize) -> PyResult<Bound<'py, PyBytes>> {
    let mut mt = kmut_rng::Mt::from_torch_state(state).map_err(PyValueError::new_err)?;
    if n > 0 && (data == 0 || !data.is_multiple_of(std::mem::align_of::<f32>())) {
        return Err(PyValueError::new_err(format!("torch_uniform_f32: {data:#x} is not the address of float32 data")));
    }
    let mut after = state.to_vec();
    py.detach(|| {
        if n > 0 {
            // SAFETY: the caller passes a live, contiguous, exclusively held float32 buffer of
            // `n` elements (kmut.fastrand allocates it just before the call and keeps it).
            let out = unsafe { std::slice::from_raw_parts_mut(data as *mut f32, n) };
            kmut_rng::fill_uniform_f32_from(&mut mt, out, threads, jump_min_blocks);
        }
    });
    mt.write_torch_state(&mut after).map_err(PyValueError::new_err)?;
    Ok(PyBytes::new(py, &after))
}
