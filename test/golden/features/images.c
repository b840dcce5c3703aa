#include <stdint.h>
#include <math.h>

#define gid(N) ((int) loom_group_ids_int32[N])
static inline float loom_rsqrtf(float x) { return 1.0f / sqrtf(x); }
static inline double loom_rsqrt(double x) { return 1.0 / sqrt(x); }

static void image_read(float const *__restrict__ a, int const *__restrict__ b, float const *__restrict__ w, float *__restrict__ out, int const m, int const n, int const p, int const *__restrict__ loom_group_ids_int32)
{
  int acc_l;
  for (int lid_0 = 0; lid_0 <= 15; ++lid_0)
  {
    if (16 * gid(0) <= m - lid_0 - 1 && p >= 1)
      acc_l = 0;
    if (16 * gid(0) <= m - lid_0 - 1)
      for (int l = 0; l <= -1 + p; ++l)
        acc_l = (int) ((unsigned int) acc_l + (unsigned int) b[(int64_t) (n * m * l) + m * gid(1) + 16 * gid(0) + lid_0]);
    if (16 * gid(0) <= m - lid_0 - 1 && p >= 1)
      out[(int64_t) (m * gid(1)) + 16 * gid(0) + lid_0] = a[(int64_t) (m * gid(1)) + 16 * gid(0) + lid_0] * w[(int64_t) (16 * gid(0)) + lid_0] + (float) acc_l;
  }
}

void image_read__launch(void *const *args, const int32_t *group_count)
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
        image_read((float *) args[0], (int *) args[1], (float *) args[2], (float *) args[3], *(const int *) args[4], *(const int *) args[5], *(const int *) args[6], group);
      }
}
