#define lid(N) ((int) get_local_id(N))
#define gid(N) ((int) get_group_id(N))

__kernel void __attribute__ ((reqd_work_group_size(256, 1, 1))) pointwise_rank1(__global float const *__restrict__ buf0, __global float *__restrict__ buf1, int const n, int const buf0_size, int const buf1_size, int const in0_offset, int const out0_offset)
{
  float in0_re[4];
  float in0_im[4];
  if (1024 * gid(0) <= n - lid(0) - 1)
    in0_re[0] = buf0[2 * in0_offset + 2048 * gid(0) + 2 * lid(0)];
  if (1024 * gid(0) <= n - lid(0) - 257)
    in0_re[1] = buf0[2 * in0_offset + 2048 * gid(0) + 2 * lid(0) + 512];
  if (1024 * gid(0) <= n - lid(0) - 513)
    in0_re[2] = buf0[2 * in0_offset + 2048 * gid(0) + 2 * lid(0) + 1024];
  if (1024 * gid(0) <= n - lid(0) - 769)
    in0_re[3] = buf0[2 * in0_offset + 2048 * gid(0) + 2 * lid(0) + 1536];
  if (1024 * gid(0) <= n - lid(0) - 1)
    in0_im[0] = buf0[2 * in0_offset + 2048 * gid(0) + 2 * lid(0) + 1];
  if (1024 * gid(0) <= n - lid(0) - 257)
    in0_im[1] = buf0[2 * in0_offset + 2048 * gid(0) + 2 * lid(0) + 513];
  if (1024 * gid(0) <= n - lid(0) - 513)
    in0_im[2] = buf0[2 * in0_offset + 2048 * gid(0) + 2 * lid(0) + 1025];
  if (1024 * gid(0) <= n - lid(0) - 769)
    in0_im[3] = buf0[2 * in0_offset + 2048 * gid(0) + 2 * lid(0) + 1537];
  if (1024 * gid(0) <= n - lid(0) - 1)
    buf1[out0_offset + 1024 * gid(0) + lid(0)] = hypot(in0_re[0], in0_im[0]);
  if (1024 * gid(0) <= n - lid(0) - 257)
    buf1[out0_offset + 1024 * gid(0) + lid(0) + 256] = hypot(in0_re[1], in0_im[1]);
  if (1024 * gid(0) <= n - lid(0) - 513)
    buf1[out0_offset + 1024 * gid(0) + lid(0) + 512] = hypot(in0_re[2], in0_im[2]);
  if (1024 * gid(0) <= n - lid(0) - 769)
    buf1[out0_offset + 1024 * gid(0) + lid(0) + 768] = hypot(in0_re[3], in0_im[3]);
}
