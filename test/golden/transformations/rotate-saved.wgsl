struct Params {
  n: i32,
}

@group(0) @binding(0) var<storage, read_write> arr: array<i32>;
@group(0) @binding(1) var<storage, read_write> tmp_save_slot: array<i32>;
@group(0) @binding(2) var<uniform> params: Params;

// Python's a // b: the quotient rounded down (WGSL's / truncates)
fn floor_div_i32(a: i32, b: i32) -> i32 {
  if (b == 0i) { return 0i; }
  let q = a / b;
  return select(q, q - 1i, a % b != 0i && ((a < 0i) != (b < 0i)));
}

// Python's a % b: the remainder has the sign of b (WGSL's % takes a's)
fn mod_i32(a: i32, b: i32) -> i32 {
  if (b == 0i) { return 0i; }
  let r = a % b;
  return select(r, r + b, r != 0i && ((r < 0i) != (b < 0i)));
}

@compute @workgroup_size(16)
fn rotate_v2(@builtin(workgroup_id) workgroup_id: vec3<u32>, @builtin(local_invocation_id) local_invocation_id: vec3<u32>) {
  let n = params.n;
  let group_id = vec3<i32>(workgroup_id);
  let local_id = vec3<i32>(local_invocation_id);
  var tmp: i32;
  tmp = arr[16i * group_id.x + local_id.x];
  if (0i <= group_id.x && group_id.x < floor_div_i32(n + 15i, 16i)) {
    tmp_save_slot[16i * group_id.x + local_id.x] = tmp;
  }
}

@compute @workgroup_size(16)
fn rotate_v2_0(@builtin(workgroup_id) workgroup_id: vec3<u32>, @builtin(local_invocation_id) local_invocation_id: vec3<u32>) {
  let n = params.n;
  let group_id = vec3<i32>(workgroup_id);
  let local_id = vec3<i32>(local_invocation_id);
  var tmp: i32;
  tmp = select(0i, tmp_save_slot[16i * group_id.x + local_id.x], 0i <= group_id.x && group_id.x < floor_div_i32(n + 15i, 16i));
  if (0i <= mod_i32(16i * group_id.x + local_id.x + 1i, n) && mod_i32(16i * group_id.x + local_id.x + 1i, n) < n) {
    arr[mod_i32(16i * group_id.x + local_id.x + 1i, n)] = tmp;
  }
}
