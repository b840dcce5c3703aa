/**
 * What a plan may know of the device it is built for (Reikna's DeviceParameters), from the
 * limits every Loom device states: how large a work-group may be, how much local memory it
 * may use. Library computations size their kernels by these (a transpose's tile, a
 * reduction's work-group), and the kernels they build are checked against the same limits
 * when compiled, so a plan that asks for too much fails with a LoomError, never on the device.
 */
import { targetFacts, type AtomicFetchSupport, type Device, type DType, type SubgroupSupport } from '@loom/core';

/** What a computation's plan may know of its device (Reikna's `device_params`): work-group limits, local memory, warp size. */
export interface DeviceParameters {
  /** The target's name ('opencl', 'wgsl', 'js'), for display: what differs between targets is in `targetFacts(device.target)`. */
  readonly target: string;
  /** Work-items in one work-group. */
  readonly maxWorkGroupSize: number;
  /** Work-items along each axis of a work-group. */
  readonly maxWorkGroupSizes: readonly [number, number, number];
  /** Bytes of local memory one work-group may use. */
  readonly localMemoryBytes: number;
  /**
   * Work-items that run in lockstep (a warp, a subgroup): a size to make work-groups a
   * multiple of. Loom's kernels never rely on lockstep execution (they synchronize with
   * barriers), so this is only a sizing hint, the target's `subgroupSize`: 32 by default,
   * the warp of NVIDIA GPUs and a multiple of most others' subgroups, and 1 where work-items
   * run one after another (the CPU device).
   */
  readonly subgroupSize: number;
  /**
   * Whether the target has subgroup functions, on which dtypes and how wide (`targetFacts`'
   * `subgroups`): a scan's work-group scans its work-items' totals with them where it can.
   */
  readonly subgroups: SubgroupSupport;
  /**
   * The dtypes the target's vector types hold (`float4`, `int4`...), none where it has none
   * (WGSL, JavaScript run `vec` loops lane by lane): a kernel that reads rows as vectors is
   * worth it only where they exist.
   */
  readonly vectorDTypes: readonly DType[];
  /**
   * Whether the target's compilers load a vector at once only from a whole-vector statement
   * (WGSL's Tint and Naga), not from a kernel that moves a vector's lanes one at a time:
   * such kernels are slower there than their scalar forms.
   */
  readonly preferVectorStatements: boolean;
  /**
   * The 32-bit values one work-item's straight-line code may keep live before the target's
   * compilers slow it down (`targetFacts`' `livePrivateValues`); undefined where there is no
   * such limit. `fft` sizes its butterflies by it.
   */
  readonly livePrivateValues?: number;
  /**
   * Whether the device copies global memory into local memory asynchronously, the work-items
   * computing meanwhile (`targetFacts`' `asyncCopies` on work-items that run side by side:
   * CUDA's `cp.async`): a matrix product's panels are best filled that way where it does.
   */
  readonly asyncCopies: boolean;
  /**
   * Whether the target's compilers unroll loops of a constant count themselves (`targetFacts`'
   * `unrollsConstantLoops`; false for WGSL, whose loops NVIDIA's Vulkan driver runs as loops):
   * where they do not, a kernel whose work-items loop over a few elements in local memory has
   * Loom unroll those loops, so that their loads issue together.
   */
  readonly unrollsConstantLoops: boolean;
  /**
   * Of which dtypes the target has atomic fetches (`old = atomicAdd(counter[0], 1)`), or why
   * none (`targetFacts`' `atomicFetches`): with a fence, the last work-group of a launch can tell
   * it is the last, and `reduce` combines its partials in that one launch.
   */
  readonly atomicFetches: AtomicFetchSupport;
  /** Whether the target has a device-wide memory fence (`... gfence`), or why not (`targetFacts`' `globalFences`). */
  readonly globalFences: true | { readonly refused: string };
}

/** The `DeviceParameters` of a device. */
export function deviceParameters(device: Device): DeviceParameters {
  const { limits, target } = device;
  const facts = targetFacts(target);
  return Object.freeze({
    target: target.name,
    maxWorkGroupSize: limits.maxWorkGroupSize,
    maxWorkGroupSizes: limits.maxWorkGroupSizes,
    localMemoryBytes: limits.maxLocalMemoryBytes,
    subgroupSize: facts.subgroupSize,
    subgroups: facts.subgroups,
    vectorDTypes: Object.freeze(facts.vectorTypes ? [...facts.vectorDTypes] : []),
    preferVectorStatements: facts.preferVectorStatements,
    asyncCopies: facts.asyncCopies && !facts.sequentialWorkItems,
    unrollsConstantLoops: facts.unrollsConstantLoops,
    atomicFetches: facts.atomicFetches,
    globalFences: facts.globalFences,
    ...(facts.livePrivateValues === undefined ? {} : { livePrivateValues: facts.livePrivateValues }),
  });
}
