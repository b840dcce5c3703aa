struct Params {
  in2: f32,
  n: i32,
  buf0_size: i32,
  buf1_size: i32,
  size1: i32,
  in0_stride0: i32,
  in0_offset: i32,
  in1_stride0: i32,
  in1_offset: i32,
  out0_stride0: i32,
  out0_offset: i32,
}

@group(0) @binding(0) var<storage, read_write> buf0: array<f32>;
@group(0) @binding(1) var<storage, read> buf1: array<f32>;
@group(0) @binding(2) var<uniform> params: Params;

// a / b with x / 0 = 0 (WGSL's gives a)
fn div_i32(a: i32, b: i32) -> i32 {
  return select(a / b, 0i, b == 0i);
}

@compute @workgroup_size(256)
fn add_rank2(@builtin(workgroup_id) workgroup_id: vec3<u32>, @builtin(local_invocation_id) local_invocation_id: vec3<u32>) {
  let in2 = params.in2;
  let n = params.n;
  let buf0_size = params.buf0_size;
  let buf1_size = params.buf1_size;
  let size1 = params.size1;
  let in0_stride0 = params.in0_stride0;
  let in0_offset = params.in0_offset;
  let in1_stride0 = params.in1_stride0;
  let in1_offset = params.in1_offset;
  let out0_stride0 = params.out0_stride0;
  let out0_offset = params.out0_offset;
  let group_id = vec3<i32>(workgroup_id);
  let local_id = vec3<i32>(local_invocation_id);
  var q0: array<i32, 4>;
  var i1: array<i32, 4>;
  var i0: array<i32, 4>;
  var in0: array<f32, 4>;
  var in1: array<f32, 4>;
  if (1024i * group_id.x <= n - local_id.x - 1i) {
    q0[0i] = div_i32(1024i * group_id.x + local_id.x, size1);
  }
  if (1024i * group_id.x <= n - local_id.x - 257i) {
    q0[1i] = div_i32(1024i * group_id.x + local_id.x + 256i, size1);
  }
  if (1024i * group_id.x <= n - local_id.x - 513i) {
    q0[2i] = div_i32(1024i * group_id.x + local_id.x + 512i, size1);
  }
  if (1024i * group_id.x <= n - local_id.x - 769i) {
    q0[3i] = div_i32(1024i * group_id.x + local_id.x + 768i, size1);
  }
  if (1024i * group_id.x <= n - local_id.x - 1i) {
    i1[0i] = 1024i * group_id.x + local_id.x - size1 * q0[0i];
  }
  if (1024i * group_id.x <= n - local_id.x - 257i) {
    i1[1i] = 1024i * group_id.x + local_id.x + 256i - size1 * q0[1i];
  }
  if (1024i * group_id.x <= n - local_id.x - 513i) {
    i1[2i] = 1024i * group_id.x + local_id.x + 512i - size1 * q0[2i];
  }
  if (1024i * group_id.x <= n - local_id.x - 769i) {
    i1[3i] = 1024i * group_id.x + local_id.x + 768i - size1 * q0[3i];
  }
  if (1024i * group_id.x <= n - local_id.x - 1i) {
    i0[0i] = q0[0i];
  }
  if (1024i * group_id.x <= n - local_id.x - 257i) {
    i0[1i] = q0[1i];
  }
  if (1024i * group_id.x <= n - local_id.x - 513i) {
    i0[2i] = q0[2i];
  }
  if (1024i * group_id.x <= n - local_id.x - 769i) {
    i0[3i] = q0[3i];
  }
  if (1024i * group_id.x <= n - local_id.x - 1i) {
    in0[0i] = select(0.0, buf0[in0_offset + in0_stride0 * i0[0i] + i1[0i]], 0i <= in0_offset + in0_stride0 * i0[0i] + i1[0i] && in0_offset + in0_stride0 * i0[0i] + i1[0i] < buf0_size);
  }
  if (1024i * group_id.x <= n - local_id.x - 257i) {
    in0[1i] = select(0.0, buf0[in0_offset + in0_stride0 * i0[1i] + i1[1i]], 0i <= in0_offset + in0_stride0 * i0[1i] + i1[1i] && in0_offset + in0_stride0 * i0[1i] + i1[1i] < buf0_size);
  }
  if (1024i * group_id.x <= n - local_id.x - 513i) {
    in0[2i] = select(0.0, buf0[in0_offset + in0_stride0 * i0[2i] + i1[2i]], 0i <= in0_offset + in0_stride0 * i0[2i] + i1[2i] && in0_offset + in0_stride0 * i0[2i] + i1[2i] < buf0_size);
  }
  if (1024i * group_id.x <= n - local_id.x - 769i) {
    in0[3i] = select(0.0, buf0[in0_offset + in0_stride0 * i0[3i] + i1[3i]], 0i <= in0_offset + in0_stride0 * i0[3i] + i1[3i] && in0_offset + in0_stride0 * i0[3i] + i1[3i] < buf0_size);
  }
  if (1024i * group_id.x <= n - local_id.x - 1i) {
    in1[0i] = select(0.0, buf1[in1_offset + in1_stride0 * i0[0i] + i1[0i]], 0i <= in1_offset + in1_stride0 * i0[0i] + i1[0i] && in1_offset + in1_stride0 * i0[0i] + i1[0i] < buf1_size);
  }
  if (1024i * group_id.x <= n - local_id.x - 257i) {
    in1[1i] = select(0.0, buf1[in1_offset + in1_stride0 * i0[1i] + i1[1i]], 0i <= in1_offset + in1_stride0 * i0[1i] + i1[1i] && in1_offset + in1_stride0 * i0[1i] + i1[1i] < buf1_size);
  }
  if (1024i * group_id.x <= n - local_id.x - 513i) {
    in1[2i] = select(0.0, buf1[in1_offset + in1_stride0 * i0[2i] + i1[2i]], 0i <= in1_offset + in1_stride0 * i0[2i] + i1[2i] && in1_offset + in1_stride0 * i0[2i] + i1[2i] < buf1_size);
  }
  if (1024i * group_id.x <= n - local_id.x - 769i) {
    in1[3i] = select(0.0, buf1[in1_offset + in1_stride0 * i0[3i] + i1[3i]], 0i <= in1_offset + in1_stride0 * i0[3i] + i1[3i] && in1_offset + in1_stride0 * i0[3i] + i1[3i] < buf1_size);
  }
  if (1024i * group_id.x <= n - local_id.x - 1i && 0i <= out0_offset + out0_stride0 * i0[0i] + i1[0i] && out0_offset + out0_stride0 * i0[0i] + i1[0i] < buf0_size) {
    buf0[out0_offset + out0_stride0 * i0[0i] + i1[0i]] = in0[0i] + in1[0i] * in2;
  }
  if (1024i * group_id.x <= n - local_id.x - 257i && 0i <= out0_offset + out0_stride0 * i0[1i] + i1[1i] && out0_offset + out0_stride0 * i0[1i] + i1[1i] < buf0_size) {
    buf0[out0_offset + out0_stride0 * i0[1i] + i1[1i]] = in0[1i] + in1[1i] * in2;
  }
  if (1024i * group_id.x <= n - local_id.x - 513i && 0i <= out0_offset + out0_stride0 * i0[2i] + i1[2i] && out0_offset + out0_stride0 * i0[2i] + i1[2i] < buf0_size) {
    buf0[out0_offset + out0_stride0 * i0[2i] + i1[2i]] = in0[2i] + in1[2i] * in2;
  }
  if (1024i * group_id.x <= n - local_id.x - 769i && 0i <= out0_offset + out0_stride0 * i0[3i] + i1[3i] && out0_offset + out0_stride0 * i0[3i] + i1[3i] < buf0_size) {
    buf0[out0_offset + out0_stride0 * i0[3i] + i1[3i]] = in0[3i] + in1[3i] * in2;
  }
}
