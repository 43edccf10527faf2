//! Against the real NVRTC (`PyPI`'s `nvidia-cuda-nvrtc` in the active virtual environment, or
//! `KMUT_NVRTC`). These tests fail, rather than skip, when NVRTC is missing: CI installs it.

use kmut_nvrtc::{inspect_cubin, Compiler, NvrtcSearch, Options};

fn compiler() -> Compiler {
    Compiler::open(&NvrtcSearch::from_environment()).expect("NVRTC must be installed for the tests (scripts/test installs it)")
}

const KERNELS: &str = r#"
extern "C" __global__ void mixed(float* x, int n, long long m, float f, char c, double* y) {
    int i = threadIdx.x;
    if (i < n) x[i] = f + m + c + y[0];
}
extern "C" __global__ void no_params() {}
"#;

#[test]
fn compiles_to_a_cubin_whose_kernels_and_parameter_sizes_are_readable() {
    let out = compiler().compile(KERNELS, "k.cu", &Options::default()).unwrap();
    let image = out.image.expect(&out.log);
    assert_eq!(&image[..4], b"\x7fELF");
    let kernels = inspect_cubin(&image).unwrap();
    let names: Vec<_> = kernels.iter().map(|k| k.name.as_str()).collect();
    assert_eq!(names, ["mixed", "no_params"]);
    assert_eq!(kernels[0].param_sizes, [8, 4, 8, 4, 1, 8]);
    assert!(kernels[1].param_sizes.is_empty());
}

#[test]
fn a_syntax_error_is_an_outcome_with_the_log_not_an_error() {
    let out = compiler().compile("extern \"C\" __global__ void k() { int x = ; }", "bad.cu", &Options::default()).unwrap();
    assert!(out.image.is_none());
    assert!(out.log.contains("bad.cu(1): error"), "{}", out.log);
}

#[test]
fn same_source_gives_the_same_image() {
    let c = compiler();
    let a = c.compile(KERNELS, "k.cu", &Options::default()).unwrap().image.unwrap();
    let b = c.compile(KERNELS, "k.cu", &Options::default()).unwrap().image.unwrap();
    assert_eq!(a, b);
}

#[test]
fn headers_from_the_runtime_wheel_are_found() {
    let src = "#include <cuda_fp16.h>\nextern \"C\" __global__ void h(__half* x) { x[0] = __float2half(1.0f); }";
    let out = compiler().compile(src, "h.cu", &Options::default()).unwrap();
    assert!(out.image.is_some(), "{}", out.log);
}

#[test]
fn version_is_the_pinned_major() {
    assert_eq!(compiler().version().unwrap().0, 13);
}

#[test]
fn missing_library_error_lists_every_place_searched() {
    let search = NvrtcSearch { explicit: Some("/nonexistent/libnvrtc.so.13".into()), site_dirs: vec!["/nowhere".into()] };
    // The system loader may still find one; only assert the message when it does not.
    if let Err(e) = search.locate() {
        let text = e.to_string();
        assert!(text.contains("--nvrtc /nonexistent/libnvrtc.so.13"), "{text}");
        assert!(text.contains("Python site directory /nowhere"), "{text}");
    }
}

#[test]
fn kernels_without_extern_c_resolve_to_their_mangled_symbols() {
    let src = "__global__ void plain(float* x) { x[0] = 1.0f; }\nextern \"C\" __global__ void c_linkage(float* x) { x[0] = 2.0f; }";
    let out = compiler().compile_kernels(src, "m.cu", &Options::default(), &["plain", "c_linkage"]).unwrap();
    let image = out.image.expect(&out.log);
    let symbols: std::collections::HashMap<_, _> = out.symbols.into_iter().collect();
    assert_eq!(symbols["c_linkage"], "c_linkage");
    assert!(symbols["plain"].starts_with("_Z") && symbols["plain"].contains("plain"), "{}", symbols["plain"]);
    let names: Vec<String> = inspect_cubin(&image).unwrap().into_iter().map(|k| k.name).collect();
    assert!(names.contains(&symbols["plain"]));
}
