#include <stdint.h>
#include <math.h>

#define gid(N) ((int) loom_group_ids_int32[N])
static inline float loom_rsqrtf(float x) { return 1.0f / sqrtf(x); }
static inline double loom_rsqrt(double x) { return 1.0 / sqrt(x); }

static inline void loom_atomic_add_float32(float *target, float operand)
{
  // compare-and-swap: __atomic_fetch_add takes integers only; a failed exchange reloads `seen`
  float seen, next;
  __atomic_load(target, &seen, __ATOMIC_RELAXED);
  do
    next = seen + operand;
  while (!__atomic_compare_exchange(target, &seen, &next, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED));
}
static inline int loom_min_int32(int a, int b)
{
  return a < b ? a : b;
}

static void loopy_kernel(float *__restrict__ out, float const *__restrict__ a, int const n, int const *__restrict__ loom_group_ids_int32)
{
  if (n - 64 * gid(0) - 1 >= 63)
    for (int lid_0 = 0; lid_0 <= 63; ++lid_0)
      loom_atomic_add_float32(&out[(64 * gid(0) + lid_0) % 20], 2.0f * a[(int64_t) (64 * gid(0)) + lid_0]);
  if (!(n - 64 * gid(0) - 1 >= 63))
    for (int lid_0 = 0; lid_0 <= loom_min_int32(63, n - 64 * gid(0) - 1); ++lid_0)
      loom_atomic_add_float32(&out[(64 * gid(0) + lid_0) % 20], 2.0f * a[(int64_t) (64 * gid(0)) + lid_0]);
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
        loopy_kernel((float *) args[0], (float *) args[1], *(const int *) args[2], group);
      }
}
