#define tIdx(N) ((int) threadIdx.N)
#define bIdx(N) ((int) blockIdx.N)

inline __device__ int loom_div_int32(int a, int b)
{
  // C leaves x / 0 and INT_MIN / -1 undefined: 0, and a wrapping negation
  if (b == 0) return 0;
  if (b == -1) return (int) (0 - (unsigned int) a);
  return a / b;
}

extern "C" __global__ void __launch_bounds__(256) add_rank2(float const *__restrict__ buf0, float const *__restrict__ buf1, float *__restrict__ buf2, float const in2, int const n, int const buf0_size, int const buf1_size, int const buf2_size, int const size1, int const in0_stride0, int const in0_offset, int const in1_stride0, int const in1_offset, int const out0_stride0, int const out0_offset)
{
  int q0[4];
  int i1[4];
  int i0[4];
  float in0[4];
  float in1[4];
  if (1024 * bIdx(x) <= n - tIdx(x) - 1)
    q0[0] = loom_div_int32(1024 * bIdx(x) + tIdx(x), size1);
  if (1024 * bIdx(x) <= n - tIdx(x) - 257)
    q0[1] = loom_div_int32(1024 * bIdx(x) + tIdx(x) + 256, size1);
  if (1024 * bIdx(x) <= n - tIdx(x) - 513)
    q0[2] = loom_div_int32(1024 * bIdx(x) + tIdx(x) + 512, size1);
  if (1024 * bIdx(x) <= n - tIdx(x) - 769)
    q0[3] = loom_div_int32(1024 * bIdx(x) + tIdx(x) + 768, size1);
  if (1024 * bIdx(x) <= n - tIdx(x) - 1)
    i1[0] = 1024 * bIdx(x) + tIdx(x) - size1 * q0[0];
  if (1024 * bIdx(x) <= n - tIdx(x) - 257)
    i1[1] = 1024 * bIdx(x) + tIdx(x) + 256 - size1 * q0[1];
  if (1024 * bIdx(x) <= n - tIdx(x) - 513)
    i1[2] = 1024 * bIdx(x) + tIdx(x) + 512 - size1 * q0[2];
  if (1024 * bIdx(x) <= n - tIdx(x) - 769)
    i1[3] = 1024 * bIdx(x) + tIdx(x) + 768 - size1 * q0[3];
  if (1024 * bIdx(x) <= n - tIdx(x) - 1)
    i0[0] = q0[0];
  if (1024 * bIdx(x) <= n - tIdx(x) - 257)
    i0[1] = q0[1];
  if (1024 * bIdx(x) <= n - tIdx(x) - 513)
    i0[2] = q0[2];
  if (1024 * bIdx(x) <= n - tIdx(x) - 769)
    i0[3] = q0[3];
  if (1024 * bIdx(x) <= n - tIdx(x) - 1)
    in0[0] = 0 <= in0_offset + in0_stride0 * i0[0] + i1[0] && in0_offset + in0_stride0 * i0[0] + i1[0] < buf0_size ? buf0[in0_offset + in0_stride0 * i0[0] + i1[0]] : (float) 0;
  if (1024 * bIdx(x) <= n - tIdx(x) - 257)
    in0[1] = 0 <= in0_offset + in0_stride0 * i0[1] + i1[1] && in0_offset + in0_stride0 * i0[1] + i1[1] < buf0_size ? buf0[in0_offset + in0_stride0 * i0[1] + i1[1]] : (float) 0;
  if (1024 * bIdx(x) <= n - tIdx(x) - 513)
    in0[2] = 0 <= in0_offset + in0_stride0 * i0[2] + i1[2] && in0_offset + in0_stride0 * i0[2] + i1[2] < buf0_size ? buf0[in0_offset + in0_stride0 * i0[2] + i1[2]] : (float) 0;
  if (1024 * bIdx(x) <= n - tIdx(x) - 769)
    in0[3] = 0 <= in0_offset + in0_stride0 * i0[3] + i1[3] && in0_offset + in0_stride0 * i0[3] + i1[3] < buf0_size ? buf0[in0_offset + in0_stride0 * i0[3] + i1[3]] : (float) 0;
  if (1024 * bIdx(x) <= n - tIdx(x) - 1)
    in1[0] = 0 <= in1_offset + in1_stride0 * i0[0] + i1[0] && in1_offset + in1_stride0 * i0[0] + i1[0] < buf1_size ? buf1[in1_offset + in1_stride0 * i0[0] + i1[0]] : (float) 0;
  if (1024 * bIdx(x) <= n - tIdx(x) - 257)
    in1[1] = 0 <= in1_offset + in1_stride0 * i0[1] + i1[1] && in1_offset + in1_stride0 * i0[1] + i1[1] < buf1_size ? buf1[in1_offset + in1_stride0 * i0[1] + i1[1]] : (float) 0;
  if (1024 * bIdx(x) <= n - tIdx(x) - 513)
    in1[2] = 0 <= in1_offset + in1_stride0 * i0[2] + i1[2] && in1_offset + in1_stride0 * i0[2] + i1[2] < buf1_size ? buf1[in1_offset + in1_stride0 * i0[2] + i1[2]] : (float) 0;
  if (1024 * bIdx(x) <= n - tIdx(x) - 769)
    in1[3] = 0 <= in1_offset + in1_stride0 * i0[3] + i1[3] && in1_offset + in1_stride0 * i0[3] + i1[3] < buf1_size ? buf1[in1_offset + in1_stride0 * i0[3] + i1[3]] : (float) 0;
  if (1024 * bIdx(x) <= n - tIdx(x) - 1 && (0 <= out0_offset + out0_stride0 * i0[0] + i1[0] && out0_offset + out0_stride0 * i0[0] + i1[0] < buf2_size))
    buf2[out0_offset + out0_stride0 * i0[0] + i1[0]] = in0[0] + __fmul_rn(in1[0], in2);
  if (1024 * bIdx(x) <= n - tIdx(x) - 257 && (0 <= out0_offset + out0_stride0 * i0[1] + i1[1] && out0_offset + out0_stride0 * i0[1] + i1[1] < buf2_size))
    buf2[out0_offset + out0_stride0 * i0[1] + i1[1]] = in0[1] + __fmul_rn(in1[1], in2);
  if (1024 * bIdx(x) <= n - tIdx(x) - 513 && (0 <= out0_offset + out0_stride0 * i0[2] + i1[2] && out0_offset + out0_stride0 * i0[2] + i1[2] < buf2_size))
    buf2[out0_offset + out0_stride0 * i0[2] + i1[2]] = in0[2] + __fmul_rn(in1[2], in2);
  if (1024 * bIdx(x) <= n - tIdx(x) - 769 && (0 <= out0_offset + out0_stride0 * i0[3] + i1[3] && out0_offset + out0_stride0 * i0[3] + i1[3] < buf2_size))
    buf2[out0_offset + out0_stride0 * i0[3] + i1[3]] = in0[3] + __fmul_rn(in1[3], in2);
}
