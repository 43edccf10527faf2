//! Reading kernels out of a CUBIN image without a GPU.
//!
//! A CUBIN is an ELF file. Each kernel `k` has a `.text.k` section and a `.nv.info.k` section of
//! attributes. The attribute `EIATTR_KPARAM_INFO` (0x17) describes one parameter: its ordinal,
//! its offset in the parameter bank and its size in bits 18..32 of the last word. With it the
//! gate checks a launch's arguments against the compiled kernel before anything runs.

use object::read::elf::ElfFile64;
use object::{Object, ObjectSection};

/// One `__global__` function found in an image.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KernelInfo {
    pub name: String,
    /// Byte size of each parameter, in declaration order.
    pub param_sizes: Vec<u32>,
}

#[derive(Debug, thiserror::Error)]
pub enum CubinError {
    #[error("the image is not a 64-bit ELF file")]
    NotElf(#[source] object::Error),
    #[error("the attributes of kernel `{kernel}` are truncated at byte {offset}")]
    Truncated { kernel: String, offset: usize },
}

const EIFMT_SVAL: u8 = 0x04;
const EIATTR_KPARAM_INFO: u8 = 0x17;

/// Every kernel of `image`, sorted by name.
pub fn inspect_cubin(image: &[u8]) -> Result<Vec<KernelInfo>, CubinError> {
    let elf = ElfFile64::<object::Endianness>::parse(image).map_err(CubinError::NotElf)?;
    let mut kernels = Vec::new();
    for section in elf.sections() {
        let Ok(name) = section.name() else { continue };
        let Some(kernel) = name.strip_prefix(".nv.info.") else {
            continue;
        };
        let data = section.data().map_err(CubinError::NotElf)?;
        kernels.push(KernelInfo { name: kernel.to_owned(), param_sizes: param_sizes(kernel, data)? });
    }
    kernels.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(kernels)
}

fn param_sizes(kernel: &str, data: &[u8]) -> Result<Vec<u32>, CubinError> {
    let truncated = |offset| CubinError::Truncated { kernel: kernel.to_owned(), offset };
    let mut params: Vec<(u16, u32)> = Vec::new();
    let mut i = 0;
    while i + 4 <= data.len() {
        let (format, attr) = (data[i], data[i + 1]);
        if format != EIFMT_SVAL {
            // Every other format is a 4-byte entry: format, attribute, 2 value bytes.
            i += 4;
            continue;
        }
        let size = u16::from_le_bytes([data[i + 2], data[i + 3]]) as usize;
        let value = data.get(i + 4..i + 4 + size).ok_or_else(|| truncated(i))?;
        if attr == EIATTR_KPARAM_INFO {
            if value.len() < 12 {
                return Err(truncated(i));
            }
            let ordinal = u16::from_le_bytes([value[4], value[5]]);
            let word = u32::from_le_bytes([value[8], value[9], value[10], value[11]]);
            params.push((ordinal, (word >> 18) & 0x3fff));
        }
        i += 4 + size;
    }
    params.sort_by_key(|&(ordinal, _)| ordinal);
    Ok(params.into_iter().map(|(_, size)| size).collect())
}
