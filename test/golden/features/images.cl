#pragma OPENCL FP_CONTRACT OFF
#define lid(N) ((int) get_local_id(N))
#define gid(N) ((int) get_group_id(N))

__kernel void __attribute__ ((reqd_work_group_size(16, 1, 1))) image_read(read_only image2d_t a, read_only image3d_t b, __global float const *__restrict__ w, __global float *__restrict__ out, int const m, int const n, int const p)
{
  const sampler_t loopy_sampler = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP | CLK_FILTER_NEAREST;
  int acc_l;
  if (16 * gid(0) <= m - lid(0) - 1 && p >= 1)
    acc_l = 0;
  if (16 * gid(0) <= m - lid(0) - 1)
    for (int l = 0; l <= -1 + p; ++l)
      acc_l = (int) ((uint) acc_l + (uint) read_imagei(b, loopy_sampler, (int4)(16 * gid(0) + lid(0), gid(1), l, 0)).x);
  if (16 * gid(0) <= m - lid(0) - 1 && p >= 1)
    out[m * gid(1) + (16 * gid(0) + lid(0))] = read_imagef(a, loopy_sampler, (int2)(16 * gid(0) + lid(0), gid(1))).x * w[16 * gid(0) + lid(0)] + (float) acc_l;
}
