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

const run = (source: string, data: number[], dtype: TensorDType, device: Device) => pointwise({}, source)(tensor(data, undefined, { device, dtype }));

test('x + 3000000000 over int32 data is a LoomError with a caret under the literal, on every device', async () => {
  for (const device of testDevices()) {
    await refused(() => run('(x) => x + 3000000000', [1, 2], 'int32', device), 'the literal 3000000000 does not fit int32', '3000000000');
    await refused(() => run('(x) => x > 0 ? 3000000000 : x', [1, 2], 'int32', device), 'the literal 3000000000 does not fit int32', '3000000000');
    await refused(() => run('(x) => { const big = -3 * 1e9; return Math.max(x, big); }', [1, 2], 'int32', device), 'the literal -3000000000 does not fit int32', '-3 * 1e9');
    // stored whole into an int32 output (WebGPU wrapped it, the others saturated)
    await refused(() => run('(x) => 3000000000', [1, 2], 'int32', device), 'does not fit int32', '3000000000');
    // beside bool data a literal is an int32
    await refused(() => run('(b) => b + 4294967296', [0, 1], 'bool', device), 'does not fit int32', '4294967296');
    const b = await run('(b) => b + 2147483647', [0, 1], 'bool', device);
    assert.equal(numbers(await b.toArray(), 'bool'), [1, 1], device.name);
    // beside float data it is the float it is
    const f = await run('(x) => x + 3000000000', [1, 2], 'float32', device);
    assert.equal(numbers(await f.toArray(), 'float32'), [Math.fround(3000000001), Math.fround(3000000002)], device.name);
  }
});

test('literals at the edges of each integer dtype compute as JS does (converted to the dtype); one beyond is a LoomError, on every device', async () => {
  for (const device of testDevices()) {
    for (const [dtype, [min, max, lowest]] of Object.entries(RANGES) as [TensorDType, readonly [number, number, number]][]) {
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
      await refused(() => run(`(x) => x + ${max + 1}`, data, dtype, device), `the literal ${max + 1} does not fit ${dtype}`, `${max + 1}`);
      await refused(() => run(`(x) => x * ${lowest - 1}`, data, dtype, device), `the literal ${lowest - 1} does not fit ${dtype}`, `${lowest - 1}`);
      await refused(() => run(`(x) => x === ${max + 1}`, data, dtype, device), `does not fit ${dtype}`, `${max + 1}`);
    }
  }
});

test('int64 literals past 2^53 are exact on every device with int64; past 2^63 they are a LoomError', async () => {
  for (const device of testDevices().filter((d) => supportsDType(d, 'int64'))) {
    const out = await run('(x) => x + 1152921504606846976', [1, 0, -1], 'int64', device);
    assert.equal([...((await out.toArray()) as BigInt64Array)], [2n ** 60n + 1n, 2n ** 60n, 2n ** 60n - 1n], device.name);
    await refused(() => run('(x) => x + 9223372036854775808', [1], 'int64', device), 'does not fit int64', '9223372036854775808');
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
    assert.equal(numbers(await sum.toArray(), 'float32'), [Math.fround(3000000001), Math.fround(3000000002)], device.name);
  }
});

test.run();
