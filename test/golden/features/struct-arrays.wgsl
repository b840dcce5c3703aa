struct point {
  x: f32,
  y: f32,
}

struct particle {
  id: u32,
  at: point,
  w: array<i32, 3>,
}

struct Params {
  n: i32,
}

@group(0) @binding(0) var<storage, read> p: array<particle>;
@group(0) @binding(1) var<storage, read_write> out: array<particle>;
@group(0) @binding(2) var<uniform> params: Params;

@compute @workgroup_size(64)
fn loopy_kernel(@builtin(workgroup_id) workgroup_id: vec3<u32>, @builtin(local_invocation_id) local_invocation_id: vec3<u32>) {
  let n = params.n;
  let group_id = vec3<i32>(workgroup_id);
  let local_id = vec3<i32>(local_invocation_id);
  if (64i * group_id.x <= n - local_id.x - 1i) {
    out[64i * group_id.x + local_id.x].at.x = p[64i * group_id.x + local_id.x].at.y * f32(p[64i * group_id.x + local_id.x].w[2]);
    out[64i * group_id.x + local_id.x].id = p[64i * group_id.x + local_id.x].id + 1u;
  }
}
