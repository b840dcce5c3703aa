/**
 * `fft(arr, { axes })`: the discrete Fourier transform over `axes` of an array of complex
 * numbers, batched over the others (Reikna's FFT; `numpy.fft.fftn`). The compiled
 * computation takes `(output, input, inverse)`: `inverse` non-zero computes the inverse
 * transform, divided by the number of points (`ifft(fft(x)) = x`). `output` and `input` may
 * be the same array.
 *
 * One axis at a time, the last first. Along an axis of N points:
 *
 *   N = 1          nothing to do (an axis of one point is its own transform)
 *   N smooth       (prime factors 2, 3, 5, 7) stage kernels (stages.ts): N = R1 ... Rm, each
 *                  stage a pass of radix Ri over global memory whose Ri-point DFTs are done
 *                  in local memory (stage-kernel.ts), the fewest stages local memory allows
 *   otherwise      Bluestein's algorithm (bluestein.ts): two smooth transforms, its chirp and
 *                  filter products fused into their first loads and last stores
 *
 * A chain of stages reads its source only in its first kernel and writes its destination
 * only in its last, through temporaries between: in place is safe. The inverse is the
 * conjugate of the forward transform of the conjugate, scaled: the first kernel of the whole
 * computation conjugates what it loads and the last conjugates and scales what it stores,
 * when `inverse` is set, so every kernel between is the same for both directions. A
 * transform with nothing to do still copies (attached transformations run).
 */
import { checkOptionKeys, LoomError, optionKeys, type DType } from '@loom/core';
import { computation, type Computation } from '../../computation/computation.ts';
import type { DeviceParameters } from '../../computation/device-parameters.ts';
import type { ComputationPlan, KernelArgument, PlanArray, PlanValue } from '../../computation/plan.ts';
import { spreadOverGrid } from '../parallel.ts';
import { bluesteinHooks } from './bluestein.ts';
import { partDtype, withAxisSize, type AxisLayout, type Direction } from './layout.ts';
import { bluesteinSize, smoothFactors } from './radices.ts';
import { hookTables, stageKernel, type StageHooks } from './stage-kernel.ts';
import { planAxis } from './stages.ts';
import { bluesteinFilter, chirp, stageTable, tableOfStage } from './twiddles.ts';
import { globalArg, makeKernel, type LoopKernel } from '@loom/core';

type Params<D extends DType> = readonly [
  { readonly name: 'output'; readonly dtype: D; readonly shape: readonly number[]; readonly role: 'o' },
  { readonly name: 'input'; readonly dtype: D; readonly shape: readonly number[]; readonly role: 'i' },
  { readonly name: 'inverse'; readonly dtype: 'int32'; readonly role: 's' },
];

/** Options of `fft`. */
export interface FFTOptions {
  /** The axes transformed (default: all), as numpy.fft.fftn's; negative counts from the end. */
  readonly axes?: readonly number[];
}

const FFT_OPTIONS = optionKeys<FFTOptions>()(['axes']);

/**
 * The FFT of a complex array over `axes` (Reikna's `FFT`): the compiled computation takes
 * `(output, input, inverse)`, the inverse normalized by 1/N.
 *
 *   const f = await fft({ dtype: 'complex64', shape: [8, 1024] }, { axes: [1] }).compile(device);
 *   const { output } = await f(undefined, data, 0);   // data: Float32Array of 2 * 8 * 1024 parts
 */
export function fft<D extends DType>(
  arr: { readonly dtype: D; readonly shape: readonly number[] },
  options: FFTOptions = {},
): Computation<Params<D>> {
  checkOptionKeys('fft', options, FFT_OPTIONS);
  const { dtype, shape } = arr;
  partDtype(dtype, 'the FFT computation');
  const r = shape.length;
  const axes = (options.axes ?? shape.map((_, k) => k)).map((a) => (a < 0 ? a + r : a));
  if (axes.some((a) => !Number.isInteger(a) || a < 0 || a >= r))
    throw new LoomError(`fft: axes (${(options.axes ?? []).join(', ')}) are out of bounds for rank ${r}`);
  if (new Set(axes).size !== axes.length) throw new LoomError('fft: an axis is transformed twice');
  const work = [...axes].sort((a, b) => b - a).filter((a) => shape[a] > 1);
  const total = work.reduce((p, a) => p * shape[a], 1);
  return computation<Params<D>>({
    name: 'fft',
    params: [
      { name: 'output', dtype, shape, role: 'o' },
      { name: 'input', dtype, shape, role: 'i' },
      { name: 'inverse', dtype: 'int32', role: 's' },
    ],
    buildPlan(plan, device, output, input, inverse) {
      if (work.length === 0) {
        plan.kernelCall(copyKernel(dtype, shape, device), { dst: output, src: input });
        return;
      }
      // between axes, the transform so far goes through temporaries: only the last kernel writes the output
      const between = work.length > 1 ? [plan.tempArrayLike(output), plan.tempArrayLike(output)] : [];
      let from: PlanArray = input;
      work.forEach((axis, k) => {
        const last = k === work.length - 1;
        const to = last ? output : between[k % 2];
        const direction: Direction = { conjugateIn: k === 0, scaleOut: last ? total : 0 };
        new Chain(plan, device, dtype, inverse).axis({ shape, axis }, from, to, direction);
        from = to;
      });
    },
  });
}

/** The kernel calls of one axis's transform, added to a plan. */
class Chain {
  constructor(
    readonly plan: ComputationPlan,
    readonly device: DeviceParameters,
    readonly dtype: DType,
    readonly inverse: KernelArgument,
  ) {}

  /** The transform along `layout.axis` of `src` into `dst` (may be the same array). */
  axis(layout: AxisLayout, src: PlanArray, dst: PlanArray, direction: Direction): void {
    const n = layout.shape[layout.axis];
    if (smoothFactors(n)) {
      this.passes(layout, src, dst, direction);
      return;
    }
    const m = bluesteinSize(n);
    const padded = withAxisSize(layout, m);
    const { plan, dtype } = this;
    const tables = {
      chirp: plan.persistentArray(chirp(n, dtype), [n], dtype),
      filter: plan.persistentArray(bluesteinFilter(n, m, dtype), [m], dtype),
    };
    const hooks = bluesteinHooks(dtype, layout, padded, direction);
    const between = plan.tempArray(dtype, padded.shape);
    this.passes(padded, src, between, { conjugateIn: direction.conjugateIn, scaleOut: 0 }, tables, {
      load: hooks.pad,
      store: hooks.filter,
    });
    this.passes(padded, between, dst, { conjugateIn: false, scaleOut: direction.scaleOut }, tables, {
      store: hooks.unpad,
    });
  }

  /**
   * A smooth transform: a stage kernel per stage, through temporaries between (stages.ts);
   * `hooks` replace the first stage's load and the last's store, reading `tables`.
   */
  private passes(
    layout: AxisLayout,
    src: PlanArray,
    dst: PlanArray,
    direction: Direction,
    tables: Readonly<Record<string, PlanValue>> = {},
    hooks: StageHooks = {},
  ): void {
    const { plan, dtype, device } = this;
    const stages = planAxis(dtype, layout, device);
    const temps = stages.length > 1 ? [plan.tempArray(dtype, layout.shape), plan.tempArray(dtype, layout.shape)] : [];
    let from = src;
    stages.forEach((stage, k) => {
      const last = k === stages.length - 1;
      const to = last ? dst : temps[k % 2];
      const d: Direction = {
        conjugateIn: k === 0 && direction.conjugateIn,
        scaleOut: last ? direction.scaleOut : 0,
      };
      const own: StageHooks = { load: k === 0 ? hooks.load : undefined, store: last ? hooks.store : undefined };
      const table = tableOfStage(stage);
      const bindings: Record<string, PlanValue> = { src: from, dst: to };
      if (table.size) bindings.tw = plan.persistentArray(stageTable(table, dtype), [table.size], dtype);
      for (const t of hookTables(own)) bindings[t.name] = tables[t.name];
      this.call(stageKernel(dtype, layout, stage, d, own), bindings);
      from = to;
    });
  }

  private call(kernel: LoopKernel, bindings: Record<string, PlanValue>): void {
    const takes = kernel.args.some((a) => a.name === 'inverse');
    this.plan.kernelCall(kernel, takes ? { ...bindings, inverse: this.inverse } : bindings);
  }
}

/** A transform with nothing to transform: the input copied (its attached transformations run). */
function copyKernel(dtype: DType, shape: readonly number[], device: DeviceParameters): LoopKernel {
  const idx = shape.map((_, k) => `i${k}`);
  const domain = idx.length
    ? `{ [${idx.join(', ')}]: ${idx.map((i, k) => `0 <= ${i} < ${shape[k]}`).join(' and ')} }`
    : '{ [i0]: 0 <= i0 < 1 }';
  const at = idx.length ? `[${idx.join(', ')}]` : '';
  const knl = makeKernel(
    domain,
    `dst${at} = src${at}`,
    [globalArg('src', { dtype, shape }), globalArg('dst', { dtype, shape })],
    { name: 'fft_copy' },
  );
  return spreadOverGrid(knl, idx, shape, device);
}
