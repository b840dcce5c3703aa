@group(0) @binding(0) var<storage, read> a: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read> b: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> c: array<vec4<f32>>;

var<workgroup> a_fetch: array<f32, 1087>;
var<workgroup> b_fetch: array<vec4<f32>, 256>;

@compute @workgroup_size(16, 16)
fn sgemm(@builtin(workgroup_id) workgroup_id: vec3<u32>, @builtin(local_invocation_id) local_invocation_id: vec3<u32>) {
  let group_id = vec3<i32>(workgroup_id);
  let local_id = vec3<i32>(local_invocation_id);
  var a_vec: array<vec4<f32>, 1>;
  var b_vec: array<vec4<f32>, 1>;
  var acc_k_outer_k_inner: array<vec4<f32>, 4>;
  acc_k_outer_k_inner[0i] = vec4<f32>(0.0);
  acc_k_outer_k_inner[1i] = vec4<f32>(0.0);
  acc_k_outer_k_inner[2i] = vec4<f32>(0.0);
  acc_k_outer_k_inner[3i] = vec4<f32>(0.0);
  for (var k_outer: i32 = 0i; k_outer <= 7i; k_outer++) {
    b_vec[0i] = b[512i * k_outer + 32i * local_id.y + 16i * group_id.x + local_id.x];
    b_fetch[16i * local_id.y + local_id.x] = b_vec[0i];
    if (16i * local_id.y <= -local_id.x + 63i) {
      a_vec[0i] = a[2048i * group_id.y + 512i * local_id.y + 32i * local_id.x + 4i * k_outer];
      a_fetch[272i * local_id.y + 17i * local_id.x] = a_vec[0i].x;
      a_fetch[272i * local_id.y + 17i * local_id.x + 1i] = a_vec[0i].y;
      a_fetch[272i * local_id.y + 17i * local_id.x + 2i] = a_vec[0i].z;
      a_fetch[272i * local_id.y + 17i * local_id.x + 3i] = a_vec[0i].w;
      a_vec[0i] = a[2048i * group_id.y + 512i * local_id.y + 32i * local_id.x + 4i * k_outer + 1i];
      a_fetch[272i * local_id.y + 17i * local_id.x + 4i] = a_vec[0i].x;
      a_fetch[272i * local_id.y + 17i * local_id.x + 5i] = a_vec[0i].y;
      a_fetch[272i * local_id.y + 17i * local_id.x + 6i] = a_vec[0i].z;
      a_fetch[272i * local_id.y + 17i * local_id.x + 7i] = a_vec[0i].w;
      a_vec[0i] = a[2048i * group_id.y + 512i * local_id.y + 32i * local_id.x + 4i * k_outer + 2i];
      a_fetch[272i * local_id.y + 17i * local_id.x + 8i] = a_vec[0i].x;
      a_fetch[272i * local_id.y + 17i * local_id.x + 9i] = a_vec[0i].y;
      a_fetch[272i * local_id.y + 17i * local_id.x + 10i] = a_vec[0i].z;
      a_fetch[272i * local_id.y + 17i * local_id.x + 11i] = a_vec[0i].w;
      a_vec[0i] = a[2048i * group_id.y + 512i * local_id.y + 32i * local_id.x + 4i * k_outer + 3i];
      a_fetch[272i * local_id.y + 17i * local_id.x + 12i] = a_vec[0i].x;
      a_fetch[272i * local_id.y + 17i * local_id.x + 13i] = a_vec[0i].y;
      a_fetch[272i * local_id.y + 17i * local_id.x + 14i] = a_vec[0i].z;
      a_fetch[272i * local_id.y + 17i * local_id.x + 15i] = a_vec[0i].w;
    }
    workgroupBarrier(); // for b_fetch (insn_acc_k_outer_k_inner_update depends on b_fetch_rule)
    for (var k_inner: i32 = 0i; k_inner <= 15i; k_inner++) {
      acc_k_outer_k_inner[0i] = fma(vec4<f32>(a_fetch[17i * local_id.y + k_inner]), b_fetch[16i * k_inner + local_id.x], acc_k_outer_k_inner[0i]);
      acc_k_outer_k_inner[1i] = fma(vec4<f32>(a_fetch[17i * local_id.y + k_inner + 272i]), b_fetch[16i * k_inner + local_id.x], acc_k_outer_k_inner[1i]);
      acc_k_outer_k_inner[2i] = fma(vec4<f32>(a_fetch[17i * local_id.y + k_inner + 544i]), b_fetch[16i * k_inner + local_id.x], acc_k_outer_k_inner[2i]);
      acc_k_outer_k_inner[3i] = fma(vec4<f32>(a_fetch[17i * local_id.y + k_inner + 816i]), b_fetch[16i * k_inner + local_id.x], acc_k_outer_k_inner[3i]);
    }
    workgroupBarrier(); // for b_fetch (insn_acc_k_outer_k_inner_update depends on b_fetch_rule) across iterations of 'k_outer'
  }
  c[2048i * group_id.y + 32i * local_id.y + 16i * group_id.x + local_id.x] = acc_k_outer_k_inner[0i];
  c[2048i * group_id.y + 32i * local_id.y + 16i * group_id.x + local_id.x + 512i] = acc_k_outer_k_inner[1i];
  c[2048i * group_id.y + 32i * local_id.y + 16i * group_id.x + local_id.x + 1024i] = acc_k_outer_k_inner[2i];
  c[2048i * group_id.y + 32i * local_id.y + 16i * group_id.x + local_id.x + 1536i] = acc_k_outer_k_inner[3i];
}
