struct Params {
  n: i32,
}

@group(0) @binding(0) var<storage, read> a: array<i32>;
@group(0) @binding(1) var<storage, read> b: array<i32>;
@group(0) @binding(2) var<storage, read_write> out: array<i32>;
@group(0) @binding(3) var<uniform> params: Params;

// Python's a // b: the quotient rounded down (WGSL's / truncates)
fn floor_div_i32(a: i32, b: i32) -> i32 {
  if (b == 0i) { return 0i; }
  let q = a / b;
  return select(q, q - 1i, a % b != 0i && ((a < 0i) != (b < 0i)));
}

// Python's a % b: the remainder has the sign of b (WGSL's % takes a's)
fn mod_i32(a: i32, b: i32) -> i32 {
  if (b == 0i) { return 0i; }
  let r = a % b;
  return select(r, r + b, r != 0i && ((r < 0i) != (b < 0i)));
}

@compute @workgroup_size(1)
fn loopy_kernel() {
  let n = params.n;
  for (var i: i32 = 0i; i <= -1i + n; i++) {
    out[i] = 3i * a[i] - floor_div_i32(b[i], 2i) + mod_i32(b[i], 3i);
  }
}
