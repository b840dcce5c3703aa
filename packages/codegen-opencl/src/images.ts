/**
 * Image arguments in OpenCL C, as loopy prints them: a `read_only image2d_t`/`image3d_t`
 * parameter, read through one sampler declared at the top of the kernel body
 * (unnormalized coordinates, clamped addresses, nearest texel: the texel at the integer
 * coordinates themselves) with the read function of the image's channel type. Loom passes
 * integer coordinates (`int2`, `int4`), exact for any extent, where loopy passes floats.
 */
import { InternalError, type DType } from '@loom/core';
import type { ImageSpelling } from '@loom/codegen-cfamily';

/** The sampler every image read goes through (its name is reserved: names.ts). */
export const IMAGE_SAMPLER = 'loopy_sampler';

/** The read function of each image dtype (kernel/images.ts in core lists the dtypes). */
const READ_FUNCTIONS: Partial<Record<DType, string>> = {
  float32: 'read_imagef',
  int32: 'read_imagei',
  uint32: 'read_imageui',
};

/** OpenCL's images as the C printer asks for them. */
export const openclImages: ImageSpelling = {
  parameter: (p) => `read_only image${p.image!.shape.length}d_t ${p.name}`,
  read: (image, coordinates, t) => {
    const read = READ_FUNCTIONS[t];
    if (!read) throw new InternalError(`OpenCL C: no image read of ${t} (kernel/images.ts refuses other dtypes)`);
    // a 3D image takes an int4, whose fourth coordinate is unused
    const vector =
      coordinates.length === 2 ? `(int2)(${coordinates.join(', ')})` : `(int4)(${coordinates.join(', ')}, 0)`;
    return `${read}(${image}, ${IMAGE_SAMPLER}, ${vector}).x`;
  },
  prologue: [
    `const sampler_t ${IMAGE_SAMPLER} = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP | CLK_FILTER_NEAREST;`,
  ],
};
