struct Params {
  n: i32,
}

@group(0) @binding(0) var<storage, read> a: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read_write> out: array<vec4<f32>>;
@group(0) @binding(2) var<uniform> params: Params;

@compute @workgroup_size(1)
fn loopy_kernel() {
  let n = params.n;
  for (var i: i32 = 0i; i <= -1i + n; i++) {
    out[i].x = 2.0 * a[i].x + a[i].w;
    out[i].y = 2.0 * a[i].y + a[i].z;
    out[i].z = 2.0 * a[i].z + a[i].y;
    out[i].w = 2.0 * a[i].w + a[i].x;
  }
}
