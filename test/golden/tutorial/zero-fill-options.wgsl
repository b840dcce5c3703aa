struct Params {
  n: i32,
}

@group(0) @binding(0) var<storage, read_write> a: array<f32>;
@group(0) @binding(1) var<uniform> params: Params;

@compute @workgroup_size(1)
fn loopy_kernel() {
  let n = params.n;
  for (var j: i32 = 0i; j <= -1i + n; j++) {
    for (var i: i32 = 0i; i <= -1i + n; i++) {
      a[n * i + j] = 0.0;
    }
  }
}
