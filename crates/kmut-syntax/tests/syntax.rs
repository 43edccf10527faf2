//! Parsing substrate-like CUDA, including constructs tree-sitter-cuda cannot read.

use kmut_syntax::{reaching_kernels, CudaSource, FunctionKind};

const PIPELINE: &str = r#"
__device__ float relu(float v) { return v > 0.0f ? v : 0.0f; }
__device__ float twice_relu(float v) { return 2.0f * relu(v); }
extern "C" __global__ void layer0(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = relu(x[i]);
}
extern "C" __global__ void layer1(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = twice_relu(x[i]);
}
"#;

#[test]
fn finds_kernels_and_device_helpers_with_their_kinds() {
    let src = CudaSource::parse("p.cu", PIPELINE).unwrap();
    let f: Vec<(String, FunctionKind)> = src.functions().iter().map(|f| (f.name.clone(), f.kind)).collect();
    assert_eq!(
        f,
        [
            ("relu".into(), FunctionKind::Device),
            ("twice_relu".into(), FunctionKind::Device),
            ("layer0".into(), FunctionKind::Global),
            ("layer1".into(), FunctionKind::Global)
        ]
    );
}

#[test]
fn a_helper_is_reached_by_every_kernel_that_calls_it_transitively() {
    let src = CudaSource::parse("p.cu", PIPELINE).unwrap();
    let reach = reaching_kernels(&src.functions());
    let names = |f: &str| reach[f].iter().cloned().collect::<Vec<_>>();
    assert_eq!(names("relu"), ["layer0", "layer1"]);
    assert_eq!(names("twice_relu"), ["layer1"]);
    assert_eq!(names("layer0"), ["layer0"]);
}

#[test]
fn an_align_struct_is_reported_unreadable_and_the_kernel_stays_readable() {
    let text = include_str!("../resources/fixtures/align_struct.cu");
    let src = CudaSource::parse("align_struct.cu", text).unwrap();
    let kernels: Vec<_> = src.functions().into_iter().filter(|f| !f.has_error).map(|f| f.name).collect();
    assert_eq!(kernels, ["scale_kernel"]);
    let bad = src.unreadable();
    assert!(!bad.is_empty());
    assert_eq!(bad[0].line, 1);
    assert_eq!(bad[0].function, None);
}

#[test]
fn a_source_with_no_readable_function_is_an_error_naming_file_and_line() {
    let err = CudaSource::parse("junk.cu", "int x = 1;\n\n__global__ void k( {{{ \n").err().expect("must fail");
    assert_eq!(err.file, "junk.cu");
    assert!(err.line >= 1);
    assert!(err.to_string().starts_with("junk.cu:"), "{err}");
    assert!(err.message.contains("no readable __global__ or __device__ function"), "{err}");
}

#[test]
fn an_error_inside_a_kernel_marks_only_that_kernel() {
    let text = "extern \"C\" __global__ void ok(float* x) { x[0] = 1.0f; }\n\
                extern \"C\" __global__ void broken(float* x) { x[0] = (1.0f; }\n";
    let src = CudaSource::parse("b.cu", text).unwrap();
    let status: Vec<(String, bool)> = src.functions().into_iter().map(|f| (f.name, f.has_error)).collect();
    assert_eq!(status, [("ok".into(), false), ("broken".into(), true)]);
    assert!(src.unreadable().iter().any(|u| u.function.as_deref() == Some("broken") && u.line == 2));
}
