#define lid(N) ((int) get_local_id(N))
#define gid(N) ((int) get_group_id(N))

__kernel void __attribute__ ((reqd_work_group_size(16, 16, 1))) sgemm(__global float4 const *__restrict__ a, __global float4 const *__restrict__ b, __global float4 *__restrict__ c)
{
  __local float a_fetch[1087];
  __local float4 b_fetch[256];
  float4 a_vec[1];
  float4 b_vec[1];
  float4 acc_k_outer_k_inner[4];
  acc_k_outer_k_inner[0] = 0.0f;
  acc_k_outer_k_inner[1] = 0.0f;
  acc_k_outer_k_inner[2] = 0.0f;
  acc_k_outer_k_inner[3] = 0.0f;
  for (int k_outer = 0; k_outer <= 7; ++k_outer)
  {
    b_vec[0] = b[512 * k_outer + 32 * lid(1) + 16 * gid(0) + lid(0)];
    b_fetch[16 * lid(1) + lid(0)] = b_vec[0];
    if (16 * lid(1) <= -lid(0) + 63)
    {
      a_vec[0] = a[2048 * gid(1) + 512 * lid(1) + 32 * lid(0) + 4 * k_outer];
      a_fetch[272 * lid(1) + 17 * lid(0)] = a_vec[0].s0;
      a_fetch[272 * lid(1) + 17 * lid(0) + 1] = a_vec[0].s1;
      a_fetch[272 * lid(1) + 17 * lid(0) + 2] = a_vec[0].s2;
      a_fetch[272 * lid(1) + 17 * lid(0) + 3] = a_vec[0].s3;
      a_vec[0] = a[2048 * gid(1) + 512 * lid(1) + 32 * lid(0) + 4 * k_outer + 1];
      a_fetch[272 * lid(1) + 17 * lid(0) + 4] = a_vec[0].s0;
      a_fetch[272 * lid(1) + 17 * lid(0) + 5] = a_vec[0].s1;
      a_fetch[272 * lid(1) + 17 * lid(0) + 6] = a_vec[0].s2;
      a_fetch[272 * lid(1) + 17 * lid(0) + 7] = a_vec[0].s3;
      a_vec[0] = a[2048 * gid(1) + 512 * lid(1) + 32 * lid(0) + 4 * k_outer + 2];
      a_fetch[272 * lid(1) + 17 * lid(0) + 8] = a_vec[0].s0;
      a_fetch[272 * lid(1) + 17 * lid(0) + 9] = a_vec[0].s1;
      a_fetch[272 * lid(1) + 17 * lid(0) + 10] = a_vec[0].s2;
      a_fetch[272 * lid(1) + 17 * lid(0) + 11] = a_vec[0].s3;
      a_vec[0] = a[2048 * gid(1) + 512 * lid(1) + 32 * lid(0) + 4 * k_outer + 3];
      a_fetch[272 * lid(1) + 17 * lid(0) + 12] = a_vec[0].s0;
      a_fetch[272 * lid(1) + 17 * lid(0) + 13] = a_vec[0].s1;
      a_fetch[272 * lid(1) + 17 * lid(0) + 14] = a_vec[0].s2;
      a_fetch[272 * lid(1) + 17 * lid(0) + 15] = a_vec[0].s3;
    }
    barrier(CLK_LOCAL_MEM_FENCE) /* for b_fetch (insn_acc_k_outer_k_inner_update depends on b_fetch_rule) */;
    for (int k_inner = 0; k_inner <= 15; ++k_inner)
    {
      acc_k_outer_k_inner[0] = acc_k_outer_k_inner[0] + a_fetch[17 * lid(1) + k_inner] * b_fetch[16 * k_inner + lid(0)];
      acc_k_outer_k_inner[1] = acc_k_outer_k_inner[1] + a_fetch[17 * lid(1) + k_inner + 272] * b_fetch[16 * k_inner + lid(0)];
      acc_k_outer_k_inner[2] = acc_k_outer_k_inner[2] + a_fetch[17 * lid(1) + k_inner + 544] * b_fetch[16 * k_inner + lid(0)];
      acc_k_outer_k_inner[3] = acc_k_outer_k_inner[3] + a_fetch[17 * lid(1) + k_inner + 816] * b_fetch[16 * k_inner + lid(0)];
    }
    barrier(CLK_LOCAL_MEM_FENCE) /* for b_fetch (insn_acc_k_outer_k_inner_update depends on b_fetch_rule) across iterations of 'k_outer' */;
  }
  c[2048 * gid(1) + 32 * lid(1) + 16 * gid(0) + lid(0)] = acc_k_outer_k_inner[0];
  c[2048 * gid(1) + 32 * lid(1) + 16 * gid(0) + lid(0) + 512] = acc_k_outer_k_inner[1];
  c[2048 * gid(1) + 32 * lid(1) + 16 * gid(0) + lid(0) + 1024] = acc_k_outer_k_inner[2];
  c[2048 * gid(1) + 32 * lid(1) + 16 * gid(0) + lid(0) + 1536] = acc_k_outer_k_inner[3];
}
