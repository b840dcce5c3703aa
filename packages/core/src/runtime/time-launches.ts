/**
 * How long a prepared launch takes, as its caller sees it: wall time from queuing the
 * launches (as one submission where the device batches them, `Device.launchRounds`) to the
 * device having finished them. The wait is a 4-byte read of one of the
 * launch's arrays, which every device orders after the work queued before it (in-order
 * queues), so no device needs a timer of its own. A GPU idle before it is timed is first kept
 * busy for its `warmUpSeconds`, while its clocks rise. Used by device profiles
 * (statistics/profile.ts) and by the autotuner (tune/autotune.ts).
 */
import type { DeviceArray } from './device.ts';
import type { PreparedLaunch } from './prepare.ts';
import { noteTimed, warmUpDue } from './warm-up.ts';

/** The most launches one sample of `timeLaunchStream` queues. */
const MAX_REPEAT = 2000;

export interface LaunchTimingOptions {
  /** Samples to take the median of; default 5. */
  readonly samples?: number;
  /** Launches queued back to back in one sample (a sample is waited for once); default 1. */
  readonly repeat?: number;
}

/**
 * Median seconds per launch in a stream of launches: as many queued back to back per sample
 * (up to 2000) as take at least `sampleSeconds` (default 20 ms), so that waiting for the device,
 * which costs far more than a launch on some (a WebGPU read-back maps a buffer, and Dawn
 * answers by polling its events), is a small part of each sample. The count grows until a
 * sample lasts that long: sized from one launch, whose time is mostly that wait, it was too
 * small for short kernels.
 */
export async function timeLaunchStream(
  prepared: PreparedLaunch,
  probe: DeviceArray,
  options: { readonly samples?: number; readonly sampleSeconds?: number } = {},
): Promise<number> {
  await warmUp(prepared, probe);
  const { count: repeat } = await growBatch(
    async (repeat) => repeat * (await timeLaunches(prepared, probe, { samples: 1, repeat })),
    options.sampleSeconds ?? 0.02,
    MAX_REPEAT,
  );
  const seconds = await timeLaunches(prepared, probe, { samples: options.samples ?? 5, repeat });
  noteTimed(prepared.device);
  return seconds;
}

/** Milliseconds a warm-up batch lasts: short enough to stop near the warm-up's end. */
const WARM_UP_BATCH_MS = 50;

/**
 * Keeps a device whose clocks rise under load busy with `prepared`'s launches for as long as
 * `warmUpDue` says (warm-up.ts). Without it the H200, idle while a candidate compiled, timed
 * kernels at a quarter of their speed through WebGPU.
 */
async function warmUp(prepared: PreparedLaunch, probe: DeviceArray): Promise<void> {
  const { device } = prepared;
  const seconds = warmUpDue(device);
  if (seconds <= 0) return;
  const bytes = new Uint8Array(Math.min(4, probe.buffer.byteLength));
  const until = performance.now() + 1000 * seconds;
  let rounds = 1;
  while (performance.now() < until) {
    const started = performance.now();
    await prepared.launchRounds(rounds);
    await device.read(probe.buffer, bytes);
    const took = performance.now() - started;
    rounds = Math.max(1, Math.min(MAX_REPEAT, Math.round((rounds * WARM_UP_BATCH_MS) / Math.max(took, 0.01))));
  }
}

/**
 * How many launches a timed batch needs to last at least `seconds` (at most `most`): the batch
 * grows from one launch, by what its last time says is missing (2 to 100 times a step), since one
 * launch's time is mostly the wait for the device and says little about the launch itself.
 * `batch(count)` runs `count` launches and resolves to their seconds; the first call warms up.
 * A first launch that alone lasts `seconds`, but less than RETIME_BELOW times that, is timed
 * once more before it settles the count: one launch can pay one-off costs (on the H200 through
 * Dawn, the autotuner's first timed launches after its 64 MB check read back took 18-90 ms, of a
 * kernel of 0.13 ms, and a count of one then timed the read-back's wait, 1-2 ms, 5-10x the kernel).
 * Resolves to the count and the seconds of the last batch run.
 * ```ts
 * const { count } = await growBatch(async (n) => timeBatchOf(n), 0.1, 10_000);
 * ```
 */
export async function growBatch(
  batch: (count: number) => Promise<number>,
  seconds: number,
  most: number,
): Promise<{ readonly count: number; readonly seconds: number }> {
  let count = 1;
  let last = await batch(count);
  if (last >= seconds && last < RETIME_BELOW * seconds) last = Math.min(last, await batch(count));
  while (last < seconds && count < most) {
    count = Math.min(most, count * Math.min(100, Math.max(2, Math.ceil(seconds / Math.max(last, 1e-6)))));
    last = await batch(count);
  }
  return { count, seconds: last };
}

/** How many times the batch's target a first launch may last and still be timed again (growBatch). */
const RETIME_BELOW = 5;

/** Median seconds per launch, after one launch to warm up (which pays for lazy compilation). */
export async function timeLaunches(
  prepared: PreparedLaunch,
  probe: DeviceArray,
  options: LaunchTimingOptions = {},
): Promise<number> {
  const { samples = 5, repeat = 1 } = options;
  const bytes = new Uint8Array(Math.min(4, probe.buffer.byteLength));
  await prepared.launchRounds(1);
  await prepared.device.read(probe.buffer, bytes);
  const times: number[] = [];
  for (let s = 0; s < samples; s++) {
    const start = performance.now();
    await prepared.launchRounds(repeat);
    await prepared.device.read(probe.buffer, bytes);
    times.push((performance.now() - start) / repeat / 1000);
  }
  return times.sort((x, y) => x - y)[times.length >> 1]!;
}
