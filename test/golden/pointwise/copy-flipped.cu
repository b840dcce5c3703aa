#define tIdx(N) ((int) threadIdx.N)
#define bIdx(N) ((int) blockIdx.N)

extern "C" __global__ void __launch_bounds__(256) copy_rank1(float const *__restrict__ buf0, float *__restrict__ buf1, int const n, int const buf0_size, int const buf1_size, int const in0_stride0, int const in0_offset, int const out0_offset)
{
  float in0[4];
  if (1024 * bIdx(x) <= n - tIdx(x) - 1)
    in0[0] = 0 <= in0_offset + in0_stride0 * (1024 * bIdx(x) + tIdx(x)) && in0_offset + in0_stride0 * (1024 * bIdx(x) + tIdx(x)) < buf0_size ? buf0[in0_offset + in0_stride0 * (1024 * bIdx(x) + tIdx(x))] : (float) 0;
  if (1024 * bIdx(x) <= n - tIdx(x) - 257)
    in0[1] = 0 <= in0_offset + in0_stride0 * (1024 * bIdx(x) + tIdx(x) + 256) && in0_offset + in0_stride0 * (1024 * bIdx(x) + tIdx(x) + 256) < buf0_size ? buf0[in0_offset + in0_stride0 * (1024 * bIdx(x) + tIdx(x) + 256)] : (float) 0;
  if (1024 * bIdx(x) <= n - tIdx(x) - 513)
    in0[2] = 0 <= in0_offset + in0_stride0 * (1024 * bIdx(x) + tIdx(x) + 512) && in0_offset + in0_stride0 * (1024 * bIdx(x) + tIdx(x) + 512) < buf0_size ? buf0[in0_offset + in0_stride0 * (1024 * bIdx(x) + tIdx(x) + 512)] : (float) 0;
  if (1024 * bIdx(x) <= n - tIdx(x) - 769)
    in0[3] = 0 <= in0_offset + in0_stride0 * (1024 * bIdx(x) + tIdx(x) + 768) && in0_offset + in0_stride0 * (1024 * bIdx(x) + tIdx(x) + 768) < buf0_size ? buf0[in0_offset + in0_stride0 * (1024 * bIdx(x) + tIdx(x) + 768)] : (float) 0;
  if (1024 * bIdx(x) <= n - tIdx(x) - 1)
    buf1[out0_offset + 1024 * bIdx(x) + tIdx(x)] = in0[0];
  if (1024 * bIdx(x) <= n - tIdx(x) - 257)
    buf1[out0_offset + 1024 * bIdx(x) + tIdx(x) + 256] = in0[1];
  if (1024 * bIdx(x) <= n - tIdx(x) - 513)
    buf1[out0_offset + 1024 * bIdx(x) + tIdx(x) + 512] = in0[2];
  if (1024 * bIdx(x) <= n - tIdx(x) - 769)
    buf1[out0_offset + 1024 * bIdx(x) + tIdx(x) + 768] = in0[3];
}
