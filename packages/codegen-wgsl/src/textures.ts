/**
 * Textures made for one launch: a kernel reads an image argument as a `texture_2d`/`texture_3d`
 * (bindings.ts), and the host holds its elements in a storage buffer, row-major. Before the
 * dispatch, in the same command encoder (so after every write queued before), a texture of the
 * image's format is made and the buffer copied into it. WebGPU copies rows of a multiple of 256
 * bytes in one command; other widths are copied row by row (a one-row copy has no row pitch).
 * The caller destroys the texture after the submit: WebGPU keeps it for the work submitted.
 */
/// <reference types="@webgpu/types" preserve="true" />
import type { TextureBinding } from './bindings.ts';

/** GPUTextureUsage: a copy's destination, a shader's sampled texture. */
const TEXTURE_USAGE = { COPY_DST: 0x2, TEXTURE_BINDING: 0x4 } as const;

/** WebGPU's row pitch for buffer-texture copies of several rows. */
const ROW_ALIGNMENT = 256;

/** A texture of `extents` (width, height[, depth]) filled from `source` by commands on `encoder`. */
export function textureFromBuffer(
  device: GPUDevice,
  encoder: GPUCommandEncoder,
  binding: TextureBinding,
  source: GPUBuffer,
  extents: readonly number[],
): GPUTexture {
  // an empty image (an extent of 0, read by no invocation) is bound as one texel, left unfilled
  const empty = extents.includes(0);
  const [width, height, depth = 1] = empty ? extents.map(() => 1) : extents;
  const texture = device.createTexture({
    size: { width, height, depthOrArrayLayers: depth },
    dimension: binding.dimensions === 2 ? '2d' : '3d',
    format: binding.format,
    usage: TEXTURE_USAGE.COPY_DST | TEXTURE_USAGE.TEXTURE_BINDING,
  });
  if (empty) return texture;
  const rowBytes = width * 4;
  if (rowBytes % ROW_ALIGNMENT === 0) {
    encoder.copyBufferToTexture(
      { buffer: source, bytesPerRow: rowBytes, rowsPerImage: height },
      { texture },
      { width, height, depthOrArrayLayers: depth },
    );
    return texture;
  }
  for (let z = 0; z < depth; z++)
    for (let y = 0; y < height; y++)
      encoder.copyBufferToTexture(
        { buffer: source, offset: (z * height + y) * rowBytes },
        { texture, origin: { x: 0, y, z } },
        { width, height: 1, depthOrArrayLayers: 1 },
      );
  return texture;
}
