/**
 * `diffKernel` beyond loopy's test: the derivative of every known function checked against
 * central finite differences of the kernel itself on the CPU device (float64), by each of its
 * arguments; the operators' derivatives; a scalar `by`; the options; and the refusals.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  diffKernel,
  fixParameters,
  LoomError,
  type LoopKernel,
  MATH_DERIVATIVES,
  MATH_FUNCTIONS,
  type MathFunctionName,
  makeKernel,
  removeUnusedArguments,
  run,
} from '@loom/core';
import { cpuDevice } from '@loom/codegen-js';

const device = cpuDevice();
const n = 4;

/** Points to take derivatives at, one list per argument, away from each function's kinks and poles. */
type Points = readonly (readonly number[])[];
const X = [0.23, 0.41, 0.57, 0.76];
const Y = [0.31, 0.52, 0.9, 0.33];
const Z = [0.61, 0.27, 0.44, 0.85];
const SIGNED = [-0.7, -0.2, 0.3, 0.8];
const ABOVE_ONE = [1.2, 1.5, 2.1, 3.3];

/**
 * Every known function: the argument lists its derivative is checked at (several lists for
 * the variadic ones, one per arity tried), or 'constant' where its derivative is 0 throughout.
 * A function added to the table without an entry here fails to compile.
 */
const CASES: Record<MathFunctionName, readonly Points[] | 'constant'> = {
  sin: [[SIGNED]],
  cos: [[SIGNED]],
  tan: [[SIGNED]],
  asin: [[SIGNED]],
  acos: [[SIGNED]],
  atan: [[SIGNED]],
  atan2: [[SIGNED, Y]],
  sinh: [[SIGNED]],
  cosh: [[SIGNED]],
  tanh: [[SIGNED]],
  asinh: [[SIGNED]],
  acosh: [[ABOVE_ONE]],
  atanh: [[SIGNED]],
  exp: [[SIGNED]],
  exp2: [[SIGNED]],
  expm1: [[SIGNED]],
  log: [[X]],
  log2: [[X]],
  log10: [[X]],
  log1p: [[SIGNED]],
  sqrt: [[X]],
  rsqrt: [[X]],
  cbrt: [[X]],
  hypot: [[SIGNED, Y]],
  abs: [[SIGNED]],
  fabs: [[SIGNED]],
  floor: 'constant',
  ceil: 'constant',
  round: 'constant',
  trunc: 'constant',
  min: [[X], [X, Y], [X, Y, Z]],
  max: [[X], [X, Y], [X, Y, Z]],
  fmin: [[X, Y]],
  fmax: [[X, Y]],
  // below, inside and above the interval
  clamp: [
    [
      [0.1, 0.5, 0.9, 0.45],
      [0.3, 0.2, 0.1, 0.5],
      [0.8, 0.8, 0.6, 0.7],
    ],
  ],
  copysign: [[SIGNED, [-0.5, 0.4, -0.9, 0.6]]],
  pow: [[X, SIGNED]],
  fmod: [[[2.3, 3.7, 0.57, 5.2], Y]],
  erf: [[SIGNED]],
  erfc: [[SIGNED]],
  fma: [[SIGNED, Y, Z]],
  isnan: 'constant',
  isinf: 'constant',
  isfinite: 'constant',
  real: [[SIGNED]],
  imag: [[SIGNED]],
  conj: [[SIGNED]],
  mul_hi: 'constant',
  rotate: 'constant',
};

const argNames = (count: number) => Array.from({ length: count }, (_, k) => `a${k}`);

/** `out[i] = f(a0[i], a1[i], ...)`. */
function kernelOf(fn: string, count: number): LoopKernel {
  return makeKernel(
    '{[i]: 0<=i<n}',
    `out[i] = ${fn}(${argNames(count)
      .map((a) => `${a}[i]`)
      .join(', ')})`,
  );
}

async function values(knl: LoopKernel, data: Record<string, number[]>, name = 'out'): Promise<number[]> {
  // a derivative that reads no argument leaves them out (removeUnusedArguments): n is passed instead
  const host = Object.fromEntries(
    Object.entries(data)
      .filter(([k]) => knl.arg(k))
      .map(([k, v]) => [k, Float64Array.from(v)]),
  );
  const result = await run(knl, device, knl.arg('n') ? { ...host, n } : host);
  return Array.from(result[name] as Float64Array);
}

/**
 * The derivative kernel's `out_dBY` (n x n) against central differences of `knl` in `by`:
 * dout[i]/dby[i] on the diagonal, 0 elsewhere.
 */
async function checkAgainstDifferences(
  knl: LoopKernel,
  data: Record<string, number[]>,
  by: string,
  what: string,
): Promise<void> {
  const [dknl, names] = diffKernel(knl, 'out', by);
  const derivative = names.get('out')!;
  const got = await values(removeUnusedArguments(dknl), data, derivative);
  const h = 1e-6;
  const shifted = (d: number) => ({ ...data, [by]: data[by].map((v) => v + d) });
  const up = await values(knl, shifted(h));
  const down = await values(knl, shifted(-h));
  for (let i = 0; i < n; i++) {
    const expected = (up[i] - down[i]) / (2 * h);
    for (let k = 0; k < n; k++) {
      const v = got[i * n + k];
      if (k !== i) assert.is(v, 0, `${what}: d out[${i}] / d ${by}[${k}]`);
      else
        assert.ok(
          Math.abs(v - expected) <= 1e-6 * Math.max(1, Math.abs(expected)),
          `${what}: d out[${i}] / d ${by}[${i}] is ${v}, finite differences ${expected}`,
        );
    }
  }
}

test('the derivative of every known function agrees with finite differences', async () => {
  assert.equal(Object.keys(CASES).sort(), Object.keys(MATH_DERIVATIVES).sort());
  for (const [fn, cases] of Object.entries(CASES)) {
    if (cases === 'constant') {
      assert.is(MATH_DERIVATIVES[fn as MathFunctionName].kind, 'constant', fn);
      const { arity } = MATH_FUNCTIONS[fn as MathFunctionName];
      const knl = kernelOf(fn, typeof arity === 'number' ? arity : 1);
      assert.throws(() => diffKernel(knl, 'out', 'a0'), /'out' does not depend on 'a0'/, fn);
      continue;
    }
    for (const points of cases) {
      const knl = kernelOf(fn, points.length);
      const data = Object.fromEntries(argNames(points.length).map((a, k) => [a, [...points[k]]]));
      for (const by of argNames(points.length))
        await checkAgainstDifferences(knl, data, by, `${fn} of ${points.length} by ${by}`);
    }
  }
});

test('the operators: sums, products, quotients, powers, remainders, conditionals, casts', async () => {
  const knl = makeKernel(
    '{[i]: 0<=i<n}',
    'out[i] = x[i]*y[i] + x[i]/y[i] - x[i]**y[i] + x[i] % y[i] + if(x[i] > y[i], x[i]**2, -y[i]**3) - float64(2*x[i]) + x[i]**2.5',
  );
  const data = { x: [0.23, 1.41, 0.57, 2.76], y: [0.31, 0.52, 0.9, 0.33] };
  await checkAgainstDifferences(knl, data, 'x', 'operators');
  await checkAgainstDifferences(knl, data, 'y', 'operators');
});

test('through temporaries, substitution rules and sums, by a two-axis array', async () => {
  const knl = fixParameters(
    makeKernel(
      '{[i, j]: 0<=i,j<n}',
      `
      sq(v) := v*v
      <> t[i] = sin(m[i, i]) + sq(m[i, 0])
      out[i] = sum(j, t[i]*m[i, j])
      `,
    ),
    { n: 3 },
  );
  const m = [0.3, -0.2, 0.5, 0.1, 0.7, -0.4, 0.9, 0.6, -0.8];
  const [dknl, names] = diffKernel(knl, 'out', 'm');
  assert.equal(names.get('out'), 'out_dm');
  const got = await values(removeUnusedArguments(dknl), { m }, 'out_dm');
  assert.is(got.length, 27, 'out_dm is (3, 3, 3): d out[i] / d m[k, l]');
  const h = 1e-6;
  for (let e = 0; e < 9; e++) {
    const up = await values(knl, { m: m.map((v, k) => (k === e ? v + h : v)) });
    const down = await values(knl, { m: m.map((v, k) => (k === e ? v - h : v)) });
    for (let i = 0; i < 3; i++) {
      const expected = (up[i] - down[i]) / (2 * h);
      assert.ok(
        Math.abs(got[i * 9 + e] - expected) <= 1e-6,
        `d out[${i}] / d m[${e}]: ${got[i * 9 + e]} vs ${expected}`,
      );
    }
  }
});

test('by a scalar argument; copyOutputs keeps the output; diffInamePrefix names the loops', async () => {
  const knl = makeKernel('{[i]: 0<=i<n}', 'out[i] = s*x[i]**2 + exp(s)');
  const [dknl] = diffKernel(knl, 'out', 's', { copyOutputs: ['out'] });
  const x = [0.5, -1, 2];
  const result = await run(dknl, device, { x: Float64Array.from(x), s: 0.7 });
  assert.equal(
    Array.from(result.out_ds as Float64Array),
    x.map((v) => v ** 2 + Math.exp(0.7)),
  );
  assert.equal(
    Array.from(result.out as Float64Array),
    x.map((v) => 0.7 * v ** 2 + Math.exp(0.7)),
  );

  const [named] = diffKernel(makeKernel('{[i]: 0<=i<n}', 'out[i] = x[i]'), 'out', 'x', { diffInamePrefix: 'k' });
  assert.ok(named.inames.includes('k0'), named.inames.join(', '));
});

test('refusals: what has no derivative, or no single one, is a LoomError saying why', () => {
  const refuses = (f: () => unknown, pattern: RegExp) =>
    assert.throws(f, (e: unknown) => e instanceof LoomError && pattern.test((e as Error).message));
  const simple = makeKernel('{[i]: 0<=i<n}', 'out[i] = x[i]');
  refuses(() => diffKernel(simple, 'out', 'y'), /'y' is not an argument/);
  refuses(() => diffKernel(simple, 'nothing', 'x'), /no instruction .* writes 'nothing'/);
  refuses(() => diffKernel(simple, 'out', 'x', { prefix: 'k' } as never), /unknown option 'prefix'/);
  const twice = makeKernel('{[i]: 0<=i<n}', ['out[i] = x[i] {id=a}', 'out[i] = 2*out[i] {id=b, dep=a}']);
  refuses(() => diffKernel(twice, 'out', 'x'), /'out' is written in more than one place/);
  const maximum = makeKernel('{[i, j]: 0<=i,j<n}', 'out[i] = max(j, x[j]*x[i])');
  refuses(() => diffKernel(maximum, 'out', 'x'), /derivative of a 'max' reduction is not known/);
  // a temporary's derivative has x's axes, whose length is not a constant until n is fixed
  const temporary = makeKernel('{[i]: 0<=i<n}', ['<> t = x[i]*x[i]', 'out[i] = t']);
  refuses(() => diffKernel(temporary, 'out', 'x'), /fix the parameters first/);
  refuses(() => diffKernel(simple, 'out', 'out'), /'out' does not depend on 'out'|index each/);
});

test.run();
