#pragma OPENCL FP_CONTRACT OFF
#define lid(N) ((int) get_local_id(N))
#define gid(N) ((int) get_group_id(N))

inline int loom_div_int32(int a, int b)
{
  // C leaves x / 0 and INT_MIN / -1 undefined: 0, and a wrapping negation
  if (b == 0) return 0;
  if (b == -1) return (int) (0 - (uint) a);
  return a / b;
}

__kernel void __attribute__ ((reqd_work_group_size(256, 1, 1))) add_rank2(__global float *__restrict__ buf0, __global float const *__restrict__ buf1, float const in2, int const n, int const buf0_size, int const buf1_size, int const size1, int const in0_stride0, int const in0_offset, int const in1_stride0, int const in1_offset, int const out0_stride0, int const out0_offset)
{
  int q0[4];
  int i1[4];
  int i0[4];
  float in0[4];
  float in1[4];
  if (1024 * gid(0) <= n - lid(0) - 1)
    q0[0] = loom_div_int32(1024 * gid(0) + lid(0), size1);
  if (1024 * gid(0) <= n - lid(0) - 257)
    q0[1] = loom_div_int32(1024 * gid(0) + lid(0) + 256, size1);
  if (1024 * gid(0) <= n - lid(0) - 513)
    q0[2] = loom_div_int32(1024 * gid(0) + lid(0) + 512, size1);
  if (1024 * gid(0) <= n - lid(0) - 769)
    q0[3] = loom_div_int32(1024 * gid(0) + lid(0) + 768, size1);
  if (1024 * gid(0) <= n - lid(0) - 1)
    i1[0] = (int) ((uint) (1024 * gid(0) + lid(0)) - (uint) (int) ((uint) size1 * (uint) q0[0]));
  if (1024 * gid(0) <= n - lid(0) - 257)
    i1[1] = (int) ((uint) (1024 * gid(0) + lid(0) + 256) - (uint) (int) ((uint) size1 * (uint) q0[1]));
  if (1024 * gid(0) <= n - lid(0) - 513)
    i1[2] = (int) ((uint) (1024 * gid(0) + lid(0) + 512) - (uint) (int) ((uint) size1 * (uint) q0[2]));
  if (1024 * gid(0) <= n - lid(0) - 769)
    i1[3] = (int) ((uint) (1024 * gid(0) + lid(0) + 768) - (uint) (int) ((uint) size1 * (uint) q0[3]));
  if (1024 * gid(0) <= n - lid(0) - 1)
    i0[0] = q0[0];
  if (1024 * gid(0) <= n - lid(0) - 257)
    i0[1] = q0[1];
  if (1024 * gid(0) <= n - lid(0) - 513)
    i0[2] = q0[2];
  if (1024 * gid(0) <= n - lid(0) - 769)
    i0[3] = q0[3];
  if (1024 * gid(0) <= n - lid(0) - 1)
    in0[0] = 0 <= (int) ((uint) (int) ((uint) in0_offset + (uint) (int) ((uint) in0_stride0 * (uint) i0[0])) + (uint) i1[0]) && (int) ((uint) (int) ((uint) in0_offset + (uint) (int) ((uint) in0_stride0 * (uint) i0[0])) + (uint) i1[0]) < buf0_size ? buf0[(int) ((uint) (int) ((uint) in0_offset + (uint) (int) ((uint) in0_stride0 * (uint) i0[0])) + (uint) i1[0])] : (float) 0;
  if (1024 * gid(0) <= n - lid(0) - 257)
    in0[1] = 0 <= (int) ((uint) (int) ((uint) in0_offset + (uint) (int) ((uint) in0_stride0 * (uint) i0[1])) + (uint) i1[1]) && (int) ((uint) (int) ((uint) in0_offset + (uint) (int) ((uint) in0_stride0 * (uint) i0[1])) + (uint) i1[1]) < buf0_size ? buf0[(int) ((uint) (int) ((uint) in0_offset + (uint) (int) ((uint) in0_stride0 * (uint) i0[1])) + (uint) i1[1])] : (float) 0;
  if (1024 * gid(0) <= n - lid(0) - 513)
    in0[2] = 0 <= (int) ((uint) (int) ((uint) in0_offset + (uint) (int) ((uint) in0_stride0 * (uint) i0[2])) + (uint) i1[2]) && (int) ((uint) (int) ((uint) in0_offset + (uint) (int) ((uint) in0_stride0 * (uint) i0[2])) + (uint) i1[2]) < buf0_size ? buf0[(int) ((uint) (int) ((uint) in0_offset + (uint) (int) ((uint) in0_stride0 * (uint) i0[2])) + (uint) i1[2])] : (float) 0;
  if (1024 * gid(0) <= n - lid(0) - 769)
    in0[3] = 0 <= (int) ((uint) (int) ((uint) in0_offset + (uint) (int) ((uint) in0_stride0 * (uint) i0[3])) + (uint) i1[3]) && (int) ((uint) (int) ((uint) in0_offset + (uint) (int) ((uint) in0_stride0 * (uint) i0[3])) + (uint) i1[3]) < buf0_size ? buf0[(int) ((uint) (int) ((uint) in0_offset + (uint) (int) ((uint) in0_stride0 * (uint) i0[3])) + (uint) i1[3])] : (float) 0;
  if (1024 * gid(0) <= n - lid(0) - 1)
    in1[0] = 0 <= (int) ((uint) (int) ((uint) in1_offset + (uint) (int) ((uint) in1_stride0 * (uint) i0[0])) + (uint) i1[0]) && (int) ((uint) (int) ((uint) in1_offset + (uint) (int) ((uint) in1_stride0 * (uint) i0[0])) + (uint) i1[0]) < buf1_size ? buf1[(int) ((uint) (int) ((uint) in1_offset + (uint) (int) ((uint) in1_stride0 * (uint) i0[0])) + (uint) i1[0])] : (float) 0;
  if (1024 * gid(0) <= n - lid(0) - 257)
    in1[1] = 0 <= (int) ((uint) (int) ((uint) in1_offset + (uint) (int) ((uint) in1_stride0 * (uint) i0[1])) + (uint) i1[1]) && (int) ((uint) (int) ((uint) in1_offset + (uint) (int) ((uint) in1_stride0 * (uint) i0[1])) + (uint) i1[1]) < buf1_size ? buf1[(int) ((uint) (int) ((uint) in1_offset + (uint) (int) ((uint) in1_stride0 * (uint) i0[1])) + (uint) i1[1])] : (float) 0;
  if (1024 * gid(0) <= n - lid(0) - 513)
    in1[2] = 0 <= (int) ((uint) (int) ((uint) in1_offset + (uint) (int) ((uint) in1_stride0 * (uint) i0[2])) + (uint) i1[2]) && (int) ((uint) (int) ((uint) in1_offset + (uint) (int) ((uint) in1_stride0 * (uint) i0[2])) + (uint) i1[2]) < buf1_size ? buf1[(int) ((uint) (int) ((uint) in1_offset + (uint) (int) ((uint) in1_stride0 * (uint) i0[2])) + (uint) i1[2])] : (float) 0;
  if (1024 * gid(0) <= n - lid(0) - 769)
    in1[3] = 0 <= (int) ((uint) (int) ((uint) in1_offset + (uint) (int) ((uint) in1_stride0 * (uint) i0[3])) + (uint) i1[3]) && (int) ((uint) (int) ((uint) in1_offset + (uint) (int) ((uint) in1_stride0 * (uint) i0[3])) + (uint) i1[3]) < buf1_size ? buf1[(int) ((uint) (int) ((uint) in1_offset + (uint) (int) ((uint) in1_stride0 * (uint) i0[3])) + (uint) i1[3])] : (float) 0;
  if (1024 * gid(0) <= n - lid(0) - 1 && (0 <= (int) ((uint) (int) ((uint) out0_offset + (uint) (int) ((uint) out0_stride0 * (uint) i0[0])) + (uint) i1[0]) && (int) ((uint) (int) ((uint) out0_offset + (uint) (int) ((uint) out0_stride0 * (uint) i0[0])) + (uint) i1[0]) < buf0_size))
    buf0[(int) ((uint) (int) ((uint) out0_offset + (uint) (int) ((uint) out0_stride0 * (uint) i0[0])) + (uint) i1[0])] = in0[0] + in1[0] * in2;
  if (1024 * gid(0) <= n - lid(0) - 257 && (0 <= (int) ((uint) (int) ((uint) out0_offset + (uint) (int) ((uint) out0_stride0 * (uint) i0[1])) + (uint) i1[1]) && (int) ((uint) (int) ((uint) out0_offset + (uint) (int) ((uint) out0_stride0 * (uint) i0[1])) + (uint) i1[1]) < buf0_size))
    buf0[(int) ((uint) (int) ((uint) out0_offset + (uint) (int) ((uint) out0_stride0 * (uint) i0[1])) + (uint) i1[1])] = in0[1] + in1[1] * in2;
  if (1024 * gid(0) <= n - lid(0) - 513 && (0 <= (int) ((uint) (int) ((uint) out0_offset + (uint) (int) ((uint) out0_stride0 * (uint) i0[2])) + (uint) i1[2]) && (int) ((uint) (int) ((uint) out0_offset + (uint) (int) ((uint) out0_stride0 * (uint) i0[2])) + (uint) i1[2]) < buf0_size))
    buf0[(int) ((uint) (int) ((uint) out0_offset + (uint) (int) ((uint) out0_stride0 * (uint) i0[2])) + (uint) i1[2])] = in0[2] + in1[2] * in2;
  if (1024 * gid(0) <= n - lid(0) - 769 && (0 <= (int) ((uint) (int) ((uint) out0_offset + (uint) (int) ((uint) out0_stride0 * (uint) i0[3])) + (uint) i1[3]) && (int) ((uint) (int) ((uint) out0_offset + (uint) (int) ((uint) out0_stride0 * (uint) i0[3])) + (uint) i1[3]) < buf0_size))
    buf0[(int) ((uint) (int) ((uint) out0_offset + (uint) (int) ((uint) out0_stride0 * (uint) i0[3])) + (uint) i1[3])] = in0[3] + in1[3] * in2;
}
