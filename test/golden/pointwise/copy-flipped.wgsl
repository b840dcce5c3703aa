struct Params {
  n: i32,
  buf0_size: i32,
  buf1_size: i32,
  in0_stride0: i32,
  in0_offset: i32,
  out0_offset: i32,
}

@group(0) @binding(0) var<storage, read> buf0: array<f32>;
@group(0) @binding(1) var<storage, read_write> buf1: array<f32>;
@group(0) @binding(2) var<uniform> params: Params;

@compute @workgroup_size(256)
fn copy_rank1(@builtin(workgroup_id) workgroup_id: vec3<u32>, @builtin(local_invocation_id) local_invocation_id: vec3<u32>) {
  let n = params.n;
  let buf0_size = params.buf0_size;
  let buf1_size = params.buf1_size;
  let in0_stride0 = params.in0_stride0;
  let in0_offset = params.in0_offset;
  let out0_offset = params.out0_offset;
  let group_id = vec3<i32>(workgroup_id);
  let local_id = vec3<i32>(local_invocation_id);
  var in0: array<f32, 4>;
  if (1024i * group_id.x <= n - local_id.x - 1i) {
    in0[0i] = select(0.0, buf0[in0_offset + in0_stride0 * (1024i * group_id.x + local_id.x)], 0i <= in0_offset + in0_stride0 * (1024i * group_id.x + local_id.x) && in0_offset + in0_stride0 * (1024i * group_id.x + local_id.x) < buf0_size);
  }
  if (1024i * group_id.x <= n - local_id.x - 257i) {
    in0[1i] = select(0.0, buf0[in0_offset + in0_stride0 * (1024i * group_id.x + local_id.x + 256i)], 0i <= in0_offset + in0_stride0 * (1024i * group_id.x + local_id.x + 256i) && in0_offset + in0_stride0 * (1024i * group_id.x + local_id.x + 256i) < buf0_size);
  }
  if (1024i * group_id.x <= n - local_id.x - 513i) {
    in0[2i] = select(0.0, buf0[in0_offset + in0_stride0 * (1024i * group_id.x + local_id.x + 512i)], 0i <= in0_offset + in0_stride0 * (1024i * group_id.x + local_id.x + 512i) && in0_offset + in0_stride0 * (1024i * group_id.x + local_id.x + 512i) < buf0_size);
  }
  if (1024i * group_id.x <= n - local_id.x - 769i) {
    in0[3i] = select(0.0, buf0[in0_offset + in0_stride0 * (1024i * group_id.x + local_id.x + 768i)], 0i <= in0_offset + in0_stride0 * (1024i * group_id.x + local_id.x + 768i) && in0_offset + in0_stride0 * (1024i * group_id.x + local_id.x + 768i) < buf0_size);
  }
  if (1024i * group_id.x <= n - local_id.x - 1i) {
    buf1[out0_offset + 1024i * group_id.x + local_id.x] = in0[0i];
  }
  if (1024i * group_id.x <= n - local_id.x - 257i) {
    buf1[out0_offset + 1024i * group_id.x + local_id.x + 256i] = in0[1i];
  }
  if (1024i * group_id.x <= n - local_id.x - 513i) {
    buf1[out0_offset + 1024i * group_id.x + local_id.x + 512i] = in0[2i];
  }
  if (1024i * group_id.x <= n - local_id.x - 769i) {
    buf1[out0_offset + 1024i * group_id.x + local_id.x + 768i] = in0[3i];
  }
}
