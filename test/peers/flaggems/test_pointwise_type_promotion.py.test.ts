/**
 * Ports of FlagGems' tests/test_pointwise_type_promotion.py: one test per promotion method of
 * `pointwise_dynamic`, each through the FlagGems operator that uses it — add (DEFAULT), where
 * (NO_OPMATH), sin (INT_TO_FLOAT), eq (ALWAYS_BOOL), abs (COMPLEX_TO_FLOAT), pow (BOOL_TO_LONG).
 * Loom has no operator library: each operator is written here as FlagGems defines it, a
 * `pointwise()` with that operator's promotionMethods, and called with integer and float
 * tensors (float16, float32, bfloat16) of ranks 0 to 5 on every test device. As in FlagGems, the
 * result must have PyTorch's dtype and match a float64 reference in plain JavaScript, converted
 * to that dtype, within FlagGems' tolerance for it (exactly, for where, eq and abs).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Device } from '@loom/core';
import { pointwise, supportsDType, type Tensor, tensor, type TensorDType } from '@loom/elementwise';
import { testDevices } from '../../support/devices.ts';
import { numbers, sample, toDType } from '../../support/elementwise-reference.ts';
import { refusedNow } from '../../support/refusals.ts';

/** FlagGems' POINTWISE_SHAPES, smaller: the same ranks, 0 to 5. */
const POINTWISE_SHAPES = [[], [1], [32, 32], [4, 32, 15], [2, 8, 4, 6], [2, 3, 5, 4, 3]];
const FLOAT_DTYPES = ['float16', 'float32', 'bfloat16'] as const;
const SCALARS = [0.001, -0.999, 100.001, -111.999];

/** FlagGems' RESOLUTION: the relative tolerance per result dtype (its absolute one is 1e-4). */
const RESOLUTION: Partial<Record<TensorDType, number>> = { float16: 1e-3, float32: 1.3e-6, bfloat16: 0.016 };

// FlagGems' operators, as its ops/*.py declare them

const add = pointwise(
  { isTensor: [true, true, false], promotionMethods: [[0, 1, 'DEFAULT']] },
  (x: number, y: number, alpha: number) => x + y * alpha,
);
const where = pointwise(
  { promotionMethods: [[1, 2, 'NO_OPMATH']] },
  (condition: boolean, self: number, other: number) => (condition ? self : other),
);
const gt = pointwise(
  { isTensor: [true, false], promotionMethods: [[0, 1, 'ALWAYS_BOOL']] },
  (x: number, y: number) => x > y,
);
const sin = pointwise({ promotionMethods: [[0, 'INT_TO_FLOAT']] }, (x: number) => Math.sin(x));
const eq = pointwise({ promotionMethods: [[0, 1, 'ALWAYS_BOOL']] }, (x: number, y: number) => x === y);
const abs = pointwise({ promotionMethods: [[0, 'COMPLEX_TO_FLOAT']] }, (x: number) => Math.abs(x));
const pow = pointwise({ promotionMethods: [[0, 1, 'BOOL_TO_LONG']] }, (x: number, exponent: number) => x ** exponent);

const numel = (shape: readonly number[]) => shape.reduce((a, b) => a * b, 1);

/**
 * FLOAT_DTYPES that `device` has (float16 needs WebGPU's 'shader-f16', which NVIDIA's Vulkan adapter
 * lacks); a dtype it lacks is refused, by name, before anything runs.
 */
function floatDTypes(device: Device): TensorDType[] {
  for (const dtype of FLOAT_DTYPES.filter((d) => !supportsDType(device, d)))
    refusedNow(
      () => add.plan(tensor([1], [1], { device, dtype }), tensor([2], [1], { device, dtype }), 1),
      new RegExp(`${dtype} is not available on`),
    );
  return FLOAT_DTYPES.filter((d) => supportsDType(device, d));
}

/** torch.randint's int64 (int32 where the device has no int64: WebGPU). */
const intDType = (device: Device): TensorDType => (supportsDType(device, 'int64') ? 'int64' : 'int32');

/** A tensor of values `v` (already representable in `dtype`). */
interface Sample {
  readonly t: Tensor;
  readonly v: number[];
}

/** torch.randint(low, high, shape): deterministic integers in [low, high). */
function randint(device: Device, low: number, high: number, shape: number[], seed: number): Sample {
  const v = sample('float64', numel(shape), seed).map((u) => low + Math.floor(((u + 2) / 4) * (high - low)));
  return { t: tensor(v, shape, { device, dtype: intDType(device) }), v };
}

/** torch.randn(shape, dtype): deterministic floats in [-2, 2), rounded to `dtype`. */
function randn(device: Device, shape: number[], dtype: TensorDType, seed: number): Sample {
  const v = sample(dtype, numel(shape), seed);
  return { t: tensor(v, shape, { device, dtype }), v };
}

/**
 * FlagGems' gems_assert_close: the dtype, then every element within 1e-4 + RESOLUTION * |expected| of
 * `reference` (computed in float64) converted to the dtype; infinities must match, NaN matches NaN.
 */
async function assertClose(res: Tensor, reference: readonly number[], dtype: TensorDType, what: string): Promise<void> {
  assert.is(res.dtype, dtype, `${what}: dtype`);
  const actual = numbers(await res.toArray(), res.dtype);
  const rtol = RESOLUTION[dtype] ?? 0;
  assert.is(actual.length, reference.length, `${what}: elements`);
  reference.forEach((r, k) => {
    const e = toDType(r, dtype);
    const a = actual[k];
    const ok = Number.isNaN(e)
      ? Number.isNaN(a)
      : Number.isFinite(e)
        ? Math.abs(a - e) <= 1e-4 + rtol * Math.abs(e)
        : a === e;
    if (!ok) assert.unreachable(`${what}: element ${k} is ${a}, expected ${e} (${r} in float64)`);
  });
}

/** FlagGems' gems_assert_equal: the dtype and every element exactly. */
async function assertEqual(res: Tensor, expected: readonly number[], dtype: TensorDType, what: string): Promise<void> {
  assert.is(res.dtype, dtype, `${what}: dtype`);
  assert.equal(numbers(await res.toArray(), res.dtype), [...expected], what);
}

for (const device of testDevices()) {
  const int = intDType(device);
  const label = (shape: number[], ...more: unknown[]) => [`[${shape.join(', ')}]`, ...more].join(', ');

  test(`${device.name}: test_pointwise_type_promotion.py::test_type_promotion_default`, async () => {
    for (const [s, shape] of POINTWISE_SHAPES.entries()) {
      for (const floatType of floatDTypes(device)) {
        const inp1 = randint(device, 0, 10, shape, 10 * s + 1);
        const inp2 = randn(device, shape, floatType, 10 * s + 2);
        for (const alpha of SCALARS) {
          // arg0: int, arg1: float; then arg0: float, arg1: int
          await assertClose(
            await add(inp1.t, inp2.t, alpha),
            inp1.v.map((x, k) => x + inp2.v[k] * alpha),
            floatType,
            label(shape, int, floatType, alpha),
          );
          await assertClose(
            await add(inp2.t, inp1.t, alpha),
            inp2.v.map((x, k) => x + inp1.v[k] * alpha),
            floatType,
            label(shape, floatType, int, alpha),
          );
        }
      }
    }
  });

  test(`${device.name}: test_pointwise_type_promotion.py::test_type_promotion_no_opmath`, async () => {
    for (const [s, shape] of POINTWISE_SHAPES.entries()) {
      for (const floatType of floatDTypes(device)) {
        const inp1 = randint(device, 0, 10, shape, 10 * s + 3);
        const inp2 = randn(device, shape, floatType, 10 * s + 4);
        const condition = await gt(inp1.t, 0);
        assert.is(condition.dtype, 'bool');
        // arg0: bool, arg1: int, arg2: float; then arg1: float, arg2: int
        await assertEqual(
          await where(condition, inp1.t, inp2.t),
          inp1.v.map((x, k) => (x > 0 ? x : inp2.v[k])),
          floatType,
          label(shape, int, floatType),
        );
        await assertEqual(
          await where(condition, inp2.t, inp1.t),
          inp1.v.map((x, k) => (x > 0 ? inp2.v[k] : x)),
          floatType,
          label(shape, floatType, int),
        );
      }
    }
  });

  test(`${device.name}: test_pointwise_type_promotion.py::test_type_promotion_int_to_float`, async () => {
    for (const [s, shape] of POINTWISE_SHAPES.entries()) {
      for (const floatType of floatDTypes(device)) {
        const inpFloat = randn(device, shape, floatType, 10 * s + 5);
        await assertClose(await sin(inpFloat.t), inpFloat.v.map(Math.sin), floatType, label(shape, floatType));
      }
      // an integer tensor gives the default float dtype
      const inpInt = randint(device, 0, 10, shape, 10 * s + 6);
      await assertClose(await sin(inpInt.t), inpInt.v.map(Math.sin), 'float32', label(shape, int));
    }
  });

  test(`${device.name}: test_pointwise_type_promotion.py::test_type_promotion_always_bool`, async () => {
    for (const [s, shape] of POINTWISE_SHAPES.entries()) {
      const inp1 = randint(device, 0, 10, shape, 10 * s + 7);
      const inp2 = randint(device, 0, 10, shape, 10 * s + 8);
      await assertEqual(
        await eq(inp1.t, inp2.t),
        inp1.v.map((x, k) => (x === inp2.v[k] ? 1 : 0)),
        'bool',
        label(shape, int),
      );
    }
  });

  test(`${device.name}: test_pointwise_type_promotion.py::test_type_promotion_complex_to_long`, async () => {
    for (const [s, shape] of POINTWISE_SHAPES.entries()) {
      for (const floatType of floatDTypes(device)) {
        const inp = randn(device, shape, floatType, 10 * s + 9);
        await assertEqual(await abs(inp.t), inp.v.map(Math.abs), floatType, label(shape, floatType));
      }
      // FlagGems' randint(0, 10) has nothing to negate: from -10 here
      const inp1 = randint(device, -10, 10, shape, 10 * s + 10);
      await assertEqual(await abs(inp1.t), inp1.v.map(Math.abs), int, label(shape, int));
    }
  });

  test(`${device.name}: test_pointwise_type_promotion.py::test_type_promotion_bool_to_long`, async () => {
    for (const [s, shape] of POINTWISE_SHAPES.entries()) {
      for (const floatDType of floatDTypes(device)) {
        const inp1 = randn(device, shape, floatDType, 10 * s + 11);
        const inp2 = randint(device, 0, 10, shape, 10 * s + 12);
        // arg0: float, arg1: int; then arg0: int, arg1: float (0 to a negative power is infinite)
        await assertClose(
          await pow(inp1.t, inp2.t),
          inp1.v.map((x, k) => x ** inp2.v[k]),
          floatDType,
          label(shape, floatDType, int),
        );
        await assertClose(
          await pow(inp2.t, inp1.t),
          inp2.v.map((x, k) => x ** inp1.v[k]),
          floatDType,
          label(shape, int, floatDType),
        );
      }
    }
  });
}

test.run();
