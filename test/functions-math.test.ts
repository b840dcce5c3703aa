/**
 * The math library (`KNOWN_FUNCTIONS`) means one thing on every device: each function runs
 * as a kernel over inputs in its domain, in float32 and (where the device has it) float64,
 * against plain JavaScript's value computed in doubles. Library functions are not correctly
 * rounded on GPUs (OpenCL allows sin 4 ulp, WGSL more), hence a relative tolerance per
 * dtype; the functions defined on the bits (`fmax`, `copysign`, `isnan`, ...) and `fma`'s
 * single rounding are held exactly, NaN and ±Inf included — on WebGPU too, where only what
 * is tested on the bits may see them (README: "WGSL's limit: finite floats").
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { globalArg, makeKernel, run, splitIname, targetFacts, type Device } from '@loom/core';
import { supportsDType, testDevices } from './support/devices.ts';

type Dtype = 'float32' | 'float64';

interface FunctionCase {
  /** The call as written in the kernel, over `a`, `b`, `c`. */
  readonly call: string;
  /** The value plain JavaScript gives, in doubles. */
  readonly reference: (a: number, b: number, c: number) => number;
  /** Argument tuples. */
  readonly inputs: readonly (readonly number[])[];
  /**
   * Relative tolerance per dtype; 0: the same bits (NaN matches NaN). `relaxed`: where the target
   * states `relaxedFloatAccuracy` (WebGPU), if it differs.
   */
  readonly tolerance: { readonly float32: number; readonly float64: number; readonly relaxed?: number };
  /** Inputs that only targets with IEEE arithmetic through NaN and ±Inf (`floatSpecials`) are held to, but for exact functions. */
  readonly nonFinite?: readonly (readonly number[])[];
}

const ULPS = { float32: 4 * 2 ** -23, float64: 8 * 2 ** -52, relaxed: 1e-5 };
const SPECIAL = [NaN, Infinity, -Infinity, 0, -0, 1.5, -2];

/** erfc at points whose values mpmath gives (to double precision). */
const ERFC: ReadonlyMap<number, number> = new Map([
  [0, 1],
  [0.5, 0.4795001221869535],
  [-1, 1.8427007929497148],
  [2, 0.004677734981047266],
  [4, 1.541725790028002e-8],
  [-3, 1.9999779095030015],
]);

const signBit = (x: number) => new Uint8Array(new Float64Array([x]).buffer)[7] >= 128;
const fmax = (a: number, b: number) =>
  a !== a ? b : b !== b ? a : a === 0 && b === 0 ? (Object.is(a, -0) ? b : a) : Math.max(a, b);
const fmin = (a: number, b: number) =>
  a !== a ? b : b !== b ? a : a === 0 && b === 0 ? (Object.is(a, -0) ? a : b) : Math.min(a, b);

const CASES: readonly FunctionCase[] = [
  { call: 'asinh(a)', reference: Math.asinh, inputs: [[0.5], [-3], [100], [1e-3]], tolerance: ULPS },
  { call: 'acosh(a)', reference: Math.acosh, inputs: [[1], [1.5], [10], [1e4]], tolerance: ULPS },
  { call: 'atanh(a)', reference: Math.atanh, inputs: [[0], [0.5], [-0.25], [0.99]], tolerance: ULPS },
  { call: 'exp2(a)', reference: (a) => 2 ** a, inputs: [[0], [3], [-2], [0.5], [10.25]], tolerance: ULPS },
  { call: 'expm1(a)', reference: Math.expm1, inputs: [[1e-6], [-1e-5], [0.3], [2], [-3]], tolerance: ULPS },
  { call: 'log1p(a)', reference: Math.log1p, inputs: [[1e-6], [-1e-5], [0.3], [2], [1000]], tolerance: ULPS },
  {
    call: 'hypot(a, b)',
    reference: (a, b) => Math.hypot(a, b),
    inputs: [
      [3, 4],
      [1e20, 1e20],
      [1e-20, 2e-20],
      [-5, 12],
      [0, 0],
    ],
    tolerance: ULPS,
  },
  {
    call: 'erfc(a)',
    reference: (a) => ERFC.get(a)!,
    inputs: [...ERFC.keys()].map((x) => [x]),
    tolerance: { float32: 1e-6, float64: 1e-14, relaxed: 1e-6 },
  },
  {
    call: 'atan2(a, b)',
    reference: Math.atan2,
    inputs: [
      [1, 1],
      [-1, 2],
      [3, -4],
    ],
    tolerance: ULPS,
  },
  { call: 'cbrt(a)', reference: Math.cbrt, inputs: [[27], [-8], [0.001]], tolerance: ULPS },
  {
    call: 'copysign(a, b)',
    reference: (a, b) => (signBit(b) ? -Math.abs(a) : Math.abs(a)),
    inputs: [
      [1.5, -2],
      [-3, 0],
      [2, -0],
      [0, -1],
      [-0, 1],
    ],
    nonFinite: SPECIAL.flatMap((a) => [
      [a, -0],
      [a, NaN],
      [a, -Infinity],
    ]),
    tolerance: { float32: 0, float64: 0 },
  },
  {
    call: 'fmax(a, b)',
    reference: fmax,
    inputs: [
      [1, 2],
      [-0, 0],
      [0, -0],
      [-3, -4],
    ],
    nonFinite: SPECIAL.flatMap((a) => SPECIAL.map((b) => [a, b])),
    tolerance: { float32: 0, float64: 0 },
  },
  {
    call: 'fmin(a, b)',
    reference: fmin,
    inputs: [
      [1, 2],
      [-0, 0],
      [0, -0],
      [-3, -4],
    ],
    nonFinite: SPECIAL.flatMap((a) => SPECIAL.map((b) => [a, b])),
    tolerance: { float32: 0, float64: 0 },
  },
  {
    call: 'clamp(a, b, c)',
    reference: (a, b, c) => (Number.isNaN(a + b + c) ? NaN : Math.min(Math.max(a, b), c)),
    inputs: [
      [5, 0, 1],
      [-5, 0, 1],
      [0.5, 0, 1],
      [-0.5, -1, 1],
    ],
    nonFinite: [
      [NaN, 0, 1],
      [Infinity, 0, 1],
      [0.5, NaN, 1],
    ],
    tolerance: { float32: 0, float64: 0 },
  },
  {
    call: 'if(isnan(a), 1, 0)',
    reference: (a) => (Number.isNaN(a) ? 1 : 0),
    inputs: [[0], [1]],
    nonFinite: SPECIAL.map((a) => [a]),
    tolerance: { float32: 0, float64: 0 },
  },
  {
    call: 'if(isinf(a), 1, 0)',
    reference: (a) => (Math.abs(a) === Infinity ? 1 : 0),
    inputs: [[0], [1e30]],
    nonFinite: SPECIAL.map((a) => [a]),
    tolerance: { float32: 0, float64: 0 },
  },
  {
    call: 'if(isfinite(a), 1, 0)',
    reference: (a) => (Number.isFinite(a) ? 1 : 0),
    inputs: [[0], [-1e30]],
    nonFinite: SPECIAL.map((a) => [a]),
    tolerance: { float32: 0, float64: 0 },
  },
];

/**
 * `fma` rounds once: for float32 operands a double holds a*b exactly, so one rounding of the
 * double sum is the reference; the operands are chosen where two roundings would differ
 * ((1 + 2^-23)(1 - 2^-23) - 1 is -2^-46, and 0 when the product is rounded first).
 */
const FMA32 = [
  [1 + 2 ** -23, 1 - 2 ** -23, -1],
  [3, 5, 7],
  [0.1, 10, -1],
  [-0, 1, -0],
  [1e30, 1e10, -1e38],
];
/** float64 operands, with the exact results worked out by hand. */
const FMA64: readonly (readonly [number, number, number, number])[] = [
  [1 + 2 ** -52, 1 - 2 ** -52, -1, -(2 ** -104)],
  [1 + 2 ** -30, 1 + 2 ** -30, -1, 2 ** -29 + 2 ** -60],
  [3, 5, 7, 22],
  [-0, 1, -0, -0],
];

async function runCase(
  device: Device,
  dtype: Dtype,
  call: string,
  inputs: readonly (readonly number[])[],
): Promise<number[]> {
  const arity = ['a', 'b', 'c'].filter((name) => new RegExp(`\\b${name}\\b`).test(call)).length;
  const body = call.replace(/\b([abc])\b/g, '$1[i]');
  const knl = makeKernel('{ [i]: 0<=i<n }', `out[i] = ${body}`);
  const column = (k: number) => inputs.map((xs) => xs[k]);
  const args = Object.fromEntries(
    ['a', 'b', 'c']
      .slice(0, arity)
      .map((name, k) => [name, dtype === 'float32' ? Float32Array.from(column(k)) : Float64Array.from(column(k))]),
  );
  const { out } = await run(knl, device, args);
  return Array.from(out as Float32Array | Float64Array);
}

function agrees(actual: number, expected: number, tolerance: number): boolean {
  if (Object.is(actual, expected)) return true;
  return (
    tolerance > 0 &&
    Number.isFinite(expected) &&
    Math.abs(actual - expected) <= tolerance * Math.max(Math.abs(expected), 2 ** -126)
  );
}

for (const c of CASES) {
  test(`${c.call} on every device, float32 and float64`, async () => {
    const failures: string[] = [];
    for (const device of testDevices()) {
      for (const dtype of ['float32', 'float64'] as const) {
        if (!supportsDType(device, dtype)) continue;
        const { floatSpecials, relaxedFloatAccuracy } = targetFacts(device.target);
        // the functions held to the bits (tolerance 0) see NaN and ±Inf on every device
        const inputs = [...c.inputs, ...(!floatSpecials && c.tolerance[dtype] > 0 ? [] : (c.nonFinite ?? []))];
        const round = dtype === 'float32' ? Math.fround : (x: number) => x;
        const operands = inputs.map((xs) => xs.map(round));
        const got = await runCase(device, dtype, c.call, operands);
        const tolerance = relaxedFloatAccuracy ? (c.tolerance.relaxed ?? c.tolerance[dtype]) : c.tolerance[dtype];
        operands.forEach((xs, k) => {
          const expected = round(c.reference(xs[0], xs[1], xs[2]));
          if (!agrees(got[k], expected, tolerance))
            failures.push(`${device.name} ${dtype} ${c.call} at (${xs.join(', ')}): ${got[k]}, expected ${expected}`);
        });
      }
    }
    assert.ok(failures.length === 0, `\n${failures.join('\n')}`);
  });
}

test('fma(a, b, c) rounds once wherever the target promises it (not relaxedFloatAccuracy), in float32 and float64', async () => {
  for (const device of testDevices()) {
    // WGSL's fma promises no single rounding (its accuracy is that of a * b + c): README
    if (targetFacts(device.target).relaxedFloatAccuracy) continue;
    const operands = FMA32.map((xs) => xs.map(Math.fround));
    const f32 = await runCase(device, 'float32', 'fma(a, b, c)', operands);
    assert.equal(
      f32,
      operands.map(([a, b, c]) => Math.fround(a * b + c)),
      `${device.name} float32`,
    );
    if (!supportsDType(device, 'float64')) continue;
    const f64 = await runCase(
      device,
      'float64',
      'fma(a, b, c)',
      FMA64.map(([a, b, c]) => [a, b, c]),
    );
    assert.equal(
      f64.map((x) => (Object.is(x, -0) ? '-0' : x)),
      FMA64.map(([, , , r]) => (Object.is(r, -0) ? '-0' : r)),
      `${device.name} float64`,
    );
  }
});

test('fma(a, b, c) of an exact product is a * b + c on every device (all that relaxedFloatAccuracy promises)', async () => {
  // operands whose product is exact in float32: one rounding or two give the same value
  const inputs = [
    [3, 5, 7],
    [0.5, 0.25, -1],
    [-2, 1.5, 4],
  ];
  for (const device of testDevices()) {
    assert.equal(
      await runCase(device, 'float32', 'fma(a, b, c)', inputs),
      inputs.map(([a, b, c]) => a * b + c),
      device.name,
    );
  }
});

test('integer arguments: isnan is false, isfinite true, clamp and bit operations stay integers', async () => {
  for (const device of testDevices()) {
    const knl = makeKernel('{ [i]: 0<=i<n }', [
      'nan[i] = if(isnan(k[i]), 1, 0)',
      'fin[i] = if(isfinite(k[i]), 1, 0)',
      'clamped[i] = clamp(k[i], -2, 3)',
    ]);
    const k = Int32Array.from([-5, 0, 2, 9]);
    const out = await run(knl, device, { k });
    assert.equal(Array.from(out.nan as Int32Array), [0, 0, 0, 0], device.name);
    assert.equal(Array.from(out.fin as Int32Array), [1, 1, 1, 1], device.name);
    assert.instance(out.clamped, Int32Array);
    assert.equal(Array.from(out.clamped as Int32Array), [-2, 0, 2, 3], device.name);
  }
});

test('an atomic max propagates NaN as max does everywhere (OpenCL no longer drops it with fmax)', async () => {
  for (const device of testDevices()) {
    let knl = makeKernel(
      '{ [i]: 0<=i<n }',
      'out[i%4] = max(out[i%4], a[i]) {atomic}',
      [
        globalArg('out', { dtype: 'float32', shape: [4], forAtomic: true }),
        globalArg('a', { dtype: 'float32', shape: 'auto' }),
        '...',
      ],
      { assumptions: 'n>0' },
    );
    knl = splitIname(knl, 'i', 8, { outerTag: 'g.0', innerTag: 'l.0' });
    const a = Float32Array.from({ length: 32 }, (_, k) => (k === 9 ? NaN : k));
    const out = new Float32Array(4);
    await run(knl, device, { a, out });
    assert.equal(Array.from(out).map(String), ['28', 'NaN', '30', '31'], device.name);
  }
});

test.run();
