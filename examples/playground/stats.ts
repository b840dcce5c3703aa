/**
 * What a run of a kernel tells beyond its outputs: how long a launch takes on the device
 * (core's `measureKernelSeconds`: one launch to warm up, then the median of five, each
 * launch waited for by reading 4 bytes back), its exact operation and memory access counts
 * (`getOpMap`, `getMemAccessMap`, as `loom stats` prints them), and its place on the
 * device's roofline (`estimateTime`, the profile measured in the page by
 * `measureDeviceProfile`: a copy kernel's bandwidth, multiply-add chains' flop rate).
 * No DOM here: roofline.ts draws the chart.
 */
import {
  estimateTime,
  getMemAccessMap,
  getOpMap,
  measureDeviceProfile,
  measureKernelSeconds,
  type Device,
  type DeviceProfile,
  type LoopKernel,
  type TimeEstimate,
} from '@loom/core';

/** What the statistics panel shows; the numbers are at the run's value arguments. */
export interface KernelStatistics {
  /** Seconds per launch measured on the device. */
  readonly seconds: number;
  /** What was measured, in words. */
  readonly measuredHow: string;
  readonly device: string;
  readonly flops: number;
  readonly bytes: number;
  /** flop per byte; Infinity for a kernel that moves nothing. */
  readonly intensity: number;
  readonly estimate: TimeEstimate;
  readonly profile: DeviceProfile;
  /** The maps, symbolic in the parameters (per sub-group of 32 where they count by sub-group). */
  readonly opMap: string;
  readonly memAccessMap: string;
}

/**
 * Small measurements: the page must answer in seconds, also on a GPU in software. The
 * profile is measured once per device (measureDeviceProfile keeps it).
 */
const PROFILE_OPTIONS = { minSeconds: 0.002, maxBytes: 4 << 20 };

export async function kernelStatistics(
  kernel: LoopKernel,
  device: Device,
  params: Readonly<Record<string, number>>,
): Promise<KernelStatistics> {
  const seconds = await measureKernelSeconds(kernel, device, params);
  const profile = await measureDeviceProfile(device, PROFILE_OPTIONS);
  const estimate = estimateTime(kernel, profile, params);
  return {
    seconds,
    measuredHow:
      'wall-clock time per launch: one launch to warm up, then the median of 5 launches (inputs already on the device, each launch waited for)',
    device: device.name,
    flops: estimate.flops,
    bytes: estimate.bytes,
    intensity: estimate.arithmeticIntensity,
    estimate,
    profile,
    opMap: getOpMap(kernel, { subgroupSize: 32 }).toString() || '(no operations)',
    memAccessMap: getMemAccessMap(kernel, { subgroupSize: 32 }).toString() || '(no memory accesses)',
  };
}

/** A number in 4 significant digits, with an SI prefix: 1.234 G. */
export function si(value: number, unit: string): string {
  if (!Number.isFinite(value)) return `${value} ${unit}`;
  const prefixes = ['', 'k', 'M', 'G', 'T', 'P'];
  let k = 0;
  let v = value;
  while (Math.abs(v) >= 1000 && k < prefixes.length - 1) {
    v /= 1000;
    k++;
  }
  return `${Number(v.toPrecision(4))} ${prefixes[k]}${unit}`;
}

/** Seconds as ms or µs. */
export function duration(seconds: number): string {
  return seconds >= 1e-3
    ? `${Number((seconds * 1e3).toPrecision(4))} ms`
    : `${Number((seconds * 1e6).toPrecision(4))} µs`;
}
