struct Params {
  m: i32,
  n: i32,
  p: i32,
}

@group(0) @binding(0) var<storage, read> w: array<f32>;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
@group(0) @binding(2) var a: texture_2d<f32>;
@group(0) @binding(3) var b: texture_3d<i32>;
@group(0) @binding(4) var<uniform> params: Params;

@compute @workgroup_size(16, 1)
fn image_read(@builtin(workgroup_id) workgroup_id: vec3<u32>, @builtin(local_invocation_id) local_invocation_id: vec3<u32>) {
  let m = params.m;
  let n = params.n;
  let p = params.p;
  let group_id = vec3<i32>(workgroup_id);
  let local_id = vec3<i32>(local_invocation_id);
  var acc_l: i32;
  if (16i * group_id.x <= m - local_id.x - 1i && p >= 1i) {
    acc_l = 0i;
  }
  if (16i * group_id.x <= m - local_id.x - 1i) {
    for (var l: i32 = 0i; l <= -1i + p; l++) {
      acc_l = acc_l + textureLoad(b, vec3<i32>(16i * group_id.x + local_id.x, group_id.y, l), 0).x;
    }
  }
  if (16i * group_id.x <= m - local_id.x - 1i && p >= 1i) {
    out[m * group_id.y + (16i * group_id.x + local_id.x)] = textureLoad(a, vec2<i32>(16i * group_id.x + local_id.x, group_id.y), 0).x * w[16i * group_id.x + local_id.x] + f32(acc_l);
  }
}
