#define tIdx(N) ((int) threadIdx.N)
#define bIdx(N) ((int) blockIdx.N)

extern "C" __global__ void __launch_bounds__(1) loopy_kernel(float const *__restrict__ a_s0, float const *__restrict__ a_s1, int const n, float *__restrict__ out_s0, float *__restrict__ out_s1, float *__restrict__ swapped_s0, float *__restrict__ swapped_s1)
{
  for (int i = 0; i <= -1 + n; ++i)
  {
    out_s0[i] = a_s0[i] + a_s1[i];
    out_s1[i] = a_s0[i] - a_s1[i];
    for (int j = 0; j <= 1; ++j)
    {
      if (j == 0)
        swapped_s0[i] = 1 - j == 0 ? a_s0[i] : a_s1[i];
      if (j == 1)
        swapped_s1[i] = 1 - j == 0 ? a_s0[i] : a_s1[i];
    }
  }
}
