/**
 * `estimateTime(knl, profile, params)`: a roofline prediction of how long a kernel runs on
 * a device, from its exact counts and the device's profile (profile.ts measures one):
 *
 *   time = launches × launch overhead + max(flops / flop rate, bytes / bandwidth)
 *
 *  - flops: the floating-point operations every work-item performs (as getOpMap names
 *    them: add, mul, div, pow, function calls; a multiply-add is two), redundant work
 *    included (the hardware does it);
 *  - bytes: the global memory the kernel must move, each element of each array read or
 *    written once (its footprint: what caches cannot save), or, when a footprint cannot be
 *    counted (an index that is not affine), every global access (an upper bound);
 *  - the arithmetic intensity flops/bytes says which roof bounds the kernel: below the
 *    device's flop rate / bandwidth, memory; above it, compute.
 */
import { byteSize, isFloat } from '../dtypes.ts';
import { LoomError } from '../errors.ts';
import type { LoopKernel } from '../kernel/model.ts';
import type { ParamValues } from '../sets/pw-qpolynomial.ts';
import { footprintsOf } from './footprints.ts';
import type { GuardedPwQPolynomial } from './guarded.ts';
import { InstructionCounts } from './instruction-counts.ts';
import { countedInstructions, expressionTyper } from './kernel-view.ts';
import { linearizedForCounting } from './linearized.ts';
import { accessesOf } from './mem-access-map.ts';
import { operationsOf } from './op-map.ts';
import { syncMapOf } from './sync-map.ts';

/** What a device does per second, measured (`measureDeviceProfile`) or written down. */
export interface DeviceProfile {
  /** The device's name. */
  readonly device: string;
  /** Bytes per second between global memory and the cores (a copy kernel's rate, read + write). */
  readonly bandwidth: number;
  /** float32 operations per second (chains of multiply-adds, two operations each). */
  readonly flopRate: number;
  /** Seconds a launch of a kernel that does nothing takes, waited for. */
  readonly launchOverhead: number;
}

/** What `estimateTime` predicts, and from what: flops, bytes, the roof the kernel sits under. */
export interface TimeEstimate {
  /** The kernel's name. */
  readonly kernel: string;
  /** The prediction. */
  readonly seconds: number;
  /** `flops` at the profile's flop rate. */
  readonly computeSeconds: number;
  /** `bytes` at the profile's bandwidth. */
  readonly memorySeconds: number;
  /** `launches` times the profile's launch overhead. */
  readonly launchSeconds: number;
  /** Floating-point operations, over every work-item. */
  readonly flops: number;
  /** Bytes moved to and from global memory. */
  readonly bytes: number;
  /** flops per byte (Infinity for a kernel that moves nothing). */
  readonly arithmeticIntensity: number;
  /** The roof the kernel sits under. */
  readonly bound: 'memory' | 'compute';
  /** Kernel launches (more than 1 where global barriers split the kernel). */
  readonly launches: number;
  /** How the bytes were counted: each element once (`footprint`), or each access (`accesses`). */
  readonly traffic: 'footprint' | 'accesses';
}

/** The work of a kernel at given parameter values: what the roofline weighs. */
export interface KernelWork {
  /** Floating-point operations, over every work-item. */
  readonly flops: number;
  /** Bytes moved to and from global memory. */
  readonly bytes: number;
  /** Kernel launches (more than 1 where global barriers split the kernel). */
  readonly launches: number;
  /** How the bytes were counted: each element once (`footprint`), or each access (`accesses`, where a footprint cannot be counted). */
  readonly traffic: 'footprint' | 'accesses';
}

/** Predicts a kernel's time on a device from its counts and the device's measured profile (a roofline model). */
export function estimateTime(knl: LoopKernel, profile: DeviceProfile, params: ParamValues = {}): TimeEstimate {
  for (const [what, v] of [
    ['bandwidth', profile.bandwidth],
    ['flopRate', profile.flopRate],
  ] as const) {
    if (!(v > 0) || !Number.isFinite(v))
      throw new LoomError(
        `estimateTime: the profile of '${profile.device}' has ${what} ${v}; it must be a positive number`,
      );
  }
  const work = kernelWork(knl, params);
  const computeSeconds = work.flops / profile.flopRate;
  const memorySeconds = work.bytes / profile.bandwidth;
  const launchSeconds = work.launches * Math.max(0, profile.launchOverhead);
  return {
    kernel: knl.name,
    seconds: launchSeconds + Math.max(computeSeconds, memorySeconds),
    computeSeconds,
    memorySeconds,
    launchSeconds,
    ...work,
    arithmeticIntensity: work.bytes === 0 ? Infinity : work.flops / work.bytes,
    bound: computeSeconds > memorySeconds ? 'compute' : 'memory',
  };
}

/** Floating-point operations, global bytes and launches of a kernel at these parameter values. */
export function kernelWork(knl: LoopKernel, params: ParamValues = {}): KernelWork {
  const split = linearizedForCounting(knl);
  const kernel = split.kernel;
  const counts = new InstructionCounts(kernel, { countRedundantWork: true }, 'estimateTime');
  const value = (count: GuardedPwQPolynomial) => {
    const r = count.evaluate(params);
    return Number(r.num) / Number(r.den);
  };
  const typeOf = expressionTyper(kernel);
  const insns = countedInstructions(kernel, undefined);
  let flops = 0;
  for (const insn of insns) {
    const perRun = operationsOf(insn, typeOf, true)
      .filter((o) => isFloat(o.dtype))
      .reduce((n, o) => n + o.times, 0);
    if (perRun > 0) flops += perRun * value(counts.runs(insn, 'workitem'));
  }
  const launches = value(syncMapOf(split, counts).filterBy({ kind: 'kernel_launch' }).sum());
  const global = (name: string) =>
    kernel.arg(name) !== undefined
      ? kernel.arg(name)!.kind !== 'value'
      : kernel.temporaries.get(name)?.addressSpace === 'global';
  const dtypeOf = (name: string) => kernel.arg(name)?.dtype ?? kernel.temporaries.get(name)?.dtype;
  try {
    let bytes = 0;
    for (const fp of footprintsOf(kernel, {}).values()) {
      if (global(fp.variable)) bytes += byteSize(dtypeOf(fp.variable)!) * value(counts.guard(fp.count()));
    }
    return { flops, bytes, launches, traffic: 'footprint' };
  } catch (e) {
    if (!(e instanceof LoomError)) throw e;
  }
  // a footprint Loom cannot count: every global access, each once per work-item that makes it
  let bytes = 0;
  for (const insn of insns) {
    const perRun = accessesOf(kernel, insn, typeOf)
      .filter((a) => a.mtype === 'global')
      .reduce((n, a) => n + byteSize(a.dtype!), 0);
    if (perRun > 0) bytes += perRun * value(counts.runs(insn, 'workitem'));
  }
  return { flops, bytes, launches, traffic: 'accesses' };
}
