/**
 * Images made for one launch: the kernel reads an image argument as a `read_only image2d_t`
 * (or `image3d_t`), and the host holds its elements in a buffer, row-major. Before the kernel
 * is queued, an image of one channel in the element's type is created and the buffer copied
 * into it on the device (`clEnqueueCopyBufferToImage`, in queue order, so it sees every write
 * queued before); the image is released right after the launch is queued, which OpenCL defers
 * until the commands using it have finished.
 */
import { InternalError, LoomError, type DType } from '@loom/core';
import type { Handle, OpenCLApi } from './bindings.ts';
import * as CL from './constants.ts';
import { check, created } from './errors.ts';

/** An image argument: the buffer holding its elements, their dtype and the image's extents (width first). */
export interface ImageArgument {
  readonly kind: 'image';
  readonly buffer: { readonly byteLength: number };
  readonly dtype: DType;
  readonly extents: readonly number[];
}

/** The channel type of each image dtype (core's kernel/images.ts lists the dtypes). */
const CHANNEL_TYPES: Partial<Record<DType, number>> = {
  float32: CL.CL_FLOAT,
  int32: CL.CL_SIGNED_INT32,
  uint32: CL.CL_UNSIGNED_INT32,
};

/**
 * A read-only image of `arg`'s extents, filled from the buffer `source` on `queue`. The caller
 * releases it (clReleaseMemObject) once the launch that reads it is queued.
 */
export function imageFromBuffer(
  api: OpenCLApi,
  context: Handle,
  queue: Handle,
  source: Handle,
  arg: ImageArgument,
  where: string,
): Handle {
  if (!api.clCreateImage || !api.clEnqueueCopyBufferToImage)
    throw new LoomError(`${where}: this OpenCL loader has no images (clCreateImage, OpenCL 1.2)`);
  const channel = CHANNEL_TYPES[arg.dtype];
  if (channel === undefined) throw new InternalError(`${where}: no OpenCL image of ${arg.dtype}`);
  // an empty image (an extent of 0, read by no work-item) is bound as one texel, left unfilled
  const empty = arg.extents.includes(0);
  const [width, height, depth = 1] = empty ? arg.extents.map(() => 1) : arg.extents;
  if (!empty && width * height * depth * 4 > arg.buffer.byteLength)
    throw new LoomError(
      `${where}: an image of ${arg.extents.join(' x ')} ${arg.dtype} needs ${width * height * depth * 4} bytes; the buffer holds ${arg.buffer.byteLength}`,
    );
  const format = new Uint32Array([CL.CL_R, channel]);
  // cl_image_desc: the type (a cl_uint, padded to 8 bytes), width, height, depth, array size,
  // row and slice pitches (0: none, the image is made empty), mip levels and samples, buffer
  const descriptor = new BigUint64Array(9);
  new Uint32Array(descriptor.buffer, 0, 1)[0] =
    arg.extents.length === 2 ? CL.CL_MEM_OBJECT_IMAGE2D : CL.CL_MEM_OBJECT_IMAGE3D;
  descriptor[1] = BigInt(width);
  descriptor[2] = BigInt(height);
  descriptor[3] = BigInt(arg.extents.length === 3 ? depth : 0);
  const image = created(
    'clCreateImage',
    (error) => api.clCreateImage!(context, CL.CL_MEM_READ_ONLY, format, descriptor, null, error),
    () => `${where}: a ${arg.extents.join(' x ')} image of ${arg.dtype}`,
  );
  if (empty) return image;
  try {
    check(
      'clEnqueueCopyBufferToImage',
      api.clEnqueueCopyBufferToImage(
        queue,
        source,
        image,
        0,
        new BigUint64Array(3),
        new BigUint64Array([BigInt(width), BigInt(height), BigInt(depth)]),
        0,
        null,
        null,
      ),
      () => where,
    );
  } catch (e) {
    api.clReleaseMemObject(image);
    throw e;
  }
  return image;
}
