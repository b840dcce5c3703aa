#define tIdx(N) ((int) threadIdx.N)
#define bIdx(N) ((int) blockIdx.N)

extern "C" __global__ void __launch_bounds__(16) loopy_kernel(float const *__restrict__ a, int const n, float *__restrict__ out)
{
  __shared__ float a_temp[16];
  float acc_k;
  if (16 * bIdx(x) <= n - tIdx(x) - 1)
  {
    a_temp[tIdx(x)] = a[16 * bIdx(x) + tIdx(x)];
    acc_k = 0.0f;
  }
  __syncthreads() /* for a_temp (insn_0_acc_k_update depends on insn) */;
  if (16 * bIdx(x) <= n - tIdx(x) - 1)
  {
    for (int k = 0; k <= 15; ++k)
      acc_k = acc_k + a_temp[k];
    out[16 * bIdx(x) + tIdx(x)] = acc_k;
  }
}
