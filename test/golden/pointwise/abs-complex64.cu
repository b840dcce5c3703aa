#define tIdx(N) ((int) threadIdx.N)
#define bIdx(N) ((int) blockIdx.N)

extern "C" __global__ void __launch_bounds__(256) pointwise_rank1(float const *__restrict__ buf0, float *__restrict__ buf1, int const n, int const buf0_size, int const buf1_size, int const in0_offset, int const out0_offset)
{
  float in0_re[4];
  float in0_im[4];
  if (1024 * bIdx(x) <= n - tIdx(x) - 1)
    in0_re[0] = buf0[2 * in0_offset + 2048 * bIdx(x) + 2 * tIdx(x)];
  if (1024 * bIdx(x) <= n - tIdx(x) - 257)
    in0_re[1] = buf0[2 * in0_offset + 2048 * bIdx(x) + 2 * tIdx(x) + 512];
  if (1024 * bIdx(x) <= n - tIdx(x) - 513)
    in0_re[2] = buf0[2 * in0_offset + 2048 * bIdx(x) + 2 * tIdx(x) + 1024];
  if (1024 * bIdx(x) <= n - tIdx(x) - 769)
    in0_re[3] = buf0[2 * in0_offset + 2048 * bIdx(x) + 2 * tIdx(x) + 1536];
  if (1024 * bIdx(x) <= n - tIdx(x) - 1)
    in0_im[0] = buf0[2 * in0_offset + 2048 * bIdx(x) + 2 * tIdx(x) + 1];
  if (1024 * bIdx(x) <= n - tIdx(x) - 257)
    in0_im[1] = buf0[2 * in0_offset + 2048 * bIdx(x) + 2 * tIdx(x) + 513];
  if (1024 * bIdx(x) <= n - tIdx(x) - 513)
    in0_im[2] = buf0[2 * in0_offset + 2048 * bIdx(x) + 2 * tIdx(x) + 1025];
  if (1024 * bIdx(x) <= n - tIdx(x) - 769)
    in0_im[3] = buf0[2 * in0_offset + 2048 * bIdx(x) + 2 * tIdx(x) + 1537];
  if (1024 * bIdx(x) <= n - tIdx(x) - 1)
    buf1[out0_offset + 1024 * bIdx(x) + tIdx(x)] = hypotf(in0_re[0], in0_im[0]);
  if (1024 * bIdx(x) <= n - tIdx(x) - 257)
    buf1[out0_offset + 1024 * bIdx(x) + tIdx(x) + 256] = hypotf(in0_re[1], in0_im[1]);
  if (1024 * bIdx(x) <= n - tIdx(x) - 513)
    buf1[out0_offset + 1024 * bIdx(x) + tIdx(x) + 512] = hypotf(in0_re[2], in0_im[2]);
  if (1024 * bIdx(x) <= n - tIdx(x) - 769)
    buf1[out0_offset + 1024 * bIdx(x) + tIdx(x) + 768] = hypotf(in0_re[3], in0_im[3]);
}
