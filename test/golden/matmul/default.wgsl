@group(0) @binding(0) var<storage, read> a: array<f32>;
@group(0) @binding(1) var<storage, read> b: array<f32>;
@group(0) @binding(2) var<storage, read_write> c: array<f32>;

var<workgroup> a_fetch: array<array<f32, 256>, 4>;
var<workgroup> b_fetch: array<array<f32, 64>, 16>;

@compute @workgroup_size(16, 16)
fn sgemm(@builtin(workgroup_id) workgroup_id: vec3<u32>, @builtin(local_invocation_id) local_invocation_id: vec3<u32>) {
  let group_id = vec3<i32>(workgroup_id);
  let local_id = vec3<i32>(local_invocation_id);
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
    a_fetch[0i][16i * local_id.y + local_id.x] = a[8192i * group_id.y + 128i * local_id.y + 16i * k_outer + local_id.x];
    a_fetch[1i][16i * local_id.y + local_id.x] = a[8192i * group_id.y + 128i * local_id.y + 16i * k_outer + local_id.x + 2048i];
    a_fetch[2i][16i * local_id.y + local_id.x] = a[8192i * group_id.y + 128i * local_id.y + 16i * k_outer + local_id.x + 4096i];
    a_fetch[3i][16i * local_id.y + local_id.x] = a[8192i * group_id.y + 128i * local_id.y + 16i * k_outer + local_id.x + 6144i];
    b_fetch[local_id.y][local_id.x] = b[2048i * k_outer + 128i * local_id.y + 64i * group_id.x + local_id.x];
    b_fetch[local_id.y][local_id.x + 16i] = b[2048i * k_outer + 128i * local_id.y + 64i * group_id.x + local_id.x + 16i];
    b_fetch[local_id.y][local_id.x + 32i] = b[2048i * k_outer + 128i * local_id.y + 64i * group_id.x + local_id.x + 32i];
    b_fetch[local_id.y][local_id.x + 48i] = b[2048i * k_outer + 128i * local_id.y + 64i * group_id.x + local_id.x + 48i];
    workgroupBarrier(); // for a_fetch (insn_acc_k_outer_k_inner_update depends on a_fetch_rule)
    for (var k_inner: i32 = 0i; k_inner <= 15i; k_inner++) {
      acc_k_outer_k_inner[0i] = fma(a_fetch[0i][16i * local_id.y + k_inner], b_fetch[k_inner][local_id.x], acc_k_outer_k_inner[0i]);
      acc_k_outer_k_inner[1i] = fma(a_fetch[0i][16i * local_id.y + k_inner], b_fetch[k_inner][local_id.x + 16i], acc_k_outer_k_inner[1i]);
      acc_k_outer_k_inner[2i] = fma(a_fetch[0i][16i * local_id.y + k_inner], b_fetch[k_inner][local_id.x + 32i], acc_k_outer_k_inner[2i]);
      acc_k_outer_k_inner[3i] = fma(a_fetch[0i][16i * local_id.y + k_inner], b_fetch[k_inner][local_id.x + 48i], acc_k_outer_k_inner[3i]);
      acc_k_outer_k_inner[4i] = fma(a_fetch[1i][16i * local_id.y + k_inner], b_fetch[k_inner][local_id.x], acc_k_outer_k_inner[4i]);
      acc_k_outer_k_inner[5i] = fma(a_fetch[1i][16i * local_id.y + k_inner], b_fetch[k_inner][local_id.x + 16i], acc_k_outer_k_inner[5i]);
      acc_k_outer_k_inner[6i] = fma(a_fetch[1i][16i * local_id.y + k_inner], b_fetch[k_inner][local_id.x + 32i], acc_k_outer_k_inner[6i]);
      acc_k_outer_k_inner[7i] = fma(a_fetch[1i][16i * local_id.y + k_inner], b_fetch[k_inner][local_id.x + 48i], acc_k_outer_k_inner[7i]);
      acc_k_outer_k_inner[8i] = fma(a_fetch[2i][16i * local_id.y + k_inner], b_fetch[k_inner][local_id.x], acc_k_outer_k_inner[8i]);
      acc_k_outer_k_inner[9i] = fma(a_fetch[2i][16i * local_id.y + k_inner], b_fetch[k_inner][local_id.x + 16i], acc_k_outer_k_inner[9i]);
      acc_k_outer_k_inner[10i] = fma(a_fetch[2i][16i * local_id.y + k_inner], b_fetch[k_inner][local_id.x + 32i], acc_k_outer_k_inner[10i]);
      acc_k_outer_k_inner[11i] = fma(a_fetch[2i][16i * local_id.y + k_inner], b_fetch[k_inner][local_id.x + 48i], acc_k_outer_k_inner[11i]);
      acc_k_outer_k_inner[12i] = fma(a_fetch[3i][16i * local_id.y + k_inner], b_fetch[k_inner][local_id.x], acc_k_outer_k_inner[12i]);
      acc_k_outer_k_inner[13i] = fma(a_fetch[3i][16i * local_id.y + k_inner], b_fetch[k_inner][local_id.x + 16i], acc_k_outer_k_inner[13i]);
      acc_k_outer_k_inner[14i] = fma(a_fetch[3i][16i * local_id.y + k_inner], b_fetch[k_inner][local_id.x + 32i], acc_k_outer_k_inner[14i]);
      acc_k_outer_k_inner[15i] = fma(a_fetch[3i][16i * local_id.y + k_inner], b_fetch[k_inner][local_id.x + 48i], acc_k_outer_k_inner[15i]);
    }
    workgroupBarrier(); // for a_fetch (insn_acc_k_outer_k_inner_update depends on a_fetch_rule) across iterations of 'k_outer'
  }
  c[8192i * group_id.y + 128i * local_id.y + 64i * group_id.x + local_id.x] = acc_k_outer_k_inner[0i];
  c[8192i * group_id.y + 128i * local_id.y + 64i * group_id.x + local_id.x + 16i] = acc_k_outer_k_inner[1i];
  c[8192i * group_id.y + 128i * local_id.y + 64i * group_id.x + local_id.x + 32i] = acc_k_outer_k_inner[2i];
  c[8192i * group_id.y + 128i * local_id.y + 64i * group_id.x + local_id.x + 48i] = acc_k_outer_k_inner[3i];
  c[8192i * group_id.y + 128i * local_id.y + 64i * group_id.x + local_id.x + 2048i] = acc_k_outer_k_inner[4i];
  c[8192i * group_id.y + 128i * local_id.y + 64i * group_id.x + local_id.x + 2064i] = acc_k_outer_k_inner[5i];
  c[8192i * group_id.y + 128i * local_id.y + 64i * group_id.x + local_id.x + 2080i] = acc_k_outer_k_inner[6i];
  c[8192i * group_id.y + 128i * local_id.y + 64i * group_id.x + local_id.x + 2096i] = acc_k_outer_k_inner[7i];
  c[8192i * group_id.y + 128i * local_id.y + 64i * group_id.x + local_id.x + 4096i] = acc_k_outer_k_inner[8i];
  c[8192i * group_id.y + 128i * local_id.y + 64i * group_id.x + local_id.x + 4112i] = acc_k_outer_k_inner[9i];
  c[8192i * group_id.y + 128i * local_id.y + 64i * group_id.x + local_id.x + 4128i] = acc_k_outer_k_inner[10i];
  c[8192i * group_id.y + 128i * local_id.y + 64i * group_id.x + local_id.x + 4144i] = acc_k_outer_k_inner[11i];
  c[8192i * group_id.y + 128i * local_id.y + 64i * group_id.x + local_id.x + 6144i] = acc_k_outer_k_inner[12i];
  c[8192i * group_id.y + 128i * local_id.y + 64i * group_id.x + local_id.x + 6160i] = acc_k_outer_k_inner[13i];
  c[8192i * group_id.y + 128i * local_id.y + 64i * group_id.x + local_id.x + 6176i] = acc_k_outer_k_inner[14i];
  c[8192i * group_id.y + 128i * local_id.y + 64i * group_id.x + local_id.x + 6192i] = acc_k_outer_k_inner[15i];
}
