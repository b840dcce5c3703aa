struct Params {
  m: i32,
  n: i32,
}

@group(0) @binding(0) var<storage, read> idx: array<i32>;
@group(0) @binding(1) var<storage, read> a: array<f32>;
@group(0) @binding(2) var<storage, read_write> out: array<f32>;
@group(0) @binding(3) var<storage, read_write> loom_bounds: array<i32>;
@group(0) @binding(4) var<uniform> params: Params;

@compute @workgroup_size(64)
fn loopy_kernel(@builtin(workgroup_id) workgroup_id: vec3<u32>, @builtin(local_invocation_id) local_invocation_id: vec3<u32>) {
  let m = params.m;
  let n = params.n;
  let group_id = vec3<i32>(workgroup_id);
  let local_id = vec3<i32>(local_invocation_id);
  if (64i * group_id.x <= n - local_id.x - 1i) {
    if (!(0i <= idx[64i * group_id.x + local_id.x] && idx[64i * group_id.x + local_id.x] < m)) {
      loom_bounds[0i] = 1i;
      loom_bounds[1i] = idx[64i * group_id.x + local_id.x];
    }
    out[64i * group_id.x + local_id.x] = select(0.0, a[idx[64i * group_id.x + local_id.x]], 0i <= idx[64i * group_id.x + local_id.x] && idx[64i * group_id.x + local_id.x] < m);
  }
}
