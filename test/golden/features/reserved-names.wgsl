struct Params {
  n: i32,
}

@group(0) @binding(0) var<storage, read_write> float: array<f32>;
@group(0) @binding(1) var<storage, read_write> int_: array<f32>;
@group(0) @binding(2) var<storage, read> kernel: array<f32>;
@group(0) @binding(3) var<storage, read> this_: array<f32>;
@group(0) @binding(4) var<uniform> params: Params;

@compute @workgroup_size(1)
fn kernel_() {
  let n = params.n;
  for (var int: i32 = 0i; int <= -1i + n; int++) {
    int_[int] = 2.0 * this_[int];
    float[int] = int_[int] + kernel[int];
  }
}
