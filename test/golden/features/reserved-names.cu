#define tIdx(N) ((int) threadIdx.N)
#define bIdx(N) ((int) blockIdx.N)

extern "C" __global__ void __launch_bounds__(1) kernel(float *__restrict__ float_, float *__restrict__ int_, float const *__restrict__ kernel, int const n, float const *__restrict__ this_)
{
  for (int int__ = 0; int__ <= -1 + n; ++int__)
  {
    int_[int__] = __fmul_rn(2.0f, this_[int__]);
    float_[int__] = int_[int__] + kernel[int__];
  }
}
