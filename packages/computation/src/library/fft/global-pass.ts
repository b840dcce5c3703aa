/**
 * One pass of a transform over global memory (Reikna's "global" kernels): a kernel per
 * radix. Work-item j of a row takes the R elements j + r N/R (neighbours read neighbours),
 * multiplies them by the twiddles of its position within the sub-transforms done so far (Ns
 * points: exp(-2 pi i r (j mod Ns) / (Ns R))), takes their DFT and writes output s at
 * (j div Ns) Ns R + (j mod Ns) + s Ns (Stockham's auto-sort: no bit reversal anywhere).
 *
 * The batch axes and j are spread over the grid as any elementwise kernel (the innermost axis
 * on work-group axis 0): a transform along an axis that is not the last reads whole rows of
 * the axes after it at each step, coalesced.
 */
import { globalArg, makeKernel, valueArg, type DType, type LoopKernel } from '@loom/core';
import type { DeviceParameters } from '../../computation/device-parameters.ts';
import { spreadOverGrid } from '../parallel.ts';
import { butterfly } from './butterfly.ts';
import {
  batchAxes,
  batchBounds,
  batchIname,
  element,
  loaded,
  stored,
  takesInverse,
  type AxisLayout,
  type Direction,
} from './layout.ts';

/** One Stockham pass: radix `radix` after sub-transforms of `ns` points, on a transform of `shape[axis]` points. */
export interface PassShape {
  readonly radix: number;
  readonly ns: number;
}

/**
 * The instructions of one pass for butterfly `j` (an expression): loads from `load(k)`, the
 * twiddles from `tw`, stores through `store(k, value)` (ids `${prefix}store${s}`); names
 * prefixed by `prefix`. The loads wait for the instructions `after` names (a pass's stores to
 * local memory, read by the next: several writers, so no dependency is inferred).
 */
export function passLines(
  n: number,
  pass: PassShape,
  ctype: string,
  prefix: string,
  inames: string,
  j: string,
  load: (k: string) => string,
  store: (k: string, value: string) => string,
  after?: string,
): string[] {
  const { radix: r, ns } = pass;
  const count = n / r;
  const lines: string[] = [];
  const xs = Array.from({ length: r }, (_, q) => {
    const k = q === 0 ? j : `${j} + ${q * count}`;
    const name = `${prefix}x${q}`;
    const twiddled = q === 0 || ns === 1 ? load(k) : `${load(k)} * tw[(${j} % ${ns}) * ${(q * n) / (ns * r)}]`;
    lines.push(`<${ctype}> ${name} = ${twiddled} {inames=${inames}${after ? `, dep=${after}` : ''}}`);
    return name;
  });
  const b = butterfly(xs, `${prefix}y`, ctype, inames);
  lines.push(...b.lines);
  const base = ns === 1 ? `${j} * ${r}` : `(${j} // ${ns}) * ${ns * r} + ${j} % ${ns}`;
  b.outputs.forEach((y, s) => {
    lines.push(`${store(s === 0 ? base : `${base} + ${s * ns}`, y)} {id=${prefix}store${s}, inames=${inames}}`);
  });
  return lines;
}

/** A kernel of one global pass: `src` into `dst` (both of the layout's shape), the twiddles in `tw` (n points). */
export function globalPass(
  dtype: DType,
  layout: AxisLayout,
  pass: PassShape,
  direction: Direction,
  device: DeviceParameters,
): LoopKernel {
  const n = layout.shape[layout.axis];
  const count = n / pass.radix;
  const batch = batchAxes(layout);
  const all = [...batch.map(batchIname), 'j'];
  const inames = all.join(':');
  const domain = `{ [${all.join(', ')}]: ${[...batchBounds(layout), `0 <= j < ${count}`].join(' and ')} }`;
  const ctype = dtype;
  const load = (k: string) => {
    return direction.conjugateIn ? loaded(element('src', layout, k), direction) : element('src', layout, k);
  };
  const store = (k: string, value: string) => `${element('dst', layout, k)} = ${stored(value, direction)}`;
  const lines = passLines(n, pass, ctype, 'p', inames, 'j', load, store);
  const knl = makeKernel(
    domain,
    lines.join('\n'),
    [
      globalArg('src', { dtype, shape: layout.shape }),
      globalArg('dst', { dtype, shape: layout.shape }),
      ...(pass.ns > 1 ? [globalArg('tw', { dtype, shape: [n] })] : []),
      ...(takesInverse(direction) ? [valueArg('inverse', 'int32')] : []),
    ],
    { name: `fft_pass_${pass.radix}` },
  );
  // the grid in the array's order, j in the transformed axis's place
  const order = layout.shape.map((_, m) => (m === layout.axis ? 'j' : batchIname(m)));
  const extents = layout.shape.map((s, m) => (m === layout.axis ? count : s));
  return spreadOverGrid(knl, order, extents, device);
}
