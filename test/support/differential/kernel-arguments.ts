/**
 * Differential cases for what a kernel is passed (issue 24 follow-ups), apart from the kernel
 * cases: a seed draws
 *
 * - (`complexInferredArguments`) a complex elementwise kernel whose arguments' dtypes are each
 *   declared or left to be inferred, run with complex DeviceArrays through `run` (the output
 *   given, then left out), `prepareLaunch` and `launch` with other arrays in place;
 * - (`aliasedArguments`) one DeviceArray passed as two arguments: read twice, read and written
 *   at one index (in place: plain JS's result), or read at another index, under a reduction or
 *   a loop (a LoomError before anything runs, the array untouched).
 *
 * Every device, against plain JS. Values are small halves: sums and products are exact.
 */
import {
  DeviceArray,
  LoomError,
  makeKernel,
  prepareLaunch,
  run,
  type ArgSpec,
  type Device,
  type LoopKernel,
} from '@loom/core';
import { supportsDType } from '../devices.ts';
import type { FeatureSet } from './features.ts';
import { Rng } from './random.ts';

/** What one seed ran, and every disagreement (empty: none). */
export interface ArgumentCaseResult {
  readonly seed: number;
  readonly ran: readonly string[];
  readonly findings: readonly string[];
}

type Complex = readonly [number, number];
const COMPLEX_OPS: Readonly<Record<string, (x: Complex, w: Complex) => Complex>> = {
  'x[i] * w[i]': ([a, b], [c, d]) => [a * c - b * d, a * d + b * c],
  'x[i] + w[i]': ([a, b], [c, d]) => [a + c, b + d],
  'x[i] - w[i] * x[i]': ([a, b], [c, d]) => [a - (c * a - d * b), b - (c * b + d * a)],
};

export async function runArgumentCase(
  seed: number,
  features: FeatureSet,
  devices: readonly Device[],
): Promise<ArgumentCaseResult> {
  const rng = new Rng(seed ^ 0xa11a5);
  const ran: string[] = [];
  const findings: string[] = [];
  const halves = (n: number) => Array.from({ length: n }, () => rng.int(-8, 8) / 2);
  const differs = (what: string, got: ArrayLike<number>, expected: readonly number[]) => {
    const bad = expected.findIndex((e, k) => got[k] !== e);
    if (bad >= 0 || got.length !== expected.length)
      findings.push(`${what}: element ${bad} is ${got[bad]}, expected ${expected[bad]} (seed ${seed})`);
  };
  const refusedWith = async (what: string, f: () => Promise<unknown>) => {
    try {
      await f();
      findings.push(`${what}: ran, expected a LoomError (seed ${seed})`);
    } catch (e) {
      if (!(e instanceof LoomError))
        findings.push(`${what}: ${(e as Error).message.split('\n')[0]}, expected a LoomError (seed ${seed})`);
    }
  };

  if (features.has('complexInferredArguments')) {
    const dtype = features.has('wideTypes') && rng.chance(0.3) ? 'complex128' : 'complex64';
    const n = rng.int(1, 300);
    const body = rng.pick(Object.keys(COMPLEX_OPS));
    const declared = ['y', 'x', 'w'].filter(() => rng.chance(0.4));
    const args: ArgSpec[] = ['y', 'x', 'w'].map((name) => ({
      name,
      shape: ['n'],
      ...(declared.includes(name) ? { dtype } : {}),
    }));
    const knl = makeKernel('{ [i]: 0 <= i < n }', `y[i] = ${body}`, [...args, '...']);
    const [x, w, w2] = [halves(2 * n), halves(2 * n), halves(2 * n)];
    const expected = (a: readonly number[], b: readonly number[]) =>
      Array.from({ length: n }, (_, k) => COMPLEX_OPS[body]([a[2 * k], a[2 * k + 1]], [b[2 * k], b[2 * k + 1]])).flat();
    const what = `y[i] = ${body}, ${dtype}, n = ${n}, declared: ${declared.join(', ') || 'none'}`;
    ran.push(`complex arguments: ${what}`);
    for (const device of devices) {
      if (!supportsDType(device, dtype === 'complex64' ? 'float32' : 'float64')) continue;
      const at = `${device.name}: ${what}`;
      const arrays = await Promise.all(
        [x, w, w2, new Array(2 * n).fill(0), new Array(2 * n).fill(0)].map((v) => DeviceArray.from(device, v, dtype)),
      );
      const [dx, dw, dw2, dy, other] = arrays;
      try {
        await run(knl, device, { y: dy, x: dx, w: dw });
        differs(`${at}: run`, (await dy.toHost()) as Float32Array, expected(x, w));
        const { y } = await run(knl, device, { x: dx, w: dw2 });
        differs(`${at}: run, the output left out`, y as ArrayLike<number>, expected(x, w2));
        const prepared = await prepareLaunch(knl, device, { y: dy, x: dx, w: dw });
        try {
          await prepared.launch();
          differs(`${at}: prepareLaunch`, (await dy.toHost()) as Float32Array, expected(x, w));
          await prepared.launch({ y: other, w: dw2 });
          differs(`${at}: launch with other arrays`, (await other.toHost()) as Float32Array, expected(x, w2));
        } finally {
          prepared.release();
        }
      } catch (e) {
        findings.push(`${at}: ${(e as Error).message.split('\n')[0]} (seed ${seed})`);
      } finally {
        for (const a of arrays) a.release();
      }
    }
  }

  if (features.has('aliasedArguments')) {
    const n = rng.int(2, 200);
    const f32 = (name: string): ArgSpec => ({ name, dtype: 'float32', shape: ['n'] });
    const data = halves(n);
    // well defined: read twice, or each element read, then written, by one work-item at one index
    const safe: [string, LoopKernel, 'x' | 'xw', (v: number) => number][] = [
      [
        'read twice',
        makeKernel('{ [i]: 0 <= i < n }', 'y[i] = x[i] * w[i] + 1', [f32('y'), f32('x'), f32('w'), '...']),
        'xw',
        (v) => v * v + 1,
      ],
      [
        'in place',
        makeKernel('{ [i]: 0 <= i < n }', 'y[i] = 2 * x[i] - 1', [f32('y'), f32('x'), '...']),
        'x',
        (v) => 2 * v - 1,
      ],
      [
        'in place through a temporary',
        makeKernel(
          '{ [i]: 0 <= i < n }',
          ['<float32> t = x[i] * x[i] {id=first}', 'y[i] = t - x[i] {dep=first}'],
          [f32('y'), f32('x'), '...'],
        ),
        'x',
        (v) => v * v - v,
      ],
    ];
    // not: the result would depend on the order the work-items run in
    const unsafe: [string, LoopKernel][] = [
      ['a shifted index', makeKernel('{ [i]: 0 <= i < n - 1 }', 'y[i] = x[i + 1] + 1', [f32('y'), f32('x'), '...'])],
      ['a reversed index', makeKernel('{ [i]: 0 <= i < n }', 'y[i] = x[n - 1 - i]', [f32('y'), f32('x'), '...'])],
      [
        'under a reduction',
        makeKernel('{ [i, j]: 0 <= i, j < n }', 'y[i] = sum(j, x[j])', [f32('y'), f32('x'), '...']),
      ],
      [
        'under a loop',
        makeKernel('{ [i, j]: 0 <= i, j < n }', 'y[i] = y[i] + x[i] * j {id=acc}', [f32('y'), f32('x'), '...']),
      ],
    ];
    const [what, knl, shares, f] = rng.pick(safe);
    const [badWhat, badKnl] = rng.pick(unsafe);
    const prepare = rng.chance(0.5);
    ran.push(`aliased arguments, n = ${n}: ${what} and ${badWhat}${prepare ? ', prepared' : ''}`);
    for (const device of devices) {
      const at = `${device.name}, n = ${n}`;
      const a = await DeviceArray.from(device, data, 'float32');
      const y = await DeviceArray.from(device, new Array(n).fill(0), 'float32');
      try {
        const args: Record<string, DeviceArray> = shares === 'xw' ? { y, x: a, w: a } : { y: a, x: a };
        const target = shares === 'xw' ? y : a;
        if (prepare) {
          const p = await prepareLaunch(knl, device, args);
          await p.launch();
          p.release();
        } else {
          await run(knl, device, args);
        }
        differs(`${at}: ${what}`, (await target.toHost()) as Float32Array, data.map(f));
        const b = await DeviceArray.from(device, data, 'float32');
        await refusedWith(`${at}: ${badWhat}`, () =>
          prepare ? prepareLaunch(badKnl, device, { y: b, x: b }) : run(badKnl, device, { y: b, x: b }),
        );
        differs(`${at}: ${badWhat}, refused, leaves the array as it was`, (await b.toHost()) as Float32Array, data);
        b.release();
      } catch (e) {
        findings.push(`${at}: ${(e as Error).message.split('\n')[0]} (seed ${seed})`);
      } finally {
        a.release();
        y.release();
      }
    }
  }
  return { seed, ran, findings };
}
