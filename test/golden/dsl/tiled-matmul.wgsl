struct Params {
  n: i32,
  l: i32,
  m: i32,
}

@group(0) @binding(0) var<storage, read> a: array<f32>;
@group(0) @binding(1) var<storage, read> b: array<f32>;
@group(0) @binding(2) var<storage, read_write> c: array<f32>;
@group(0) @binding(3) var<uniform> params: Params;

var<workgroup> a_fetch: array<f32, 256>;
var<workgroup> b_fetch: array<f32, 256>;

@compute @workgroup_size(16, 16)
fn matmul(@builtin(workgroup_id) workgroup_id: vec3<u32>, @builtin(local_invocation_id) local_invocation_id: vec3<u32>) {
  let n = params.n;
  let l = params.l;
  let m = params.m;
  let group_id = vec3<i32>(workgroup_id);
  let local_id = vec3<i32>(local_invocation_id);
  var acc_k_outer_k_inner: f32;
  if (16i * group_id.y <= n - local_id.y - 1i && 16i * group_id.x <= m - local_id.x - 1i) {
    acc_k_outer_k_inner = 0.0;
  }
  for (var k_outer: i32 = 0i; k_outer <= (l - 1i) / 16i; k_outer++) {
    if (16i * k_outer <= l - local_id.y - 1i && 16i * group_id.x <= m - local_id.x - 1i) {
      b_fetch[16i * local_id.y + local_id.x] = b[m * (16i * k_outer + local_id.y) + (16i * group_id.x + local_id.x)];
    }
    if (16i * group_id.y <= n - local_id.y - 1i && 16i * k_outer <= l - local_id.x - 1i) {
      a_fetch[16i * local_id.y + local_id.x] = a[l * (16i * group_id.y + local_id.y) + (16i * k_outer + local_id.x)];
    }
    workgroupBarrier(); // for b_fetch (insn_acc_k_outer_k_inner_update depends on b_fetch_rule)
    if (16i * group_id.y <= n - local_id.y - 1i && 16i * group_id.x <= m - local_id.x - 1i) {
      for (var k_inner: i32 = 0i; k_inner <= min(l - 16i * k_outer - 1i, 15i); k_inner++) {
        acc_k_outer_k_inner = acc_k_outer_k_inner + a_fetch[16i * local_id.y + k_inner] * b_fetch[16i * k_inner + local_id.x];
      }
    }
    workgroupBarrier(); // for b_fetch (insn_acc_k_outer_k_inner_update depends on b_fetch_rule) across iterations of 'k_outer'
  }
  if (16i * group_id.y <= n - local_id.y - 1i && 16i * group_id.x <= m - local_id.x - 1i) {
    c[m * (16i * group_id.y + local_id.y) + (16i * group_id.x + local_id.x)] = acc_k_outer_k_inner;
  }
}
