/**
 * Differential cases of complex parameters of computations (issue 29), feature
 * `computationComplexParameters`: a seed draws a complex dtype (complex128 with wideTypes), a
 * shape and one of four computations, runs it on every device and compares it with plain JS:
 *   scalars   y = (x + b) * a: `a` a complex scalar of the computation, `b` one of an attached
 *             addParam, each passed as a number, { re, im } or [re, im]
 *   parts     y = x * w with combineComplex on x and splitComplex on y (real arrays in and out)
 *   norms     entrywiseNorm of a drawn order over drawn axes (a real result), or normConst
 *             of a drawn order attached to a real copy
 *   matmul    matrixMul of real x complex operands (either way round, or both complex), batched or not
 */
import { complexPart, type ComplexScalar, type Device, type DType } from '@loom/core';
import {
  addParam,
  combineComplex,
  entrywiseNorm,
  matrixMul,
  normConst,
  pureParallel,
  splitComplex,
} from '@loom/computation';
import { supportsDType } from '../devices.ts';
import { reduceRef, sizeOf } from '../ndarray.ts';
import { seeded } from '../predicates.ts';
import type { FeatureSet } from './features.ts';

type Complex = 'complex64' | 'complex128';
type Pair = readonly [number, number];

/** What one case ran, and every disagreement with plain JS. */
export interface ComplexParameterResult {
  readonly ran: readonly string[];
  readonly findings: readonly string[];
}

const mul = ([a, b]: Pair, [c, d]: Pair): Pair => [a * c - b * d, a * d + b * c];
const pairs = (flat: ArrayLike<number>): Pair[] =>
  Array.from({ length: flat.length / 2 }, (_, k) => [flat[2 * k], flat[2 * k + 1]] as const);

/** The case of `seed` (its own stream of numbers: the bench and the test draw the same case for a seed). */
export async function runComplexParameterCase(
  seed: number,
  features: FeatureSet,
  devices: readonly Device[],
): Promise<ComplexParameterResult> {
  const random = seeded(seed * 2654435761 + 29);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)];
  const dtype: Complex = features.has('wideTypes') && random() < 0.4 ? 'complex128' : 'complex64';
  const part = complexPart(dtype);
  const rtol = dtype === 'complex64' ? 2e-5 : 1e-12;
  // halves in [-4, 4): sums and products of a few are exact in either precision
  const halves = (n: number) => Array.from({ length: n }, () => Math.floor(random() * 16) / 2 - 4);
  const host = (t: DType, values: readonly number[]) =>
    (complexPart(t) === 'float64' ? Float64Array : Float32Array).from(values);
  const spelled = ([re, im]: Pair): number | ComplexScalar =>
    im === 0 && random() < 0.3 ? re : random() < 0.5 ? { re, im } : [re, im];
  const ran: string[] = [];
  const findings: string[] = [];
  const check = (what: string, got: ArrayLike<number>, expected: readonly number[]) => {
    const scale = Math.max(1, ...expected.map(Math.abs));
    const bad =
      got.length !== expected.length
        ? 0
        : expected.findIndex((e, k) => !(Math.abs(got[k] - e) <= rtol * Math.max(Math.abs(e), scale * 1e-3)));
    if (bad >= 0) findings.push(`${what}: element ${bad} is ${got[bad]}, expected ${expected[bad]} (seed ${seed})`);
  };
  const able = devices.filter((d) => supportsDType(d, part));
  const shape = [1 + Math.floor(random() * 30), 1 + Math.floor(random() * 30)];
  const n = sizeOf(shape);
  const kind = pick(['scalars', 'parts', 'norms', 'matmul'] as const);

  if (kind === 'scalars') {
    const [a, b]: Pair[] = [
      [halves(1)[0], halves(1)[0]],
      [halves(1)[0], random() < 0.3 ? 0 : halves(1)[0]],
    ];
    const [aArg, bArg] = [spelled(a), spelled(b)];
    ran.push(`${dtype} scalars a = ${JSON.stringify(aArg)}, b = ${JSON.stringify(bArg)}, shape (${shape})`);
    const comp = pureParallel({
      params: [
        { name: 'y', dtype, shape, role: 'o' },
        { name: 'x', dtype, shape, role: 'i' },
        { name: 'a', dtype, role: 's' },
      ] as const,
      body: 'y[idx0, idx1] = x[idx0, idx1] * a',
    }).attach('x', addParam({ dtype }), 'output', { input: 'x_in', param: 'b' });
    const x = halves(2 * n);
    const expected = pairs(x).flatMap(([re, im]) => mul([re + b[0], im + b[1]], a));
    for (const device of able) {
      const { y } = await (await comp.compile(device)).byName({ x_in: host(dtype, x), b: bArg, a: aArg });
      check(`${device.name}: ${dtype} (x + b) * a, shape (${shape})`, y as Float32Array, expected);
    }
  } else if (kind === 'parts') {
    ran.push(`${dtype} combineComplex and splitComplex around x * w, shape (${shape})`);
    const comp = pureParallel({
      params: [
        { name: 'y', dtype, shape, role: 'o' },
        { name: 'x', dtype, shape, role: 'i' },
        { name: 'w', dtype, shape, role: 'i' },
      ] as const,
      body: 'y[idx0, idx1] = x[idx0, idx1] * w[idx0, idx1]',
    })
      .attach('x', combineComplex({ dtype, shape }), 'output', { real: 'x_re', imag: 'x_im' })
      .attach('y', splitComplex({ dtype, shape }), 'input', { real: 'y_re', imag: 'y_im' });
    const [re, im, w] = [halves(n), halves(n), halves(2 * n)];
    const products = pairs(w).map((v, k) => mul([re[k], im[k]], v));
    for (const device of able) {
      const out = await (await comp.compile(device)).byName({
        x_re: host(part, re),
        x_im: host(part, im),
        w: host(dtype, w),
      });
      check(
        `${device.name}: ${dtype} real part, shape (${shape})`,
        out.y_re as Float32Array,
        products.map(([r]) => r),
      );
      check(
        `${device.name}: ${dtype} imaginary part, shape (${shape})`,
        out.y_im as Float32Array,
        products.map(([, i]) => i),
      );
    }
  } else if (kind === 'norms') {
    const order = pick([0.5, 1, 2, 3, 1.5]);
    const axes = shape.map((_, k) => k).filter(() => random() < 0.6);
    const x = halves(2 * n);
    const powers = pairs(x).map(([re, im]) => Math.hypot(re, im) ** order);
    if (random() < 0.5) {
      ran.push(
        `${dtype} entrywiseNorm of order ${order} over ${axes.length ? `axes (${axes})` : 'all axes'}, shape (${shape})`,
      );
      const norm = entrywiseNorm({ dtype, shape }, order, axes.length ? axes : undefined);
      const sums = reduceRef(powers, shape, axes.length ? axes : [0, 1], (p, q) => p + q, 0);
      for (const device of able) {
        const { output } = await (await norm.compile(device))(undefined, host(dtype, x));
        check(
          `${device.name}: ${dtype} entrywiseNorm ${order}`,
          output as Float32Array,
          sums.map((s) => s ** (1 / order)),
        );
      }
    } else {
      ran.push(`${dtype} normConst of order ${order} into ${part}, shape (${shape})`);
      const comp = pureParallel({
        params: [
          { name: 'output', dtype: part, shape, role: 'o' },
          { name: 'input', dtype: part, shape, role: 'i' },
        ] as const,
        body: 'output[idx0, idx1] = input[idx0, idx1]',
      }).attach('input', normConst({ dtype, shape }, order), 'output', { input: 'z' });
      for (const device of able) {
        const { output } = await (await comp.compile(device))(undefined, host(dtype, x));
        check(`${device.name}: ${dtype} normConst ${order}`, output as Float32Array, powers);
      }
    }
  } else {
    const [m, k, cols] = [1 + Math.floor(random() * 40), 1 + Math.floor(random() * 40), 1 + Math.floor(random() * 40)];
    const batch = random() < 0.5 ? [] : [1 + Math.floor(random() * 4)];
    const [aDtype, bDtype] = pick([
      [part, dtype],
      [dtype, part],
      [dtype, dtype],
    ] as const);
    ran.push(`matrixMul ${aDtype} (${[...batch, m, k]}) x ${bDtype} (${[...batch, k, cols]})`);
    const lanes = (t: DType) => (t === part ? 1 : 2);
    const a = halves(sizeOf([...batch, m, k]) * lanes(aDtype));
    const b = halves(sizeOf([...batch, k, cols]) * lanes(bDtype));
    const at = (values: readonly number[], t: DType, index: number): Pair =>
      lanes(t) === 1 ? [values[index], 0] : [values[2 * index], values[2 * index + 1]];
    const expected: number[] = [];
    for (let t = 0; t < sizeOf(batch); t++)
      for (let i = 0; i < m; i++)
        for (let j = 0; j < cols; j++) {
          let s: Pair = [0, 0];
          for (let q = 0; q < k; q++) {
            const p = mul(at(a, aDtype, (t * m + i) * k + q), at(b, bDtype, (t * k + q) * cols + j));
            s = [s[0] + p[0], s[1] + p[1]];
          }
          expected.push(...s);
        }
    const comp = matrixMul({ dtype: aDtype, shape: [...batch, m, k] }, { dtype: bDtype, shape: [...batch, k, cols] });
    for (const device of able) {
      const { output } = await (await comp.compile(device))(undefined, host(aDtype, a), host(bDtype, b));
      check(`${device.name}: matrixMul ${aDtype} x ${bDtype}`, output as Float32Array, expected);
    }
  }
  return { ran, findings };
}
