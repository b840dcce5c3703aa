#define lid(N) ((int) get_local_id(N))
#define gid(N) ((int) get_group_id(N))

__kernel void __attribute__ ((reqd_work_group_size(4, 1, 1))) loopy_kernel(__global float const *__restrict__ a, int const n, __global float *__restrict__ out, __local float *__restrict__ a_fetch)
{
  float acc_j;
  if (4 * gid(0) <= n - lid(0) - 1)
    acc_j = 0.0f;
  for (int a_dim_1 = 0; a_dim_1 <= -1 + n; ++a_dim_1)
    if (4 * gid(0) <= n - lid(0) - 1)
      a_fetch[n * lid(0) + a_dim_1] = a[n * (4 * gid(0) + lid(0)) + a_dim_1];
  barrier(CLK_LOCAL_MEM_FENCE) /* for a_fetch (insn_acc_j_update depends on a_fetch_rule) */;
  if (4 * gid(0) <= n - lid(0) - 1)
  {
    for (int j = 0; j <= -1 + n; ++j)
      acc_j = acc_j + a_fetch[n * lid(0) + j];
    out[4 * gid(0) + lid(0)] = acc_j;
  }
}
