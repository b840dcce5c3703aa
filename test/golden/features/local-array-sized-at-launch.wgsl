struct Params {
  n: i32,
}

@group(0) @binding(0) var<storage, read> a: array<f32>;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
@group(0) @binding(2) var<uniform> params: Params;

override loopy_kernel_a_fetch_length: u32;

var<workgroup> a_fetch: array<f32, loopy_kernel_a_fetch_length>;

@compute @workgroup_size(4)
fn loopy_kernel(@builtin(workgroup_id) workgroup_id: vec3<u32>, @builtin(local_invocation_id) local_invocation_id: vec3<u32>) {
  let n = params.n;
  let group_id = vec3<i32>(workgroup_id);
  let local_id = vec3<i32>(local_invocation_id);
  var acc_j: f32;
  if (4i * group_id.x <= n - local_id.x - 1i) {
    acc_j = 0.0;
  }
  for (var a_dim_1: i32 = 0i; a_dim_1 <= -1i + n; a_dim_1++) {
    if (4i * group_id.x <= n - local_id.x - 1i) {
      a_fetch[n * local_id.x + a_dim_1] = a[n * (4i * group_id.x + local_id.x) + a_dim_1];
    }
  }
  workgroupBarrier(); // for a_fetch (insn_acc_j_update depends on a_fetch_rule)
  if (4i * group_id.x <= n - local_id.x - 1i) {
    for (var j: i32 = 0i; j <= -1i + n; j++) {
      acc_j = acc_j + a_fetch[n * local_id.x + j];
    }
    out[4i * group_id.x + local_id.x] = acc_j;
  }
}
