#define tIdx(N) ((int) threadIdx.N)
#define bIdx(N) ((int) blockIdx.N)

extern "C" __global__ void __launch_bounds__(1) loopy_kernel(int *__restrict__ out, int const n)
{
  for (int i = 0; i <= -1 + n; ++i)
    if (i % 2 == 0)
      out[i] = i;
}
