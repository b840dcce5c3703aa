/**
 * Constant tables (`temporaryVariable(name, { initializer, readOnly: true })`) and float
 * literals, on every device (issue 24): every value a target writes into its code is exactly
 * the value in its dtype (float16 tables on the CPU device held values where their bits belong;
 * WGSL read the inexact `65500.0h` as 65472; OpenCL printed −0 as `0.0f`); a table's values must
 * fit its dtype (int8 300 wrapped to 44); an access past a table's end is a LoomError before the
 * launch, as an argument's is (OpenCL and WebGPU read 0); an empty table and a float16 literal
 * in a kernel without float16 arrays no longer make WGSL that does not compile.
 *
 * WebGPU is held to what WGSL promises (README, "Where WGSL says less than IEEE"): the sign
 * of a zero may be ignored and float32 subnormals may be flushed to zero.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  float16Bits,
  float16Value,
  generateCode,
  globalArg,
  LoomError,
  makeKernel,
  roundToFloat16,
  run,
  setTemporaryAddressSpace,
  targetFacts,
  temporaryVariable,
  type DType,
  type Device,
  type HostArray,
} from '@loom/core';
import { openclTarget } from '@loom/codegen-opencl';
import { wgslTarget } from '@loom/codegen-wgsl';
import { supportsDType, testDevices } from './support/devices.ts';

const F32_MAX = 3.4028234663852886e38;
const F32_MIN_NORMAL = 2 ** -126;
const F32_SUBNORMAL = 2 ** -149;
/** Just above the float16 halfway point 1 + 2^-11: float16 rounds it up, float then float16 down to 1. */
const HALF_TIE_ABOVE = 1 + 2 ** -11 + 2 ** -40;

/** Each dtype's table: its range's edges, and for floats −0, subnormals and inexact decimals. */
const TABLES: Partial<Record<DType, readonly number[]>> = {
  bool: [0, 1],
  int8: [-128, 127, -1, 0],
  uint8: [0, 255],
  int16: [-32768, 32767],
  uint16: [0, 65535],
  int32: [-(2 ** 31), 2 ** 31 - 1, -7],
  uint32: [0, 2 ** 32 - 1],
  float16: [1, 65504, -65504, 2 ** -24, 2 ** -14, -0, 0.1, 1 / 3, 65519],
  float32: [F32_MAX, -F32_MAX, F32_MIN_NORMAL, F32_SUBNORMAL, -0, 0.1, 1 / 3, 16777217],
  float64: [Number.MAX_VALUE, 5e-324, -0, 0.1],
};

/** `value` in `dtype`, as the CPU device holds it. */
const inDType = (dtype: DType, value: number) =>
  dtype === 'float16' ? roundToFloat16(value) : dtype === 'float32' ? Math.fround(value) : value;

/** The host array's values as numbers (float16: from its bits). */
const numbers = (dtype: DType, a: HostArray): number[] =>
  dtype === 'float16' ? Array.from(a as Uint16Array, float16Value) : Array.from(a as ArrayLike<number>, Number);

/** The smallest normal value of each float dtype: anything nearer zero is subnormal. */
const MIN_NORMAL: Partial<Record<DType, number>> = { float16: 2 ** -14, float32: F32_MIN_NORMAL, float64: 2 ** -1022 };

/**
 * Whether `got` is `expected` as `device` promises it: exactly (−0 and NaN included), but a zero
 * of either sign for a zero where the target keeps no sign of zero, and a zero for a subnormal
 * where it may flush them (WGSL's float32: NVIDIA's Vulkan flushes them; lavapipe keeps them).
 */
function agrees(device: Device, dtype: DType, expected: number, got: number): boolean {
  if (Object.is(expected, got)) return true;
  const facts = targetFacts(device.target);
  if (!facts.signedZeros && expected === 0 && got === 0) return true;
  return facts.flushesSubnormals.has(dtype) && Math.abs(expected) < (MIN_NORMAL[dtype] ?? 0) && got === 0;
}

function assertHolds(device: Device, dtype: DType, got: HostArray, values: readonly number[], what: string): void {
  const actual = numbers(dtype, got);
  const expected = values.map((v) => inDType(dtype, v));
  if (!expected.every((e, k) => agrees(device, dtype, e, actual[k]))) assert.equal(actual, expected, what);
}

for (const device of testDevices()) {
  test(`${device.name}: a constant table of every dtype holds exactly its values`, async () => {
    for (const [dtype, values] of Object.entries(TABLES) as [DType, number[]][]) {
      if (!supportsDType(device, dtype)) continue; // float64 on WebGPU: refused with a LoomError (dtypes tests)
      for (const addressSpace of ['private', 'global'] as const) {
        const n = values.length;
        const knl = makeKernel(`{ [i]: 0<=i<${n} }`, 'out[i] = tab[i]', [
          temporaryVariable('tab', { dtype, initializer: values, readOnly: true, addressSpace }),
          globalArg('out', { dtype, shape: [n] }),
          '...',
        ]);
        const { out } = await run(knl, device, {});
        assertHolds(device, dtype, out as HostArray, values, `${dtype} in ${addressSpace} memory`);
      }
    }
  });

  test(`${device.name}: float literals are exactly their value in the dtype they take`, async () => {
    const literals = [0.1, 1 / 3, 65504, 65519, F32_MAX, F32_MIN_NORMAL, F32_SUBNORMAL, 16777217, -0.5, HALF_TIE_ABOVE];
    for (const dtype of ['float16', 'float32'] as const) {
      if (!supportsDType(device, dtype)) continue;
      const knl = makeKernel(
        '{ [i]: 0<=i<1 }',
        literals.map((v, k) => `out${k}[i] = ${dtype}(${v})`),
        literals.map((_, k) => globalArg(`out${k}`, { dtype, shape: [1] })),
      );
      const out = await run(knl, device, {});
      literals.forEach((v, k) => {
        assertHolds(device, dtype, out[`out${k}`] as HostArray, [v], `${dtype}(${v})`);
      });
    }
  });

  test(`${device.name}: a negative zero literal keeps its sign`, async () => {
    const knl = makeKernel('{ [i]: 0<=i<2 }', 'out[i] = 1 / (-0.0 * a[i])', [
      globalArg('a', { dtype: 'float32', shape: [2] }),
      '...',
    ]);
    const { out } = await run(knl, device, { a: Float32Array.of(1, -1) });
    // WGSL may ignore a zero's sign (and assume results finite): only the others are held to it
    const { signedZeros, floatSpecials } = targetFacts(device.target);
    if (signedZeros && floatSpecials) assert.equal(Array.from(out as Float32Array), [-Infinity, Infinity]);
    assert.match(generateCode(knl, device.target).code, /-0(\.0)?[f ]/);
  });

  test(`${device.name}: an access past a constant table's end is a LoomError before the launch; one read from data is guarded`, async () => {
    const table = temporaryVariable('tab', { dtype: 'float32', initializer: [1, 2, 3], readOnly: true });
    const past = makeKernel('{ [i]: 0<=i<n }', 'out[i] = tab[i + 2]', [
      table,
      globalArg('out', { dtype: 'float32', shape: ['n'] }),
      '...',
    ]);
    // in bounds for n = 1: it runs
    assert.equal(Array.from((await run(past, device, { n: 1 })).out as Float32Array), [3]);
    try {
      await run(past, device, { n: 3 });
      assert.unreachable('the access past the end ran');
    } catch (e) {
      assert.instance(e, LoomError);
      assert.match((e as Error).message, "would access the constant table 'tab' at index i + 2 up to 4");
    }
    const gather = makeKernel('{ [i]: 0<=i<4 }', 'out[i] = tab[idx[i]]', [
      table,
      globalArg('idx', { dtype: 'int32', shape: [4] }),
      '...',
    ]);
    const { out } = await run(gather, device, { idx: Int32Array.of(2, 0, 7, -1) }, { checkBounds: false });
    assert.equal(Array.from(out as Float32Array), [3, 1, 0, 0]);
  });

  test(`${device.name}: a float16 literal in a kernel with no float16 array`, async () => {
    if (!supportsDType(device, 'float16')) {
      assert.throws(() => generateCode(half, device.target), /computes in float16/);
      return;
    }
    const { out } = await run(half, device, { a: Float32Array.of(1, 2) });
    assert.equal(
      Array.from(out as Float32Array),
      [1, 2].map((x) => Math.fround(roundToFloat16(0.1) + x)),
    );
  });
}

const half = makeKernel('{ [i]: 0<=i<2 }', 'out[i] = float32(float16(0.1)) + a[i]', [
  globalArg('a', { dtype: 'float32', shape: [2] }),
  '...',
]);

test('WGSL: enable f16 wherever a float16 value is made, and a LoomError where the adapter has no shader-f16', () => {
  assert.match(generateCode(half, wgslTarget()).code, /^enable f16;/);
  assert.throws(
    () => generateCode(half, wgslTarget({ shaderF16: false })),
    (e: unknown) => e instanceof LoomError && /shader-f16/.test((e as Error).message),
  );
});

test('float literals are spelled exactly: −0 with its sign, float16 rounded once, WGSL in hexadecimal where no short decimal is exact', () => {
  const knl = (text: string, dtype: DType) =>
    makeKernel('{ [i]: 0<=i<1 }', text, [globalArg('out', { dtype, shape: [1] })]);
  assert.match(generateCode(knl('out[i] = -0.0', 'float32'), openclTarget()).code, 'out[i] = -0.0f;');
  assert.match(generateCode(knl('out[i] = float16(65504)', 'float16'), wgslTarget()).code, '65504.0h');
  // 0.1 as f32 is 0.100000001490116119384765625: no short decimal is that value
  assert.match(generateCode(knl('out[i] = 0.1', 'float32'), wgslTarget()).code, '0x1.99999ap-4');
  // through float it would round twice (to 1.0), through double it would need fp64
  assert.match(
    generateCode(knl(`out[i] = float16(${HALF_TIE_ABOVE})`, 'float16'), openclTarget()).code,
    '(half) 1.0009765625f',
  );
});

test('a table value that does not fit its dtype, and an empty table, are LoomErrors naming the table and the element', () => {
  const table = (dtype: DType, initializer: number[]) => () =>
    temporaryVariable('tab', { dtype, initializer, readOnly: true });
  const refused = (make: () => unknown, message: RegExp) => {
    try {
      makeKernel('{ [i]: 0<=i<1 }', 'out[i] = tab[0]', [make() as ReturnType<typeof temporaryVariable>, '...']);
      assert.unreachable(`accepted: ${message}`);
    } catch (e) {
      assert.instance(e, LoomError);
      assert.match((e as Error).message, message);
    }
  };
  refused(table('int8', [1, 300]), /'tab': element 1 of the initializer, 300, is outside the range of int8/);
  refused(table('uint8', [-1]), /element 0 .* -1, is outside the range of uint8/);
  refused(table('int32', [2.5]), /element 0 .* 2.5, is not an integer/);
  refused(table('bool', [2]), /outside the range of bool/);
  refused(table('float16', [1, 1e5]), /element 1 .* 100000, is beyond the range of float16/);
  refused(table('float32', [1e39]), /beyond the range of float32/);
  refused(table('float32', []), /'tab': the initializer is empty/);
  // NaN and ±Inf given as such are float values; 65519 rounds to float16's largest, 65504
  makeKernel('{ [i]: 0<=i<1 }', 'out[i] = tab[0]', [table('float16', [Number.NaN, -Infinity, 65519])(), '...']);
  assert.is(float16Bits(65519), float16Bits(65504));
});

test('a constant table moved to local memory is a LoomError (nothing initializes it there: the CPU device read 0s)', () => {
  const knl = makeKernel('{ [i]: 0<=i<3 }', 'out[i] = tab[i]', [
    temporaryVariable('tab', { dtype: 'uint32', initializer: [9, 2 ** 32 - 1, 0], readOnly: true }),
    '...',
  ]);
  assert.throws(
    () => setTemporaryAddressSpace(knl, 'tab', 'local'),
    (e: unknown) => e instanceof LoomError && /'tab' is a constant table/.test((e as Error).message),
  );
});

test.run();
