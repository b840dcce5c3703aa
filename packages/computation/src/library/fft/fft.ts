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
 *   N smooth       (prime factors 2, 3, 5, 7) Stockham passes, one per radix (radices.ts):
 *                  all in one kernel through local memory when the rows are contiguous and
 *                  fit a work-group (local-kernel.ts), else a kernel per pass (global-pass.ts)
 *   otherwise      Bluestein's algorithm (bluestein.ts) around two smooth transforms
 *
 * A chain of passes reads its source only in its first kernel and writes its destination
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
import { bluesteinStep } from './bluestein.ts';
import { globalPass } from './global-pass.ts';
import { FORWARD_ONLY, partDtype, withAxisSize, type AxisLayout, type Direction } from './layout.ts';
import { localKernel, localShape } from './local-kernel.ts';
import { bluesteinSize, passRadices, smoothFactors } from './radices.ts';
import { bluesteinFilter, chirp, twiddles } from './twiddles.ts';
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
    const chirpTable = plan.persistentArray(chirp(n, dtype), [n], dtype);
    const filter = plan.persistentArray(bluesteinFilter(n, m, dtype), [m], dtype);
    // two arrays in turn, never one kernel's source and destination (no aliasing to prove safe)
    const [u, v] = [plan.tempArray(dtype, padded.shape), plan.tempArray(dtype, padded.shape)];
    const step = (s: 'pad' | 'filter' | 'unpad', d: Direction) =>
      bluesteinStep(s, dtype, layout, padded, d, this.device);
    this.call(step('pad', direction), { src, dst: u, table: chirpTable });
    this.passes(padded, u, v, FORWARD_ONLY);
    this.call(step('filter', FORWARD_ONLY), { src: v, dst: u, table: filter });
    this.passes(padded, u, v, FORWARD_ONLY);
    this.call(step('unpad', direction), { src: v, dst, table: chirpTable });
  }

  /** A smooth transform: one local kernel, or a global kernel per pass through temporaries. */
  private passes(layout: AxisLayout, src: PlanArray, dst: PlanArray, direction: Direction): void {
    const { plan, dtype, device } = this;
    const n = layout.shape[layout.axis];
    const radices = passRadices(n);
    const tw = radices.length > 1 ? plan.persistentArray(twiddles(n, dtype), [n], dtype) : undefined;
    const local = localShape(dtype, layout, radices, device);
    if (local) {
      this.call(localKernel(dtype, layout, radices, local, direction), { src, dst, ...(tw ? { tw } : {}) });
      return;
    }
    const temps = [plan.tempArray(dtype, layout.shape), plan.tempArray(dtype, layout.shape)];
    let from = src;
    let ns = 1;
    radices.forEach((radix, p) => {
      const last = p === radices.length - 1;
      const to = last ? dst : temps[p % 2];
      const d: Direction = {
        conjugateIn: p === 0 && direction.conjugateIn,
        scaleOut: last ? direction.scaleOut : 0,
      };
      this.call(globalPass(dtype, layout, { radix, ns }, d, device), {
        src: from,
        dst: to,
        ...(ns > 1 ? { tw: tw! } : {}),
      });
      from = to;
      ns *= radix;
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
