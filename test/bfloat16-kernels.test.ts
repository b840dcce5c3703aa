/**
 * bfloat16 in kernels: stored as 16-bit words (host arrays are the Uint16Array of their bits,
 * the upper half of a float32's), computed in float32, every operation's result rounded to
 * bfloat16 (ties to even) — what PyTorch computes on a GPU. Checked bit for bit against a plain
 * JavaScript reference that rounds the same way, on every device: no target has bfloat16
 * arithmetic of its own, so every one stores the bits and computes in float.
 *
 * The conversions, as PyTorch makes them: a float64 is rounded once to bfloat16, an integer
 * goes through float32 first.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  addDtypes,
  checkProgramLimits,
  COMMON_LIMITS,
  generateCode,
  tagInames,
  temporaryVariable,
  bfloat16Bits,
  bfloat16Value,
  LoomError,
  makeKernel,
  promote,
  roundToBfloat16,
  run,
  targetFacts,
} from '@loom/core';
import { supportsDType, testDevices } from './support/devices.ts';

const r = roundToBfloat16;
const bits = (xs: readonly number[]) => Uint16Array.from(xs, bfloat16Bits);
const values = (a: Uint16Array) => Array.from(a, bfloat16Value);

const A = [1.5, 1000, 0.1, -7, 3.3895313892515355e38, 2 ** -130, 3, -0.25];
/** A without its subnormal, for targets that may flush bfloat16's subnormals (WGSL: NVIDIA's Vulkan driver does). */
const A_NORMAL = A.map((v) => (v === 2 ** -130 ? 2 ** -120 : v));
const B = [2, 70, 3, 0.333, 2, 0.5, -3, 4096];

test('the codec: bits are the upper half of a float32, rounded to nearest even once from the double', () => {
  const f32 = new Float32Array(1);
  const u32 = new Uint32Array(f32.buffer);
  // every bfloat16 reads back as itself, and its value is the float32 with those upper bits
  for (let b = 0; b < 0x10000; b += 7) {
    u32[0] = b << 16;
    const v = f32[0];
    if (Number.isNaN(v)) assert.is(bfloat16Bits(v), 0x7fc0);
    else {
      assert.is(bfloat16Value(b), v);
      assert.is(bfloat16Bits(v), b);
    }
  }
  // ties go to the even mantissa; a hair above a tie rounds up (no double rounding through float32)
  assert.is(bfloat16Bits(1 + 2 ** -8), 0x3f80);
  assert.is(bfloat16Bits(1 + 3 * 2 ** -8), 0x3f82);
  assert.is(bfloat16Bits(1 + 2 ** -8 + 2 ** -40), 0x3f81);
  // the largest finite value, infinity past its tie, and subnormals down to 2^-133
  assert.is(bfloat16Value(0x7f7f), 3.3895313892515355e38);
  assert.is(bfloat16Bits(3.3961776e38), 0x7f80);
  assert.is(bfloat16Bits(-(2 ** -133)), 0x8001);
  assert.is(bfloat16Bits(2 ** -134), 0);
  assert.is(bfloat16Bits(-0), 0x8000);
  assert.is(r(0.1), 0.10009765625);
});

test('promotion: bfloat16 meets float16 in float32, and a wider float in the wider one', () => {
  assert.is(promote('bfloat16', 'float16'), 'float32');
  assert.is(promote('bfloat16', 'float32'), 'float32');
  assert.is(promote('float64', 'bfloat16'), 'float64');
  assert.is(promote('bfloat16', 'int32'), 'bfloat16');
  assert.is(promote('bfloat16', 'bfloat16'), 'bfloat16');
});

for (const device of testDevices()) {
  test(`${device.name}: bfloat16 arithmetic rounds every operation to bfloat16`, async () => {
    assert.ok(supportsDType(device, 'bfloat16'), `${device.name} refuses bfloat16`);
    const knl = addDtypes(
      makeKernel('{ [i]: 0<=i<n }', [
        '<bfloat16> t = a[i] * b[i]',
        'sum[i] = t + a[i]',
        'quot[i] = a[i] / b[i]',
        'diff[i] = (a[i] - b[i]) * 0.5',
        '<float32> w = float32(a[i]) / 3',
        'wide[i] = w',
        'back[i] = bfloat16(w*3)',
        'big[i] = if(a[i] > 1000, a[i] + a[i], -a[i])',
        'root[i] = sqrt(abs(a[i]))',
        'low[i] = min(a[i], b[i])',
        'whole[i] = int32(b[i] * 100)',
        'fromInt[i] = bfloat16(i * 16777217)',
      ]),
      { a: 'bfloat16', b: 'bfloat16' },
    );
    const a = targetFacts(device.target).flushesSubnormals.has('bfloat16') ? A_NORMAL : A;
    const out = await run(knl, device, { a: bits(a), b: bits(B) });
    const [x, y] = [a.map(r), B.map(r)];
    const got = (name: string) => values(out[name] as Uint16Array);
    assert.equal(
      got('sum'),
      x.map((v, k) => r(r(v * y[k]) + v)),
    );
    // WGSL's float32 `/` is within 2.5 ulp (NVIDIA's Vulkan driver divides through a reciprocal):
    // there a quotient may land on the neighbouring float32, and its bfloat16 one ulp off at a tie
    const relaxed = targetFacts(device.target).relaxedFloatAccuracy;
    const near = (actual: number[], expected: number[], ulps: number, what: string) =>
      actual.forEach((v, k) =>
        assert.ok(Math.abs(v - expected[k]) <= ulps * Math.abs(expected[k]), `${what}[${k}]: ${v}, not ${expected[k]}`),
      );
    if (relaxed)
      near(
        got('quot'),
        x.map((v, k) => r(v / y[k])),
        2 ** -7,
        'quot',
      );
    else
      assert.equal(
        got('quot'),
        x.map((v, k) => r(v / y[k])),
      );
    assert.equal(
      got('diff'),
      x.map((v, k) => r(r(v - y[k]) * 0.5)),
    );
    if (relaxed) {
      near(
        Array.from(out.wide as Float32Array),
        x.map((v) => Math.fround(v / 3)),
        3 * 2 ** -23,
        'wide',
      );
      near(
        got('back'),
        x.map((v) => r(Math.fround(Math.fround(v / 3) * 3))),
        2 ** -7,
        'back',
      );
    } else {
      assert.equal(
        Array.from(out.wide as Float32Array),
        x.map((v) => Math.fround(v / 3)),
      );
      assert.equal(
        got('back'),
        x.map((v) => r(Math.fround(Math.fround(v / 3) * 3))),
      );
    }
    // the largest bfloat16 doubled overflows to Infinity
    assert.equal(
      got('big'),
      x.map((v) => (v > 1000 ? r(v + v) : -v)),
    );
    assert.equal(
      got('root'),
      x.map((v) => r(Math.sqrt(Math.abs(v)))),
    );
    assert.equal(
      got('low'),
      x.map((v, k) => Math.min(v, y[k])),
    );
    assert.equal(
      Array.from(out.whole as Int32Array),
      y.map((v) => Math.trunc(r(v * 100))),
    );
    // an integer becomes a float32 first (PyTorch's rule): 16777217 * i rounds twice
    assert.equal(
      got('fromInt'),
      x.map((_, i) => r(Math.fround(i * 16777217))),
    );
    assert.instance(out.sum, Uint16Array);
  });

  test(`${device.name}: a bfloat16 scalar argument, and a reduction in bfloat16`, async () => {
    const knl = addDtypes(
      makeKernel('{ [i, j]: 0<=i<n and 0<=j<4 }', [
        'out[i] = a[i] + s {id=add}',
        'total[i] = sum(j, a[i] * 0.5) {id=total}',
      ]),
      { a: 'bfloat16', s: 'bfloat16' },
    );
    const out = await run(knl, device, { a: bits([1, 2, 3, 1000]), s: 0.1 });
    const x = [1, 2, 3, 1000];
    assert.equal(
      values(out.out as Uint16Array),
      x.map((v) => r(v + r(0.1))),
    );
    // four additions, each rounded
    assert.equal(
      values(out.total as Uint16Array),
      x.map((v) => [0, 1, 2, 3].reduce((acc) => r(acc + r(v * 0.5)), 0)),
    );
  });

  const doubles = !device.target.unsupportedDType?.('float64');
  test(`${device.name}: a float64 becomes bfloat16 rounded once${doubles ? '' : ' (float32 here: no float64)'}`, async () => {
    const wide = doubles ? 'float64' : 'float32';
    const knl = addDtypes(makeKernel('{ [i]: 0<=i<n }', 'once[i] = bfloat16(d[i])'), { d: wide });
    // 1 + 2^-8 + 2^-30: through float32 it would land on the tie and round to 1
    const given = doubles ? [1 + 2 ** -8 + 2 ** -30, 0.1, -3.5, 1e39] : [1 + 2 ** -8 + 2 ** -16, 0.1, -3.5, 3.4e38];
    const d = doubles ? new Float64Array(given) : new Float32Array(given);
    const out = await run(knl, device, { d });
    assert.equal(
      values(out.once as Uint16Array),
      Array.from(d, (v) => r(v)),
    );
    assert.is(values(out.once as Uint16Array)[0], 1.0078125);
  });
}

test('a local bfloat16 array computed in float takes 4 bytes an element against the device limits', async () => {
  const { openclTarget } = await import('@loom/codegen-opencl');
  let knl = makeKernel(
    '{ [i, j]: 0<=i<n and 0<=j<6000 }',
    ['t[j] = a[i] {id=fill}', 'out[i] = t[5999] {dep=fill}'],
    [temporaryVariable('t', { dtype: 'bfloat16', shape: [6000], addressSpace: 'local' }), '...'],
  );
  knl = addDtypes(knl, { a: 'bfloat16' });
  knl = tagInames(knl, { i: 'g.0' });
  const target = openclTarget();
  const { program } = generateCode(knl, target);
  // 6000 bfloat16s are 12000 bytes as stored, 24000 as the floats the kernel holds
  checkProgramLimits(program, { ...COMMON_LIMITS, maxLocalMemoryBytes: 16384 }, 'a device');
  assert.throws(
    () =>
      checkProgramLimits(
        program,
        { ...COMMON_LIMITS, maxLocalMemoryBytes: 16384 },
        'a device',
        targetFacts(target).heldInFloat,
      ),
    /take 24000 bytes per work-group/,
  );
});

test('a bfloat16 host array is its bits: a Float32Array passed for one is refused', async () => {
  const { cpuDevice } = await import('@loom/codegen-js');
  const knl = addDtypes(makeKernel('{ [i]: 0<=i<4 }', 'out[i] = a[i] * 2'), { a: 'bfloat16' });
  try {
    await run(knl, cpuDevice(), { a: new Float32Array(4) });
    assert.unreachable();
  } catch (e) {
    assert.instance(e, LoomError);
    assert.match((e as Error).message, "argument 'a' is bfloat16");
  }
});

test.run();
