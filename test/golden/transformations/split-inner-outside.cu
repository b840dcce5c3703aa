#define tIdx(N) ((int) threadIdx.N)
#define bIdx(N) ((int) blockIdx.N)

extern "C" __global__ void __launch_bounds__(1) loopy_kernel(float *__restrict__ a, int const n)
{
  for (int i_inner = 0; i_inner <= min(15, n - 1); ++i_inner)
    for (int i_outer = (-i_inner + 15) / 16; i_outer <= (n - i_inner - 1) / 16; ++i_outer)
      a[16 * i_outer + i_inner] = 0.0f;
}
