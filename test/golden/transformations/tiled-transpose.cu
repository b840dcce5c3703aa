#define tIdx(N) ((int) threadIdx.N)
#define bIdx(N) ((int) blockIdx.N)

extern "C" __global__ void __launch_bounds__(1) loopy_kernel(float const *__restrict__ a, int const n, float *__restrict__ out)
{
  for (int i_outer = 0; i_outer <= (n - 1) / 16; ++i_outer)
    for (int j_outer = 0; j_outer <= (n - 1) / 16; ++j_outer)
      for (int i_inner = 0; i_inner <= 15; ++i_inner)
        for (int j_inner = 0; j_inner <= 15; ++j_inner)
          out[n * (16 * i_outer + i_inner) + (16 * j_outer + j_inner)] = a[n * (16 * j_outer + j_inner) + (16 * i_outer + i_inner)];
}
