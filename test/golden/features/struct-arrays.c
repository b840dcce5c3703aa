#include <stdint.h>
#include <math.h>

#define gid(N) ((int) loom_group_ids_int32[N])
static inline float loom_rsqrtf(float x) { return 1.0f / sqrtf(x); }
static inline double loom_rsqrt(double x) { return 1.0 / sqrt(x); }

typedef struct {
  float x;
  float y;
} point;
typedef struct {
  unsigned int id;
  point at;
  int w[3];
} particle;

static inline int loom_min_int32(int a, int b)
{
  return a < b ? a : b;
}

static void loopy_kernel(particle const *__restrict__ p, particle *__restrict__ out, int const n, int const *__restrict__ loom_group_ids_int32)
{
  if (n - 64 * gid(0) - 1 >= 63)
    for (int lid_0 = 0; lid_0 <= 63; ++lid_0)
    {
      out[(int64_t) (64 * gid(0)) + lid_0].at.x = p[(int64_t) (64 * gid(0)) + lid_0].at.y * (float) p[(int64_t) (64 * gid(0)) + lid_0].w[2];
      out[(int64_t) (64 * gid(0)) + lid_0].id = p[(int64_t) (64 * gid(0)) + lid_0].id + 1u;
    }
  if (!(n - 64 * gid(0) - 1 >= 63))
    for (int lid_0 = 0; lid_0 <= loom_min_int32(63, n - 64 * gid(0) - 1); ++lid_0)
    {
      out[(int64_t) (64 * gid(0)) + lid_0].at.x = p[(int64_t) (64 * gid(0)) + lid_0].at.y * (float) p[(int64_t) (64 * gid(0)) + lid_0].w[2];
      out[(int64_t) (64 * gid(0)) + lid_0].id = p[(int64_t) (64 * gid(0)) + lid_0].id + 1u;
    }
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
        loopy_kernel((particle *) args[0], (particle *) args[1], *(const int *) args[2], group);
      }
}
