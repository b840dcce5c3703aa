struct Params {
  n: i32,
}

@group(0) @binding(0) var<storage, read_write> a: array<f32>;
@group(0) @binding(1) var<uniform> params: Params;

@compute @workgroup_size(1)
fn loopy_kernel() {
  let n = params.n;
  for (var i_inner: i32 = 0i; i_inner <= min(15i, n - 1i); i_inner++) {
    for (var i_outer: i32 = (-i_inner + 15i) / 16i; i_outer <= (n - i_inner - 1i) / 16i; i_outer++) {
      a[16i * i_outer + i_inner] = 0.0;
    }
  }
}
