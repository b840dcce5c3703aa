struct Params {
  n: i32,
}

@group(0) @binding(0) var<storage, read> a: array<f32>;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
@group(0) @binding(2) var<uniform> params: Params;

@compute @workgroup_size(1)
fn loopy_kernel() {
  let n = params.n;
  for (var i_outer: i32 = 0i; i_outer <= (n - 1i) / 16i; i_outer++) {
    for (var j_outer: i32 = 0i; j_outer <= (n - 1i) / 16i; j_outer++) {
      for (var i_inner: i32 = 0i; i_inner <= 15i; i_inner++) {
        for (var j_inner: i32 = 0i; j_inner <= 15i; j_inner++) {
          out[n * (16i * i_outer + i_inner) + (16i * j_outer + j_inner)] = a[n * (16i * j_outer + j_inner) + (16i * i_outer + i_inner)];
        }
      }
    }
  }
}
