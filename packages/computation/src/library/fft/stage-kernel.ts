/**
 * A stage kernel (stages.ts): one Stockham pass of radix R over global memory, its R-point
 * DFTs computed by a work-group in local memory. Each work-group takes U units (sub-transforms
 * of one batch element); the work-items are the butterflies of the first pass:
 *
 *   load        the first pass reads its inputs straight from global memory into registers:
 *               element r of unit u, at j + r N/R along the axis, times the pre-twiddle
 *               exp(-2 pi i (j mod ns) r / (ns R)) (read from a unit table when a group's units
 *               lie in one block of ns: twiddles.ts)
 *   passes      the R-point DFT of every unit, Stockham passes of passRadices(R) through local
 *               memory, the units the fastest index (a warp's work-items touch consecutive
 *               elements when U is a cache line; padding spreads them otherwise). A pass whose
 *               radix divides the first's takes R0/r of its butterflies per work-item, loading
 *               every input before storing any output, so one buffer serves every pass
 *               (Loom's barriers order the reads before the writes); otherwise two, in turn
 *   store       the last pass writes output s of unit u to (j div ns) ns R + (j mod ns) + s ns
 *               straight to global memory when a warp's stores are neighbours there (rows,
 *               columns, ns a multiple of U: stages.ts's storesDirectly); else through local
 *               memory and a copy out in the order of the addresses
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
import { localBuffers, paddedSize, storesDirectly, type StagePlan } from './stages.ts';
import { tableOfStage } from './twiddles.ts';

/** One Stockham pass: radix `radix` after sub-transforms of `ns` points. */
export interface PassShape {
  readonly radix: number;
  readonly ns: number;
}

/** What a pass reads for one of its inputs: lines defining private values first, then the value. */
export interface PassInput {
  readonly lines: readonly string[];
  readonly value: string;
}

/** A pass's instructions for one butterfly, in the order they must run. */
export interface PassParts {
  readonly loads: string[];
  readonly compute: string[];
  readonly stores: string[];
}

/**
 * The instructions of one pass of an n-point transform for butterfly `j` (an expression):
 * input q from `load(k, q)` (whose lines wait for whatever they read), twiddles from
 * `tw[0..n)` (exp(-2 pi i m / n)), output s through `store(k, value, attrs)` (attrs name the
 * id `${prefix}store${s}`).
 */
export function passLines(
  n: number,
  pass: PassShape,
  ctype: string,
  prefix: string,
  inames: string,
  j: string,
  load: (k: string, q: number) => PassInput,
  store: (k: string, value: string, attrs: string) => readonly string[],
): PassParts {
  const { radix: r, ns } = pass;
  const count = n / r;
  const loads: string[] = [];
  const xs = Array.from({ length: r }, (_, q) => {
    const k = q === 0 ? j : `${j} + ${q * count}`;
    const name = `${prefix}x${q}`;
    const input = load(k, q);
    loads.push(...input.lines);
    // the twiddle into a private of its own: each of its parts is read once, whatever the
    // shader compiler makes of the two real products that use it
    let twiddled = input.value;
    if (q !== 0 && ns !== 1) {
      loads.push(`<${ctype}> ${prefix}t${q} = tw[(${j} % ${ns}) * ${(q * n) / (ns * r)}] {inames=${inames}}`);
      twiddled = `${input.value} * ${prefix}t${q}`;
    }
    loads.push(`<${ctype}> ${name} = ${twiddled} {inames=${inames}}`);
    return name;
  });
  const b = butterfly(xs, `${prefix}y`, ctype, inames);
  const base = ns === 1 ? `${j} * ${r}` : `(${j} // ${ns}) * ${ns * r} + ${j} % ${ns}`;
  const stores = b.outputs.flatMap((y, s) =>
    store(s === 0 ? base : `${base} + ${s * ns}`, y, `id=${prefix}store${s}, inames=${inames}`),
  );
  return { loads, compute: b.lines, stores };
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
  const table = tableOfStage(stage);
  const direct = storesDirectly(units, ns, U);
  const buffers = localBuffers(passes, direct);
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

  // element r of unit u's pre-twiddle exp(-2 pi i (j mod ns) r / (ns R)), undefined in the first stage
  const pretwiddle = (u: string, r: string): string | undefined => {
    if (!table.split) return undefined;
    // with a unit table, the group's first sub-transform's factor (shared by its work-items) times u's
    const j = table.units ? `g * ${U}` : subOf(u);
    const a = `(${mod(j, ns)}) * ${r}`;
    const unit = table.units ? ` * tw[${table.unit} + ${r} * ${U} + ${u}]` : '';
    if (table.split === table.denominator) return `tw[${table.lo} + ${a}]${unit}`;
    return `tw[${table.lo} + ${a} % ${table.split}] * tw[${table.hi} + ${a} // ${table.split}]${unit}`;
  };
  // element r of unit u from global memory, times its pre-twiddle (computed into a private of its own,
  // so that each table entry's parts are read once)
  const globalInput = (name: string, u: string, r: string, attrs: string): PassInput => {
    const k = subOf(u) === '0' ? r : `${subOf(u)} + (${r}) * ${n / R}`;
    const lines = hooks.load
      ? hooks.load.lines(name, k, axisInames(u), attrs)
      : [`<${dtype}> ${name} = ${loaded(element('src', layout, k, axisInames(u)), direction)} {id=${name}, ${attrs}}`];
    const factor = pretwiddle(u, `(${r})`);
    if (!factor) return { lines, value: name };
    return {
      lines: [...lines, `<${dtype}> ${name}w = ${factor} {id=${name}w, ${attrs}}`],
      value: `${name} * ${name}w`,
    };
  };
  // a later pass's input from local memory into a private first: both parts read once each
  const localInput = (name: string, value: string, inames: string, after: string): PassInput => ({
    lines: [`<${dtype}> ${name} = ${value} {id=${name}, inames=${inames}, dep=${after}}`],
    value: name,
  });
  // output s of unit u to global memory, at (j div ns) ns R + (j mod ns) + s ns along the axis
  const globalOutput = (u: string, s: string, value: string, attrs: string): string[] => {
    const j = subOf(u);
    const base = j === '0' ? '' : ns === 1 ? `${j} * ${R} + ` : `(${j} // ${ns}) * ${ns * R} + ${j} % ${ns} + `;
    const k = `${base}${s === '0' ? '0' : ns === 1 ? s : `(${s}) * ${ns}`}`;
    return hooks.store
      ? hooks.store.lines(k, value, axisInames(u), attrs)
      : [`${element('dst', layout, k, axisInames(u))} = ${stored(value, direction)} {${attrs}}`];
  };

  // the passes: the first loads from global memory, the last stores to it when that is direct. A
  // pass of a radix dividing the first's takes R0/r butterflies a work-item (`ways`), all loaded
  // before any is stored (so that it may read and write one buffer); another takes a loop over them
  let inner = 1;
  passes.forEach((r, p) => {
    const ways = passes[0] % r === 0 ? passes[0] / r : 1;
    const f = flat((U * R) / r / ways, T, `t${p}`);
    const [from, to] = buffers === 1 ? ['buf0', 'buf0'] : [`buf${(p + 1) % 2}`, `buf${p % 2}`];
    const last = p === passes.length - 1;
    phase(f, (inames) => {
      // butterfly f.index + w T of the pass; T is a multiple of U, so its unit is f.index's
      const u = mod(f.index, U);
      const parts = Array.from({ length: ways }, (_, w) => {
        const b = w === 0 ? div(f.index, U) : `(${div(f.index, U)} + ${(w * T) / U})`;
        return passLines(
          R,
          { radix: r, ns: inner },
          dtype,
          `p${p}w${w}`,
          inames,
          b,
          (k, q) =>
            p === 0
              ? globalInput(`p0w${w}in${q}`, u, k, `inames=${inames}`)
              : localInput(`p${p}w${w}in${q}`, `${from}[${at(`(${k}) * ${U} + ${u}`)}]`, inames, `p${p - 1}w*store*`),
          (k, v, attrs) =>
            last && direct
              ? globalOutput(`(${u})`, k, v, attrs)
              : [`${to}[${at(`(${k}) * ${U} + ${u}`)}] = ${v} {${attrs}}`],
        );
      });
      return [...parts.flatMap((x) => x.loads), ...parts.flatMap((x) => x.compute), ...parts.flatMap((x) => x.stores)];
    });
    inner *= r;
  });

  // the copy out, in the order of the global addresses, when the last pass could not store directly
  if (!direct) {
    const cout = flat(U * R, T, 'co');
    const e = cout.index;
    let uOut: string;
    let sOut: string;
    if (ns === 1) [uOut, sOut] = [div(e, R), mod(e, R)];
    else if (ns < U && U % ns === 0) [uOut, sOut] = [`${div(e, ns * R)} * ${ns} + ${mod(e, ns)}`, mod(div(e, ns), R)];
    else [uOut, sOut] = [mod(e, U), div(e, U)];
    phase(cout, (inames) => {
      const attrs = `inames=${inames}`;
      const value = `buf${buffers === 1 ? 0 : (passes.length - 1) % 2}[${at(`(${sOut}) * ${U} + ${uOut}`)}]`;
      return [
        `<${dtype}> coutx = ${value} {${attrs}, dep=p${passes.length - 1}w*store*}`,
        ...globalOutput(`(${uOut})`, sOut, 'coutx', attrs),
      ];
    });
  }

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
      ...Array.from({ length: buffers }, (_, k) =>
        temporaryVariable(`buf${k}`, { dtype, shape: [size], addressSpace: 'local' }),
      ),
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
