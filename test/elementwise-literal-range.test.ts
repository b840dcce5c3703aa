/**
 * Whole-number literals that do not fit the integer dtype they take (issue 24 follow-up): over
 * int32 data `x + 3000000000` gave 2147483647 — the literal was a weak float, the sum a float64
 * saturated into int32 — which is neither JavaScript's 3000000002 nor PyTorch's answer (it
 * refuses: "value cannot be converted to type int32 without overflow"). Such a literal is now a
 * LoomError before anything runs, with a caret under it, for every integer dtype (unsigned ones
 * take negative literals down to minus their maximum, which wrap, as in PyTorch) and for bool
 * data (beside which a literal is an int32); a literal stored whole into an integer output
 * (WebGPU gave -1294967296 where the others saturated) and a whole-number scalar argument are
 * held to the same rule. Literals within range compute what plain JS computes, converted to the
 * output dtype, on every device — int64 ones past 2^53 exactly (OpenCL printed 2^60 as
 * 1152921504606847000).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { LoomError, type Device } from '@loom/core';
import { pointwise, tensor, type TensorDType } from '@loom/elementwise';
import { numbers, toDType } from './support/elementwise-reference.ts';
import { supportsDType, testDevices } from './support/devices.ts';

/** The smallest and largest value of each integer dtype, and the most negative literal it takes (PyTorch's rule). */
const RANGES: Readonly<Record<string, readonly [number, number, number]>> = {
  int8: [-128, 127, -128],
  int16: [-32768, 32767, -32768],
  int32: [-(2 ** 31), 2 ** 31 - 1, -(2 ** 31)],
  uint8: [0, 255, -255],
  uint32: [0, 2 ** 32 - 1, -(2 ** 32 - 1)],
};

async function refused(f: () => unknown, message: string, literal?: string): Promise<void> {
  try {
    await f();
  } catch (e) {
    assert.instance(e, LoomError);
    assert.match((e as Error).message, message);
    if (literal !== undefined) {
      const span = (e as LoomError).span;
      assert.ok(span, `a caret under ${literal}`);
      assert.is(span!.text.slice(span!.start, span!.end), literal);
    }
    return;
  }
  assert.unreachable(`expected a LoomError: ${message}`);
}

const run = (source: string, data: number[], dtype: TensorDType, device: Device) =>
  pointwise({}, source)(tensor(data, undefined, { device, dtype }));

test('x + 3000000000 over int32 data is a LoomError with a caret under the literal, on every device', async () => {
  for (const device of testDevices()) {
    await refused(
      () => run('(x) => x + 3000000000', [1, 2], 'int32', device),
      'the literal 3000000000 does not fit int32',
      '3000000000',
    );
    await refused(
      () => run('(x) => x > 0 ? 3000000000 : x', [1, 2], 'int32', device),
      'the literal 3000000000 does not fit int32',
      '3000000000',
    );
    await refused(
      () => run('(x) => { const big = -3 * 1e9; return Math.max(x, big); }', [1, 2], 'int32', device),
      'the literal -3000000000 does not fit int32',
      '-3 * 1e9',
    );
    // stored whole into an int32 output (WebGPU wrapped it, the others saturated)
    await refused(() => run('(x) => 3000000000', [1, 2], 'int32', device), 'does not fit int32', '3000000000');
    // beside bool data a literal is an int32
    await refused(() => run('(b) => b + 4294967296', [0, 1], 'bool', device), 'does not fit int32', '4294967296');
    const b = await run('(b) => b + 2147483647', [0, 1], 'bool', device);
    assert.equal(numbers(await b.toArray(), 'bool'), [1, 1], device.name);
    // beside float data it is the float it is
    const f = await run('(x) => x + 3000000000', [1, 2], 'float32', device);
    assert.equal(
      numbers(await f.toArray(), 'float32'),
      [Math.fround(3000000001), Math.fround(3000000002)],
      device.name,
    );
  }
});

test('literals at the edges of each integer dtype compute as JS does (converted to the dtype); one beyond is a LoomError, on every device', async () => {
  for (const device of testDevices()) {
    for (const [dtype, [min, max, lowest]] of Object.entries(RANGES) as [
      TensorDType,
      readonly [number, number, number],
    ][]) {
      const at = `${device.name}, ${dtype}`;
      const data = dtype.startsWith('u') ? [0, 1, 3, max] : [min, -1, 0, 1, max];
      for (const literal of [max, lowest, min]) {
        const out = await run(`(x) => x + ${literal}`, data, dtype, device);
        assert.is(out.dtype, dtype, at);
        assert.equal(
          numbers(await out.toArray(), dtype),
          data.map((v) => toDType(v + literal, dtype)),
          `${at}: x + ${literal}`,
        );
      }
      await refused(
        () => run(`(x) => x + ${max + 1}`, data, dtype, device),
        `the literal ${max + 1} does not fit ${dtype}`,
        `${max + 1}`,
      );
      await refused(
        () => run(`(x) => x * ${lowest - 1}`, data, dtype, device),
        `the literal ${lowest - 1} does not fit ${dtype}`,
        `${lowest - 1}`,
      );
      await refused(() => run(`(x) => x === ${max + 1}`, data, dtype, device), `does not fit ${dtype}`, `${max + 1}`);
    }
  }
});

test('int64 literals past 2^53 are exact on every device with int64; past 2^63 they are a LoomError', async () => {
  for (const device of testDevices().filter((d) => supportsDType(d, 'int64'))) {
    const out = await run('(x) => x + 1152921504606846976', [1, 0, -1], 'int64', device);
    assert.equal(
      [...((await out.toArray()) as BigInt64Array)],
      [2n ** 60n + 1n, 2n ** 60n, 2n ** 60n - 1n],
      device.name,
    );
    await refused(
      () => run('(x) => x + 9223372036854775808', [1], 'int64', device),
      'does not fit int64',
      '9223372036854775808',
    );
  }
});

test('a whole-number scalar argument that does not fit its integer dtype is a LoomError; declared float, it is one', async () => {
  for (const device of testDevices()) {
    const x = tensor([1, 2], undefined, { device, dtype: 'int32' });
    const add = pointwise({ isTensor: [true, false] }, (a: number, c: number) => a + c);
    await refused(() => add(x, 3000000000), 'the scalar input 1 is 3000000000, which does not fit int32');
    const u = tensor([0, 5], undefined, { device, dtype: 'uint8' });
    await refused(() => add(u, 256), 'which does not fit uint8');
    assert.equal(numbers(await (await add(u, -1)).toArray(), 'uint8'), [255, 4], device.name);
    const declared = pointwise({ isTensor: [true, false], dtypes: [null, 'int8'] }, (a: number, c: number) => a + c);
    await refused(() => declared(x, 200), 'the dtype declared for it in dtypes');
    const float = pointwise({ isTensor: [true, false], dtypes: [null, 'float'] }, (a: number, c: number) => a + c);
    const sum = await float(x, 3000000000);
    assert.is(sum.dtype, 'float32', device.name);
    assert.equal(
      numbers(await sum.toArray(), 'float32'),
      [Math.fround(3000000001), Math.fround(3000000002)],
      device.name,
    );
  }
});

/** Unsigned dtypes and their widths, for the rule that a negative literal beside them wraps. */
const UNSIGNED: readonly (readonly [TensorDType, number])[] = [
  ['uint8', 8],
  ['uint16', 16],
  ['uint32', 32],
  ['uint64', 64],
];

// Bitwise operators computed with the negative value (C's int, JavaScript's doubles): `(x | -2) >> 1`
// over uint8 gave -1 (255 stored) where the rule gives 127.
test('bitwise operators with a negative literal beside unsigned data wrap it by the rule, on every device', async () => {
  const ops = pointwise({ numOutputs: 6 }, (x: number) => [
    x & -2,
    x | -2,
    (x ^ -3) >> 1,
    (x | -16) % 7,
    -1 >> (x & 3),
    x & (x > 3 ? -1 : -8),
  ]);
  for (const device of testDevices()) {
    for (const [dtype, bits] of UNSIGNED.filter(([t]) => supportsDType(device, t))) {
      const w = (v: bigint) => BigInt.asUintN(bits, v);
      const data = [0n, 1n, 5n, 200n, w(-1n)];
      const expected = (x: bigint) => [
        x & w(-2n),
        x | w(-2n),
        (x ^ w(-3n)) >> 1n,
        (x | w(-16n)) % 7n,
        w(-1n) >> (x & 3n),
        x & (x > 3n ? w(-1n) : w(-8n)),
      ];
      const outs = await ops(
        tensor(dtype === 'uint64' ? BigUint64Array.from(data) : data.map(Number), undefined, { device, dtype }),
      );
      for (const [k, out] of (outs as Awaited<ReturnType<typeof tensor>>[]).entries()) {
        assert.is(out.dtype, dtype);
        const got = Array.from((await out.toArray()) as ArrayLike<number | bigint>, (v) => BigInt(v));
        assert.equal(
          got,
          data.map((x) => expected(x)[k]),
          `${device.name}, ${dtype}, output ${k}`,
        );
      }
    }
  }
});

// `x < -2` over uint8 was false on the devices (computed in int) where the rule (-2 is 254) says true.
test('a comparison or shift count of unsigned data with a negative literal is a LoomError with a caret, on every device', async () => {
  for (const device of testDevices()) {
    for (const [dtype, bits] of UNSIGNED.filter(([t]) => supportsDType(device, t))) {
      const wrapped = `${2n ** BigInt(bits) - 2n}`;
      const data = dtype === 'uint64' ? BigUint64Array.from([1n, 5n]) : [1, 5];
      const call = (source: string) => pointwise({}, source)(tensor(data, undefined, { device, dtype }));
      await refused(
        () => call('(x) => x < -2'),
        `the literal -2 compared with ${dtype} data would wrap to ${wrapped}`,
        '-2',
      );
      await refused(() => call('(x) => (x === -2 ? 1 : 0)'), `would wrap to ${wrapped}`, '-2');
      await refused(() => call('(x) => (-2 >= x + 1 ? 1 : 0)'), `would wrap to ${wrapped}`, '-2');
      await refused(() => call('(x) => Math.max(x, x != -2)'), `would wrap to ${wrapped}`, '-2');
      await refused(
        () => call('(x) => x << -2'),
        `the shift count -2 beside ${dtype} data would wrap to ${wrapped}`,
        '-2',
      );
      // written wrapped, it computes the rule's result (uint64's is past 2^53, which a literal cannot spell)
      if (dtype === 'uint64') continue;
      const ok = await call(`(x) => x < ${wrapped}`);
      assert.equal(numbers(await ok.toArray(), 'bool'), [1, 1], `${device.name}, ${dtype}`);
    }
  }
});

test.run();
