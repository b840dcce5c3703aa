#include <stdint.h>
#include <math.h>

#define gid(N) ((int) loom_group_ids_int32[N])
static inline float loom_rsqrtf(float x) { return 1.0f / sqrtf(x); }
static inline double loom_rsqrt(double x) { return 1.0 / sqrt(x); }

static void pointwise_rank1(float const *__restrict__ buf0, float *__restrict__ buf1, int const n, int const buf0_size, int const buf1_size, int const in0_offset, int const out0_offset, int const *__restrict__ loom_group_ids_int32)
{
  float in0_re[4];
  float in0_im[4];
  for (int lid_0 = 0; lid_0 <= 255; ++lid_0)
  {
    if (1024 * gid(0) <= n - lid_0 - 1)
      in0_re[0] = buf0[(int64_t) (2 * in0_offset) + 2048 * gid(0) + 2 * lid_0];
    if (1024 * gid(0) <= n - lid_0 - 257)
      in0_re[1] = buf0[(int64_t) (2 * in0_offset) + 2048 * gid(0) + 2 * lid_0 + 512];
    if (1024 * gid(0) <= n - lid_0 - 513)
      in0_re[2] = buf0[(int64_t) (2 * in0_offset) + 2048 * gid(0) + 2 * lid_0 + 1024];
    if (1024 * gid(0) <= n - lid_0 - 769)
      in0_re[3] = buf0[(int64_t) (2 * in0_offset) + 2048 * gid(0) + 2 * lid_0 + 1536];
    if (1024 * gid(0) <= n - lid_0 - 1)
      in0_im[0] = buf0[(int64_t) (2 * in0_offset) + 2048 * gid(0) + 2 * lid_0 + 1];
    if (1024 * gid(0) <= n - lid_0 - 257)
      in0_im[1] = buf0[(int64_t) (2 * in0_offset) + 2048 * gid(0) + 2 * lid_0 + 513];
    if (1024 * gid(0) <= n - lid_0 - 513)
      in0_im[2] = buf0[(int64_t) (2 * in0_offset) + 2048 * gid(0) + 2 * lid_0 + 1025];
    if (1024 * gid(0) <= n - lid_0 - 769)
      in0_im[3] = buf0[(int64_t) (2 * in0_offset) + 2048 * gid(0) + 2 * lid_0 + 1537];
    if (1024 * gid(0) <= n - lid_0 - 1)
      buf1[(int64_t) out0_offset + 1024 * gid(0) + lid_0] = hypotf(in0_re[0], in0_im[0]);
    if (1024 * gid(0) <= n - lid_0 - 257)
      buf1[(int64_t) out0_offset + 1024 * gid(0) + lid_0 + 256] = hypotf(in0_re[1], in0_im[1]);
    if (1024 * gid(0) <= n - lid_0 - 513)
      buf1[(int64_t) out0_offset + 1024 * gid(0) + lid_0 + 512] = hypotf(in0_re[2], in0_im[2]);
    if (1024 * gid(0) <= n - lid_0 - 769)
      buf1[(int64_t) out0_offset + 1024 * gid(0) + lid_0 + 768] = hypotf(in0_re[3], in0_im[3]);
  }
}

void pointwise_rank1__launch(void *const *args, const int32_t *group_count)
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
        pointwise_rank1((float *) args[0], (float *) args[1], *(const int *) args[2], *(const int *) args[3], *(const int *) args[4], *(const int *) args[5], *(const int *) args[6], group);
      }
}
