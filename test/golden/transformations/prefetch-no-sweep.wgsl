struct Params {
  n: i32,
}

@group(0) @binding(0) var<storage, read> a: array<f32>;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
@group(0) @binding(2) var<uniform> params: Params;

@compute @workgroup_size(16)
fn loopy_kernel(@builtin(workgroup_id) workgroup_id: vec3<u32>, @builtin(local_invocation_id) local_invocation_id: vec3<u32>) {
  let n = params.n;
  let group_id = vec3<i32>(workgroup_id);
  let local_id = vec3<i32>(local_invocation_id);
  var a_fetch: f32;
  var acc_k: f32;
  if (16i * group_id.x <= n - local_id.x - 1i) {
    a_fetch = a[16i * group_id.x + local_id.x];
    acc_k = 0.0;
    for (var k: i32 = 0i; k <= 15i; k++) {
      acc_k = acc_k + a_fetch;
    }
    out[16i * group_id.x + local_id.x] = acc_k;
  }
}
