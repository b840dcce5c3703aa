#define tIdx(N) ((int) threadIdx.N)
#define bIdx(N) ((int) blockIdx.N)

extern "C" __global__ void loopy_kernel(float const *__restrict__ a, int const m, int const n, float *__restrict__ out)
{
  out[n * bIdx(x) + tIdx(x)] = __fmul_rn(2.0f, a[n * bIdx(x) + tIdx(x)]);
}
