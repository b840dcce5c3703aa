#define lid(N) ((int) get_local_id(N))
#define gid(N) ((int) get_group_id(N))

inline void loom_atomic_add_float32_local(volatile __local float *target, float operand)
{
  union { unsigned int bits; float value; } prev, next;
  do
  {
    prev.value = *target;
    next.value = prev.value + operand;
  }
  while (atomic_cmpxchg((volatile __local unsigned int *) target, prev.bits, next.bits) != prev.bits);
}

__kernel void __attribute__ ((reqd_work_group_size(10, 1, 1))) loopy_kernel(__global volatile float *__restrict__ out)
{
  __local volatile float temp;
  atomic_xchg(&temp, 0.0f);
  barrier(CLK_LOCAL_MEM_FENCE);
  loom_atomic_add_float32_local(&temp, 1.0f);
  barrier(CLK_LOCAL_MEM_FENCE);
  atomic_xchg(&out[lid(0)], temp);
}
