#define tIdx(N) ((int) threadIdx.N)
#define bIdx(N) ((int) blockIdx.N)

extern "C" __global__ void __launch_bounds__(1) loopy_kernel(float *__restrict__ a, int const n)
{
  for (int i_outer = 0; i_outer <= (n - 1) / 16; ++i_outer)
    for (int i_inner = 0; i_inner <= min(n - 16 * i_outer - 1, 15); ++i_inner)
      a[16 * i_outer + i_inner] = 0.0f;
}
