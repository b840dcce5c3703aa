#define tIdx(N) ((int) threadIdx.N)
#define bIdx(N) ((int) blockIdx.N)

extern "C" __global__ void __launch_bounds__(4) loopy_kernel(float const *__restrict__ a, int const n, float *__restrict__ out)
{
  extern __shared__ __align__(128) unsigned char loom_dynamic_shared[];
  float *__restrict__ a_fetch = (float *) (loom_dynamic_shared + 0);
  float acc_j;
  if (4 * bIdx(x) <= n - tIdx(x) - 1)
    acc_j = 0.0f;
  for (int a_dim_1 = 0; a_dim_1 <= -1 + n; ++a_dim_1)
    if (4 * bIdx(x) <= n - tIdx(x) - 1)
      a_fetch[n * tIdx(x) + a_dim_1] = a[n * (4 * bIdx(x) + tIdx(x)) + a_dim_1];
  __syncthreads() /* for a_fetch (insn_acc_j_update depends on a_fetch_rule) */;
  if (4 * bIdx(x) <= n - tIdx(x) - 1)
  {
    for (int j = 0; j <= -1 + n; ++j)
      acc_j = acc_j + a_fetch[n * tIdx(x) + j];
    out[4 * bIdx(x) + tIdx(x)] = acc_j;
  }
}
