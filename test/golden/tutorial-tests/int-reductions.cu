#define tIdx(N) ((int) threadIdx.N)
#define bIdx(N) ((int) blockIdx.N)

extern "C" __global__ void __launch_bounds__(1) loopy_kernel(int const *__restrict__ a, int *__restrict__ mn, int *__restrict__ mx, int const n, int *__restrict__ pr)
{
  int acc_k;
  int acc_k_0;
  int acc_k_1;
  #pragma unroll 1  // kept rolled: NVIDIA's unroller miscompiles min/max accumulation
  for (int i = 0; i <= -1 + n; ++i)
  {
    acc_k = 1;
    acc_k_0 = (-2147483647 - 1);
    acc_k_1 = 2147483647;
    #pragma unroll 1  // kept rolled: NVIDIA's unroller miscompiles min/max accumulation
    for (int k = 0; k <= 3; ++k)
    {
      acc_k = (int) ((unsigned int) acc_k * (unsigned int) a[4 * i + k]);
      acc_k_0 = max(acc_k_0, a[4 * i + k]);
      acc_k_1 = min(acc_k_1, a[4 * i + k]);
    }
    pr[i] = acc_k;
    mx[i] = acc_k_0;
    mn[i] = acc_k_1;
  }
}
