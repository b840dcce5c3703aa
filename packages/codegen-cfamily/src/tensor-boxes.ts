/**
 * The boxes of bulk copies (bulk-copies.ts): from the copies a nest makes in one step, the axes of
 * the box they fill (each a stride in the global array and a count, the first contiguous) as the
 * mixed-radix digits of the tile's local index; the axes as chains along the global array (a digit
 * of an axis that another continues, or the top of a line), which give the tensor map its extents;
 * and the box's start along each axis, proven to keep the box within each line but the outermost.
 */
import { expr as E, LoomError, type Expr, type KernelFunction } from '@loom/core';
import type { BulkCopySpelling } from './bulk-copies.ts';

/** An integer's range, where known. */
export type Range = readonly [number, number] | undefined;

/** A term of an index: `coeff * atom` (a variable, a division, a work-item id...). */
export interface Term {
  readonly coeff: number;
  readonly atom: Expr;
}

/** The work-group id a step's part reads (`gid(0)`). */
export const GROUP = 'gid';

/** A box axis: its stride in the global array's elements and its elements. */
export interface BoxAxis {
  readonly stride: number;
  readonly box: number;
}

/**
 * The axes of the box the copies fill: their local indices must be 0..N-1, each once, and the
 * global index of local index L the sum of L's mixed-radix digits times the axes' strides.
 */
export function boxAxes(
  copies: readonly { local: number; global: number }[],
  elementBytes: number,
  spelling: BulkCopySpelling,
  where: string,
): { axes: BoxAxis[]; localFirst: number; globalFirst: number } {
  const n = copies.length;
  const first = Math.min(...copies.map((c) => c.local));
  const global = new Array<number | undefined>(n).fill(undefined);
  for (const c of copies) {
    const l = c.local - first;
    if (l >= n)
      throw new LoomError(
        `${where}: the copies of a step leave holes in the tile (they fill ${n} elements up to ${c.local}, from ${first}); a bulk copy fills a whole tile, each element once`,
      );
    if (global[l] !== undefined)
      throw new LoomError(`${where}: element ${c.local} of the tile is copied twice at a step`);
    global[l] = c.global;
  }
  const g = global as number[];
  const base = g[0];
  const axes: BoxAxis[] = [];
  for (let run = 1; run < n; ) {
    const stride = g[run] - base;
    let size = 2;
    while (size * run < n && g[size * run] - base === size * stride) size++;
    if (n % (size * run) !== 0)
      throw new LoomError(`${where}: the tile's ${n} elements do not split into a box (a run of ${size * run})`);
    axes.push({ stride, box: size });
    run *= size;
  }
  if (n === 1) axes.push({ stride: 1, box: 1 });
  // every element where its digits put it
  for (let l = 0; l < n; l++) {
    let rest = l;
    let at = base;
    for (const a of axes) {
      at += (rest % a.box) * a.stride;
      rest = Math.floor(rest / a.box);
    }
    if (g[l] !== at)
      throw new LoomError(
        `${where}: element ${l} of the tile is copied from ${g[l] - base} elements past the box's start, where a box laid out as the tile is would hold element ${at - base}; lay the tile out as the box it copies`,
      );
  }
  // neighbouring axes that continue each other are one
  const merged: BoxAxis[] = [];
  for (const a of axes) {
    const last = merged[merged.length - 1];
    if (last && a.stride === last.stride * last.box)
      merged[merged.length - 1] = { stride: last.stride, box: last.box * a.box };
    else merged.push(a);
  }
  const refuse = (why: string): never => {
    throw new LoomError(
      `${where}: the tile is a box of ${merged.map((a) => `${a.box} elements ${a.stride} apart`).join(', ')}, but ${why}`,
    );
  };
  if (merged[0].stride !== 1) refuse('its first axis is not contiguous in the global array');
  if (merged.length > spelling.maxRank) refuse(`a tensor map has at most ${spelling.maxRank} axes`);
  if (merged.some((a) => a.box > spelling.maxBox))
    refuse(`a box has at most ${spelling.maxBox} elements along an axis`);
  if ((merged[0].box * elementBytes) % spelling.strideBytes !== 0)
    refuse(`its contiguous runs must be multiples of ${spelling.strideBytes} bytes`);
  if (merged.some((a, i) => i > 0 && ((a.stride * elementBytes) % spelling.strideBytes !== 0 || a.stride <= 0)))
    refuse(`its strides must be positive multiples of ${spelling.strideBytes} bytes`);
  return { axes: merged, localFirst: first, globalFirst: base };
}

/**
 * The box's axes as chains along the global array: an axis that another continues (its stride
 * times its elements is the other's stride) is a digit of that axis, its whole extent in the box;
 * the top of a chain spans up to the next chain's first stride; the last chain's top, the array.
 */
export interface Chains {
  /** Each axis's extent in the tensor map (undefined: the array's rest, at launch). */
  readonly extents: readonly (number | undefined)[];
  /** The chains, lowest stride first: their axes (lowest first) and the next chain's first stride. */
  readonly list: readonly { readonly axes: readonly number[]; readonly next: number | undefined }[];
}

export function chainsOf(axes: readonly BoxAxis[], where: string): Chains {
  const continues = (i: number) => axes.findIndex((b) => b.stride === axes[i].stride * axes[i].box);
  const starts = axes.map((_, i) => i).filter((i) => !axes.some((b) => b.stride * b.box === axes[i].stride));
  const list = starts
    .map((first) => {
      const chain = [first];
      for (let j = continues(first); j >= 0; j = continues(j)) chain.push(j);
      return chain;
    })
    .sort((x, y) => axes[x[0]].stride - axes[y[0]].stride)
    .map((chain, i, all) => ({ axes: chain, next: i + 1 < all.length ? axes[all[i + 1][0]].stride : undefined }));
  const extents = axes.map((a, i): number | undefined => {
    if (continues(i) >= 0) return a.box;
    const chain = list.find((c) => c.axes.includes(i))!;
    if (chain.next === undefined) return undefined;
    if (chain.next % a.stride !== 0 || chain.next / a.stride < a.box)
      throw new LoomError(
        `${where}: the tile's axis of ${a.box} elements ${a.stride} apart runs into the next (${chain.next} apart), which no tensor map can view`,
      );
    return chain.next / a.stride;
  });
  return { extents, list };
}

/**
 * `e` as a constant plus terms `coeff * atom`, through sums, differences, negations and products by
 * constants: an atom is whatever else the sum holds (a variable, a work-item id, a division).
 */
export function sumTerms(e: Expr): { constant: number; terms: Term[] } {
  const terms: Term[] = [];
  let constant = 0;
  const collect = (x: Expr, scale: number): void => {
    if (x.kind === 'int') constant += scale * x.value;
    else if (x.kind === 'neg') collect(x.operand, -scale);
    else if (x.kind === 'binary' && (x.op === '+' || x.op === '-')) {
      collect(x.left, scale);
      collect(x.right, x.op === '+' ? scale : -scale);
    } else if (x.kind === 'binary' && x.op === '*' && x.left.kind === 'int') collect(x.right, scale * x.left.value);
    else if (x.kind === 'binary' && x.op === '*' && x.right.kind === 'int') collect(x.left, scale * x.right.value);
    else terms.push({ coeff: scale, atom: x });
  };
  collect(e, 1);
  return { constant, terms };
}

/** The coefficients and constant of a sum whose atoms are variables and ids (the step's loops and groups); undefined otherwise. */
export function linearTerms(e: Expr): { constant: number; terms: Term[] } | undefined {
  const sum = sumTerms(e);
  return sum.terms.every((t) => t.atom.kind === 'var' || t.atom.kind === 'call') ? sum : undefined;
}

/**
 * The box's start along each axis of the map, from the step's part of the global index: each
 * chain's digits below its top start at 0, its top at the step's part of that chain over the top's
 * stride, proven to leave the box within the chain's extent (but for the outermost chain's).
 */
export function startCoordinates(
  start: Expr,
  chains: Chains,
  axes: readonly BoxAxis[],
  ranges: ReadonlyMap<string, Range>,
  k: KernelFunction,
  where: string,
): Expr[] {
  const linear = linearTerms(start);
  const tops = chains.list.map((c) => c.axes[c.axes.length - 1]);
  // the step's part, chain by chain: a term belongs to the highest chain whose first stride divides it
  const parts = chains.list.map(() => ({ low: 0, high: 0, known: true }));
  const chainOf = (coeff: number) => {
    let c = 0;
    for (let i = 0; i < chains.list.length; i++) if (coeff % axes[chains.list[i].axes[0]].stride === 0) c = i;
    return c;
  };
  const refuse = (why: string): never => {
    throw new LoomError(`${where}: the box starts at global element ${E.printExpr(start)}, ${why}`);
  };
  if (!linear) refuse('which is not a sum of multiples of the loops and work-group ids');
  let rest = linear!.constant;
  for (let c = chains.list.length - 1; c >= 0; c--) {
    const first = axes[chains.list[c].axes[0]].stride;
    const part = rest - (((rest % first) + first) % first);
    parts[c].low += part;
    parts[c].high += part;
    rest -= part;
  }
  for (const t of linear!.terms) {
    const c = chainOf(t.coeff);
    const top = axes[tops[c]].stride;
    if (t.coeff % top !== 0)
      refuse(
        `whose term ${E.printExpr(E.mul(E.int(t.coeff), t.atom))} does not move by whole steps of the box's axis of stride ${top}`,
      );
    const range = rangeOf(t.atom, ranges, k);
    if (!range) parts[c].known = false;
    else {
      const [lo, hi] = [t.coeff * range[0], t.coeff * range[1]].sort((x, y) => x - y);
      parts[c].low += lo;
      parts[c].high += hi;
    }
  }
  for (let c = 0; c < chains.list.length; c++) {
    const top = axes[tops[c]];
    if (parts[c].low % top.stride !== 0) refuse(`which is no whole step of the box's axis of stride ${top.stride}`);
    const next = chains.list[c].next;
    if (next === undefined) continue;
    if (!parts[c].known)
      refuse(`which moves along an axis of stride ${top.stride} by an amount not known before launch`);
    if (parts[c].low < 0 || parts[c].high + top.box * top.stride > next)
      refuse(
        `which puts the box's axis of stride ${top.stride} at ${parts[c].low / top.stride} to ${parts[c].high / top.stride} of ${next / top.stride}: the box would cross into the next line`,
      );
  }
  return axes.map((a, i) => {
    const c = tops.indexOf(i);
    if (c < 0) return E.int(0);
    const next = chains.list[c].next;
    const within = next === undefined ? start : E.binary('%', start, E.int(next));
    return a.stride === 1 ? within : E.binary('//', within, E.int(a.stride));
  });
}

/** The range of a step's atom: a loop with constant bounds, or a work-group id of a constant grid. */
function rangeOf(atom: Expr, ranges: ReadonlyMap<string, Range>, k: KernelFunction): Range {
  if (atom.kind === 'var') return ranges.get(atom.name);
  if (atom.kind === 'call' && atom.fn === GROUP && atom.args[0]?.kind === 'int') {
    const count = k.groupCount[atom.args[0].value];
    return count?.kind === 'int' ? [0, count.value - 1] : undefined;
  }
  return undefined;
}
