/**
 * What a device with images (`Target.images: 'native'`) needs at launch: the extents of the
 * image it makes for a parameter, from the shape code generation left (`DeviceParameter.image`)
 * and the launch's values, checked against the device's image limits. The host passed the
 * image's elements as a buffer, row-major; the device copies them into the image it makes.
 */
import { LoomError } from '../errors.ts';
import type { DeviceKernel } from '../codegen/generated.ts';
import type { LaunchArgument } from './device.ts';
import type { DeviceLimits } from './limits.ts';
import { evaluateInt } from './evaluate.ts';

/**
 * The extents of the image parameter `index` of `kernel` for this launch, in the order image
 * APIs take them: width (the last, fastest axis), height, then depth for a 3D image. An extent
 * may be 0 (an empty array, which no work-item reads): the device then binds an image of one
 * texel, which no API refuses. A device without images, or an image past the device's limits,
 * is a LoomError naming the argument.
 */
export function imageExtents(
  kernel: DeviceKernel,
  args: readonly LaunchArgument[],
  index: number,
  limits: DeviceLimits,
  device: string,
): number[] {
  const parameter = kernel.parameters[index];
  if (!parameter.image) throw new LoomError(`${device}: parameter '${parameter.name}' of '${kernel.name}' is no image`);
  const name = parameter.argument;
  if (!limits.maxImageSizes)
    throw new LoomError(
      `${device} has no images (its driver reports no image support); image argument '${name}' cannot be bound: keep it a global argument`,
    );
  const values = new Map<string, number>();
  kernel.parameters.forEach((p, k) => {
    const a = args[k];
    if ((p.kind === 'value' || p.kind === 'host-loop') && a?.kind === 'value') values.set(p.name, Number(a.value));
  });
  const shape = parameter.image.shape.map((e) =>
    evaluateInt(
      e,
      (n) => {
        const v = values.get(n);
        if (v === undefined)
          throw new LoomError(`the shape of image argument '${name}' needs '${n}', which no parameter passes`);
        return v;
      },
      `the shape of image argument '${name}'`,
    ),
  );
  const extents = [...shape].reverse();
  const dims = extents.length as 2 | 3;
  const max = limits.maxImageSizes[dims];
  const axes = ['width', 'height', 'depth'];
  extents.forEach((e, axis) => {
    if (e > max[axis])
      throw new LoomError(
        `image argument '${name}' of shape (${shape.join(', ')}) is ${e} ${axes[axis]}, past ${device}'s largest ${dims}D image (${max.join(' x ')}): keep it a global argument`,
      );
  });
  return extents;
}
