/**
 * How long a prepared kernel runs on its device, measured the way each backend allows best:
 *
 *   OpenCL   event profiling (`launchSequenceTimed`): the device's own stamps, from the start of a
 *            program's first kernel to the end of its last, the kernels queued back to back (as CUDA
 *            events around them measure; until the eighteenth session, the sum of each kernel timed
 *            alone: the sum of 2^26 on the H200 read 3816 and 3850 GB/s, two processes, one each way)
 *   WebGPU   many dispatches in one submit, wall time to `onSubmittedWorkDone` (webgpu-timer.ts)
 *   CUDA     CUDA events on the default stream around each launch of the program (`timeQueued`), behind
 *            a lead launch of it: the start event is stamped when the lead ends, by when the host has
 *            queued the timed launch (on an idle GPU the stamp comes first, and the host's launch
 *            time through koffi, tens of microseconds, would be counted: 10% of an elementwise row)
 *   CPU, C   wall time around `launch` (the launch returns when the work is done)
 *
 * Each returns the median of several samples, after a warm-up launch (which also pays for
 * any lazy compilation), in seconds per launch of the whole program.
 */
import { growBatch, noteTimed, warmUpDue, type PreparedLaunch } from '@loom/core';
import type { CudaModule } from '@loom/codegen-cuda';
import type { KernelArgument, OpenCLBuffer, OpenCLProgram } from '@loom/codegen-opencl';
import type { BenchDevice } from './devices.ts';
import { loomKernels, timeDispatches, type DirectKernel } from './webgpu-timer.ts';

export interface TimingOptions {
  /** Samples to take the median of. */
  readonly samples?: number;
  /** Stop sampling after about this long (at least one sample is always taken). */
  readonly maxSeconds?: number;
}

export function median(xs: readonly number[]): number {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** Seconds per launch of `prepared` on `d`'s device. */
export async function kernelSeconds(
  d: BenchDevice,
  prepared: PreparedLaunch,
  options: TimingOptions = {},
): Promise<number> {
  return sequenceSeconds(d, [prepared], options);
}

/**
 * Seconds per launch of several prepared programs one after the other (a computation's
 * kernels): on OpenCL from the first kernel's start to the last one's end (event profiling), on
 * CUDA the time between two events around all of them, on WebGPU all of them dispatched in order, dozens of rounds
 * per submit.
 */
export async function sequenceSeconds(
  d: BenchDevice,
  sequence: readonly PreparedLaunch[],
  options: TimingOptions = {},
): Promise<number> {
  return warmedUp(d, () => unwarmedSequenceSeconds(d, sequence, options));
}

/**
 * `time()`, on a device first kept busy for as long as core's `warmUpDue` says (by timing it over
 * and over): a GPU idle while a kernel compiled runs at a fraction of its clocks for seconds (the
 * H200 through WebGPU timed a kernel at 0.27 ms, and 0.084 ms warm).
 */
export async function warmedUp<T>(d: BenchDevice, time: () => Promise<T>): Promise<T> {
  const seconds = warmUpDue(d.device);
  const until = performance.now() + 1000 * seconds;
  while (performance.now() < until) await time();
  try {
    return await time();
  } finally {
    noteTimed(d.device);
  }
}

async function unwarmedSequenceSeconds(
  d: BenchDevice,
  sequence: readonly PreparedLaunch[],
  options: TimingOptions,
): Promise<number> {
  const launchAll = async () => {
    for (const p of sequence) await p.launch();
  };
  switch (d.backend) {
    case 'opencl':
      return openclSeconds(d, sequence, options);
    case 'webgpu': {
      let kernels: DirectKernel[];
      try {
        kernels = [];
        for (const p of sequence) kernels.push(...(await loomKernels(d.device, p)));
      } catch {
        return wallSeconds(launchAll, () => d.device.gpuDevice.queue.onSubmittedWorkDone(), options);
      }
      return batchedSeconds((count) => timeDispatches(d.device, kernels, count), options);
    }
    case 'cuda':
      return cudaSeconds(d, sequence, options);
    case 'cpu':
    case 'c':
      return wallSeconds(launchAll, async () => {}, options);
  }
}

/**
 * CUDA: every kernel of the sequence queued between two events on the default stream, as
 * PyTorch's side is timed; the launches go to the context directly, as OpenCL's do, so that
 * only the GPU's time between the events counts.
 */
function cudaSeconds(
  d: Extract<BenchDevice, { backend: 'cuda' }>,
  sequence: readonly PreparedLaunch[],
  options: TimingOptions,
): number {
  const context = d.device.context;
  // each launch as the device makes it (its arguments translated, its dynamic shared memory reckoned)
  const launches = sequence.flatMap((prepared) =>
    prepared.kernels.map((k) =>
      d.device.queuedLaunch(
        prepared.compiled as CudaModule,
        k.kernel,
        k.args,
        k.groupCount,
        k.groupCount.map((_, axis) => k.localSize[axis] ?? 1),
      ),
    ),
  );
  const queue = () => launches.forEach((launch) => launch());
  const once = () => {
    queue(); // the lead (above)
    return context.timeQueued(queue) / 1e3;
  };
  return sampled(once, options);
}

function openclSeconds(
  d: Extract<BenchDevice, { backend: 'opencl' }>,
  sequence: readonly PreparedLaunch[],
  options: TimingOptions,
): number {
  const context = d.device.context;
  const launches = sequence.flatMap((prepared) =>
    prepared.kernels.map((k) => ({
      program: prepared.compiled as OpenCLProgram,
      kernelName: k.kernel.name,
      args: k.args.map(
        (a): KernelArgument =>
          a.kind === 'buffer'
            ? { kind: 'buffer', buffer: a.buffer as OpenCLBuffer }
            : a.kind === 'local'
              ? { kind: 'local', byteLength: a.byteLength }
              : { kind: 'scalar', dtype: a.dtype, value: a.value },
      ),
      globalSize: k.groupCount.map((g, axis) => g * (k.localSize[axis] ?? 1)),
      localSize: k.groupCount.map((_, axis) => k.localSize[axis] ?? 1),
    })),
  );
  const once = () => context.launchSequenceTimed(launches) / 1e9;
  return sampled(once, options);
}

/** Takes `once()` samples (after one warm-up) until enough are taken or the time is up; their median. */
export function sampled(once: () => number, options: TimingOptions): number {
  const { samples = 10, maxSeconds = 2 } = options;
  const warm = once();
  const times: number[] = [];
  const deadline = performance.now() + 1000 * Math.max(0, maxSeconds - warm);
  do times.push(once());
  while (times.length < samples && performance.now() < deadline);
  return median(times);
}

/**
 * The least a timed batch lasts: the wait that ends it (Dawn answers `onSubmittedWorkDone` by
 * polling its events: 0.1 to 1.2 ms on lavapipe, a few ms at times on the H200) is then a few per
 * cent of it at most.
 */
const BATCH_SECONDS = 0.1;
/** The most launches in one batch (one command buffer of that many dispatches on WebGPU). */
const MAX_BATCH = 10_000;

/**
 * For timers that batch: the batch grows until it lasts BATCH_SECONDS, and batches of that size are
 * sampled. A batch sized from one launch's time, which is mostly the wait, was far too short for
 * short kernels: 2^14 FFTs of 2^10 points read 1294 GFLOP/s on the H200's WebGPU in one process
 * and 6022 in another, and `pointwise()` add differed 3x between two runs.
 */
export async function batchedSeconds(
  batch: (count: number) => Promise<number>,
  options: TimingOptions,
): Promise<number> {
  const { samples = 5, maxSeconds = 2 } = options;
  // the first batch warms up (it pays for lazy compilation); the grown one, if any, is a sample
  const { count, seconds } = await growBatch(batch, BATCH_SECONDS, MAX_BATCH);
  const times: number[] = count > 1 ? [seconds / count] : [];
  const deadline = performance.now() + 1000 * maxSeconds;
  do times.push((await batch(count)) / count);
  while (times.length < samples && performance.now() < deadline);
  return median(times);
}

/**
 * Wall time of `launch` then `settle` (wait for the device), per launch, in batches.
 * `minCalls`: at least that many launches per batch (the warm-up batch too, which sizes the
 * others from its time per launch): one wait per batch then weighs little however slow the
 * device is to say it is done (Dawn answers `onSubmittedWorkDone` through its event polling).
 */
export async function wallSeconds(
  launch: () => Promise<void>,
  settle: () => Promise<unknown>,
  options: TimingOptions & { readonly minCalls?: number },
): Promise<number> {
  const batch = async (count: number) => {
    await settle();
    const start = performance.now();
    for (let r = 0; r < count; r++) await launch();
    await settle();
    return (performance.now() - start) / 1000;
  };
  const minCalls = options.minCalls;
  if (minCalls === undefined) return batchedSeconds(batch, options);
  const { samples = 5, maxSeconds = 2 } = options;
  const perCall = (await batch(minCalls)) / minCalls;
  const count = Math.max(minCalls, Math.min(1000, Math.round(0.05 / Math.max(perCall, 1e-7))));
  const times: number[] = [];
  const deadline = performance.now() + 1000 * maxSeconds;
  do times.push((await batch(count)) / count);
  while (times.length < samples && performance.now() < deadline);
  return median(times);
}
