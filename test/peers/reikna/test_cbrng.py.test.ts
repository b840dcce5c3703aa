/**
 * Ports of Reikna's tests/test_cbrng/test_cbrng.py on every test device: the bijections against
 * a plain-JS Philox and Threefry (test/support/cbrng-ref.ts) and Random123's known answers, the
 * samplers' distributions (mean, variance, extent, circular mean, as Reikna checks them, within
 * 5 standard errors), and the CBRNG computation (general, convenience constructors, counters
 * that advance between calls). WebGPU has no 64-bit integer: a 64-bit bijection there is a
 * LoomError before anything runs, and the samplers run there on Philox-4x32 as well.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  bijectionComputation,
  cbrng,
  gamma,
  keyGenerator,
  normalBm,
  philox,
  threefry,
  uniformFloat,
  uniformInteger,
  vonmises,
  type Bijection,
  type CBRNG,
  type Sampler,
} from '@loom/computation';
import { cbrngBenchCase, checkStandardNormal } from '../../../bench/cbrng-case.ts';
import { LoomError, type Device } from '@loom/core';
import { philoxRef, threefryRef } from '../../support/cbrng-ref.ts';
import { supportsDType, testDevices } from '../../support/devices.ts';

const words = (a: ArrayLike<number | bigint>) => Array.from(a, (v) => BigInt(v));
const typed = (b: Bijection, xs: readonly bigint[]) =>
  b.bits === 32 ? Uint32Array.from(xs, Number) : BigUint64Array.from(xs);

const BIJECTIONS = (['threefry', 'philox'] as const).flatMap((name) =>
  ([2, 4] as const).flatMap((w) =>
    ([32, 64] as const).map((bits) => {
      const rounds = name === 'threefry' ? 20 : 10;
      const bijection = (name === 'philox' ? philox : threefry)(bits, w, { rounds });
      const ref = (ctr: readonly bigint[], key: readonly bigint[]) =>
        name === 'philox' ? philoxRef(bits, w, ctr, key, rounds) : threefryRef(bits, w, ctr, key, rounds);
      return { id: `${name}-${w}x${bits}-${rounds}`, bijection, ref };
    }),
  ),
);

/** Random123's known answers (tests/kat_vectors): counter, key, output, of Philox-10 and Threefry-20. */
const KAT: Readonly<Record<string, readonly (readonly [string, string, string])[]>> = {
  'philox-2x32-10': [
    ['00000000 00000000', '00000000', 'ff1dae59 6cd10df2'],
    ['ffffffff ffffffff', 'ffffffff', '2c3f628b ab4fd7ad'],
    ['243f6a88 85a308d3', '13198a2e', 'dd7ce038 f62a4c12'],
  ],
  'philox-4x32-10': [
    ['00000000 00000000 00000000 00000000', '00000000 00000000', '6627e8d5 e169c58d bc57ac4c 9b00dbd8'],
    ['ffffffff ffffffff ffffffff ffffffff', 'ffffffff ffffffff', '408f276d 41c83b0e a20bc7c6 6d5451fd'],
    ['243f6a88 85a308d3 13198a2e 03707344', 'a4093822 299f31d0', 'd16cfe09 94fdcceb 5001e420 24126ea1'],
  ],
  'philox-2x64-10': [['0000000000000000 0000000000000000', '0000000000000000', 'ca00a0459843d731 66c24222c9a845b5']],
  'philox-4x64-10': [
    [
      '0000000000000000 0000000000000000 0000000000000000 0000000000000000',
      '0000000000000000 0000000000000000',
      '16554d9eca36314c db20fe9d672d0fdc d7e772cee186176b 7e68b68aec7ba23b',
    ],
    [
      'ffffffffffffffff ffffffffffffffff ffffffffffffffff ffffffffffffffff',
      'ffffffffffffffff ffffffffffffffff',
      '87b092c3013fe90b 438c3c67be8d0224 9cc7d7c69cd777b6 a09caebf594f0ba0',
    ],
    [
      '243f6a8885a308d3 13198a2e03707344 a4093822299f31d0 082efa98ec4e6c89',
      '452821e638d01377 be5466cf34e90c6c',
      'a528f45403e61d95 38c72dbd566e9788 a5a1610e72fd18b5 57bd43b5e52b7fe6',
    ],
  ],
  'threefry-2x32-20': [['00000000 00000000', '00000000 00000000', '6b200159 99ba4efe']],
  'threefry-4x32-20': [
    [
      '00000000 00000000 00000000 00000000',
      '00000000 00000000 00000000 00000000',
      '9c6ca96a e17eae66 fc10ecd4 5256a7d8',
    ],
  ],
  'threefry-2x64-20': [
    ['0000000000000000 0000000000000000', '0000000000000000 0000000000000000', 'c2b6e3a8c2c69865 6f81ed42f350084d'],
  ],
  'threefry-4x64-20': [
    [
      '0000000000000000 0000000000000000 0000000000000000 0000000000000000',
      '0000000000000000 0000000000000000 0000000000000000 0000000000000000',
      '09218ebde6c85537 55941f5266d86105 4bd25e16282434dc ee29ec846bd2e40b',
    ],
  ],
};
const hexWords = (s: string) => s.split(' ').map((h) => BigInt(`0x${h}`));

test('the plain-JS reference gives Random123 known answers', () => {
  for (const { id, ref } of BIJECTIONS)
    for (const [ctr, key, out] of KAT[id]) assert.equal(ref(hexWords(ctr), hexWords(key)), hexWords(out), id);
});

/** Whether `device` has the bijection's word dtype; where not, the computation is refused before it runs. */
async function refusedWithout(device: Device, bijection: Bijection, compile: () => Promise<unknown>, what: string) {
  if (supportsDType(device, bijection.wordDtype)) return false;
  try {
    await compile();
    assert.unreachable(`${what}: ${bijection.wordDtype} words were accepted on ${device.name}`);
  } catch (e) {
    assert.instance(e, LoomError, `${what}: ${String(e)}`);
    assert.match((e as Error).message, /uint64|64-bit/, what);
  }
  return true;
}

for (const device of testDevices()) {
  for (const { id, bijection, ref } of BIJECTIONS) {
    test(`${device.name}: test_cbrng.py::test_kernel_bijection[${id}]`, async () => {
      const size = 100;
      const comp = bijectionComputation(bijection, { shape: [size] });
      if (await refusedWithout(device, bijection, () => comp.compile(device), id)) return;
      const compiled = await comp.compile(device);
      // keys of 100 generators from seed 123, the index in the last word (no reserved space, as Reikna's test)
      const keygen = keyGenerator(bijection, 123, { reserveIdSpace: false });
      const keys = Array.from({ length: size }, (_, i) => keygen.reference(i));
      for (const ctr of [0n, 1n]) {
        const counter = Array.from({ length: bijection.words }, (_, w) => (w === bijection.words - 1 ? ctr : 0n));
        const { output } = await compiled(
          undefined,
          typed(bijection, keys.flat()),
          typed(bijection, Array(size).fill(counter).flat()),
        );
        assert.equal(
          words(output as ArrayLike<number | bigint>),
          keys.flatMap((k) => ref(counter, k)),
          `${id}, counter ${ctr}`,
        );
      }
      // Random123's known answers
      const kat = KAT[id];
      const kc = bijectionComputation(bijection, { shape: [kat.length] });
      const { output } = await (await kc.compile(device))(
        undefined,
        typed(
          bijection,
          kat.flatMap(([, key]) => hexWords(key)),
        ),
        typed(
          bijection,
          kat.flatMap(([ctr]) => hexWords(ctr)),
        ),
      );
      assert.equal(
        words(output as ArrayLike<number | bigint>),
        kat.flatMap(([, , out]) => hexWords(out)),
        `${id} known answers`,
      );
    });
  }
}

// --- distributions, as Reikna's check_distribution ------------------------------------------------

interface Reference {
  readonly extent?: readonly [number, number];
  readonly mean?: number | readonly [number, number];
  readonly std?: number;
  readonly circularMean?: number;
  readonly circularVar?: number;
}

const uniformDiscrete = (a: number, b: number): Reference => ({
  extent: [a, b],
  mean: (a + b - 1) / 2,
  std: Math.sqrt(((b - a) ** 2 - 1) / 12),
});
const uniformContinuous = (a: number, b: number): Reference => ({
  extent: [a, b],
  mean: (a + b) / 2,
  std: (b - a) / Math.sqrt(12),
});

/** I_nu(x), the modified Bessel function of the first kind, by its series. */
function besselI(nu: number, x: number): number {
  let term = (x / 2) ** nu;
  for (let k = 1; k <= nu; k++) term /= k;
  let sum = term;
  for (let k = 1; k < 60; k++) {
    term *= (x / 2) ** 2 / (k * (k + nu));
    sum += term;
  }
  return sum;
}

/** Reikna's check_distribution: extent, circular mean, mean and variance within 5 standard errors. */
function checkDistribution(values: ArrayLike<number>, ref: Reference, what: string, complex = false) {
  const n = complex ? values.length / 2 : values.length;
  const at = (i: number): [number, number] => (complex ? [values[2 * i], values[2 * i + 1]] : [values[i], 0]);
  if (ref.extent) {
    let lo = Infinity;
    let hi = -Infinity;
    for (let i = 0; i < values.length; i++) {
      lo = Math.min(lo, values[i]);
      hi = Math.max(hi, values[i]);
    }
    assert.ok(lo >= ref.extent[0] && hi <= ref.extent[1], `${what}: values in [${lo}, ${hi}], not in [${ref.extent}]`);
  }
  if (ref.circularMean !== undefined && ref.circularVar !== undefined) {
    let c = 0;
    let s = 0;
    for (let i = 0; i < n; i++) {
      c += Math.cos(values[i]);
      s += Math.sin(values[i]);
    }
    const diff = Math.abs(Math.atan2(s, c) - ref.circularMean);
    assert.ok(diff < (5 * Math.sqrt(ref.circularVar)) / Math.sqrt(n), `${what}: circular mean off by ${diff}`);
  }
  let mr = 0;
  let mi = 0;
  for (let i = 0; i < n; i++) {
    const [r, im] = at(i);
    mr += r;
    mi += im;
  }
  mr /= n;
  mi /= n;
  if (ref.mean !== undefined && ref.std !== undefined) {
    const [er, ei] = typeof ref.mean === 'number' ? [ref.mean, 0] : ref.mean;
    const diff = Math.hypot(mr - er, mi - ei);
    assert.ok(diff < (5 * ref.std) / Math.sqrt(n), `${what}: mean ${mr}+${mi}j, expected ${ref.mean}`);
  }
  if (ref.std !== undefined) {
    let v = 0;
    for (let i = 0; i < n; i++) {
      const [r, im] = at(i);
      v += (r - mr) ** 2 + (im - mi) ** 2;
    }
    v /= n;
    const vStd = Math.sqrt((2 * ref.std ** 4) / (n - 1));
    assert.ok(Math.abs(v - ref.std ** 2) < 5 * vStd, `${what}: variance ${v}, expected ${ref.std ** 2}`);
  }
}

/** Computations compiled once per device and sampler, so that a later test calls them again. */
const compiledFor = new Map<string, { rng: CBRNG; run: Awaited<ReturnType<CBRNG['compile']>> }>();

/**
 * The samples of `sampler` from `generators` generators (seed 456), `batch` values each, checked
 * against `ref`; with `calls`, that many calls on the same counters, the last one checked.
 */
async function checkSampler(
  device: Device,
  sampler: Sampler,
  ref: Reference,
  what: string,
  batch = 20,
  generators = 512,
  calls = 1,
) {
  const key = `${device.name}|${what}|${batch}x${generators}`;
  let entry = compiledFor.get(key);
  if (!entry) {
    const rng = cbrng({ dtype: sampler.dtype, shape: [batch, generators] }, 1, sampler, { seed: 456 });
    if (await refusedWithout(device, sampler.bijection, () => rng.compile(device), what)) return;
    if (!supportsDType(device, sampler.dtype)) return;
    entry = { rng, run: await rng.compile(device) };
    compiledFor.set(key, entry);
  }
  const counters = entry.rng.createCounters();
  let randoms: unknown;
  for (let c = 0; c < calls; c++) randoms = (await entry.run(counters, undefined)).randoms;
  const values = Array.from(randoms as ArrayLike<number | bigint>, Number);
  checkDistribution(values, ref, `${device.name}: ${what}`, sampler.dtype.startsWith('complex'));
}

/** The bijections the samplers run on: Reikna's Philox-4x64, and Philox-4x32 (which WebGPU has too). */
const SAMPLING = [philox(64, 4), philox(32, 4)];
const kappa = 0.7;
/** Reikna's Philox-4x64 where the device has 64-bit integers, else Philox-4x32 (the float samplers, whose kernels are long). */
const samplingOn = (device: Device) => [supportsDType(device, 'uint64') ? philox(64, 4) : philox(32, 4)];

for (const device of testDevices()) {
  test(`${device.name}: test_cbrng.py::test_32_to_64_bit`, async () => {
    // 64-bit values from 32-bit words: two words each
    const ref = uniformDiscrete(0, 2 ** 63 - 1);
    await checkSampler(device, uniformInteger(philox(32, 4), 'uint64', 0n, 2n ** 63n - 1n), ref, '32 to 64 bit');
  });

  test(`${device.name}: test_cbrng.py::test_64_to_32_bit`, async () => {
    const ref = uniformDiscrete(0, 2 ** 31 - 1);
    await checkSampler(device, uniformInteger(philox(64, 4), 'uint32', 0, 2 ** 31 - 1), ref, '64 to 32 bit');
  });

  test(`${device.name}: test_cbrng.py::test_kernel_sampler_int[uniform_integer]`, async () => {
    for (const b of SAMPLING)
      await checkSampler(
        device,
        uniformInteger(b, 'int32', -10, 98),
        uniformDiscrete(-10, 98),
        `uniform_integer, ${b.wordDtype}`,
      );
  });

  const FLOAT_SAMPLERS: readonly [string, (b: Bijection) => Sampler, Reference][] = [
    ['uniform_float', (b) => uniformFloat(b, 'float32', -5, 7.7), uniformContinuous(-5, 7.7)],
    ['normal_bm', (b) => normalBm(b, 'float32', -2, 10), { mean: -2, std: 10 }],
    ['normal_bm_complex', (b) => normalBm(b, 'complex64', [-3, 4], 7), { mean: [-3, 4], std: 7 }],
    ['gamma', (b) => gamma(b, 'float32', 3, 10), { mean: 30, std: Math.sqrt(3) * 10 }],
    [
      'vonmises',
      (b) => vonmises(b, 'float32', 1, kappa),
      { extent: [-Math.PI, Math.PI], circularMean: 1, circularVar: 1 - besselI(1, kappa) / besselI(0, kappa) },
    ],
  ];
  for (const [name, make, ref] of FLOAT_SAMPLERS) {
    test(`${device.name}: test_cbrng.py::test_kernel_sampler_float[${name}]`, async () => {
      for (const b of samplingOn(device)) await checkSampler(device, make(b), ref, `${name}, ${b.wordDtype}`);
    });
  }

  test(`${device.name}: test_cbrng.py::test_computation_performance[normal_bm]`, async () => {
    // the benchmark's kernels (bench/cbrng.ts) at a small size: Reikna's batch of 2^6, several calls
    for (const bits of supportsDType(device, 'uint64') ? ([32, 64] as const) : ([32] as const)) {
      const rng = cbrngBenchCase(64, 256, bits);
      const run = await rng.compile(device);
      assert.is(run.kernels.length, 1, 'a call is one kernel launch');
      const counters = rng.createCounters();
      let randoms: Float32Array = new Float32Array();
      for (let c = 0; c < 3; c++) randoms = (await run(counters, undefined)).randoms as Float32Array;
      checkStandardNormal(randoms);
      checkDistribution(randoms, { mean: 0, std: 1 }, `${device.name}: performance, normal_bm, ${bits}-bit`);
    }
  });

  for (const [name, make, ref] of FLOAT_SAMPLERS) {
    if (name === 'normal_bm') continue;
    test(`${device.name}: test_cbrng.py::test_computation_performance[${name}]`, async () => {
      // the samplers' computations again, called back to back as Reikna's timing loop does
      for (const b of samplingOn(device))
        await checkSampler(device, make(b), ref, `${name}, ${b.wordDtype}`, 20, 512, 3);
    });
  }

  test(`${device.name}: test_cbrng.py::test_computation_general`, async () => {
    const ref = { mean: -2, std: 10 };
    for (const b of samplingOn(device))
      await checkSampler(device, normalBm(b, 'float32', -2, 10), ref, `general, ${b.wordDtype}`, 101, 200);
  });

  test(`${device.name}: test_cbrng.py::test_computation_convenience`, async () => {
    const ref = uniformDiscrete(0, 511);
    const rng = cbrng.uniformInteger({ dtype: 'int32', shape: [101, 200] }, 1, { low: 0, high: 511 });
    if (await refusedWithout(device, philox(64, 4), () => rng.compile(device), 'convenience')) return;
    const { randoms } = await (await rng.compile(device))(rng.createCounters(), undefined);
    checkDistribution(randoms as Int32Array, ref, `${device.name}: convenience`);
  });

  test(`${device.name}: test_cbrng.py::test_computation_uniqueness`, async () => {
    // a regression test of Reikna's for counters that did not advance: two calls, new numbers
    const rng = cbrng.normalBm({ dtype: 'complex64', shape: [1, 2000] }, 1);
    if (await refusedWithout(device, philox(64, 4), () => rng.compile(device), 'uniqueness')) return;
    const compiled = await rng.compile(device);
    const counters = rng.createCounters();
    const first = (await compiled(counters, undefined)).randoms as Float32Array;
    assert.ok(
      counters.some((c) => c !== 0 && c !== 0n),
      'the counters advanced',
    );
    const second = (await compiled(counters, undefined)).randoms as Float32Array;
    let same = 0;
    for (let i = 0; i < first.length; i++) if (first[i] === second[i]) same++;
    assert.ok(same < first.length / 100, `${same} of ${first.length} numbers repeated`);
  });
}

/** Counter `ctr` (word 0 most significant) plus `n`, wrapping, as words. */
function counterAdd(ctr: readonly bigint[], n: number, bits: number): bigint[] {
  const mask = (1n << BigInt(bits)) - 1n;
  let v = ctr.reduce((a, w) => (a << BigInt(bits)) | w, 0n) + BigInt(n);
  const out = ctr.map(() => 0n);
  for (let w = ctr.length - 1; w >= 0; w--, v >>= BigInt(bits)) out[w] = v & mask;
  return out;
}

for (const device of testDevices()) {
  test(`${device.name}: cbrng: each call is one kernel, its values the generators' streams, its counters advanced`, async () => {
    // raw 32-bit words as the randoms (a uniform integer over all of uint32): sample n of generator g
    // is word n of g's stream, from the counter it started with; a batch of 6 leaves words 6 and 7
    // of Philox-4x32's second counter unused, and the next call starts at the third. Counters near
    // a carry; generators over two axes, and samples over two axes.
    const bitsHere = supportsDType(device, 'uint64') ? ([32, 64] as const) : ([32] as const);
    const shapes = [
      { shape: [6, 3, 5], generatorsDim: 2 },
      { shape: [2, 3, 5], generatorsDim: 1 },
    ];
    for (const bits of bitsHere)
      for (const { shape, generatorsDim } of shapes) {
        const b = philox(bits, 4);
        const G = shape.slice(shape.length - generatorsDim).reduce((x, y) => x * y, 1);
        const batch = (shape[0] * shape[1] * shape[2]) / G;
        const rng = cbrng({ dtype: 'uint32', shape }, generatorsDim, uniformInteger(b, 'uint32', 0, 2 ** 32), {
          seed: 77,
        });
        const run = await rng.compile(device);
        assert.is(run.kernels.length, 1, `${bits}-bit: one kernel launch a call`);
        const top = (1n << BigInt(bits)) - 1n;
        const start = Array.from({ length: G }, (_, g) => [0n, BigInt(g), g % 2 ? top : 0n, top - BigInt(g % 3)]);
        const counters = typed(b, start.flat());
        const perWord = bits / 32;
        const per = 4 * perWord;
        const used = Math.ceil(batch / per);
        for (let call = 0; call < 3; call++) {
          const { randoms } = await run(counters, undefined);
          const got = Array.from(randoms as Uint32Array);
          const want: number[] = new Array(batch * G);
          for (let g = 0; g < G; g++) {
            const key = rng.keys.reference(g);
            for (let n = 0; n < batch; n++) {
              const out = philoxRef(bits, 4, counterAdd(start[g], call * used + Math.floor(n / per), bits), key, 10);
              const w = n % per;
              const word = bits === 32 ? out[w] : (out[w >> 1] >> (w % 2 ? 32n : 0n)) & 0xffffffffn;
              want[n * G + g] = Number(word);
            }
          }
          assert.equal(got, want, `${device.name}: ${bits}-bit, [${shape}], call ${call}: the randoms`);
          assert.equal(
            words(counters),
            start.flatMap((c) => counterAdd(c, (call + 1) * used, bits)),
            `${device.name}: ${bits}-bit, [${shape}], call ${call}: the counters`,
          );
        }
      }
  });
}

test('cbrng refuses what it cannot generate', () => {
  assert.throws(() => philox(32, 3 as 4), /words must be 2 or 4/);
  assert.throws(() => threefry(32, 4, { rounds: 73 }), /rounds must be an integer from 1 to 72/);
  assert.throws(() => keyGenerator(philox(32, 2), 1), /32-bit key/);
  assert.throws(
    () => cbrng({ dtype: 'float64', shape: [4, 4] }, 1, normalBm(philox(64, 4), 'float32')),
    /the sampler gives float32/,
  );
  assert.throws(() => uniformInteger(philox(64, 4), 'uint8', 0, 300), /does not fit uint8/);
});

test.run();
