#define lid(N) ((int) get_local_id(N))
#define gid(N) ((int) get_group_id(N))

__kernel void __attribute__ ((reqd_work_group_size(16, 16, 1))) sgemm(__global float const *__restrict__ a, __global float const *__restrict__ b, __global float *__restrict__ c)
{
  __local float a_fetch[1024];
  __local float b_fetch[1024];
  float acc_k_outer_k_inner[16];
  acc_k_outer_k_inner[0] = 0.0f;
  acc_k_outer_k_inner[1] = 0.0f;
  acc_k_outer_k_inner[2] = 0.0f;
  acc_k_outer_k_inner[3] = 0.0f;
  acc_k_outer_k_inner[4] = 0.0f;
  acc_k_outer_k_inner[5] = 0.0f;
  acc_k_outer_k_inner[6] = 0.0f;
  acc_k_outer_k_inner[7] = 0.0f;
  acc_k_outer_k_inner[8] = 0.0f;
  acc_k_outer_k_inner[9] = 0.0f;
  acc_k_outer_k_inner[10] = 0.0f;
  acc_k_outer_k_inner[11] = 0.0f;
  acc_k_outer_k_inner[12] = 0.0f;
  acc_k_outer_k_inner[13] = 0.0f;
  acc_k_outer_k_inner[14] = 0.0f;
  acc_k_outer_k_inner[15] = 0.0f;
  for (int k_outer = 0; k_outer <= 7; ++k_outer)
  {
    a_fetch[16 * lid(1) + lid(0)] = a[8192 * gid(1) + 128 * lid(1) + 16 * k_outer + lid(0)];
    a_fetch[16 * lid(1) + lid(0) + 256] = a[8192 * gid(1) + 128 * lid(1) + 16 * k_outer + lid(0) + 2048];
    a_fetch[16 * lid(1) + lid(0) + 512] = a[8192 * gid(1) + 128 * lid(1) + 16 * k_outer + lid(0) + 4096];
    a_fetch[16 * lid(1) + lid(0) + 768] = a[8192 * gid(1) + 128 * lid(1) + 16 * k_outer + lid(0) + 6144];
    b_fetch[64 * lid(1) + lid(0)] = b[2048 * k_outer + 128 * lid(1) + 64 * gid(0) + lid(0)];
    b_fetch[64 * lid(1) + lid(0) + 16] = b[2048 * k_outer + 128 * lid(1) + 64 * gid(0) + lid(0) + 16];
    b_fetch[64 * lid(1) + lid(0) + 32] = b[2048 * k_outer + 128 * lid(1) + 64 * gid(0) + lid(0) + 32];
    b_fetch[64 * lid(1) + lid(0) + 48] = b[2048 * k_outer + 128 * lid(1) + 64 * gid(0) + lid(0) + 48];
    barrier(CLK_LOCAL_MEM_FENCE) /* for a_fetch (insn_acc_k_outer_k_inner_update depends on a_fetch_rule) */;
    for (int k_inner = 0; k_inner <= 15; ++k_inner)
    {
      acc_k_outer_k_inner[0] = acc_k_outer_k_inner[0] + a_fetch[16 * lid(1) + k_inner] * b_fetch[64 * k_inner + lid(0)];
      acc_k_outer_k_inner[1] = acc_k_outer_k_inner[1] + a_fetch[16 * lid(1) + k_inner] * b_fetch[64 * k_inner + lid(0) + 16];
      acc_k_outer_k_inner[2] = acc_k_outer_k_inner[2] + a_fetch[16 * lid(1) + k_inner] * b_fetch[64 * k_inner + lid(0) + 32];
      acc_k_outer_k_inner[3] = acc_k_outer_k_inner[3] + a_fetch[16 * lid(1) + k_inner] * b_fetch[64 * k_inner + lid(0) + 48];
      acc_k_outer_k_inner[4] = acc_k_outer_k_inner[4] + a_fetch[16 * lid(1) + k_inner + 256] * b_fetch[64 * k_inner + lid(0)];
      acc_k_outer_k_inner[5] = acc_k_outer_k_inner[5] + a_fetch[16 * lid(1) + k_inner + 256] * b_fetch[64 * k_inner + lid(0) + 16];
      acc_k_outer_k_inner[6] = acc_k_outer_k_inner[6] + a_fetch[16 * lid(1) + k_inner + 256] * b_fetch[64 * k_inner + lid(0) + 32];
      acc_k_outer_k_inner[7] = acc_k_outer_k_inner[7] + a_fetch[16 * lid(1) + k_inner + 256] * b_fetch[64 * k_inner + lid(0) + 48];
      acc_k_outer_k_inner[8] = acc_k_outer_k_inner[8] + a_fetch[16 * lid(1) + k_inner + 512] * b_fetch[64 * k_inner + lid(0)];
      acc_k_outer_k_inner[9] = acc_k_outer_k_inner[9] + a_fetch[16 * lid(1) + k_inner + 512] * b_fetch[64 * k_inner + lid(0) + 16];
      acc_k_outer_k_inner[10] = acc_k_outer_k_inner[10] + a_fetch[16 * lid(1) + k_inner + 512] * b_fetch[64 * k_inner + lid(0) + 32];
      acc_k_outer_k_inner[11] = acc_k_outer_k_inner[11] + a_fetch[16 * lid(1) + k_inner + 512] * b_fetch[64 * k_inner + lid(0) + 48];
      acc_k_outer_k_inner[12] = acc_k_outer_k_inner[12] + a_fetch[16 * lid(1) + k_inner + 768] * b_fetch[64 * k_inner + lid(0)];
      acc_k_outer_k_inner[13] = acc_k_outer_k_inner[13] + a_fetch[16 * lid(1) + k_inner + 768] * b_fetch[64 * k_inner + lid(0) + 16];
      acc_k_outer_k_inner[14] = acc_k_outer_k_inner[14] + a_fetch[16 * lid(1) + k_inner + 768] * b_fetch[64 * k_inner + lid(0) + 32];
      acc_k_outer_k_inner[15] = acc_k_outer_k_inner[15] + a_fetch[16 * lid(1) + k_inner + 768] * b_fetch[64 * k_inner + lid(0) + 48];
    }
    barrier(CLK_LOCAL_MEM_FENCE) /* for a_fetch (insn_acc_k_outer_k_inner_update depends on a_fetch_rule) across iterations of 'k_outer' */;
  }
  c[8192 * gid(1) + 128 * lid(1) + 64 * gid(0) + lid(0)] = acc_k_outer_k_inner[0];
  c[8192 * gid(1) + 128 * lid(1) + 64 * gid(0) + lid(0) + 16] = acc_k_outer_k_inner[1];
  c[8192 * gid(1) + 128 * lid(1) + 64 * gid(0) + lid(0) + 32] = acc_k_outer_k_inner[2];
  c[8192 * gid(1) + 128 * lid(1) + 64 * gid(0) + lid(0) + 48] = acc_k_outer_k_inner[3];
  c[8192 * gid(1) + 128 * lid(1) + 64 * gid(0) + lid(0) + 2048] = acc_k_outer_k_inner[4];
  c[8192 * gid(1) + 128 * lid(1) + 64 * gid(0) + lid(0) + 2064] = acc_k_outer_k_inner[5];
  c[8192 * gid(1) + 128 * lid(1) + 64 * gid(0) + lid(0) + 2080] = acc_k_outer_k_inner[6];
  c[8192 * gid(1) + 128 * lid(1) + 64 * gid(0) + lid(0) + 2096] = acc_k_outer_k_inner[7];
  c[8192 * gid(1) + 128 * lid(1) + 64 * gid(0) + lid(0) + 4096] = acc_k_outer_k_inner[8];
  c[8192 * gid(1) + 128 * lid(1) + 64 * gid(0) + lid(0) + 4112] = acc_k_outer_k_inner[9];
  c[8192 * gid(1) + 128 * lid(1) + 64 * gid(0) + lid(0) + 4128] = acc_k_outer_k_inner[10];
  c[8192 * gid(1) + 128 * lid(1) + 64 * gid(0) + lid(0) + 4144] = acc_k_outer_k_inner[11];
  c[8192 * gid(1) + 128 * lid(1) + 64 * gid(0) + lid(0) + 6144] = acc_k_outer_k_inner[12];
  c[8192 * gid(1) + 128 * lid(1) + 64 * gid(0) + lid(0) + 6160] = acc_k_outer_k_inner[13];
  c[8192 * gid(1) + 128 * lid(1) + 64 * gid(0) + lid(0) + 6176] = acc_k_outer_k_inner[14];
  c[8192 * gid(1) + 128 * lid(1) + 64 * gid(0) + lid(0) + 6192] = acc_k_outer_k_inner[15];
}
