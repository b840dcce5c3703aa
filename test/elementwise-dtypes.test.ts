/**
 * Dtypes in kernels, on every device present: promoted results computed in the
 * computation dtype and stored in the output dtype exactly as PyTorch does (integers
 * wrap, float16 computes in float32, bools are truth values), the promotion methods
 * at work, complex numbers as pairs of reals, and every dtype pair (on the CPU).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { LoomError } from '@loom/core';
import {
  elementwiseDTypes,
  pointwise,
  supportsDType,
  tensor,
  type ComplexScalar,
  type Tensor,
  type TensorDType,
} from '@loom/elementwise';
import { testDevices } from './support/devices.ts';
import { assertNumbers, broadcastApply, numbers, sample, toDType } from './support/elementwise-reference.ts';

const f32 = Math.fround;

const add = pointwise({ name: 'add' }, (x: number, y: number) => x + y);
const mul = pointwise({ name: 'mul' }, (x: number, y: number) => x * y);

type Complex = readonly [number, number];

/** A tensor of `dtype` with deterministic values, and those values (complex ones as pairs). */
function make(
  dtype: TensorDType,
  n: number,
  seed: number,
  device = testDevices()[0],
): { t: Tensor; v: (number | Complex)[] } {
  if (dtype === 'complex64' || dtype === 'complex128') {
    const re = sample(dtype, n, seed);
    const im = sample(dtype, n, seed + 100);
    const v = re.map((r, k) => [r, im[k]] as const);
    return {
      t: tensor(
        v.map(([r, i]) => ({ re: r, im: i })),
        [n],
        { device, dtype },
      ),
      v,
    };
  }
  const v = sample(dtype, n, seed);
  return { t: tensor(v, [n], { device, dtype }), v };
}

/** A tensor's values as numbers, complex ones as pairs. */
async function read(t: Tensor): Promise<(number | Complex)[]> {
  const flat = numbers(await t.toArray(), t.dtype);
  if (t.dtype !== 'complex64' && t.dtype !== 'complex128') return flat;
  return Array.from({ length: flat.length / 2 }, (_, k) => [flat[2 * k], flat[2 * k + 1]] as const);
}

const isPair = (x: unknown): x is Complex => Array.isArray(x);

/** x + y as PyTorch computes it: both converted to the computation dtype, added there, stored as the result dtype. */
function referenceAdd(
  x: number | Complex,
  y: number | Complex,
  computation: TensorDType,
  result: TensorDType,
): number | Complex {
  const c = (v: number | Complex): Complex => (isPair(v) ? v : [v, 0]);
  if (computation === 'complex64' || computation === 'complex128') {
    const [a, b] = [c(x), c(y)];
    const part = computation === 'complex64' ? 'float32' : 'float64';
    const sum = [
      toDType(toDType(a[0], part) + toDType(b[0], part), part),
      toDType(toDType(a[1], part) + toDType(b[1], part), part),
    ] as const;
    return result === computation ? sum : toDType(sum[0], result);
  }
  const [a, b] = [toDType(isPair(x) ? x[0] : x, computation), toDType(isPair(y) ? y[0] : y, computation)];
  return toDType(toDType(a + b, computation), result);
}

function assertValues(
  actual: readonly (number | Complex)[],
  expected: readonly (number | Complex)[],
  what: string,
  tolerance = 0,
): void {
  const flat = (xs: readonly (number | Complex)[]) => xs.flatMap((x) => (isPair(x) ? [...x] : [x]));
  assertNumbers(flat(actual), flat(expected), what, tolerance);
}

for (const device of testDevices()) {
  const on = { device };
  const can = (t: TensorDType) => supportsDType(device, t);

  test(`${device.name}: int8 + uint8 is int16; int8 * int8 wraps in int8; uint8 + (-1) wraps`, async () => {
    const i8 = tensor([100, -100, 127, -128], undefined, { device, dtype: 'int8' });
    const u8 = tensor([200, 255, 1, 0], undefined, { device, dtype: 'uint8' });
    const sum = await add(i8, u8);
    assert.is(sum.dtype, 'int16');
    assert.equal(numbers(await sum.toArray()), [300, 155, 128, -128]);
    const product = await mul(i8, tensor([3, 3, 2, 2], undefined, { device, dtype: 'int8' }));
    assert.is(product.dtype, 'int8');
    assert.equal(
      numbers(await product.toArray()),
      [300, -300, 254, -256].map((v) => toDType(v, 'int8')),
    );
    const wrapped = await add(u8, -1);
    assert.is(wrapped.dtype, 'uint8'); // a Python int does not widen
    assert.equal(numbers(await wrapped.toArray()), [199, 254, 0, 255]);
  });

  test(`${device.name}: bools: True + True is True; bool + int is int64 (where int64 exists); int32 + 2.5 is float32`, async () => {
    const b = tensor([true, true, false, false], undefined, on);
    const c = tensor([true, false, true, false], undefined, on);
    const or = await add(b, c);
    assert.is(or.dtype, 'bool');
    assert.equal(numbers(await or.toArray()), [1, 1, 1, 0]);
    const i = tensor([1, 2, 3, 4], undefined, { device, dtype: 'int32' });
    const half = await add(i, 2.5);
    assert.is(half.dtype, 'float32');
    assert.equal(numbers(await half.toArray()), [3.5, 4.5, 5.5, 6.5]);
    const mixed = await add(b, tensor([5, 6, 7, 8], undefined, { device, dtype: 'int16' }));
    assert.is(mixed.dtype, 'int16');
    assert.equal(numbers(await mixed.toArray()), [6, 7, 7, 8]);
    if (can('int64')) {
      const long = await add(b, 3);
      assert.is(long.dtype, 'int64');
      assert.equal(numbers(await long.toArray()), [4, 4, 3, 3]);
    } else {
      assert.throws(() => add(b, 3), /int64 is not available/);
    }
  });

  test(`${device.name}: float16 computes in float32 and stores float16 (where the device has it)`, async () => {
    if (!can('float16')) {
      assert.throws(
        () => add(tensor([1, 2], undefined, { device, dtype: 'float16' }), 1),
        (e: unknown) => e instanceof LoomError && /float16 is not available/.test((e as Error).message),
      );
      return;
    }
    const x = make('float16', 64, 70, device);
    const y = make('float16', 64, 71, device);
    const sum = await add(x.t, y.t);
    assert.is(sum.dtype, 'float16');
    assertValues(
      await read(sum),
      x.v.map((a, k) => toDType(f32((a as number) + (y.v[k] as number)), 'float16')),
      'float16 + float16',
    );
    const scaled = await mul(x.t, 0.1); // a Python float stays weak: float16 out, float32 math
    assert.is(scaled.dtype, 'float16');
    assertValues(
      await read(scaled),
      x.v.map((a) => toDType(f32((a as number) * f32(0.1)), 'float16')),
      'float16 * 0.1',
    );
  });

  test(`${device.name}: bfloat16 computes in float32 and stores bfloat16; with float16 it meets in float32`, async () => {
    const x = make('bfloat16', 64, 72, device);
    const y = make('bfloat16', 64, 73, device);
    const sum = await add(x.t, y.t);
    assert.is(sum.dtype, 'bfloat16');
    assertValues(
      await read(sum),
      x.v.map((a, k) => toDType(f32((a as number) + (y.v[k] as number)), 'bfloat16')),
      'bfloat16 + bfloat16',
    );
    const scaled = await mul(x.t, 0.1); // a Python float stays weak: bfloat16 out, float32 math
    assert.is(scaled.dtype, 'bfloat16');
    assertValues(
      await read(scaled),
      x.v.map((a) => toDType(f32((a as number) * f32(0.1)), 'bfloat16')),
      'bfloat16 * 0.1',
    );
    if (!can('float16')) return;
    const h = make('float16', 64, 74, device);
    const mixed = await add(x.t, h.t);
    assert.is(mixed.dtype, 'float32');
    assertValues(
      await read(mixed),
      x.v.map((a, k) => f32((a as number) + (h.v[k] as number))),
      'bfloat16 + float16',
    );
  });

  test(`${device.name}: the promotion methods at work`, async () => {
    const i = tensor([0, 1, 2, 3], undefined, { device, dtype: 'int32' });
    const sin = pointwise({ promotionMethods: [[0, 'INT_TO_FLOAT']] }, (x: number) => Math.sin(x));
    const s = await sin(i);
    assert.is(s.dtype, 'float32');
    assertNumbers(
      numbers(await s.toArray()),
      [0, 1, 2, 3].map((v) => f32(Math.sin(v))),
      'sin',
      1e-6,
    );

    const eq = pointwise({ promotionMethods: [[0, 1, 'ALWAYS_BOOL']] }, (x: number, y: number) => x === y);
    const e = await eq(i, tensor([0, 1.5, 2, 2.5], undefined, { device, dtype: 'float32' }));
    assert.is(e.dtype, 'bool');
    assert.equal(numbers(await e.toArray()), [1, 0, 1, 0]);

    const where = pointwise({ promotionMethods: [[1, 2, 'NO_OPMATH']] }, (c: boolean, x: number, y: number) =>
      c ? x : y,
    );
    const w = await where(
      tensor([true, false, true, false], undefined, on),
      i,
      tensor([9, 9, 9, 9], undefined, { device, dtype: 'int8' }),
    );
    assert.is(w.dtype, 'int32');
    assert.equal(numbers(await w.toArray()), [0, 9, 2, 9]);

    const truediv = pointwise({ promotionMethods: [[0, 1, 'INT_TO_FLOAT']] }, (x: number, y: number) => x / y);
    const q = await truediv(tensor([7, -7, 1, 0], undefined, { device, dtype: 'int32' }), 2);
    assert.is(q.dtype, 'float32');
    assert.equal(numbers(await q.toArray()), [3.5, -3.5, 0.5, 0]);

    const boolToLong = pointwise({ promotionMethods: [[0, 1, 'BOOL_TO_LONG']] }, (x: number, y: number) => x * y + x);
    const b = tensor([true, true, false], undefined, on);
    if (can('int64')) {
      const l = await boolToLong(b, tensor([true, false, true], undefined, on));
      assert.is(l.dtype, 'int64');
      assert.equal(numbers(await l.toArray()), [2, 1, 0]);
    } else {
      assert.throws(() => boolToLong(b, b), /int64 is not available/);
    }
  });

  test(`${device.name}: complex64 arithmetic as pairs of reals, with real tensors and complex scalars`, async () => {
    const z = make('complex64', 8, 80, device);
    const w = make('complex64', 8, 81, device);
    const r = make('float32', 8, 82, device);
    const calc = pointwise({ name: 'calc' }, (a: number, b: number, c: number) => (a * b - c) / b);
    const out = await calc(z.t, w.t, r.t);
    assert.is(out.dtype, 'complex64');
    const expected = z.v.map((a, k) => {
      const [ar, ai] = a as Complex;
      const [br, bi] = w.v[k] as Complex;
      const c = r.v[k] as number;
      const [pr, pi] = [ar * br - ai * bi - c, ar * bi + ai * br];
      const d = br * br + bi * bi;
      return [(pr * br + pi * bi) / d, (pi * br - pr * bi) / d] as const;
    });
    assertValues(await read(out), expected, '(z*w - r)/w', 1e-5);

    const shifted = await add(r.t, { re: 1, im: -2 } satisfies ComplexScalar);
    assert.is(shifted.dtype, 'complex64');
    assertValues(
      await read(shifted),
      r.v.map((c) => [f32((c as number) + 1), -2] as const),
      'r + (1-2j)',
      1e-7,
    );

    const parts = pointwise(
      {
        numOutputs: 3,
        promotionMethods: [
          [0, 'COMPLEX_TO_FLOAT'],
          [0, 'COMPLEX_TO_FLOAT'],
          [0, 'DEFAULT'],
        ],
      },
      '(z) => [real(z), imag(z), conj(z)]',
    );
    const [re, im, conj] = await parts(z.t);
    assert.equal([re.dtype, im.dtype, conj.dtype], ['float32', 'float32', 'complex64']);
    assertValues(
      await read(re),
      z.v.map((c) => (c as Complex)[0]),
      'real',
    );
    assertValues(
      await read(im),
      z.v.map((c) => (c as Complex)[1]),
      'imag',
    );
    assertValues(
      await read(conj),
      z.v.map((c) => [(c as Complex)[0], -(c as Complex)[1]] as const),
      'conj',
    );
    if (can('complex128')) {
      const wide = await add(z.t, tensor([1, 2, 3, 4, 5, 6, 7, 8], undefined, { device, dtype: 'float64' }));
      assert.is(wide.dtype, 'complex128');
    }
  });

  test(`${device.name}: int64 tensors keep 64-bit values (where int64 exists)`, async () => {
    if (!can('int64')) return;
    const big = tensor(BigInt64Array.from([2n ** 40n, -(2n ** 40n) - 3n]), undefined, on);
    const out = await add(big, 5);
    assert.is(out.dtype, 'int64');
    assert.equal(Array.from((await out.toArray()) as BigInt64Array), [2n ** 40n + 5n, -(2n ** 40n) + 2n]);
  });
}

/**
 * Every pair of dtypes a device holds, through DEFAULT (x + y) and ALWAYS_BOOL (x == y)
 * at once. Each pair is a kernel of its own, so by default only the CPU device (which
 * compiles in a few milliseconds) runs them all; LOOM_EXHAUSTIVE=1 runs every device.
 */
const ALL_PAIRS: TensorDType[] = [
  'bool',
  'uint8',
  'int8',
  'int16',
  'int32',
  'int64',
  'float16',
  'bfloat16',
  'float32',
  'float64',
  'complex64',
  'complex128',
];
const sumAndEq = pointwise(
  {
    numOutputs: 2,
    promotionMethods: [
      [0, 1, 'DEFAULT'],
      [0, 1, 'ALWAYS_BOOL'],
    ],
    name: 'sum_eq',
  },
  (x: number, y: number) => [x + y, x === y],
);

for (const device of process.env.LOOM_EXHAUSTIVE ? testDevices() : testDevices().slice(0, 1)) {
  test(`${device.name}: every dtype pair adds and compares as PyTorch computes it`, async () => {
    const dtypes = ALL_PAIRS.filter((t) => supportsDType(device, t));
    for (const a of dtypes) {
      for (const b of dtypes) {
        // one seed for both: dtypes of one kind get equal elements, so == has something to find
        const x = make(a, 6, 90, device);
        const y = make(b, 6, 90, device);
        const operands = [
          { kind: 'tensor', dtype: a, ndim: 1 },
          { kind: 'tensor', dtype: b, ndim: 1 },
        ] as const;
        const { computation, result } = elementwiseDTypes(operands, 'DEFAULT');
        const [sum, eq] = await sumAndEq(x.t, y.t);
        assert.is(sum.dtype, result, `${a} + ${b}`);
        assert.is(eq.dtype, 'bool', `${a} == ${b}`);
        const ops = [
          { values: x.v as never, shape: [6] },
          { values: y.v as never, shape: [6] },
        ];
        assertValues(
          await read(sum),
          broadcastApply(ops, (p: number | Complex, q: number | Complex) => referenceAdd(p, q, computation, result))
            .values,
          `${a} + ${b}`,
        );
        const same = (p: number | Complex, q: number | Complex) => {
          const [u, v] = [referenceAdd(p, 0, computation, computation), referenceAdd(q, 0, computation, computation)];
          return (isPair(u) && isPair(v) ? u[0] === v[0] && u[1] === v[1] : u === v) ? 1 : 0;
        };
        assertValues(await read(eq), broadcastApply(ops, same).values, `${a} == ${b}`);
      }
    }
  });
}

test.run();
