#define lid(N) ((int) get_local_id(N))
#define gid(N) ((int) get_group_id(N))

__kernel void __attribute__ ((reqd_work_group_size(256, 1, 1))) copy_rank1(__global float const *__restrict__ buf0, __global float *__restrict__ buf1, int const n, int const buf0_size, int const buf1_size, int const in0_stride0, int const in0_offset, int const out0_offset)
{
  float in0[4];
  if (1024 * gid(0) <= n - lid(0) - 1)
    in0[0] = 0 <= in0_offset + in0_stride0 * (1024 * gid(0) + lid(0)) && in0_offset + in0_stride0 * (1024 * gid(0) + lid(0)) < buf0_size ? buf0[in0_offset + in0_stride0 * (1024 * gid(0) + lid(0))] : (float) 0;
  if (1024 * gid(0) <= n - lid(0) - 257)
    in0[1] = 0 <= in0_offset + in0_stride0 * (1024 * gid(0) + lid(0) + 256) && in0_offset + in0_stride0 * (1024 * gid(0) + lid(0) + 256) < buf0_size ? buf0[in0_offset + in0_stride0 * (1024 * gid(0) + lid(0) + 256)] : (float) 0;
  if (1024 * gid(0) <= n - lid(0) - 513)
    in0[2] = 0 <= in0_offset + in0_stride0 * (1024 * gid(0) + lid(0) + 512) && in0_offset + in0_stride0 * (1024 * gid(0) + lid(0) + 512) < buf0_size ? buf0[in0_offset + in0_stride0 * (1024 * gid(0) + lid(0) + 512)] : (float) 0;
  if (1024 * gid(0) <= n - lid(0) - 769)
    in0[3] = 0 <= in0_offset + in0_stride0 * (1024 * gid(0) + lid(0) + 768) && in0_offset + in0_stride0 * (1024 * gid(0) + lid(0) + 768) < buf0_size ? buf0[in0_offset + in0_stride0 * (1024 * gid(0) + lid(0) + 768)] : (float) 0;
  if (1024 * gid(0) <= n - lid(0) - 1)
    buf1[out0_offset + 1024 * gid(0) + lid(0)] = in0[0];
  if (1024 * gid(0) <= n - lid(0) - 257)
    buf1[out0_offset + 1024 * gid(0) + lid(0) + 256] = in0[1];
  if (1024 * gid(0) <= n - lid(0) - 513)
    buf1[out0_offset + 1024 * gid(0) + lid(0) + 512] = in0[2];
  if (1024 * gid(0) <= n - lid(0) - 769)
    buf1[out0_offset + 1024 * gid(0) + lid(0) + 768] = in0[3];
}
