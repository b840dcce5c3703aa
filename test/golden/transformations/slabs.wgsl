struct Params {
  n: i32,
}

@group(0) @binding(0) var<storage, read_write> a: array<f32>;
@group(0) @binding(1) var<uniform> params: Params;

@compute @workgroup_size(1)
fn loopy_kernel() {
  let n = params.n;
  // bulk slab for 'i_outer'
  for (var i_outer: i32 = 0i; i_outer <= (n + 3i) / 4i - 2i; i_outer++) {
    a[4i * i_outer] = 0.0;
    a[4i * i_outer + 1i] = 0.0;
    a[4i * i_outer + 2i] = 0.0;
    a[4i * i_outer + 3i] = 0.0;
  }
  // final slab for 'i_outer'
  for (var i_outer: i32 = max(0i, (n + 3i) / 4i - 1i); i_outer <= (n + 3i) / 4i - 1i; i_outer++) {
    a[4i * i_outer] = 0.0;
    if (4i * i_outer <= n - 2i) {
      a[4i * i_outer + 1i] = 0.0;
    }
    if (4i * i_outer <= n - 3i) {
      a[4i * i_outer + 2i] = 0.0;
    }
    if (4i * i_outer <= n - 4i) {
      a[4i * i_outer + 3i] = 0.0;
    }
  }
}
