#define lid(N) ((int) get_local_id(N))
#define gid(N) ((int) get_group_id(N))

inline void loom_atomic_add_float32(volatile __global float *target, float operand)
{
  union { unsigned int bits; float value; } prev, next;
  do
  {
    prev.value = *target;
    next.value = prev.value + operand;
  }
  while (atomic_cmpxchg((volatile __global unsigned int *) target, prev.bits, next.bits) != prev.bits);
}

__kernel void __attribute__ ((reqd_work_group_size(64, 1, 1))) loopy_kernel(__global volatile float *__restrict__ out, __global float const *__restrict__ a, int const n)
{
  if (64 * gid(0) <= n - lid(0) - 1)
    loom_atomic_add_float32(&out[(64 * gid(0) + lid(0)) % 20], 2.0f * a[64 * gid(0) + lid(0)]);
}
