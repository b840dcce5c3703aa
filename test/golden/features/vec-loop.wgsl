struct Params {
  n: i32,
}

@group(0) @binding(0) var<storage, read> a: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read> b: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> out: array<vec4<f32>>;
@group(0) @binding(3) var<uniform> params: Params;

@compute @workgroup_size(1)
fn loopy_kernel() {
  let n = params.n;
  for (var i: i32 = 0i; i <= -1i + n; i++) {
    out[i] = 2.0 * a[i] + b[i];
  }
}
