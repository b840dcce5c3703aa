struct Params {
  m: i32,
  n: i32,
}

@group(0) @binding(0) var<storage, read> A: array<f32>;
@group(0) @binding(1) var<storage, read> x: array<f32>;
@group(0) @binding(2) var<storage, read_write> y: array<f32>;
@group(0) @binding(3) var<uniform> params: Params;

@compute @workgroup_size(1)
fn loopy_kernel() {
  let m = params.m;
  let n = params.n;
  var acc_k: f32;
  for (var i: i32 = 0i; i <= -1i + n; i++) {
    if (m >= 1i) {
      acc_k = 0.0;
    }
    for (var k: i32 = 0i; k <= -1i + m; k++) {
      acc_k = acc_k + A[m * i + k] * x[k];
    }
    if (m >= 1i) {
      y[i] = acc_k;
    }
  }
}
