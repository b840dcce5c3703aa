/**
 * Narrow integer intermediates (int8, int16, uint8, uint16): PyTorch computes each operation
 * of a payload in the promoted dtype, so `(x * y) % 7` over int8 takes the remainder of the
 * wrapped product. The targets compute narrow integers in 32 bits (C's promotion, WGSL's i32,
 * JavaScript's doubles) and wrapped only when storing, so multi-step payloads disagreed with
 * the documented rule (README, Semantics). Every device, against plain JS that wraps each
 * step explicitly in BigInt.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { pointwise, tensor, type TensorDType } from '@loom/elementwise';
import { testDevices } from './support/devices.ts';
import { wrapInt } from './support/integer-wrapping.ts';

type IntDType = 'int8' | 'int16' | 'int32' | 'uint8' | 'uint16';
const wrap = wrapInt;
const max = (a: bigint, b: bigint) => (a > b ? a : b);
const min = (a: bigint, b: bigint) => (a < b ? a : b);
const abs = (a: bigint) => (a < 0n ? -a : a);
/** Python's floor division (the expression language's `//`). */
const floorDiv = (a: bigint, b: bigint) => ((a / b) * b === a || a < 0n === b < 0n ? a / b : a / b - 1n);
/** A JavaScript truth value as 1 or 0. */
const bit = (c: boolean) => (c ? 1n : 0n);

/** Multi-step payloads: every operator the README lists for integers, each result feeding another. */
const payload = pointwise({ numOutputs: 11 }, (x: number, y: number) => [
  (x * y) % 7,
  (x + y) >> 1,
  (x - y) * 3,
  -x * y ** 2,
  (x << (y & 7)) | (x ^ y),
  (~x & 0x7f) + (x | 1) * (y & 3),
  (x * y > x + y ? 1 : 0) + (x * 2 === y * 2 ? 2 : 0),
  Math.abs(x) + Math.max(x * y, y) - Math.min(-x, y) + Math.min(x | y, 2),
  x ** (y & 3) % 11,
  // a negative literal converts to the computation dtype before min/max compares (~1 is 254 over uint8)
  Math.max(~1, Math.max(x, y)) + Math.min(x, -100),
  Math.min(-1, y) - Math.max(x, -2),
]);

/** PyTorch's answers to `payload`: each operation in the promoted dtype (`w` wraps into it). */
const expected = (x: bigint, y: bigint, w: (v: bigint) => bigint): bigint[] => [
  w(x * y) % 7n,
  w(x + y) >> 1n,
  w(w(x - y) * 3n),
  w(w(-x) * w(y * y)),
  w(x << (y & 7n)) | (x ^ y),
  w(w(~x) & 0x7fn) + w(w(x | 1n) * (y & 3n)),
  bit(w(x * y) > w(x + y)) + 2n * bit(w(x * 2n) === w(y * 2n)),
  w(w(w(w(abs(x)) + max(w(x * y), y)) - min(w(-x), y)) + min(x | y, 2n)),
  w(x ** (y & 3n)) % 11n,
  w(max(w(-2n), max(x, y)) + min(x, w(-100n))),
  w(min(w(-1n), y) - max(x, w(-2n))),
];

/** Floor division (the expression language's `//`, which JavaScript lacks), and its overflow INT_MIN // −1. */
const floorDivision = pointwise({}, '(x * y) // 3 + x // (y | 1)');
const floorDivisionExpected = (x: bigint, y: bigint, w: (v: bigint) => bigint) =>
  w(floorDiv(w(x * y), 3n) + w(floorDiv(x, y | 1n)));

/** The data of each dtype: its edges (−128, 127, 255 ...), 0, ±1 and a few ordinary values. */
const DATA: Readonly<Record<IntDType, readonly number[]>> = {
  int8: [-128, 127, -1, 0, 100, -100, 5, 127, -128, 1, 64, -3],
  uint8: [255, 0, 128, 200, 1, 17, 255, 127, 2, 254, 16, 9],
  int16: [-32768, 32767, -1, 0, 300, -300, 181, 255, 32767, 1, -129, 7],
  uint16: [65535, 0, 32768, 256, 1, 300, 65535, 255, 2, 65534, 4096, 9],
  int32: [-(2 ** 31), 2 ** 31 - 1, -1, 0, 65536, -46341, 46341, 255, -128, 1, 127, 3],
};

/** Input dtypes and the dtype PyTorch promotes them to. */
const PAIRS: readonly (readonly [IntDType, IntDType, IntDType])[] = [
  ['int8', 'int8', 'int8'],
  ['uint8', 'uint8', 'uint8'],
  ['int16', 'int16', 'int16'],
  ['uint16', 'uint16', 'uint16'],
  ['int8', 'uint8', 'int16'],
  ['int8', 'int32', 'int32'],
];

test('narrow integer payloads compute every operation in the promoted dtype, on every device', async () => {
  for (const device of testDevices()) {
    for (const [tx, ty, t] of PAIRS) {
      // y reversed, so that each edge meets the others
      const [xs, ys] = [DATA[tx], [...DATA[ty]].reverse()];
      const x = tensor([...xs], undefined, { device, dtype: tx as TensorDType });
      const y = tensor(ys, undefined, { device, dtype: ty as TensorDType });
      const what = `${device.name}, ${tx} with ${ty}`;
      // inputs are loaded as the computation dtype, as PyTorch converts them
      const w = (v: bigint) => wrap(v, t);
      const operands = xs.map((a, k) => [w(BigInt(a)), w(BigInt(ys[k]))] as const);
      const outs = await payload(x, y);
      for (const [n, out] of outs.entries()) {
        assert.is(out.dtype, t, `${what}: output ${n}`);
        const want = operands.map(([a, b]) => Number(w(expected(a, b, w)[n])));
        assert.equal(Array.from(await out.toArray(), Number), want, `${what}: output ${n}`);
      }
      const quotients = await floorDivision(x, y);
      assert.equal(
        Array.from(await quotients.toArray(), Number),
        operands.map(([a, b]) => Number(w(floorDivisionExpected(a, b, w)))),
        `${what}: //`,
      );
    }
  }
});

test('a literal beside narrow data inside Math.min/Math.max must fit the computation dtype', () => {
  const x = tensor([1, 2], undefined, { dtype: 'uint8' });
  // 300 fits no uint8 (PyTorch refuses it too); -300 is below -255, the least an unsigned 8-bit literal may be
  for (const f of [(a: number) => Math.min(a, 300), (a: number) => Math.max(-300, Math.max(a, 1))]) {
    assert.throws(() => pointwise({}, f).plan(x), /does not fit uint8/);
  }
});

test('|x| of an int8 compared and selected, and -x of an int16 wrapped back, on every device (drivers miscompiled both)', async () => {
  // differential seed 1070972369: NVIDIA's Vulkan driver gave -16097 for x = -127, y = 1 (WGSL's abs()
  // of an i32 in a select; bench/repro-nvidia-wgsl-abs.ts); and NVIDIA's OpenCL read (short) -x at
  // x = -32768 as 32768 (bench/repro-nvidia-int16-min.ts)
  const selected = pointwise(
    {},
    (x: number, y: number) => (y << 5 >= Math.abs(x) ? y << 5 : Math.abs(x)) - Math.min(x, x) * Math.max(x, x),
  );
  const negated = pointwise({}, (x: number, y: number) => Math.min(-x, y));
  for (const device of testDevices()) {
    const x8 = tensor([-127, -128, 127, 0, 1], undefined, { device, dtype: 'int8' });
    const y32 = tensor([1, 1, 5, 0, -1], undefined, { device, dtype: 'int32' });
    const want8 = [-16002, -16256, -15969, 0, 0];
    assert.equal(
      Array.from(await (await selected(x8, y32)).toArray(), Number),
      want8,
      `${device.name}: int8 with int32`,
    );
    const x16 = tensor([-32768, -32768, 5, -1], undefined, { device, dtype: 'int16' });
    const y16 = tensor([7, -32768, 7, 0], undefined, { device, dtype: 'int16' });
    // -(-32768) wraps to -32768 in int16, as PyTorch computes it
    assert.equal(
      Array.from(await (await negated(x16, y16)).toArray(), Number),
      [-32768, -32768, -5, 0],
      `${device.name}: int16`,
    );
  }
});

test('a negative literal divisor beside unsigned data divides wrapped, on every device', async () => {
  // differential seed 3532479764: x % Math.min(2, -1) over uint16 divided by -1 in JavaScript and WGSL
  // (0) and by 65535 in OpenCL; PyTorch takes -1 beside uint16 as 65535
  const remainder = pointwise({}, (x: number) => x % Math.min(3 ^ 1, -1));
  const quotient = pointwise({}, 'x // -2');
  for (const device of testDevices()) {
    const x = tensor([65534, 65535, 7, 0], undefined, { device, dtype: 'uint16' });
    assert.equal(Array.from(await (await remainder(x)).toArray(), Number), [65534, 0, 7, 0], `${device.name}: %`);
    assert.equal(Array.from(await (await quotient(x)).toArray(), Number), [1, 1, 0, 0], `${device.name}: //`);
  }
});

test.run();
