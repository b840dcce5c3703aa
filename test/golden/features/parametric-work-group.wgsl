struct Params {
  m: i32,
  n: i32,
}

@group(0) @binding(0) var<storage, read> a: array<f32>;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
@group(0) @binding(2) var<uniform> params: Params;

override loopy_kernel_local_size_0: u32;

@compute @workgroup_size(loopy_kernel_local_size_0)
fn loopy_kernel(@builtin(workgroup_id) workgroup_id: vec3<u32>, @builtin(local_invocation_id) local_invocation_id: vec3<u32>) {
  let m = params.m;
  let n = params.n;
  let group_id = vec3<i32>(workgroup_id);
  let local_id = vec3<i32>(local_invocation_id);
  out[n * group_id.x + local_id.x] = 2.0 * a[n * group_id.x + local_id.x];
}
