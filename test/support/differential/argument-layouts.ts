/**
 * Differential cases for how arrays and values reach a kernel (issue 27, "Arrays and arguments",
 * s7-i27i), apart from the kernel cases and with a random stream of their own, so that no
 * older seed's kernel or chain changes. A seed draws
 *
 * - (`argumentLayouts`) a two-axis kernel `b = s*a + a*a` whose arrays are laid out as loopy
 *   lets them be: row-major, column-major (`order: 'F'` on the arguments or the kernel's
 *   `defaultOrder`), or blocks of larger buffers passed as views (`offset: 'auto'` or
 *   `defaultOffset: 'auto'`, `stride:auto` axes), the views from the host
 *   (`{ data, shape, strides, offset }`) or of DeviceArrays (`DeviceArray.view`); the whole
 *   buffer of `b` is checked, so a write outside the view is found too;
 * - (`argumentSpellings`) that kernel's arguments in one of loopy's spellings: a list of
 *   declarations, one comma-separated string (`'a, b, s, ...'`), names with commas
 *   (`globalArg('a,b', …)`), shapes as strings (`'n, m'`), or no list at all;
 * - (`complexValueArguments`) axpy with complex value arguments `p`, `q` (loopy's test_axpy),
 *   each passed as a number, `{ re, im }` or `[re, im]`;
 * - (`paddedArguments`) padded layouts (`addPadding`, `findPaddingMultiple`) passed as flat
 *   host arrays holding their padded buffers, or padded outputs left to `run` (`paddedCase`).
 *
 * Every device, against plain JS. Values are small halves and the scalars halves too: every
 * product and sum is exact in float32, so results compare exactly.
 */
import {
  addPadding,
  DeviceArray,
  findPaddingMultiple,
  globalArg,
  makeKernel,
  run,
  splitArrayAxis,
  stridesOf,
  tagArrayAxes,
  valueArg,
  type ArgSpec,
  type ComplexScalar,
  type Device,
  type LoopKernel,
  type RunArgument,
} from '@loom/core';
import type { FeatureSet } from './features.ts';
import { Rng } from './random.ts';

/** What one seed ran, and every disagreement (empty: none). */
export interface LayoutCaseResult {
  readonly seed: number;
  readonly ran: readonly string[];
  readonly findings: readonly string[];
}

type Layout = 'C' | 'F argument' | 'F kernel' | 'host views' | 'device views';
type Spelling = 'list' | 'one string' | 'names with commas' | 'string shapes' | 'no list';

/** The kernel's arguments as `spelling` writes them: `extra` (order, offset) goes on both arrays. */
function argumentList(
  spelling: Spelling,
  extra: Omit<ArgSpec, 'name' | 'kind'>,
): string | (ArgSpec | string)[] | undefined {
  const array = (name: string, shape: string | string[]) => globalArg(name, { dtype: 'float32', shape, ...extra });
  switch (spelling) {
    case 'list':
      return [array('a', ['n', 'm']), array('b', ['n', 'm']), valueArg('s', 'float32'), '...'];
    case 'one string':
      return 'a, b, s, ...';
    case 'names with commas':
      return [array('a,b', ['n', 'm']), valueArg('s', 'float32'), '...'];
    case 'string shapes':
      return [array('a', 'n, m'), array('b', 'n,m'), 's', '...'];
    case 'no list':
      return undefined;
    default:
      return spelling satisfies never;
  }
}

export async function runLayoutCase(
  seed: number,
  features: FeatureSet,
  devices: readonly Device[],
): Promise<LayoutCaseResult> {
  const rng = new Rng(seed ^ 0x1a7007);
  const ran: string[] = [];
  const findings: string[] = [];
  const halves = (count: number) => Array.from({ length: count }, () => rng.int(-8, 8) / 2);
  const differs = (what: string, got: ArrayLike<number>, expected: readonly number[]) => {
    const bad = expected.findIndex((e, k) => got[k] !== e);
    if (bad >= 0 || got.length !== expected.length)
      findings.push(`${what}: element ${bad} is ${got[bad]}, expected ${expected[bad]} (seed ${seed})`);
  };

  if (features.has('argumentLayouts') || features.has('argumentSpellings')) {
    const layouts: Layout[] = features.has('argumentLayouts')
      ? ['C', 'F argument', 'F kernel', 'host views', 'device views']
      : ['C'];
    const layout = rng.pick(layouts);
    // without declarations, nothing says an argument's offset or order: the kernel's defaults do
    const spellings: Spelling[] = features.has('argumentSpellings')
      ? ['list', 'one string', 'names with commas', 'string shapes', 'no list']
      : ['list'];
    const spelling = rng.pick(spellings);
    const n = rng.int(1, 9);
    const m = rng.int(1, 9);
    const s = rng.int(-4, 4) / 2;
    const perArgument = layout === 'F argument' || (layout.endsWith('views') && rng.chance(0.5));
    const extra: Omit<ArgSpec, 'name' | 'kind'> = !perArgument
      ? {}
      : layout === 'F argument'
        ? { order: 'F' }
        : { offset: 'auto' };
    const options = {
      ...(layout === 'F kernel' || (layout === 'F argument' && !isDeclaring(spelling))
        ? { defaultOrder: 'F' as const }
        : {}),
      ...(layout.endsWith('views') && (!perArgument || !isDeclaring(spelling))
        ? { defaultOffset: 'auto' as const }
        : {}),
    };
    let knl: LoopKernel = makeKernel(
      '{ [i, j]: 0 <= i < n and 0 <= j < m }',
      'b[i, j] = s*a[i, j] + a[i, j]*a[i, j]',
      argumentList(spelling, extra),
      options,
    );
    if (layout.endsWith('views')) knl = tagArrayAxes(knl, 'a,b', 'stride:auto,stride:auto');
    // the views: blocks of (rows x cols) buffers, at a random corner, rows and columns strided
    const rows = n + rng.int(0, 3);
    const cols = m + rng.int(0, 3);
    const [r0, c0] = [rng.int(0, rows - n), rng.int(0, cols - m)];
    const columnMajor = layout.startsWith('F');
    // element (i, j) of a block: its index in the buffer
    const at = (i: number, j: number) =>
      layout.endsWith('views') ? (r0 + i) * cols + c0 + j : columnMajor ? i + j * n : i * m + j;
    const size = layout.endsWith('views') ? rows * cols : n * m;
    const aData = halves(size);
    const bData = halves(size);
    const expected = [...bData];
    for (let i = 0; i < n; i++)
      for (let j = 0; j < m; j++) expected[at(i, j)] = s * aData[at(i, j)] + aData[at(i, j)] * aData[at(i, j)];
    const strides = layout.endsWith('views') ? [cols, 1] : columnMajor ? [1, n] : [m, 1];
    const offset = layout.endsWith('views') ? r0 * cols + c0 : 0;
    const what = `b = s*a + a*a, ${n} x ${m}, ${layout}${perArgument && isDeclaring(spelling) ? ' (per argument)' : ''}, arguments: ${spelling}`;
    ran.push(`argument layouts: ${what}`);
    for (const device of devices) {
      const where = `${device.name}: ${what}`;
      const buffers: DeviceArray[] = [];
      try {
        const a32 = Float32Array.from(aData);
        const b32 = Float32Array.from(bData);
        let a: RunArgument;
        let b: RunArgument;
        let result: () => Promise<ArrayLike<number>>;
        if (layout === 'device views') {
          const [da, db] = await Promise.all(
            [a32, b32].map((d) => DeviceArray.from(device, d, 'float32', [rows, cols])),
          );
          buffers.push(da, db);
          a = da.view([n, m], { offset, strides });
          b = db.view([n, m], { offset, strides });
          result = async () => (await db.toHost()) as Float32Array;
        } else {
          a = { data: a32, shape: [n, m], strides, offset };
          b = { data: b32, shape: [n, m], strides, offset };
          result = async () => b32;
        }
        await run(knl, device, { a, b, s });
        differs(where, await result(), expected);
      } catch (e) {
        findings.push(`${where}: ${(e as Error).message.split('\n')[0]} (seed ${seed})`);
      } finally {
        for (const d of buffers) d.release();
      }
    }
  }

  if (features.has('complexValueArguments')) {
    const n = rng.int(1, 200);
    const scalar = (): [ComplexScalar, [number, number]] => {
      const [re, im] = [rng.int(-6, 6) / 2, rng.int(-6, 6) / 2];
      return rng.pick<[ComplexScalar, [number, number]]>([
        [
          [re, im],
          [re, im],
        ],
        [{ re, im }, [re, im]],
        [re as unknown as ComplexScalar, [re, 0]],
      ]);
    };
    const [p, pParts] = scalar();
    const [q, qParts] = scalar();
    const knl = makeKernel('{ [i]: 0 <= i < n }', 'z[i] = p*x[i] + q*y[i]', [
      valueArg('p', 'complex64'),
      valueArg('q', 'complex64'),
      globalArg('x, y, z', { dtype: 'complex64', shape: 'n' }),
      '...',
    ]);
    const [x, y] = [halves(2 * n), halves(2 * n)];
    const expected = Array.from({ length: n }, (_, k) => [
      pParts[0] * x[2 * k] - pParts[1] * x[2 * k + 1] + qParts[0] * y[2 * k] - qParts[1] * y[2 * k + 1],
      pParts[0] * x[2 * k + 1] + pParts[1] * x[2 * k] + qParts[0] * y[2 * k + 1] + qParts[1] * y[2 * k],
    ]).flat();
    const what = `z = p*x + q*y over complex64, n = ${n}, p = ${JSON.stringify(p)}, q = ${JSON.stringify(q)}`;
    ran.push(`complex value arguments: ${what}`);
    for (const device of devices) {
      try {
        const { z } = await run(knl, device, {
          p: p as RunArgument,
          q: q as RunArgument,
          x: Float32Array.from(x),
          y: Float32Array.from(y),
        });
        differs(`${device.name}: ${what}`, z as Float32Array, expected);
      } catch (e) {
        findings.push(`${device.name}: ${what}: ${(e as Error).message.split('\n')[0]} (seed ${seed})`);
      }
    }
  }
  if (features.has('paddedArguments')) await paddedCase(seed, devices, ran, findings);
  return { seed, ran, findings };
}

/**
 * (`paddedArguments`, issue 27's padded arrays from the host, s8-tidy27) `b = s*a + a*a` over
 * (n, m) with `a`'s rows (or groups of rows, `splitArrayAxis` by `findPaddingMultiple` first)
 * padded to an alignment, as loopy's test_small_batched_matvec pads `f`, and `b` padded or
 * not: `a` passed flat as its padded buffer (as long as the layout reaches, or the whole
 * padded block), `b` passed flat the same ways or left to `run` to allocate. The gaps of
 * what is passed hold a sentinel that must be neither read nor overwritten. A stream of its
 * own, so the other cases of a seed stay as they were.
 */
async function paddedCase(seed: number, devices: readonly Device[], ran: string[], findings: string[]): Promise<void> {
  const rng = new Rng(seed ^ 0x7add27);
  const n = rng.int(1, 9);
  const m = rng.int(1, 9);
  const s = rng.int(-4, 4) / 2;
  const align = rng.pick([8, 16, 32, 64]);
  // rows of a constant length, so that their stride is a known integer to pad
  let knl: LoopKernel = makeKernel(
    `{ [i, j]: 0 <= i < n and 0 <= j < ${m} }`,
    'b[i, j] = s*a[i, j] + a[i, j]*a[i, j]',
    [globalArg('a, b', { dtype: 'float32', shape: ['n', m] }), valueArg('s', 'float32'), '...'],
  );
  const groupRows = rng.chance(0.5) ? findPaddingMultiple(knl, 'a', 0, align) : 1;
  if (groupRows > 1) knl = splitArrayAxis(knl, 'a', 0, groupRows);
  knl = addPadding(knl, 'a', 0, align);
  const padB = rng.chance(0.6);
  if (padB) knl = addPadding(knl, 'b', 0, align);
  // where the kernel lays (i, j) out, and the lengths a flat array of it may have
  const layout = (name: string, position: (k: number[], i: number, j: number) => number[]) => {
    const arg = knl.arg(name)!;
    const strides = stridesOf(arg.shape!, arg.dimTags).map((e) => (e.kind === 'int' ? e.value : Number.NaN));
    const extents = name === 'a' && groupRows > 1 ? [Math.ceil(n / groupRows), groupRows, m] : [n, m];
    const reach = 1 + extents.reduce((acc, e, axis) => acc + (e - 1) * strides[axis], 0);
    const at = (i: number, j: number) => position(strides, i, j).reduce((acc, x) => acc + x, 0);
    return { at, reach, block: Math.max(reach, extents[0] * strides[0]) };
  };
  const a = layout('a', (st, i, j) =>
    groupRows > 1 ? [Math.floor(i / groupRows) * st[0], (i % groupRows) * st[1], j * st[2]] : [i * st[0], j * st[1]],
  );
  const b = layout('b', (st, i, j) => [i * st[0], j * st[1]]);
  const aLength = rng.pick([a.reach, a.block]);
  const bGiven = rng.pick<'reach' | 'block' | 'not passed'>(['reach', 'block', 'not passed']);
  const inferN = groupRows === 1 && rng.chance(0.5);
  const SENTINEL = 4096.5;
  const aData = new Array<number>(aLength).fill(SENTINEL);
  const bData = new Array<number>(bGiven === 'block' ? b.block : b.reach).fill(bGiven === 'not passed' ? 0 : SENTINEL);
  for (let i = 0; i < n; i++)
    for (let j = 0; j < m; j++) {
      const x = rng.int(-8, 8) / 2;
      aData[a.at(i, j)] = x;
      bData[b.at(i, j)] = s * x + x * x;
    }
  const what = `b = s*a + a*a, ${n} x ${m}, a ${groupRows > 1 ? `split by ${groupRows} and ` : ''}padded to ${align} bytes (${aLength === a.reach ? 'as long as it reaches' : 'the whole block'}), b ${padB ? 'padded' : 'dense'} (${bGiven})${inferN ? ', n from the length of a' : ''}`;
  ran.push(`padded arguments: ${what}`);
  for (const device of devices) {
    try {
      // n found from a's length, as from a dense array's, where a's shape says it (not split into groups)
      const given: Record<string, RunArgument> = { a: Float32Array.from(aData), s, ...(inferN ? {} : { n }) };
      if (bGiven !== 'not passed') given.b = new Float32Array(bData.length).fill(SENTINEL);
      const out = (await run(knl, device, given)).b as Float32Array;
      const bad = bData.findIndex((e, k) => out[k] !== e);
      if (bad >= 0 || out.length !== bData.length)
        findings.push(
          `${device.name}: padded arguments: ${what}: element ${bad} of ${out.length} is ${out[bad]}, expected ${bData[bad]} of ${bData.length} (seed ${seed})`,
        );
    } catch (e) {
      findings.push(`${device.name}: padded arguments: ${what}: ${(e as Error).message.split('\n')[0]} (seed ${seed})`);
    }
  }
}

/** Whether the spelling declares the arrays (and so can carry an order or offset per argument). */
function isDeclaring(spelling: Spelling): boolean {
  return spelling === 'list' || spelling === 'names with commas' || spelling === 'string shapes';
}
