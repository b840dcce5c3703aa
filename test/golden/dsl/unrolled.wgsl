struct Params {
  n: i32,
}

@group(0) @binding(0) var<storage, read> a: array<f32>;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
@group(0) @binding(2) var<uniform> params: Params;

// Python's a // b: the quotient rounded down (WGSL's / truncates)
fn floor_div_i32(a: i32, b: i32) -> i32 {
  if (b == 0i) { return 0i; }
  let q = a / b;
  return select(q, q - 1i, a % b != 0i && ((a < 0i) != (b < 0i)));
}

@compute @workgroup_size(1)
fn loopy_kernel() {
  let n = params.n;
  for (var i_outer: i32 = 0i; i_outer <= floor_div_i32(n - 1i, 4i); i_outer++) {
    out[4i * i_outer] = 2.0 * a[4i * i_outer];
    out[4i * i_outer + 1i] = 2.0 * a[4i * i_outer + 1i];
    out[4i * i_outer + 2i] = 2.0 * a[4i * i_outer + 2i];
    out[4i * i_outer + 3i] = 2.0 * a[4i * i_outer + 3i];
  }
}
