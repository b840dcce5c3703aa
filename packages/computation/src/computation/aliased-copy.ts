/**
 * One array passed for an input and an output of a computation (Reikna's in-place calls:
 * `fft(data, data)`). A kernel that reads the input while it writes the output is well
 * defined on a shared buffer only when each element is read and written by one work-item at
 * the same index (core's runtime/aliasing.ts merges those); otherwise the kernel must read
 * the input as it was, which a copy taken just before the launch gives. The copy costs a
 * pass over the array, and only calls that share a buffer pay it.
 */
import {
  AliasedArgumentsError,
  DeviceArray,
  globalArg,
  LruCache,
  makeKernel,
  prepareLaunch,
  splitIname,
  type ComplexScalar,
  type Device,
  type DType,
  type LoopKernel,
  type PreparedLaunch,
} from '@loom/core';

/** A kernel's arguments as prepareLaunch takes them (a complex value as a number, `{ re, im }` or `[re, im]`). */
type CallArgs = Record<string, DeviceArray | number | bigint | ComplexScalar>;

/** `dst[i] = src[i]` over flat arrays of a dtype, in work-groups of 256: one kernel per dtype. */
const copyKernels = new LruCache<DType, LoopKernel>(32);

function copyKernel(dtype: DType): LoopKernel {
  return copyKernels.memo(dtype, () =>
    splitIname(
      makeKernel(
        '{ [i]: 0 <= i < n }',
        'dst[i] = src[i]',
        [globalArg('src', { dtype, shape: ['n'] }), globalArg('dst', { dtype, shape: ['n'] }), '...'],
        { name: 'aliased_input_copy' },
      ),
      'i',
      256,
      { outerTag: 'g.0', innerTag: 'l.0' },
    ),
  );
}

/**
 * `prepareLaunch(kernel, device, args)`; where it refuses an argument that shares its buffer
 * with a written one, the launch first copies that argument into an array of its own and the
 * kernel reads the copy.
 */
export async function prepareWithAliasedCopies(
  kernel: LoopKernel,
  device: Device,
  args: Readonly<CallArgs>,
): Promise<PreparedLaunch> {
  const copies: { launch: PreparedLaunch; scratch: DeviceArray }[] = [];
  const current: CallArgs = { ...args };
  const releaseCopies = () => {
    for (const c of copies) {
      c.launch.release();
      c.scratch.release();
    }
  };
  try {
    for (;;) {
      try {
        const main = await prepareLaunch(kernel, device, current);
        if (copies.length === 0) return main;
        return {
          ...main,
          async launch(arrays) {
            for (const c of copies) await c.launch.launch();
            await main.launch(arrays);
          },
          release() {
            main.release();
            releaseCopies();
          },
        };
      } catch (e) {
        const source = e instanceof AliasedArgumentsError ? current[e.read] : undefined;
        if (!(source instanceof DeviceArray)) throw e;
        const scratch = new DeviceArray(
          device,
          device.allocate(Math.max(4, source.byteLength)),
          source.dtype,
          source.shape,
        );
        copies.push({ scratch, launch: await copyLaunch(device, source, scratch) });
        current[(e as AliasedArgumentsError).read] = scratch;
      }
    }
  } catch (e) {
    releaseCopies();
    throw e;
  }
}

function copyLaunch(device: Device, from: DeviceArray, to: DeviceArray): Promise<PreparedLaunch> {
  const n = from.shape.reduce((a, b) => a * b, 1);
  return prepareLaunch(copyKernel(from.dtype), device, { src: from.reshape([n]), dst: to.reshape([n]), n });
}
