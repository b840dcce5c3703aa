struct Params {
  n: i32,
}

@group(0) @binding(0) var<storage, read> a: array<f32>;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
@group(0) @binding(2) var<uniform> params: Params;

@compute @workgroup_size(1)
fn loopy_kernel() {
  let n = params.n;
  var t: f32;
  var u: f32;
  for (var i: i32 = 0i; i <= -1i + n; i++) {
    t = a[i] * a[i];
    u = t + 1.0;
    out[i] = u / 2.0;
  }
}
