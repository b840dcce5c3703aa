/**
 * `measureDeviceProfile(device)`: what the roofline (roofline.ts) needs to know about a
 * device, measured on it with three Loom kernels, once per device (the promise is kept
 * with the device object; the `loom stats` command also keeps profiles on disk):
 *
 *  - bandwidth: `out[i] = a[i]` over float32 arrays, four elements a work-item (each a
 *    whole warp's line apart, so that four loads are in flight), grown until a launch takes
 *    long enough to time (bytes read + written per second). With one element a work-item
 *    the H200 copied at 2.7 TB/s through OpenCL and 2.2 TB/s through WebGPU, while an
 *    elementwise add moved 3.4 TB/s: the roofline's bandwidth is what a kernel can reach;
 *  - flop rate: each work-item runs four independent chains of multiply-adds (fused where
 *    the device fuses them), counted by the statistics themselves (`kernelWork`);
 *  - launch overhead: the copy of a single work-group, one launch of many.
 *
 * Times are wall-clock medians per launch in a stream of launches queued back to back and
 * waited for once per sample by reading 4 bytes back (time-launches.ts): a launch's cost as
 * a loop of `prepared.launch()` sees it, without the read-back, which on WebGPU (a buffer
 * mapped) costs more than a launch. A kernel of one's own is timed the same way by
 * `measureKernelSeconds`.
 */
import { checkOptionKeys, optionKeys } from '../option-keys.ts';
import { hostArrayConstructor, hostLanes, isFloat, type DType } from '../dtypes.ts';
import { LoomError } from '../errors.ts';
import { requiredLength, stridesOf } from '../kernel/strides.ts';
import { evaluateInt } from '../runtime/evaluate.ts';
import { prioritizeLoops, setOptions } from '../transform/basic.ts';
import { splitIname } from '../transform/split-iname.ts';
import { makeKernel } from '../frontend/make-kernel.ts';
import { globalArg } from '../frontend/argument-specs.ts';
import type { LoopKernel } from '../kernel/model.ts';
import { perObject } from '../memo.ts';
import { DeviceArray, type Device } from '../runtime/device.ts';
import { prepareLaunch } from '../runtime/prepare.ts';
import { timeLaunchStream } from '../runtime/time-launches.ts';
import { preprocess } from '../preprocess/pipeline.ts';
import { kernelWork, type DeviceProfile } from './roofline.ts';

/** The options measureDeviceProfile reads; any other key is an error. */
const MEASURE_DEVICE_PROFILE_OPTIONS = optionKeys<ProfileOptions>()(['maxBytes', 'minSeconds']);

/** Options of `measureDeviceProfile`: how much memory and time its measurements may take. */
export interface ProfileOptions {
  /** A measurement's arrays grow until one launch takes at least this long; default 0.005 s. */
  readonly minSeconds?: number;
  /**
   * ... or until an array has this many bytes; default 256 MiB (less where the device allows
   * less). A fast GPU copies 64 MiB in less time than WebGPU takes to submit a launch, so
   * smaller arrays measured the submission, not the memory.
   */
  readonly maxBytes?: number;
}

const GROUP = 256;
/** Elements each work-item of the copy moves: loads in flight, as a tuned elementwise kernel has. */
const COPY_UNROLL = 4;
const CHAIN_STEPS = 256;
const UNROLLED_STEPS = 8;

/** The profile of `device`, measured on the first call and kept with the device. */
export function measureDeviceProfile(device: Device, options: ProfileOptions = {}): Promise<DeviceProfile> {
  checkOptionKeys('measureDeviceProfile', options, MEASURE_DEVICE_PROFILE_OPTIONS);
  const key = JSON.stringify([options.minSeconds, options.maxBytes]);
  const byOptions = measured(device);
  let profile = byOptions.get(key);
  if (!profile) {
    profile = measure(device, options);
    byOptions.set(key, profile);
    profile.catch(() => byOptions.delete(key)); // a failed measurement is not kept
  }
  return profile;
}

const measured = perObject((_: Device) => new Map<string, Promise<DeviceProfile>>());

async function measure(device: Device, options: ProfileOptions): Promise<DeviceProfile> {
  const minSeconds = options.minSeconds ?? 0.005;
  const maxBytes = Math.min(options.maxBytes ?? 256 * 2 ** 20, device.limits.maxBufferBytes);
  const copyBlock = GROUP * COPY_UNROLL;
  const maxCopied = Math.max(copyBlock, Math.floor(maxBytes / 4 / copyBlock) * copyBlock);
  const maxElements = Math.max(GROUP, Math.floor(maxBytes / 4 / GROUP) * GROUP);

  const copy = copyKernel();
  const launchOverhead = await secondsPerLaunch(device, copy, copyBlock);
  let bandwidth = 0;
  for (let n = 16 * copyBlock; ; n = Math.min(4 * n, maxCopied)) {
    const seconds = await secondsPerLaunch(device, copy, n);
    bandwidth = (8 * n) / seconds;
    if (seconds >= minSeconds || n >= maxCopied) break;
  }
  const chains = chainKernel();
  let flopRate = 0;
  for (let n = 4 * GROUP; ; n = Math.min(4 * n, maxElements)) {
    const seconds = await secondsPerLaunch(device, chains, n);
    flopRate = kernelWork(chains, { n }).flops / seconds;
    if (seconds >= minSeconds || n >= maxElements) break;
  }
  if (![bandwidth, flopRate, launchOverhead].every((x) => x > 0 && Number.isFinite(x))) {
    throw new LoomError(
      `measuring '${device.name}' gave no usable figures (bandwidth ${bandwidth}, flop rate ${flopRate}, launch ${launchOverhead} s)`,
    );
  }
  return { device: device.name, bandwidth, flopRate, launchOverhead };
}

/** `out[i] = a[i]` on float32 arrays, each work-item copying COPY_UNROLL elements a work-group apart. */
function copyKernel(): LoopKernel {
  const knl = makeKernel(
    '{ [i]: 0<=i<n }',
    'out[i] = a[i]',
    [
      globalArg('a', { dtype: 'float32', shape: ['n'] }),
      globalArg('out', { dtype: 'float32', shape: ['n'], isInput: false }),
      '...',
    ],
    { name: 'profile_copy', assumptions: `n >= 1 and n mod ${GROUP * COPY_UNROLL} = 0` },
  );
  const blocks = splitIname(knl, 'i', GROUP * COPY_UNROLL, { outerTag: 'g.0' });
  return splitIname(blocks, 'i_inner', GROUP, { outerTag: 'unr', innerTag: 'l.0' });
}

/** Four independent chains of multiply-adds per element: the arithmetic waits on nothing but itself. */
function chainKernel(): LoopKernel {
  const steps = [0, 1, 2, 3].map((c) => `x${c} = x${c}*0.9999 + 0.0001 {id=step${c}, dep=init${c}}`).join('\n');
  const knl = makeKernel(
    `{ [i, k]: 0<=i<n and 0<=k<${CHAIN_STEPS} }`,
    `
    for i
      ${[0, 1, 2, 3].map((c) => `<float32> x${c} = a[i] + ${c} {id=init${c}}`).join('\n')}
      for k
        ${steps}
      end
      out[i] = x0 + x1 + x2 + x3 {dep=step*}
    end
  `,
    [
      globalArg('a', { dtype: 'float32', shape: ['n'] }),
      globalArg('out', { dtype: 'float32', shape: ['n'], isInput: false }),
      '...',
    ],
    { name: 'profile_flops', assumptions: `n >= 1 and n mod ${GROUP} = 0` },
  );
  // the steps unrolled by eight here, not left to the device's compiler (NVIDIA's Vulkan driver kept
  // the loop: a compare and a branch per four multiply-adds); fused, as WGSL spells it with `fma`
  const split = splitIname(knl, 'i', GROUP, { outerTag: 'g.0', innerTag: 'l.0' });
  const unrolled = prioritizeLoops(splitIname(split, 'k', UNROLLED_STEPS, { innerTag: 'unr' }), 'k_outer,k_inner');
  return setOptions(unrolled, { fusedMultiplyAdd: true });
}

/** Median wall time of a launch over `n` elements. */
async function secondsPerLaunch(device: Device, knl: LoopKernel, n: number): Promise<number> {
  const a = await DeviceArray.from(device, new Float32Array(n).fill(0.5), 'float32');
  const out = await DeviceArray.from(device, new Float32Array(n), 'float32');
  try {
    return await timePrepared(device, knl, { a, out, n }, out);
  } finally {
    a.release();
    out.release();
  }
}

/** One array `measureKernelSeconds` allocates: its shape and its bytes on the device. */
export interface MeasuredArray {
  readonly name: string;
  readonly dtype: DType;
  readonly shape: readonly number[];
  /** The host array's length in numbers (a complex element is two). */
  readonly length: number;
  readonly bytes: number;
}

/**
 * The arrays `measureKernelSeconds` allocates for `knl` at these parameter values, with their
 * sizes, worked out without allocating anything: a caller (`loom stats --device`) can refuse
 * sizes that would not fit before the device is asked for them. Every dtype must be known,
 * and every parameter the shapes use given.
 */
export function measuredArrays(knl: LoopKernel, params: Readonly<Record<string, number>>): MeasuredArray[] {
  const env = parameterValues(knl, params);
  // (outputs' dtypes are those inference gives)
  return preprocess(knl)
    .args.filter((arg) => arg.kind !== 'value')
    .map((arg) => {
      if (arg.dtype === undefined)
        throw new LoomError(`measuring '${knl.name}': the dtype of '${arg.name}' is not known (addDtypes)`);
      const shape = (arg.shape ?? []).map((e) => evaluateInt(e, env, `the shape of '${arg.name}'`));
      const strides = stridesOf(arg.shape ?? [], arg.dimTags).map((e) =>
        evaluateInt(e, env, `the strides of '${arg.name}'`),
      );
      // a complex element is two numbers, its parts
      const length = Math.max(1, requiredLength(shape, strides)) * hostLanes(arg.dtype);
      return {
        name: arg.name,
        dtype: arg.dtype,
        shape,
        length,
        bytes: length * hostArrayConstructor(arg.dtype).BYTES_PER_ELEMENT,
      };
    });
}

function parameterValues(knl: LoopKernel, params: Readonly<Record<string, number>>): (name: string) => number {
  return (name) => {
    const v = params[name];
    if (v === undefined) throw new LoomError(`measuring '${knl.name}' needs a value for the parameter '${name}'`);
    return v;
  };
}

/**
 * How long one launch of `knl` takes on `device` at these parameter values (the median of
 * five, after one to warm up), on arrays of the sizes the parameters give (measuredArrays),
 * filled with values in [0, 1) (floats) or zeros (integers). Every dtype must be known.
 */
export async function measureKernelSeconds(
  knl: LoopKernel,
  device: Device,
  params: Readonly<Record<string, number>>,
): Promise<number> {
  const env = parameterValues(knl, params);
  const arrays: Record<string, DeviceArray> = {};
  try {
    for (const { name, dtype, shape, length } of measuredArrays(knl, params)) {
      const data = new (hostArrayConstructor(dtype))(length);
      if (isFloat(dtype)) for (let k = 0; k < data.length; k++) (data as Float32Array)[k] = Math.random();
      arrays[name] = await DeviceArray.from(device, data, dtype, shape);
    }
    const values = Object.fromEntries(knl.valueArgs.map((a) => [a.name, env(a.name)]));
    const probe = Object.values(arrays)[0];
    if (!probe) throw new LoomError(`measuring '${knl.name}': it has no array to wait for`);
    return await timePrepared(device, knl, { ...arrays, ...values }, probe);
  } finally {
    for (const a of Object.values(arrays)) a.release();
  }
}

/** Median wall time of a launch of `knl` in a stream of launches (time-launches.ts). */
async function timePrepared(
  device: Device,
  knl: LoopKernel,
  args: Readonly<Record<string, DeviceArray | number>>,
  probe: DeviceArray,
): Promise<number> {
  const prepared = await prepareLaunch(knl, device, args, { checkBounds: false });
  try {
    return await timeLaunchStream(prepared, probe);
  } finally {
    prepared.release();
  }
}
