/**
 * A stage kernel (stages.ts): one Stockham pass of radix R over global memory, its R-point
 * DFTs computed by a work-group in local memory. Each work-group takes U units (sub-transforms
 * of one batch element) and runs three phases, with barriers between:
 *
 *   copy in     element r of unit u, at j + r N/R along the axis, times the pre-twiddle
 *               exp(-2 pi i (j mod ns) r / (ns R)), into buf0[r U + u]; the work-item index runs
 *               over u first where units are neighbours in memory (subs, columns), over r where
 *               a unit is a contiguous row (rows)
 *   passes      the R-point DFT of every unit, Stockham passes of passRadices(R) between buf0
 *               and buf1 in turn, the units the fastest index (a warp's work-items touch
 *               consecutive elements when U is a cache line; padding spreads them otherwise)
 *   copy out    output s of unit u, from buf[s U + u] to (j div ns) ns R + (j mod ns) + s ns,
 *               in the order that makes the global stores contiguous: u first for columns and
 *               when ns is a multiple of U, else (j, s) in the order of the addresses
 *
 * The first stage of the whole transform conjugates what it loads and the last conjugates and
 * scales what it stores when `inverse` is set (layout.ts's Direction); a stage's hooks replace
 * its load and store (Bluestein's chirp products fused into the transforms).
 */
import {
  globalArg,
  makeKernel,
  prioritizeLoops,
  tagInames,
  temporaryVariable,
  valueArg,
  type DType,
  type LoopKernel,
} from '@loom/core';
import { butterfly } from './butterfly.ts';
import {
  batchAxes,
  batchIname,
  element,
  loaded,
  stored,
  takesInverse,
  type AxisLayout,
  type Direction,
} from './layout.ts';
import { paddedSize, type StagePlan } from './stages.ts';
import { stageTwiddles } from './twiddles.ts';

/** One Stockham pass: radix `radix` after sub-transforms of `ns` points. */
export interface PassShape {
  readonly radix: number;
  readonly ns: number;
}

/**
 * The instructions of one pass of an n-point transform for butterfly `j` (an expression):
 * loads from `load(k)`, twiddles from `tw[0..n)` (exp(-2 pi i m / n)), stores through
 * `store(k, value)` (ids `${prefix}store${s}`). The loads wait for the instructions `after`
 * names (the previous pass's stores to local memory: several writers, so no dependency is inferred).
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

/** A constant table a hook reads: its argument's name and length. */
export interface HookTable {
  readonly name: string;
  readonly size: number;
}

/**
 * What the first stage reads in place of `src[..., k, ...]` (k the index along the axis):
 * lines defining the private `name` of the complex dtype, whose instruction ids start with
 * `name`, from `src` of `shape`.
 */
export interface LoadHook {
  readonly shape: readonly number[];
  readonly tables: readonly HookTable[];
  lines(name: string, k: string, inames: (m: number) => string, attrs: string): string[];
}

/** What the last stage does in place of `dst[..., k, ...] = value`, to `dst` of `shape`. */
export interface StoreHook {
  readonly shape: readonly number[];
  readonly tables: readonly HookTable[];
  lines(k: string, value: string, inames: (m: number) => string, attrs: string): string[];
}

/** Bluestein's pad, filter and unpad, fused into the first load and last store of its transforms. */
export interface StageHooks {
  readonly load?: LoadHook;
  readonly store?: StoreHook;
}

/** The tables a stage's hooks read, each once. */
export function hookTables(hooks: StageHooks): HookTable[] {
  const all = [...(hooks.load?.tables ?? []), ...(hooks.store?.tables ?? [])];
  return all.filter((t, k) => all.findIndex((u) => u.name === t.name) === k);
}

/** `x % d` and `x // d` without the identities a divisor of 1 makes. */
const mod = (x: string, d: number) => (d === 1 ? '0' : `${x} % ${d}`);
const div = (x: string, d: number) => (d === 1 ? x : `(${x} // ${d})`);

/** A flat index over `extent` items spread over `threads` work-items, in loop `loop` when they are more. */
interface Flat {
  readonly index: string;
  readonly loop?: string;
  readonly bound?: string;
  readonly guard?: string;
}

function flat(extent: number, threads: number, loop: string): Flat {
  if (extent <= threads) return { index: 'l', guard: extent < threads ? `l < ${extent}` : undefined };
  const trips = Math.ceil(extent / threads);
  const index = `(${loop} * ${threads} + l)`;
  return {
    index,
    loop,
    bound: `0 <= ${loop} < ${trips}`,
    guard: extent % threads ? `${index} < ${extent}` : undefined,
  };
}

/** The kernel of one stage: `src` into `dst` (the layout's shape), the stage's constants in `tw`. */
export function stageKernel(
  dtype: DType,
  layout: AxisLayout,
  stage: StagePlan,
  direction: Direction,
  hooks: StageHooks = {},
): LoopKernel {
  const { n, radix: R, ns, passes, units, perGroup: U, unitAxis, threads: T, padEvery: P } = stage;
  const size = paddedSize(U * R, P);
  const at = (a: string) => (P ? `${a} + (${a}) // ${P}` : a);
  const table = stageTwiddles(R, ns, passes.length);
  const grid = batchAxes(layout).filter((m) => m !== unitAxis);
  const unitExtent = units === 'subs' ? n / R : unitAxis < 0 ? 1 : layout.shape[unitAxis];
  const unitIndex = (u: string) => (U === 1 ? 'g' : `(g * ${U} + ${u})`);
  // the unit's sub-transform j, and the inames of the array's other axes
  const subOf = (u: string) => (units === 'subs' ? unitIndex(u) : units === 'columns' ? 'j' : '0');
  const axisInames = (u: string) => (m: number) => (m === unitAxis ? unitIndex(u) : batchIname(m));
  const outer = [...grid.map(batchIname), 'g', ...(units === 'columns' ? ['j'] : []), 'l'];
  const bounds = [
    ...grid.map((m) => `0 <= ${batchIname(m)} < ${layout.shape[m]}`),
    `0 <= g < ${unitExtent / U}`,
    ...(units === 'columns' ? [`0 <= j < ${n / R}`] : []),
    `0 <= l < ${T}`,
  ];
  const loops: string[] = [];
  const lines: string[] = [];
  const phase = (f: Flat, body: (inames: string) => string[]) => {
    if (f.loop) {
      loops.push(f.loop);
      bounds.push(f.bound!);
    }
    const inames = [...outer, ...(f.loop ? [f.loop] : [])].join(':');
    if (f.guard) lines.push(`if ${f.guard}`);
    lines.push(...body(inames));
    if (f.guard) lines.push('end');
  };

  // copy in
  const cin = flat(U * R, T, 'ci');
  const [uIn, rIn] = units === 'rows' ? [div(cin.index, R), mod(cin.index, R)] : [mod(cin.index, U), div(cin.index, U)];
  phase(cin, (inames) => {
    const attrs = `inames=${inames}`;
    const k = subOf(uIn) === '0' ? rIn : `${subOf(uIn)} + ${rIn} * ${n / R}`;
    const pre = (v: string) => {
      if (!table.split) return v;
      const a = `(${mod(subOf(uIn), ns)}) * ${rIn}`;
      if (table.split === table.denominator) return `${v} * tw[${table.lo} + ${a}]`;
      return `${v} * tw[${table.lo} + ${a} % ${table.split}] * tw[${table.hi} + ${a} // ${table.split}]`;
    };
    const value = hooks.load
      ? hooks.load.lines('cinx', k, axisInames(uIn), attrs)
      : [`<${dtype}> cinx = ${loaded(element('src', layout, k, axisInames(uIn)), direction)} {id=cinx, ${attrs}}`];
    return [...value, `buf0[${at(`${rIn} * ${U} + ${uIn}`)}] = ${pre('cinx')} {id=cin, dep=cinx*, ${attrs}}`];
  });

  // the passes in local memory
  let inner = 1;
  passes.forEach((r, p) => {
    const f = flat((U * R) / r, T, `t${p}`);
    const [u, b] = [mod(f.index, U), div(f.index, U)];
    const [from, to] = [`buf${p % 2}`, `buf${(p + 1) % 2}`];
    const after = p === 0 ? 'cin' : `p${p - 1}store*`;
    phase(f, (inames) =>
      passLines(
        R,
        { radix: r, ns: inner },
        dtype,
        `p${p}`,
        inames,
        b,
        (k) => `${from}[${at(`(${k}) * ${U} + ${u}`)}]`,
        (k, v) => `${to}[${at(`(${k}) * ${U} + ${u}`)}] = ${v}`,
        after,
      ),
    );
    inner *= r;
  });

  // copy out
  const last = `buf${passes.length % 2}`;
  const cout = flat(U * R, T, 'co');
  const e = cout.index;
  let uOut: string;
  let sOut: string;
  if (units === 'rows') [uOut, sOut] = [div(e, R), mod(e, R)];
  else if (units === 'subs' && ns === 1) [uOut, sOut] = [div(e, R), mod(e, R)];
  else if (units === 'subs' && ns < U && U % ns === 0)
    [uOut, sOut] = [`${div(e, ns * R)} * ${ns} + ${mod(e, ns)}`, mod(div(e, ns), R)];
  else [uOut, sOut] = [mod(e, U), div(e, U)];
  phase(cout, (inames) => {
    const attrs = `inames=${inames}`;
    const j = subOf(`(${uOut})`);
    const base = j === '0' ? '' : ns === 1 ? `${j} * ${R} + ` : `(${j} // ${ns}) * ${ns * R} + ${j} % ${ns} + `;
    const k = `${base}${sOut === '0' ? '0' : ns === 1 ? sOut : `(${sOut}) * ${ns}`}`;
    const value = `${last}[${at(`(${sOut}) * ${U} + ${uOut}`)}]`;
    const deps = `dep=p${passes.length - 1}store*`;
    return [
      `<${dtype}> coutx = ${value} {${attrs}, ${deps}}`,
      ...(hooks.store
        ? hooks.store.lines(k, 'coutx', axisInames(`(${uOut})`), attrs)
        : [`${element('dst', layout, k, axisInames(`(${uOut})`))} = ${stored('coutx', direction)} {${attrs}}`]),
    ];
  });

  const domain = `{ [${[...outer, ...loops].join(', ')}]: ${bounds.join(' and ')} }`;
  const knl = makeKernel(
    domain,
    lines.join('\n'),
    [
      globalArg('src', { dtype, shape: hooks.load?.shape ?? layout.shape }),
      globalArg('dst', { dtype, shape: hooks.store?.shape ?? layout.shape }),
      ...(table.size ? [globalArg('tw', { dtype, shape: [table.size] })] : []),
      ...hookTables(hooks).map((t) => globalArg(t.name, { dtype, shape: [t.size] })),
      ...(takesInverse(direction) ? [valueArg('inverse', 'int32')] : []),
      temporaryVariable('buf0', { dtype, shape: [size], addressSpace: 'local' }),
      temporaryVariable('buf1', { dtype, shape: [size], addressSpace: 'local' }),
    ],
    { name: `fft_stage_${R}` },
  );
  const tags: Record<string, string> = { l: 'l.0', g: 'g.0' };
  const gridAxes = [
    ...(units === 'columns' ? ['j'] : []),
    ...grid
      .filter((m) => layout.shape[m] > 1)
      .reverse()
      .map(batchIname),
  ];
  gridAxes.slice(0, 2).forEach((iname, k) => {
    tags[iname] = `g.${k + 1}`;
  });
  // batch axes beyond the grid's three are loops around the phases
  const around = grid.map(batchIname).filter((iname) => !(iname in tags));
  const ordered = around.length ? loops.reduce((k, loop) => prioritizeLoops(k, [...around, loop]), knl) : knl;
  return tagInames(ordered, tags);
}
