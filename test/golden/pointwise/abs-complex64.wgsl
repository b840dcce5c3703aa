struct Params {
  n: i32,
  buf0_size: i32,
  buf1_size: i32,
  in0_offset: i32,
  out0_offset: i32,
}

@group(0) @binding(0) var<storage, read> buf0: array<f32>;
@group(0) @binding(1) var<storage, read_write> buf1: array<f32>;
@group(0) @binding(2) var<uniform> params: Params;

// sqrt(a² + b²), scaled by the larger magnitude: no overflow or underflow in the squares
fn hypot_f32(a: f32, b: f32) -> f32 {
  let big = max(abs(a), abs(b));
  let small = min(abs(a), abs(b));
  if (big == 0.0) { return 0.0; }
  let r = small / big;
  return big * sqrt(1.0 + r * r);
}

@compute @workgroup_size(256)
fn pointwise_rank1(@builtin(workgroup_id) workgroup_id: vec3<u32>, @builtin(local_invocation_id) local_invocation_id: vec3<u32>) {
  let n = params.n;
  let buf0_size = params.buf0_size;
  let buf1_size = params.buf1_size;
  let in0_offset = params.in0_offset;
  let out0_offset = params.out0_offset;
  let group_id = vec3<i32>(workgroup_id);
  let local_id = vec3<i32>(local_invocation_id);
  var in0_re: array<f32, 4>;
  var in0_im: array<f32, 4>;
  if (1024i * group_id.x <= n - local_id.x - 1i) {
    in0_re[0i] = buf0[2i * in0_offset + 2048i * group_id.x + 2i * local_id.x];
  }
  if (1024i * group_id.x <= n - local_id.x - 257i) {
    in0_re[1i] = buf0[2i * in0_offset + 2048i * group_id.x + 2i * local_id.x + 512i];
  }
  if (1024i * group_id.x <= n - local_id.x - 513i) {
    in0_re[2i] = buf0[2i * in0_offset + 2048i * group_id.x + 2i * local_id.x + 1024i];
  }
  if (1024i * group_id.x <= n - local_id.x - 769i) {
    in0_re[3i] = buf0[2i * in0_offset + 2048i * group_id.x + 2i * local_id.x + 1536i];
  }
  if (1024i * group_id.x <= n - local_id.x - 1i) {
    in0_im[0i] = buf0[2i * in0_offset + 2048i * group_id.x + 2i * local_id.x + 1i];
  }
  if (1024i * group_id.x <= n - local_id.x - 257i) {
    in0_im[1i] = buf0[2i * in0_offset + 2048i * group_id.x + 2i * local_id.x + 513i];
  }
  if (1024i * group_id.x <= n - local_id.x - 513i) {
    in0_im[2i] = buf0[2i * in0_offset + 2048i * group_id.x + 2i * local_id.x + 1025i];
  }
  if (1024i * group_id.x <= n - local_id.x - 769i) {
    in0_im[3i] = buf0[2i * in0_offset + 2048i * group_id.x + 2i * local_id.x + 1537i];
  }
  if (1024i * group_id.x <= n - local_id.x - 1i) {
    buf1[out0_offset + 1024i * group_id.x + local_id.x] = hypot_f32(in0_re[0i], in0_im[0i]);
  }
  if (1024i * group_id.x <= n - local_id.x - 257i) {
    buf1[out0_offset + 1024i * group_id.x + local_id.x + 256i] = hypot_f32(in0_re[1i], in0_im[1i]);
  }
  if (1024i * group_id.x <= n - local_id.x - 513i) {
    buf1[out0_offset + 1024i * group_id.x + local_id.x + 512i] = hypot_f32(in0_re[2i], in0_im[2i]);
  }
  if (1024i * group_id.x <= n - local_id.x - 769i) {
    buf1[out0_offset + 1024i * group_id.x + local_id.x + 768i] = hypot_f32(in0_re[3i], in0_im[3i]);
  }
}
