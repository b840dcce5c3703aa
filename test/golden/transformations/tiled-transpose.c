#include <stdint.h>
#include <math.h>

#define gid(N) ((int) loom_group_ids_int32[N])
static inline float loom_rsqrtf(float x) { return 1.0f / sqrtf(x); }
static inline double loom_rsqrt(double x) { return 1.0 / sqrt(x); }

static void loopy_kernel(float const *__restrict__ a, int const n, float *__restrict__ out, int const *__restrict__ loom_group_ids_int32)
{
  for (int i_outer = 0; i_outer <= (n - 1) / 16; ++i_outer)
    for (int j_outer = 0; j_outer <= (n - 1) / 16; ++j_outer)
      for (int i_inner = 0; i_inner <= 15; ++i_inner)
        for (int j_inner = 0; j_inner <= 15; ++j_inner)
          out[(int64_t) (n * (16 * i_outer + i_inner)) + 16 * j_outer + j_inner] = a[(int64_t) (n * (16 * j_outer + j_inner)) + 16 * i_outer + i_inner];
}

void loopy_kernel__launch(void *const *args, const int32_t *group_count)
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
        loopy_kernel((float *) args[0], *(const int *) args[1], (float *) args[2], group);
      }
}
