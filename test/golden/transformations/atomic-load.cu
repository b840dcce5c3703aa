#define tIdx(N) ((int) threadIdx.N)
#define bIdx(N) ((int) blockIdx.N)

extern "C" __global__ void __launch_bounds__(10) loopy_kernel(float *__restrict__ out)
{
  __shared__ float temp;
  atomicExch(&temp, 0.0f);
  __syncthreads();
  atomicAdd(&temp, 1.0f);
  __syncthreads();
  atomicExch(&out[tIdx(x)], *(volatile float const *) &temp);
}
