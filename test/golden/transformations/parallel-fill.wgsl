struct Params {
  n: i32,
}

@group(0) @binding(0) var<storage, read_write> a: array<f32>;
@group(0) @binding(1) var<uniform> params: Params;

@compute @workgroup_size(128)
fn loopy_kernel(@builtin(workgroup_id) workgroup_id: vec3<u32>, @builtin(local_invocation_id) local_invocation_id: vec3<u32>) {
  let n = params.n;
  let group_id = vec3<i32>(workgroup_id);
  let local_id = vec3<i32>(local_invocation_id);
  if (128i * group_id.x <= n - local_id.x - 1i) {
    a[128i * group_id.x + local_id.x] = 0.0;
  }
}
