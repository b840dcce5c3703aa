#include <stdint.h>
#include <math.h>

#define gid(N) ((int) loom_group_ids_int32[N])
static inline float loom_rsqrtf(float x) { return 1.0f / sqrtf(x); }
static inline double loom_rsqrt(double x) { return 1.0 / sqrt(x); }

static inline int loom_div_int32(int a, int b)
{
  // C leaves x / 0 and INT_MIN / -1 undefined: 0, and a wrapping negation
  if (b == 0) return 0;
  if (b == -1) return (int) (0 - (unsigned int) a);
  return a / b;
}

static void add_rank2(float *__restrict__ buf0, float const *__restrict__ buf1, float const in2, int const n, int const buf0_size, int const buf1_size, int const size1, int const in0_stride0, int const in0_offset, int const in1_stride0, int const in1_offset, int const out0_stride0, int const out0_offset, int const *__restrict__ loom_group_ids_int32)
{
  int q0[4];
  int i1[4];
  int i0[4];
  float in0[4];
  float in1[4];
  for (int lid_0 = 0; lid_0 <= 255; ++lid_0)
  {
    if (1024 * gid(0) <= n - lid_0 - 1)
      q0[0] = loom_div_int32(1024 * gid(0) + lid_0, size1);
    if (1024 * gid(0) <= n - lid_0 - 257)
      q0[1] = loom_div_int32(1024 * gid(0) + lid_0 + 256, size1);
    if (1024 * gid(0) <= n - lid_0 - 513)
      q0[2] = loom_div_int32(1024 * gid(0) + lid_0 + 512, size1);
    if (1024 * gid(0) <= n - lid_0 - 769)
      q0[3] = loom_div_int32(1024 * gid(0) + lid_0 + 768, size1);
    if (1024 * gid(0) <= n - lid_0 - 1)
      i1[0] = 1024 * gid(0) + lid_0 - size1 * q0[0];
    if (1024 * gid(0) <= n - lid_0 - 257)
      i1[1] = 1024 * gid(0) + lid_0 + 256 - size1 * q0[1];
    if (1024 * gid(0) <= n - lid_0 - 513)
      i1[2] = 1024 * gid(0) + lid_0 + 512 - size1 * q0[2];
    if (1024 * gid(0) <= n - lid_0 - 769)
      i1[3] = 1024 * gid(0) + lid_0 + 768 - size1 * q0[3];
    if (1024 * gid(0) <= n - lid_0 - 1)
      i0[0] = q0[0];
    if (1024 * gid(0) <= n - lid_0 - 257)
      i0[1] = q0[1];
    if (1024 * gid(0) <= n - lid_0 - 513)
      i0[2] = q0[2];
    if (1024 * gid(0) <= n - lid_0 - 769)
      i0[3] = q0[3];
    if (1024 * gid(0) <= n - lid_0 - 1)
      in0[0] = 0 <= in0_offset + in0_stride0 * i0[0] + i1[0] && in0_offset + in0_stride0 * i0[0] + i1[0] < buf0_size ? buf0[(int64_t) in0_offset + in0_stride0 * i0[0] + i1[0]] : (float) 0;
    if (1024 * gid(0) <= n - lid_0 - 257)
      in0[1] = 0 <= in0_offset + in0_stride0 * i0[1] + i1[1] && in0_offset + in0_stride0 * i0[1] + i1[1] < buf0_size ? buf0[(int64_t) in0_offset + in0_stride0 * i0[1] + i1[1]] : (float) 0;
    if (1024 * gid(0) <= n - lid_0 - 513)
      in0[2] = 0 <= in0_offset + in0_stride0 * i0[2] + i1[2] && in0_offset + in0_stride0 * i0[2] + i1[2] < buf0_size ? buf0[(int64_t) in0_offset + in0_stride0 * i0[2] + i1[2]] : (float) 0;
    if (1024 * gid(0) <= n - lid_0 - 769)
      in0[3] = 0 <= in0_offset + in0_stride0 * i0[3] + i1[3] && in0_offset + in0_stride0 * i0[3] + i1[3] < buf0_size ? buf0[(int64_t) in0_offset + in0_stride0 * i0[3] + i1[3]] : (float) 0;
    if (1024 * gid(0) <= n - lid_0 - 1)
      in1[0] = 0 <= in1_offset + in1_stride0 * i0[0] + i1[0] && in1_offset + in1_stride0 * i0[0] + i1[0] < buf1_size ? buf1[(int64_t) in1_offset + in1_stride0 * i0[0] + i1[0]] : (float) 0;
    if (1024 * gid(0) <= n - lid_0 - 257)
      in1[1] = 0 <= in1_offset + in1_stride0 * i0[1] + i1[1] && in1_offset + in1_stride0 * i0[1] + i1[1] < buf1_size ? buf1[(int64_t) in1_offset + in1_stride0 * i0[1] + i1[1]] : (float) 0;
    if (1024 * gid(0) <= n - lid_0 - 513)
      in1[2] = 0 <= in1_offset + in1_stride0 * i0[2] + i1[2] && in1_offset + in1_stride0 * i0[2] + i1[2] < buf1_size ? buf1[(int64_t) in1_offset + in1_stride0 * i0[2] + i1[2]] : (float) 0;
    if (1024 * gid(0) <= n - lid_0 - 769)
      in1[3] = 0 <= in1_offset + in1_stride0 * i0[3] + i1[3] && in1_offset + in1_stride0 * i0[3] + i1[3] < buf1_size ? buf1[(int64_t) in1_offset + in1_stride0 * i0[3] + i1[3]] : (float) 0;
    if (1024 * gid(0) <= n - lid_0 - 1 && (0 <= out0_offset + out0_stride0 * i0[0] + i1[0] && out0_offset + out0_stride0 * i0[0] + i1[0] < buf0_size))
      buf0[(int64_t) out0_offset + out0_stride0 * i0[0] + i1[0]] = in0[0] + in1[0] * in2;
    if (1024 * gid(0) <= n - lid_0 - 257 && (0 <= out0_offset + out0_stride0 * i0[1] + i1[1] && out0_offset + out0_stride0 * i0[1] + i1[1] < buf0_size))
      buf0[(int64_t) out0_offset + out0_stride0 * i0[1] + i1[1]] = in0[1] + in1[1] * in2;
    if (1024 * gid(0) <= n - lid_0 - 513 && (0 <= out0_offset + out0_stride0 * i0[2] + i1[2] && out0_offset + out0_stride0 * i0[2] + i1[2] < buf0_size))
      buf0[(int64_t) out0_offset + out0_stride0 * i0[2] + i1[2]] = in0[2] + in1[2] * in2;
    if (1024 * gid(0) <= n - lid_0 - 769 && (0 <= out0_offset + out0_stride0 * i0[3] + i1[3] && out0_offset + out0_stride0 * i0[3] + i1[3] < buf0_size))
      buf0[(int64_t) out0_offset + out0_stride0 * i0[3] + i1[3]] = in0[3] + in1[3] * in2;
  }
}

void add_rank2__launch(void *const *args, const int32_t *group_count)
{
  const int32_t count0 = group_count[0], count1 = group_count[1], count2 = group_count[2];
#ifdef _OPENMP
  #pragma omp parallel for collapse(3) schedule(static) if ((int64_t) count0 * count1 * count2 > 1)
#endif
  for (int32_t g2 = 0; g2 < count2; ++g2)
    for (int32_t g1 = 0; g1 < count1; ++g1)
      for (int32_t g0 = 0; g0 < count0; ++g0)
      {
        const int32_t group[3] = { g0, g1, g2 };
        add_rank2((float *) args[0], (float *) args[1], *(const float *) args[2], *(const int *) args[3], *(const int *) args[4], *(const int *) args[5], *(const int *) args[6], *(const int *) args[7], *(const int *) args[8], *(const int *) args[9], *(const int *) args[10], *(const int *) args[11], *(const int *) args[12], group);
      }
}
