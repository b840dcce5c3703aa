#include <stdint.h>
#include <math.h>

#define gid(N) ((int) loom_group_ids_int32[N])
static inline float loom_rsqrtf(float x) { return 1.0f / sqrtf(x); }
static inline double loom_rsqrt(double x) { return 1.0 / sqrt(x); }

static void copy_rank1(float const *__restrict__ buf0, float *__restrict__ buf1, int const n, int const buf0_size, int const buf1_size, int const in0_stride0, int const in0_offset, int const out0_offset, int const *__restrict__ loom_group_ids_int32)
{
  float in0[4];
  for (int lid_0 = 0; lid_0 <= 255; ++lid_0)
  {
    if (1024 * gid(0) <= n - lid_0 - 1)
      in0[0] = 0 <= in0_offset + in0_stride0 * (1024 * gid(0) + lid_0) && in0_offset + in0_stride0 * (1024 * gid(0) + lid_0) < buf0_size ? buf0[(int64_t) in0_offset + in0_stride0 * (1024 * gid(0) + lid_0)] : (float) 0;
    if (1024 * gid(0) <= n - lid_0 - 257)
      in0[1] = 0 <= in0_offset + in0_stride0 * (1024 * gid(0) + lid_0 + 256) && in0_offset + in0_stride0 * (1024 * gid(0) + lid_0 + 256) < buf0_size ? buf0[(int64_t) in0_offset + in0_stride0 * (1024 * gid(0) + lid_0 + 256)] : (float) 0;
    if (1024 * gid(0) <= n - lid_0 - 513)
      in0[2] = 0 <= in0_offset + in0_stride0 * (1024 * gid(0) + lid_0 + 512) && in0_offset + in0_stride0 * (1024 * gid(0) + lid_0 + 512) < buf0_size ? buf0[(int64_t) in0_offset + in0_stride0 * (1024 * gid(0) + lid_0 + 512)] : (float) 0;
    if (1024 * gid(0) <= n - lid_0 - 769)
      in0[3] = 0 <= in0_offset + in0_stride0 * (1024 * gid(0) + lid_0 + 768) && in0_offset + in0_stride0 * (1024 * gid(0) + lid_0 + 768) < buf0_size ? buf0[(int64_t) in0_offset + in0_stride0 * (1024 * gid(0) + lid_0 + 768)] : (float) 0;
    if (1024 * gid(0) <= n - lid_0 - 1)
      buf1[(int64_t) out0_offset + 1024 * gid(0) + lid_0] = in0[0];
    if (1024 * gid(0) <= n - lid_0 - 257)
      buf1[(int64_t) out0_offset + 1024 * gid(0) + lid_0 + 256] = in0[1];
    if (1024 * gid(0) <= n - lid_0 - 513)
      buf1[(int64_t) out0_offset + 1024 * gid(0) + lid_0 + 512] = in0[2];
    if (1024 * gid(0) <= n - lid_0 - 769)
      buf1[(int64_t) out0_offset + 1024 * gid(0) + lid_0 + 768] = in0[3];
  }
}

void copy_rank1__launch(void *const *args, const int32_t *group_count)
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
        copy_rank1((float *) args[0], (float *) args[1], *(const int *) args[2], *(const int *) args[3], *(const int *) args[4], *(const int *) args[5], *(const int *) args[6], *(const int *) args[7], group);
      }
}
