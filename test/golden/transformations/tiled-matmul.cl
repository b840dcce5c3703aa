#pragma OPENCL FP_CONTRACT OFF
#define lid(N) ((int) get_local_id(N))
#define gid(N) ((int) get_group_id(N))

__kernel void __attribute__ ((reqd_work_group_size(16, 16, 1))) loopy_kernel(__global float const *__restrict__ a, __global float const *__restrict__ b, __global float *__restrict__ c, int const n)
{
  __local float a_fetch[256];
  __local float b_fetch[256];
  float acc_k_outer_k_inner;
  if (16 * gid(1) <= n - lid(1) - 1 && 16 * gid(0) <= n - lid(0) - 1)
    acc_k_outer_k_inner = 0.0f;
  for (int k_outer = 0; k_outer <= (n - 1) / 16; ++k_outer)
  {
    if (16 * k_outer <= n - lid(1) - 1 && 16 * gid(0) <= n - lid(0) - 1)
      b_fetch[16 * lid(1) + lid(0)] = b[n * (16 * k_outer + lid(1)) + (16 * gid(0) + lid(0))];
    if (16 * gid(1) <= n - lid(1) - 1 && 16 * k_outer <= n - lid(0) - 1)
      a_fetch[16 * lid(1) + lid(0)] = a[n * (16 * gid(1) + lid(1)) + (16 * k_outer + lid(0))];
    barrier(CLK_LOCAL_MEM_FENCE) /* for b_fetch (insn_acc_k_outer_k_inner_update depends on b_fetch_rule) */;
    if (16 * gid(1) <= n - lid(1) - 1 && 16 * gid(0) <= n - lid(0) - 1)
      for (int k_inner = 0; k_inner <= min(n - 16 * k_outer - 1, 15); ++k_inner)
        acc_k_outer_k_inner = acc_k_outer_k_inner + a_fetch[16 * lid(1) + k_inner] * b_fetch[16 * k_inner + lid(0)];
    barrier(CLK_LOCAL_MEM_FENCE) /* for b_fetch (insn_acc_k_outer_k_inner_update depends on b_fetch_rule) across iterations of 'k_outer' */;
  }
  if (16 * gid(1) <= n - lid(1) - 1 && 16 * gid(0) <= n - lid(0) - 1)
    c[n * (16 * gid(1) + lid(1)) + (16 * gid(0) + lid(0))] = acc_k_outer_k_inner;
}
