#include <cuda_fp16.h>
#define tIdx(N) ((int) threadIdx.N)
#define bIdx(N) ((int) blockIdx.N)

inline __device__ float loom_to_half(float x)
{
  // rounded to the nearest float16 (ties to even), read back
  return __half2float(__float2half_rn(x));
}

extern "C" __global__ void __launch_bounds__(1) loopy_kernel(__half const *__restrict__ a, __half const *__restrict__ b, int const n, __half *__restrict__ out)
{
  float t;
  for (int i = 0; i <= -1 + n; ++i)
  {
    t = loom_to_half(loom_to_half(__fmul_rn(__half2float(a[i]), __half2float(b[i]))) + 1.0f);
    out[i] = __float2half_rn(loom_to_half(loom_to_half(sqrtf(t)) + floorf(loom_to_half(__half2float(a[i]) / __half2float(b[i])))));
  }
}
