#define lid(N) ((int) get_local_id(N))
#define gid(N) ((int) get_group_id(N))

__kernel void __attribute__ ((reqd_work_group_size(16, 1, 1))) loopy_kernel(__global float const *__restrict__ a, int const n, __global float *__restrict__ out)
{
  __local float a_fetch[16];
  float acc_k;
  if (16 * gid(0) <= n - lid(0) - 1)
  {
    a_fetch[lid(0)] = a[16 * gid(0) + lid(0)];
    acc_k = 0.0f;
  }
  barrier(CLK_LOCAL_MEM_FENCE) /* for a_fetch (insn_acc_k_update depends on a_fetch_rule) */;
  if (16 * gid(0) <= n - lid(0) - 1)
  {
    for (int k = 0; k <= 15; ++k)
      acc_k = acc_k + a_fetch[lid(0)];
    out[16 * gid(0) + lid(0)] = acc_k;
  }
}
