/**
 * Whether a device must be kept busy before it is timed. A GPU lowers its clocks within about a
 * second of idling and raises them over seconds of load (`Device.warmUpSeconds`), so a timing
 * taken after a compile can run at a fraction of its speed: the H200 idled at 345 MHz and took
 * 2.8 s of launches to reach 1710-1980 MHz. Every timer (`timeLaunchStream`, the benchmarks')
 * asks here how long to warm a device up and says when it has timed one.
 */
import type { Device } from './device.ts';

/** What a GPU device states as its `warmUpSeconds`: how long its clocks take to rise from idle (2.8 s on the H200). */
export const GPU_WARM_UP_SECONDS = 3;

/**
 * Milliseconds of idling after which a device's clocks may have fallen: the H200 held them about
 * 1.7 s after a timing, so timings closer together than this (the autotuner's) need no warm-up.
 */
const IDLE_GRACE_MS = 1000;

/** When each device's last timing ended (performance.now()): what it ran since is unknown. */
const lastTimed = new WeakMap<object, number>();

/**
 * Seconds `device` should be kept busy before it is timed: its `warmUpSeconds`, or 0 where it
 * has none or a timing ended on it within the last second.
 * ```ts
 * const seconds = warmUpDue(device); // 3 on an idle GPU, 0 on a CPU
 * ```
 */
export function warmUpDue(device: Pick<Device, 'warmUpSeconds'>): number {
  const seconds = device.warmUpSeconds ?? 0;
  const last = lastTimed.get(device);
  return seconds > 0 && (last === undefined || performance.now() - last >= IDLE_GRACE_MS) ? seconds : 0;
}

/** Notes that a timing on `device` has just ended (its clocks are up for about a second more). */
export function noteTimed(device: Pick<Device, 'warmUpSeconds'>): void {
  lastTimed.set(device, performance.now());
}
