struct Params {
  n: i32,
}

@group(0) @binding(0) var<storage, read> a: array<f32>;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
@group(0) @binding(2) var<uniform> params: Params;

@compute @workgroup_size(1)
fn loopy_kernel() {
  let n = params.n;
  for (var i: i32 = 0i; i <= -1i + n; i++) {
    out[4i * i] = 2.0 * a[4i * i] + a[4i * i + 3i];
    out[4i * i + 1i] = 2.0 * a[4i * i + 1i] + a[4i * i + 2i];
    out[4i * i + 2i] = 2.0 * a[4i * i + 2i] + a[4i * i + 1i];
    out[4i * i + 3i] = 2.0 * a[4i * i + 3i] + a[4i * i];
  }
}
