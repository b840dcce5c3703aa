@group(0) @binding(0) var<storage, read> a: array<f32>;
@group(0) @binding(1) var<storage, read> b: array<f32>;
@group(0) @binding(2) var<storage, read_write> c: array<f32>;

var<workgroup> a_fetch: array<f32, 1087>;
var<workgroup> b_fetch: array<f32, 1024>;

@compute @workgroup_size(16, 16)
fn sgemm(@builtin(workgroup_id) workgroup_id: vec3<u32>, @builtin(local_invocation_id) local_invocation_id: vec3<u32>) {
  let group_id = vec3<i32>(workgroup_id);
  let local_id = vec3<i32>(local_invocation_id);
  var a_vec: array<f32, 4>;
  var b_vec: array<f32, 4>;
  var acc_k_outer_k_inner: array<f32, 16>;
  acc_k_outer_k_inner[0i] = 0.0;
  acc_k_outer_k_inner[1i] = 0.0;
  acc_k_outer_k_inner[2i] = 0.0;
  acc_k_outer_k_inner[3i] = 0.0;
  acc_k_outer_k_inner[4i] = 0.0;
  acc_k_outer_k_inner[5i] = 0.0;
  acc_k_outer_k_inner[6i] = 0.0;
  acc_k_outer_k_inner[7i] = 0.0;
  acc_k_outer_k_inner[8i] = 0.0;
  acc_k_outer_k_inner[9i] = 0.0;
  acc_k_outer_k_inner[10i] = 0.0;
  acc_k_outer_k_inner[11i] = 0.0;
  acc_k_outer_k_inner[12i] = 0.0;
  acc_k_outer_k_inner[13i] = 0.0;
  acc_k_outer_k_inner[14i] = 0.0;
  acc_k_outer_k_inner[15i] = 0.0;
  for (var k_outer: i32 = 0i; k_outer <= 7i; k_outer++) {
    b_vec[0i] = b[2048i * k_outer + 128i * local_id.y + 64i * group_id.x + 4i * local_id.x];
    b_vec[1i] = b[2048i * k_outer + 128i * local_id.y + 64i * group_id.x + 4i * local_id.x + 1i];
    b_vec[2i] = b[2048i * k_outer + 128i * local_id.y + 64i * group_id.x + 4i * local_id.x + 2i];
    b_vec[3i] = b[2048i * k_outer + 128i * local_id.y + 64i * group_id.x + 4i * local_id.x + 3i];
    b_fetch[64i * local_id.y + 4i * local_id.x] = b_vec[0i];
    b_fetch[64i * local_id.y + 4i * local_id.x + 1i] = b_vec[1i];
    b_fetch[64i * local_id.y + 4i * local_id.x + 2i] = b_vec[2i];
    b_fetch[64i * local_id.y + 4i * local_id.x + 3i] = b_vec[3i];
    if (16i * local_id.y <= -local_id.x + 63i) {
      a_vec[0i] = a[8192i * group_id.y + 2048i * local_id.y + 128i * local_id.x + 16i * k_outer];
      a_vec[1i] = a[8192i * group_id.y + 2048i * local_id.y + 128i * local_id.x + 16i * k_outer + 1i];
      a_vec[2i] = a[8192i * group_id.y + 2048i * local_id.y + 128i * local_id.x + 16i * k_outer + 2i];
      a_vec[3i] = a[8192i * group_id.y + 2048i * local_id.y + 128i * local_id.x + 16i * k_outer + 3i];
      a_fetch[272i * local_id.y + 17i * local_id.x] = a_vec[0i];
      a_fetch[272i * local_id.y + 17i * local_id.x + 1i] = a_vec[1i];
      a_fetch[272i * local_id.y + 17i * local_id.x + 2i] = a_vec[2i];
      a_fetch[272i * local_id.y + 17i * local_id.x + 3i] = a_vec[3i];
      a_vec[0i] = a[8192i * group_id.y + 2048i * local_id.y + 128i * local_id.x + 16i * k_outer + 4i];
      a_vec[1i] = a[8192i * group_id.y + 2048i * local_id.y + 128i * local_id.x + 16i * k_outer + 5i];
      a_vec[2i] = a[8192i * group_id.y + 2048i * local_id.y + 128i * local_id.x + 16i * k_outer + 6i];
      a_vec[3i] = a[8192i * group_id.y + 2048i * local_id.y + 128i * local_id.x + 16i * k_outer + 7i];
      a_fetch[272i * local_id.y + 17i * local_id.x + 4i] = a_vec[0i];
      a_fetch[272i * local_id.y + 17i * local_id.x + 5i] = a_vec[1i];
      a_fetch[272i * local_id.y + 17i * local_id.x + 6i] = a_vec[2i];
      a_fetch[272i * local_id.y + 17i * local_id.x + 7i] = a_vec[3i];
      a_vec[0i] = a[8192i * group_id.y + 2048i * local_id.y + 128i * local_id.x + 16i * k_outer + 8i];
      a_vec[1i] = a[8192i * group_id.y + 2048i * local_id.y + 128i * local_id.x + 16i * k_outer + 9i];
      a_vec[2i] = a[8192i * group_id.y + 2048i * local_id.y + 128i * local_id.x + 16i * k_outer + 10i];
      a_vec[3i] = a[8192i * group_id.y + 2048i * local_id.y + 128i * local_id.x + 16i * k_outer + 11i];
      a_fetch[272i * local_id.y + 17i * local_id.x + 8i] = a_vec[0i];
      a_fetch[272i * local_id.y + 17i * local_id.x + 9i] = a_vec[1i];
      a_fetch[272i * local_id.y + 17i * local_id.x + 10i] = a_vec[2i];
      a_fetch[272i * local_id.y + 17i * local_id.x + 11i] = a_vec[3i];
      a_vec[0i] = a[8192i * group_id.y + 2048i * local_id.y + 128i * local_id.x + 16i * k_outer + 12i];
      a_vec[1i] = a[8192i * group_id.y + 2048i * local_id.y + 128i * local_id.x + 16i * k_outer + 13i];
      a_vec[2i] = a[8192i * group_id.y + 2048i * local_id.y + 128i * local_id.x + 16i * k_outer + 14i];
      a_vec[3i] = a[8192i * group_id.y + 2048i * local_id.y + 128i * local_id.x + 16i * k_outer + 15i];
      a_fetch[272i * local_id.y + 17i * local_id.x + 12i] = a_vec[0i];
      a_fetch[272i * local_id.y + 17i * local_id.x + 13i] = a_vec[1i];
      a_fetch[272i * local_id.y + 17i * local_id.x + 14i] = a_vec[2i];
      a_fetch[272i * local_id.y + 17i * local_id.x + 15i] = a_vec[3i];
    }
    workgroupBarrier(); // for b_fetch (insn_acc_k_outer_k_inner_update depends on b_fetch_rule)
    for (var k_inner: i32 = 0i; k_inner <= 15i; k_inner++) {
      acc_k_outer_k_inner[0i] = acc_k_outer_k_inner[0i] + a_fetch[17i * local_id.y + k_inner] * b_fetch[64i * k_inner + 4i * local_id.x];
      acc_k_outer_k_inner[1i] = acc_k_outer_k_inner[1i] + a_fetch[17i * local_id.y + k_inner] * b_fetch[64i * k_inner + 4i * local_id.x + 1i];
      acc_k_outer_k_inner[2i] = acc_k_outer_k_inner[2i] + a_fetch[17i * local_id.y + k_inner] * b_fetch[64i * k_inner + 4i * local_id.x + 2i];
      acc_k_outer_k_inner[3i] = acc_k_outer_k_inner[3i] + a_fetch[17i * local_id.y + k_inner] * b_fetch[64i * k_inner + 4i * local_id.x + 3i];
      acc_k_outer_k_inner[4i] = acc_k_outer_k_inner[4i] + a_fetch[17i * local_id.y + k_inner + 272i] * b_fetch[64i * k_inner + 4i * local_id.x];
      acc_k_outer_k_inner[5i] = acc_k_outer_k_inner[5i] + a_fetch[17i * local_id.y + k_inner + 272i] * b_fetch[64i * k_inner + 4i * local_id.x + 1i];
      acc_k_outer_k_inner[6i] = acc_k_outer_k_inner[6i] + a_fetch[17i * local_id.y + k_inner + 272i] * b_fetch[64i * k_inner + 4i * local_id.x + 2i];
      acc_k_outer_k_inner[7i] = acc_k_outer_k_inner[7i] + a_fetch[17i * local_id.y + k_inner + 272i] * b_fetch[64i * k_inner + 4i * local_id.x + 3i];
      acc_k_outer_k_inner[8i] = acc_k_outer_k_inner[8i] + a_fetch[17i * local_id.y + k_inner + 544i] * b_fetch[64i * k_inner + 4i * local_id.x];
      acc_k_outer_k_inner[9i] = acc_k_outer_k_inner[9i] + a_fetch[17i * local_id.y + k_inner + 544i] * b_fetch[64i * k_inner + 4i * local_id.x + 1i];
      acc_k_outer_k_inner[10i] = acc_k_outer_k_inner[10i] + a_fetch[17i * local_id.y + k_inner + 544i] * b_fetch[64i * k_inner + 4i * local_id.x + 2i];
      acc_k_outer_k_inner[11i] = acc_k_outer_k_inner[11i] + a_fetch[17i * local_id.y + k_inner + 544i] * b_fetch[64i * k_inner + 4i * local_id.x + 3i];
      acc_k_outer_k_inner[12i] = acc_k_outer_k_inner[12i] + a_fetch[17i * local_id.y + k_inner + 816i] * b_fetch[64i * k_inner + 4i * local_id.x];
      acc_k_outer_k_inner[13i] = acc_k_outer_k_inner[13i] + a_fetch[17i * local_id.y + k_inner + 816i] * b_fetch[64i * k_inner + 4i * local_id.x + 1i];
      acc_k_outer_k_inner[14i] = acc_k_outer_k_inner[14i] + a_fetch[17i * local_id.y + k_inner + 816i] * b_fetch[64i * k_inner + 4i * local_id.x + 2i];
      acc_k_outer_k_inner[15i] = acc_k_outer_k_inner[15i] + a_fetch[17i * local_id.y + k_inner + 816i] * b_fetch[64i * k_inner + 4i * local_id.x + 3i];
    }
    workgroupBarrier(); // for b_fetch (insn_acc_k_outer_k_inner_update depends on b_fetch_rule) across iterations of 'k_outer'
  }
  c[8192i * group_id.y + 128i * local_id.y + 64i * group_id.x + 4i * local_id.x] = acc_k_outer_k_inner[0i];
  c[8192i * group_id.y + 128i * local_id.y + 64i * group_id.x + 4i * local_id.x + 1i] = acc_k_outer_k_inner[1i];
  c[8192i * group_id.y + 128i * local_id.y + 64i * group_id.x + 4i * local_id.x + 2i] = acc_k_outer_k_inner[2i];
  c[8192i * group_id.y + 128i * local_id.y + 64i * group_id.x + 4i * local_id.x + 3i] = acc_k_outer_k_inner[3i];
  c[8192i * group_id.y + 128i * local_id.y + 64i * group_id.x + 4i * local_id.x + 2048i] = acc_k_outer_k_inner[4i];
  c[8192i * group_id.y + 128i * local_id.y + 64i * group_id.x + 4i * local_id.x + 2049i] = acc_k_outer_k_inner[5i];
  c[8192i * group_id.y + 128i * local_id.y + 64i * group_id.x + 4i * local_id.x + 2050i] = acc_k_outer_k_inner[6i];
  c[8192i * group_id.y + 128i * local_id.y + 64i * group_id.x + 4i * local_id.x + 2051i] = acc_k_outer_k_inner[7i];
  c[8192i * group_id.y + 128i * local_id.y + 64i * group_id.x + 4i * local_id.x + 4096i] = acc_k_outer_k_inner[8i];
  c[8192i * group_id.y + 128i * local_id.y + 64i * group_id.x + 4i * local_id.x + 4097i] = acc_k_outer_k_inner[9i];
  c[8192i * group_id.y + 128i * local_id.y + 64i * group_id.x + 4i * local_id.x + 4098i] = acc_k_outer_k_inner[10i];
  c[8192i * group_id.y + 128i * local_id.y + 64i * group_id.x + 4i * local_id.x + 4099i] = acc_k_outer_k_inner[11i];
  c[8192i * group_id.y + 128i * local_id.y + 64i * group_id.x + 4i * local_id.x + 6144i] = acc_k_outer_k_inner[12i];
  c[8192i * group_id.y + 128i * local_id.y + 64i * group_id.x + 4i * local_id.x + 6145i] = acc_k_outer_k_inner[13i];
  c[8192i * group_id.y + 128i * local_id.y + 64i * group_id.x + 4i * local_id.x + 6146i] = acc_k_outer_k_inner[14i];
  c[8192i * group_id.y + 128i * local_id.y + 64i * group_id.x + 4i * local_id.x + 6147i] = acc_k_outer_k_inner[15i];
}
