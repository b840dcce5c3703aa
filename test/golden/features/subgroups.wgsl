enable subgroups;
diagnostic(off, subgroup_uniformity);

struct Params {
  n: i32,
}

@group(0) @binding(0) var<storage, read> a: array<f32>;
@group(0) @binding(1) var<storage, read_write> ids: array<i32>;
@group(0) @binding(2) var<storage, read_write> moved: array<f32>;
@group(0) @binding(3) var<storage, read_write> scan: array<f32>;
@group(0) @binding(4) var<storage, read_write> sum: array<f32>;
@group(0) @binding(5) var<uniform> params: Params;

@compute @workgroup_size(64)
fn loopy_kernel(@builtin(workgroup_id) workgroup_id: vec3<u32>, @builtin(local_invocation_id) local_invocation_id: vec3<u32>, @builtin(local_invocation_index) local_invocation_index: u32, @builtin(subgroup_invocation_id) subgroup_invocation_id: u32, @builtin(subgroup_size) subgroup_size: u32) {
  let n = params.n;
  let group_id = vec3<i32>(workgroup_id);
  let local_id = vec3<i32>(local_invocation_id);
  var x: f32;
  x = a[64i * group_id.x + local_id.x];
  sum[64i * group_id.x + local_id.x] = subgroupAdd(x) + subgroupMin(x) * subgroupMax(x);
  scan[64i * group_id.x + local_id.x] = subgroupInclusiveAdd(x) - subgroupExclusiveAdd(x);
  moved[64i * group_id.x + local_id.x] = subgroupShuffle(x, u32(i32(subgroup_size) - 1i - i32(subgroup_invocation_id))) + subgroupShuffleXor(x, 2u) + subgroupBroadcast(x, 0u);
  ids[64i * group_id.x + local_id.x] = i32(local_invocation_index / subgroup_size);
}
