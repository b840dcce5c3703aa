enable f16;

struct Params {
  n: i32,
}

@group(0) @binding(0) var<storage, read> a: array<f16>;
@group(0) @binding(1) var<storage, read> b: array<f16>;
@group(0) @binding(2) var<storage, read_write> out: array<f16>;
@group(0) @binding(3) var<uniform> params: Params;

@compute @workgroup_size(1)
fn loopy_kernel() {
  let n = params.n;
  var t: f16;
  for (var i: i32 = 0i; i <= -1i + n; i++) {
    t = a[i] * b[i] + 1.0h;
    out[i] = sqrt(t) + floor(a[i] / b[i]);
  }
}
