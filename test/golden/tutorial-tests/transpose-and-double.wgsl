struct Params {
  n: i32,
}

@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@group(0) @binding(1) var<storage, read> a: array<f32>;
@group(0) @binding(2) var<uniform> params: Params;

@compute @workgroup_size(1)
fn loopy_kernel() {
  let n = params.n;
  for (var i: i32 = 0i; i <= -1i + n; i++) {
    for (var j: i32 = 0i; j <= -1i + n; j++) {
      out[n * j + i] = a[n * i + j];
    }
  }
  for (var ii: i32 = 0i; ii <= -1i + n; ii++) {
    for (var jj: i32 = 0i; jj <= -1i + n; jj++) {
      out[n * ii + jj] = 2.0 * out[n * ii + jj];
    }
  }
}
