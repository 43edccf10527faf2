//! What the mutation stage needs to know about a substrate, as the Python side describes it.

use serde::{Deserialize, Serialize};

/// One substrate, as `kmut.describe` reports it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SubstrateDescription {
    pub name: String,
    pub level: u8,
    pub path: String,
    /// The CUDA source.
    pub cuda: String,
    /// 1-based line of the substrate file where `cuda` starts (0 when it could not be located).
    pub cuda_line: usize,
    /// Kernel names in pipeline order.
    pub kernels: Vec<String>,
    /// The launch steps of the small suite, in order.
    pub steps: Vec<LaunchStep>,
    /// Every call of `K.cdiv` during that launch, in order.
    pub cdiv_calls: Vec<CdivCall>,
    /// 1-based line of `def launch` in the substrate file.
    pub launch_line: usize,
    /// The input suites, in the substrate's order (absent in descriptions stored before 0.1's
    /// execution engine).
    #[serde(default)]
    pub suites: Vec<SuiteDescription>,
    /// The witness search's generated input columns, as suite names `W:<generator>:<scale>:<sizes>`
    /// (`python/kmut/generators.py`), in the order tried; drawn with `GENERATED_SEEDS`.
    #[serde(default)]
    pub generated: Vec<String>,
}

/// The seeds each generated column is drawn with: one, since a second draw of the same
/// distribution rarely kills what the first spared and doubled the search's preparations
/// (`docs/cli.md`, `kmut witness`); a larger search adds seeds here.
pub const GENERATED_SEEDS: [u64; 1] = [1];

impl SubstrateDescription {
    /// Whether a generated column needs the official sizes (too large for the CPU backend).
    pub fn is_official_size(generated: &str) -> bool {
        generated.ends_with(":official")
    }
}

/// One input suite of a substrate: the columns it adds to a kill matrix are its seeds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SuiteDescription {
    pub name: String,
    pub seeds: Vec<u64>,
    pub purpose: String,
    pub small: bool,
}

/// One kernel launch of a descriptor.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LaunchStep {
    pub kernel: String,
    pub grid: [u32; 3],
    pub block: [u32; 3],
}

/// One `K.cdiv(a, b)` call made by `launch`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CdivCall {
    pub a: i64,
    pub b: i64,
    pub result: i64,
    /// 1-based line of the call in the substrate file.
    pub line: usize,
}
