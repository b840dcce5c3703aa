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
 *   each passed as a number, `{ re, im }` or `[re, im]`.
 *
 * Every device, against plain JS. Values are small halves and the scalars halves too: every
 * product and sum is exact in float32, so results compare exactly.
 */
import {
  DeviceArray,
  globalArg,
  makeKernel,
  run,
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
  return { seed, ran, findings };
}

/** Whether the spelling declares the arrays (and so can carry an order or offset per argument). */
function isDeclaring(spelling: Spelling): boolean {
  return spelling === 'list' || spelling === 'names with commas' || spelling === 'string shapes';
}
