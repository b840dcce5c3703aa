/**
 * Regressions found by differential testing (test/differential.test.ts,
 * bench/differential.ts): each test names the bug and carries its minimal reproduction. Those in
 * loops bounded by data and in the barriers inside loops are in regressions-differential-domains.test.ts.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  chunkIname,
  makeReductionInamesUnique,
  prioritizeLoops,
  splitReductionInward,
  addPrefetch,
  doubleBuffer,
  duplicateInames,
  fixParameters,
  globalArg,
  KernelCheckError,
  LoomError,
  makeKernel,
  precompute,
  run,
  setTemporaryAddressSpace,
  setWarningHandler,
  splitIname,
  targetFacts,
} from '@loom/core';
import { cpuDevice } from '@loom/codegen-js';
import { supportsDType } from '@loom/elementwise';
import { testDevices } from './support/devices.ts';

const cpu = cpuDevice();

const triangle = (domains: string | string[], insn = 'out[i, j] = 1 + j') =>
  makeKernel(domains, insn, undefined, { assumptions: 'n >= 1' });

test('duplicateInames refuses to part an instruction from the loop its other loop is bounded by (j <= i)', async () => {
  // before: the copy i_0 ran the instruction while j stayed bounded by the old i, and
  // out[i, j] was written above the diagonal (seed 1033267503: expected 0, got 2)
  const nested = triangle(['{ [i]: 0<=i<n }', '{ [j]: 0<=j<=i }']);
  assert.throws(
    () => duplicateInames(nested, 'i'),
    (e: unknown) => e instanceof LoomError && /bounds of 'j'.*depend on 'i'/.test((e as Error).message),
  );
  // the same through a reduction iname: out[i] = sum(k, b[i, k]) over k <= i (seed 909237950)
  const reduction = makeKernel(['{ [i]: 0<=i<n }', '{ [k]: 0<=k<=i }'], 'out[i] = sum(k, b[i, k])', undefined, {
    assumptions: 'n >= 1',
  });
  assert.throws(
    () => duplicateInames(reduction, 'i'),
    (e: unknown) => e instanceof LoomError && /bounds of 'k'/.test((e as Error).message),
  );
});

test('duplicateInames of i and j together keeps j <= i between the copies', async () => {
  const n = 4;
  const nested = triangle(['{ [i]: 0<=i<n }', '{ [j]: 0<=j<=i }']);
  const expected = (await run(nested, cpu, { n })).out as Int32Array;
  const both = splitIname(duplicateInames(nested, ['i', 'j']), 'i_0', 3);
  assert.equal(Array.from((await run(both, cpu, { n })).out as Int32Array), Array.from(expected));
  assert.equal(Array.from(expected).filter((v) => v !== 0).length, (n * (n + 1)) / 2);
});

test('duplicateInames of i in one triangular domain still writes only the triangle', async () => {
  const single = triangle('{ [i,j]: 0<=i<n and 0<=j<=i }');
  const expected = (await run(single, cpu, { n: 5 })).out as Int32Array;
  const got = (await run(splitIname(duplicateInames(single, 'i'), 'i_0', 2), cpu, { n: 5 })).out as Int32Array;
  assert.equal(Array.from(got), Array.from(expected));
});

for (const device of testDevices()) {
  test(`${device.name}: a reduction under an if-block reading prefetched data starts from its neutral element`, async () => {
    // before: the accumulator's initialization carried the block's condition, which read
    // c_fetch before the fetch wrote it; the CPU device saw zeros there, left acc = 0,
    // and min(k, i + k) came out 0 (seed 2805913043: expected -1, got 0)
    const insns = 'if c[i] > 0\n  out[i] = min(k, i + k)\nelse\n  out[i] = -min(k, i + k)\nend';
    let knl = makeKernel(
      '{ [i,k]: 0<=i<n and 0<=k<m }',
      insns,
      [globalArg('c', { shape: ['n'], dtype: 'int32' }), '...'],
      { assumptions: 'n >= 1 and m >= 1' },
    );
    knl = splitIname(fixParameters(knl, { n: 5 }), 'i', 5, { outerTag: 'g.0', innerTag: 'l.0' });
    knl = addPrefetch(knl, 'c', ['i_inner']);
    const { out } = await run(knl, device, { c: new Int32Array([5, 1, 1, 2, -3]), m: 6 });
    assert.equal(Array.from(out as Int32Array), [0, 1, 2, 3, -4]);
  });
}

for (const device of testDevices()) {
  test(`${device.name}: a scalar temporary set to 'global' is a one-element buffer of the call`, async () => {
    // before: the scalar was a buffer parameter but was printed as a value (s = acc), so
    // OpenCL did not build it and WGSL did not compile it (seed 1844074029)
    let knl = makeKernel(
      ['{ [i]: 0<=i<n }', '{ [k]: 0<=k<=i }'],
      '<> s = sum(k, b[i, k] * k)\nout[i] = s',
      [globalArg('b', { shape: ['n', 'n'], dtype: 'int32' }), '...'],
      {
        assumptions: 'n >= 1',
      },
    );
    knl = setTemporaryAddressSpace(knl, 's', 'global');
    const b = new Int32Array(16).map((_, x) => x);
    assert.equal(Array.from((await run(knl, device, { b, n: 4 })).out as Int32Array), [0, 5, 29, 86]);
  });

  test(`${device.name}: a prefetch tile set to 'global' is read through its buffer`, async () => {
    // before: the zero-dimensional tile c_fetch was assigned as a pointer (seed 2386082384)
    let knl = makeKernel(
      '{ [i,k]: 0<=i<n and 0<=k<m }',
      'out[i] = sum(k, c[0] * b[i, k])',
      [globalArg('c', { shape: [1], dtype: 'int32' }), globalArg('b', { shape: ['n', 'm'], dtype: 'int32' }), '...'],
      { assumptions: 'n >= 1 and m >= 1' },
    );
    knl = setTemporaryAddressSpace(addPrefetch(knl, 'c', []), 'c_fetch', 'global');
    const { out } = await run(knl, device, {
      c: new Int32Array([3]),
      b: new Int32Array([1, 2, 3, 4, 5, 6]),
      n: 2,
      m: 3,
    });
    assert.equal(Array.from(out as Int32Array), [18, 45]);
  });
}

for (const device of testDevices()) {
  test(`${device.name}: signed integer overflow wraps, also where a compiler could reason about it`, async () => {
    // before: OpenCL printed a + b and a * b as C's signed arithmetic, whose overflow is
    // undefined: clang folded 2 + a <= 0 into a <= -2 and (a * 7) / a into 7 (seeds 3257520233,
    // 576341871; expected -1, got -2147483647)
    const knl = makeKernel(
      '{ [i]: 0<=i<n }',
      'out[i] = if(2 + a[i] <= 0, 1, 0) + 10 * ((a[i] * 7) / a[i]) + 100 * (-a[i] < 0)',
      [globalArg('a', { shape: ['n'], dtype: 'int32' }), '...'],
      { assumptions: 'n >= 1' },
    );
    const { out } = await run(knl, device, { a: new Int32Array([2147483647, -2147483648, 5]), n: 3 });
    // INT_MAX + 2 wraps negative, INT_MAX * 7 wraps to INT_MAX - 6; INT_MIN * 7 wraps to INT_MIN, -INT_MIN is INT_MIN
    assert.equal(Array.from(out as Int32Array), [1 + 0 + 100, 1 + 10 + 100, 0 + 70 + 100]);
  });

  test(`${device.name}: a * b + c rounds the product, never fused into an fma`, async () => {
    // before: OpenCL contracted b * -3 + -0.5 into fma, which rounds once: the product of
    // -1e30f and -3 is a tie, and the fused sum broke it the other way (seed 1845608762)
    const knl = makeKernel(
      '{ [i]: 0<=i<n }',
      'out[i] = b[i] * (-3) + (-0.5)',
      [globalArg('b', { shape: ['n'], dtype: 'float32' }), '...'],
      { assumptions: 'n >= 1' },
    );
    const { out } = await run(knl, device, { b: new Float32Array([-1e30, 1]), n: 2 });
    const rounded = Math.fround(Math.fround(-1e30) * -3);
    // WGSL cannot forbid contraction (README, "Where WGSL says less than IEEE"): NVIDIA's Vulkan
    // driver fuses, and the single rounding of 3e30 - 0.5 lands one float below the tie
    const allowed = device.name.startsWith('WebGPU') ? [rounded, Math.fround(2.999999894026671e30)] : [rounded];
    const got = Array.from(out as Float32Array);
    assert.ok(allowed.includes(got[0]), `out[0] = ${got[0]}, not one of ${allowed.join(', ')}`);
    assert.is(got[1], -3.5);
  });
}

for (const device of testDevices()) {
  test(`${device.name}: 0 - i is +0 for i = 0, and 0 + (-i) too: a float sum with a literal zero keeps IEEE's signed zeros`, async () => {
    // seed 1997718368 (C device): gcc folds `0.0 - (double) i` to `-(double) i` at every level of
    // optimization, -0 for i = 0 where IEEE gives +0 (here the real part of 0.5j - i, conj'd)
    const complexCase = makeKernel('{ [i,j]: 0<=i<n and 0<=j<m }', 'out[i, j] = conj(if(j == 0, a[i, j], 0.5j - i))', [
      globalArg('a', { shape: ['n', 'm'], dtype: 'complex64' }),
      '...',
    ]);
    const floats = makeKernel('{ [i]: 0<=i<n }', [
      'zeroMinus[i] = 0.0 - i',
      'zeroPlus[i] = 0.0 + (-i)',
      'minusZero[i] = -i + 0.0',
      'ofAbs[i] = 0.0 - abs(float32(i) - 1)',
    ]);
    // a target that does not keep the sign of a zero (WGSL) is held to the value only
    const signed = targetFacts(device.target).signedZeros;
    const isPlusZero = (v: number, what: string) =>
      assert.ok(signed ? Object.is(v, 0) : v === 0, `${what} is ${Object.is(v, -0) ? '-0' : v}, not +0`);
    if (supportsDType(device, 'complex128')) {
      const out = (await run(complexCase, device, { a: new Float32Array(4), n: 1, m: 2 })).out as Float64Array;
      isPlusZero(out[2]!, 'real(conj(0.5j - 0))');
      assert.is(out[3], -0.5);
    }
    const got = (await run(floats, device, { n: 3 })) as Record<string, ArrayLike<number>>;
    isPlusZero(got.zeroMinus![0]!, '0.0 - 0');
    isPlusZero(got.zeroPlus![0]!, '0.0 + (-0)');
    isPlusZero(got.minusZero![0]!, '-0 + 0.0');
    isPlusZero(got.ofAbs![1]!, '0.0 - abs(1 - 1)');
    assert.equal([got.zeroMinus![2], got.zeroPlus![2], got.minusZero![2], got.ofAbs![2]], [-2, -2, -2, -1]);
  });
}

for (const device of testDevices()) {
  test(`${device.name}: min and max accumulated in a loop, with negated operands`, async () => {
    // before: NVIDIA's OpenCL unroller gave max over k of -k = 4 (not 0) and lost the first
    // -b[i, k] (seeds 2580333598, 29300880, 3594277482); such loops are now kept rolled
    const n = 6,
      m = 9;
    const b = Int32Array.from({ length: n * m }, (_, q) => ((q * 7919) % 11) - 5);
    const row = (i: number) => Array.from(b.subarray(i * m, i * m + m));
    const ks = Array.from({ length: m }, (_, k) => k);
    const cases: [string, (i: number) => number][] = [
      ['out[i] = max(k, -k)', () => Math.max(...ks.map((k) => -k))],
      ['out[i] = max(k, -b[i, k])', (i) => Math.max(...row(i).map((x) => -x))],
      ['out[i] = min(k, -b[i, k]) + min(k, k - 3)', (i) => Math.min(...row(i).map((x) => -x)) - 3],
    ];
    for (const [insn, expected] of cases) {
      const knl = makeKernel(
        '{ [i,k]: 0<=i<n and 0<=k<m }',
        insn,
        [
          globalArg('b', { shape: ['n', 'm'], dtype: 'int32' }),
          globalArg('out', { shape: ['n'], dtype: 'int32' }),
          '...',
        ],
        { assumptions: 'n >= 1 and m >= 1' },
      );
      const { out } = await run(knl, device, { b, n, m });
      assert.equal(
        Array.from(out as Int32Array),
        Array.from({ length: n }, (_, i) => expected(i)),
        insn,
      );
    }
  });
}

for (const device of testDevices()) {
  test(`${device.name}: the else-branch of a float comparison holds for NaN`, async () => {
    // before: NVIDIA's OpenCL compiler folded !(fabs(x) >= 0) to false, so a NaN x took
    // neither branch (seed 3929237285); the complement is now spelled with isunordered
    const knl = makeKernel(
      '{ [i]: 0<=i<n }',
      'if (abs(b[i]) >= 0)\n  out[i] = 1\nelse\n  out[i] = 2\nend',
      [globalArg('b', { shape: ['n'], dtype: 'float32' }), globalArg('out', { shape: ['n'], dtype: 'float32' }), '...'],
      {
        assumptions: 'n >= 1',
      },
    );
    const { out } = await run(knl, device, { b: new Float32Array([Number.NaN, -1, 0]), n: 3 });
    // WGSL may assume finite floats (README): there only the finite elements are checked
    const got = Array.from(out as Float32Array);
    if (!targetFacts(device.target).floatSpecials) assert.equal(got.slice(1), [1, 1]);
    else assert.equal(got, [2, 1, 1]);
  });
}

for (const device of testDevices()) {
  test(`${device.name}: the NaN-keeping complement of a comparison whose sides are conditionals`, async () => {
    // before: OpenCL printed the sides of `a < b` inside the complement without parentheses,
    // and a conditional side did not compile (seed 2567769549)
    const knl = makeKernel(
      '{ [i]: 0<=i<n }',
      'out[i] = if(not ((0.5 - a[i]) >= (a[i] if (a[i] >= 1) else 2*a[i])), 1, 2)',
      [globalArg('a', { shape: ['n'], dtype: 'float32' }), globalArg('out', { shape: ['n'], dtype: 'float32' }), '...'],
    );
    const a = new Float32Array([-2, 0.1, 3, 0.5]);
    const { out } = await run(knl, device, { a, n: 4 });
    assert.equal(
      Array.from(out as Float32Array),
      Array.from(a, (x) => (!(0.5 - x >= (x >= 1 ? x : Math.fround(2 * x))) ? 1 : 2)),
    );
  });
}

for (const device of testDevices()) {
  test(`${device.name}: a local reduction whose iname shares a domain with the loops around it`, async () => {
    // before: realizing the tree asked whether the reduction covers a box, and added the
    // reduced inames to a set that had them already: a plain Error (seed 980622198)
    let knl = makeKernel(
      '{ [i,k]: 0<=i<n and 0<=k<m }',
      '<> s = sum(k, abs(i * 2))\nout[i] = s',
      [globalArg('out', { shape: ['n'], dtype: 'int32' }), '...'],
      {
        assumptions: 'n >= 1 and m >= 1',
      },
    );
    knl = chunkIname(knl, 'k', 3);
    knl = prioritizeLoops(knl, ['k_inner', 'k_outer', 'i']);
    knl = splitIname(knl, 'k_inner', 5, { innerTag: 'l.0' });
    knl = splitReductionInward(knl, ['k_inner_inner']);
    const { out } = await run(knl, device, { n: 9, m: 4 });
    assert.equal(
      Array.from(out as Int32Array),
      Array.from({ length: 9 }, (_, i) => 4 * 2 * i),
    );
  });
}

test('makeReductionInamesUnique refuses a reduction that reads a temporary written in its loop', () => {
  // before: after addPrefetch(b, []) the second sum over k read b_fetch (written inside k) over
  // a copy k_0, so it summed the last fetched value m times (seed 2893509642, every device)
  const knl = addPrefetch(
    makeKernel('{ [i,k]: 0<=i<n and 0<=k<m }', 'out[i] = sum(k, b[i, k]) - sum(k, 2*b[i, k])', [
      globalArg('b', { shape: ['n', 'm'], dtype: 'int32' }),
      '...',
    ]),
    'b',
    [],
  );
  assert.throws(
    () => makeReductionInamesUnique(knl),
    (e: unknown) =>
      e instanceof LoomError &&
      /reads 'b_fetch', which 'b_fetch_rule' writes inside the loop 'k'/.test((e as Error).message),
  );
});

for (const device of testDevices()) {
  test(`${device.name}: max(k, e) over an iname k is a reduction even where e does not use k`, async () => {
    // before: it was the function of two values inside a loop over k, and out[i] kept the
    // last k's value, which a transformation that reorders k changed (seed 2024637539)
    const knl = makeKernel('{ [i,k]: 0<=i<n and 0<=k<m }', 'out[i] = max(k, -1) + min(k, 2*i)', [
      globalArg('out', { shape: ['n'], dtype: 'int32' }),
      '...',
    ]);
    const { out } = await run(knl, device, { n: 4, m: 7 });
    assert.equal(
      Array.from(out as Int32Array),
      [0, 1, 2, 3].map((i) => -1 + 2 * i),
    );
  });
}

for (const device of testDevices()) {
  test(`${device.name}: a math built-in of constants outside its domain runs and gives NaN`, async () => {
    // before: WGSL evaluated sqrt(-2.5) when it compiled and refused the shader (seed 1138125604)
    const knl = makeKernel('{ [i]: 0<=i<n }', 'out[i] = if(a[i] == 1, sqrt(-2.5), log(-1.0)) + a[i]', [
      globalArg('a', { shape: ['n'], dtype: 'float32' }),
      '...',
    ]);
    const { out } = await run(knl, device, { a: new Float32Array([1, 2]), n: 2 });
    // WGSL may assume finite values (README): there, that the shader compiles and runs is the point
    if (targetFacts(device.target).floatSpecials) assert.ok(Array.from(out as Float32Array).every(Number.isNaN));
    else assert.is((out as Float32Array).length, 2);
  });
}

for (const device of testDevices()) {
  test(`${device.name}: a loop with a barrier inside runs alike on every work-item, whatever its range on each`, async () => {
    // before: i_outer's bound took the local iname i_inner (4*i_outer + i_inner < n), so the
    // work-items past the end left the loop while the others waited at the barriers of the tree
    // over k: PoCL gave 0 for the last rows, the CPU device stopped at the divergence (seed 2107168363)
    let knl = makeKernel(
      '{ [i,k]: 0<=i<n and 0<=k<m }',
      'out[i] = sum(k, a[i, k])',
      [globalArg('a', { shape: ['n', 'm'], dtype: 'float32' }), '...'],
      {
        assumptions: 'n >= 1 and m >= 1',
      },
    );
    knl = splitIname(knl, 'k', 5, { innerTag: 'l.0', slabs: [0, 1] });
    knl = splitIname(knl, 'i', 4, { innerTag: 'l.1' });
    knl = duplicateInames(knl, 'i_outer');
    const [n, m] = [6, 7];
    const a = Float32Array.from({ length: n * m }, (_, k) => (k % 5) - 2);
    const { out } = await run(knl, device, { a, n, m });
    assert.equal(
      Array.from(out as Float32Array),
      Array.from({ length: n }, (_, i) => a.slice(i * m, (i + 1) * m).reduce((x, y) => x + y, 0)),
    );
  });
}

for (const device of testDevices()) {
  test(`${device.name}: a complex formula's values read the reduction result they are computed from`, async () => {
    // before: the value lower-complex binds first (the real reduction's result as a float) and
    // those computed from it had no dependency between them, so the product read the result of
    // the previous i (seed 1011: the reference itself was off by one row)
    const knl = makeKernel(
      '{ [i,k]: 0<=i<n and 0<=k<m }',
      'out[i] = (sum(k, k / 2) * c[i]) / conj(c[i])',
      [globalArg('c', { shape: ['n'], dtype: 'complex64' }), '...'],
      {
        assumptions: 'n >= 1 and m >= 1',
      },
    );
    const c = new Float32Array([0.5, -1.5, -1, 1, 2, 0.5, 1, 0]);
    const m = 8;
    const total = Array.from({ length: m }, (_, k) => Math.floor(k / 2)).reduce((a, b) => a + b, 0);
    const { out } = await run(splitIname(knl, 'i', 3, { innerTag: 'l.0' }), device, { c, n: 4, m });
    // total * z / conj(z) = total * z² / |z|²
    const expected = Array.from({ length: 4 }, (_, i) => {
      const [a, b] = [c[2 * i], c[2 * i + 1]];
      const norm = a * a + b * b;
      return [(total * (a * a - b * b)) / norm, (total * 2 * a * b) / norm];
    }).flat();
    Array.from(out as Float32Array).forEach((v, k) =>
      assert.ok(
        Math.abs(v - expected[k]) <= 1e-5 * Math.max(1, Math.abs(expected[k])),
        `out[${k}] = ${v}, expected ${expected[k]}`,
      ),
    );
  });
}

for (const device of testDevices()) {
  test(`${device.name}: a complex value divided by a real literal (float arithmetic of literals only) compiles and runs`, async () => {
    // before: Smith's division by 4 + 0j prints 4.0 / 0.0 for the branch it does not take,
    // which WGSL evaluated when it compiled and refused the shader (seed 44776495)
    // and its literal-only parts were float64 temporaries, which WGSL lacks
    const knl = makeKernel(
      '{ [i]: 0<=i<n }',
      ['out[i] = b[i] / 4', 'half[i] = b[i] / 0.5'],
      [globalArg('b', { shape: ['n'], dtype: 'complex64' }), '...'],
    );
    const b = new Float32Array([1, -2, 0.5, 8, -0, 3]);
    const { out, half } = await run(knl, device, { b, n: 3 });
    assert.equal(
      Array.from(out as Float32Array),
      Array.from(b, (x) => x / 4),
    );
    assert.equal(
      Array.from(half as Float32Array),
      Array.from(b, (x) => x * 2),
    );
    assert.instance(out, Float32Array);
  });
}

for (const device of testDevices()) {
  test(`${device.name}: a local scalar written by one work-item is read by all after a barrier`, async () => {
    // before: reads of scalar temporaries were not accesses to the barrier pass, so the lane
    // that finished a local tree wrote s while the others read it (NVIDIA: 7 of 9 wrong, seed 642683201)
    let knl = makeKernel('{ [i,k]: 0<=i<n and 0<=k<=i }', '<> s = product(k, -3)\nout[i] = s + i', [
      globalArg('out', { shape: ['n'], dtype: 'int32' }),
      '...',
    ]);
    knl = splitIname(knl, 'i', 5, { innerTag: 'l.0' });
    knl = setTemporaryAddressSpace(knl, 's', 'local');
    knl = fixParameters(knl, { n: 9 });
    knl = splitIname(knl, 'k', 3, { outerTag: 'l.1' });
    const { out } = await run(knl, device, {});
    // the instruction is not inside i: k runs over its whole range 0..8
    assert.equal(
      Array.from(out as Int32Array),
      Array.from({ length: 9 }, (_, i) => (-3) ** 9 + i),
    );
  });
}

/** out[i] = f(i) * b[i] with f precomputed over i_inner: f's store runs inside its own loop x. */
function precomputedRule() {
  const knl = makeKernel(
    '{ [i]: 0<=i<n }',
    'f(x) := 2 * b[x]\nout[i] = f(i) * b[i]',
    [globalArg('b', { shape: ['n'], dtype: 'float32' }), '...'],
    { assumptions: 'n >= 1' },
  );
  return precompute(splitIname(knl, 'i', 1, { outerTag: 'g.0', innerTag: 'l.0' }), 'f', ['i_inner']);
}

test('addPrefetch refuses a footprint whose base is in an iname one of its readers is not inside', () => {
  // before: b's box started at i_outer + x (from f's store, inside x, then named f_dim_0),
  // and the instruction outside x read b_fetch[i_inner - x]: WGSL "unresolved value
  // 'f_dim_0'", and the CPU device and OpenCL read a stale loop counter (seed 4127166720)
  assert.throws(
    () => addPrefetch(precomputedRule(), 'b', ['i_inner']),
    (e: unknown) =>
      e instanceof LoomError && /depends on 'x', which instruction 'insn' is not inside/.test((e as Error).message),
  );
});

for (const device of testDevices()) {
  test(`${device.name}: addPrefetch over both loop nests of a precomputed rule's reads`, async () => {
    const knl = addPrefetch(precomputedRule(), 'b', ['i_inner', 'x']);
    const { out } = await run(knl, device, { b: new Float32Array([1, 2, 3]), n: 3 });
    assert.equal(Array.from(out as Float32Array), [2, 8, 18]);
  });
}

test('duplicateInames within one instruction refuses to part a temporary from its writer', () => {
  // before: the writer of t ran its own loop i_0 to the end, then every out[i] read the last
  // t (seed 2343664393: 5 of 12 elements wrong on every device, silently)
  const knl = makeKernel('{ [i]: 0<=i<n }', '<> t = 2 * a[i] {id=w}\nout[i] = t + 1 {id=r}', undefined, {
    assumptions: 'n >= 1',
  });
  for (const within of ['id:w', 'id:r']) {
    assert.throws(
      () => duplicateInames(knl, 'i', { within }),
      (e: unknown) =>
        e instanceof LoomError &&
        /'w' writes the temporary 't' and 'r' reads it in the same iteration of 'i'/.test((e as Error).message),
    );
  }
});

for (const device of testDevices()) {
  test(`${device.name}: duplicateInames within one instruction may part a temporary indexed by the iname`, async () => {
    const knl = duplicateInames(
      makeKernel('{ [i]: 0<=i<4 }', '<float32> t[i] = 2 * a[i] {id=w}\nout[i] = t[i] + 1 {id=r}', [
        globalArg('a', { shape: [4], dtype: 'float32' }),
        '...',
      ]),
      'i',
      { within: 'id:w' },
    );
    const { out } = await run(knl, device, { a: new Float32Array([1, 2, 3, 4]) });
    assert.equal(Array.from(out as Float32Array), [3, 5, 7, 9]);
  });
}

for (const device of testDevices()) {
  test(`${device.name}: a substitution rule called in an if-block's condition is expanded`, async () => {
    // before: the condition kept the call f(i), and every target refused it ("the JavaScript
    // target does not know the function 'f'"; the feature class rulePredicates)
    const knl = makeKernel(
      '{ [i]: 0<=i<n }',
      'f(x) := a[x] * 2\nif f(i) > 3\n  out[i] = 1\nelse\n  out[i] = f(i)\nend',
      [globalArg('a', { shape: ['n'], dtype: 'float32' }), '...'],
      { assumptions: 'n >= 1' },
    );
    const { out } = await run(knl, device, { a: new Float32Array([1, 2, 3]), n: 3 });
    assert.equal(Array.from(out as Float32Array), [2, 1, 1]);
  });

  test(`${device.name}: a reduction in an if-block's condition is accumulated before the condition is tested`, async () => {
    // before: "internal: a reduction survived realization" (only the expression's
    // reductions became loops, not the conditions')
    const knl = makeKernel(
      '{ [i,k]: 0<=i<n and 0<=k<m }',
      'if sum(k, b[i, k]) > 0\n  out[i] = sum(k, b[i, k] * b[i, k])\nelse\n  out[i] = 2\nend',
      [globalArg('b', { shape: ['n', 'm'], dtype: 'float32' }), '...'],
      { assumptions: 'n >= 1 and m >= 1' },
    );
    const { out } = await run(knl, device, { b: new Float32Array([1, -2, 3, 1, -1, -3]), n: 3, m: 2 });
    assert.equal(Array.from(out as Float32Array), [2, 10, 2]);
  });
}

test("a reduction in a condition over the iname the block runs in is the check's KernelCheckError", async () => {
  const knl = makeKernel(
    '{ [i]: 0<=i<n }',
    'if max(i, a[i]) > 0\n  out[i] = 1\nend',
    [globalArg('a', { shape: ['n'], dtype: 'float32' }), '...'],
    { assumptions: 'n >= 1' },
  );
  try {
    await run(knl, cpu, { a: new Float32Array([1, -2]), n: 2 });
    assert.unreachable('the kernel ran');
  } catch (e) {
    assert.ok(e instanceof KernelCheckError, String(e));
    assert.match(
      (e as Error).message,
      /instruction 'insn' uses a reduction within loop\(s\) that it was supposed to reduce over: 'i'/,
    );
  }
});

/** out[i] = sum(k, a[k] * i) with a's tile fetched across the work-items of l.0 (l.auto). */
function tileFetchedAcrossWorkItems() {
  const knl = makeKernel(
    '{ [i,k]: 0<=i<n and 0<=k<4 }',
    'out[i] = sum(k, a[k] * i)',
    [globalArg('a', { shape: [4], dtype: 'float32' }), '...'],
    { assumptions: 'n >= 1' },
  );
  return addPrefetch(splitIname(knl, 'i', 2, { outerTag: 'g.0', innerTag: 'l.0' }), 'a', ['k'], {
    defaultTag: 'l.auto',
  });
}

for (const device of testDevices()) {
  test(`${device.name}: a tile fetched across work-items and set to 'private' is refused, not read uninitialized`, async () => {
    // before: each work-item fetched one element into its own private copy and read all
    // four (CPU [0, 2, 2, 6], OpenCL garbage, expected [0, 10, 20, 30]; the feature class spaceOfTiles)
    const knl = setTemporaryAddressSpace(tileFetchedAcrossWorkItems(), 'a_fetch', 'private');
    try {
      await run(knl, device, { a: new Float32Array([1, 2, 3, 4]), n: 4 });
      assert.unreachable('the kernel ran');
    } catch (e) {
      assert.ok(e instanceof KernelCheckError, String(e));
      assert.match(
        (e as Error).message,
        /reads the private temporary 'a_fetch' at elements that 'a_fetch_rule' writes in other work-items/,
      );
    }
    const local = setTemporaryAddressSpace(tileFetchedAcrossWorkItems(), 'a_fetch', 'local');
    assert.equal(
      Array.from((await run(local, device, { a: new Float32Array([1, 2, 3, 4]), n: 4 })).out as Float32Array),
      [0, 10, 20, 30],
    );
  });
}

for (const device of testDevices()) {
  test(`${device.name}: addPrefetch over i_outer with l.auto while i_inner is l.0 stores its tile once, fitted to the work-group`, async () => {
    // before: the store ran inside i_inner although its box does not move with it, and l.auto
    // put the fetch iname on l.0 too (two inames of one instruction on one axis); with other
    // sweeps the copies along l.0 raced on the tile (WriteRaceConditionWarning; warnedRaces)
    let knl = makeKernel(
      '{ [i]: 0<=i<n }',
      'out[i] = 2 * a[i]',
      [globalArg('a', { shape: ['n'], dtype: 'float32' }), '...'],
      { assumptions: 'n >= 1' },
    );
    knl = splitIname(fixParameters(knl, { n: 8 }), 'i', 4, { innerTag: 'l.0' });
    knl = addPrefetch(knl, 'a', ['i_outer'], { defaultTag: 'l.auto' });
    // l.auto fits the 8 values to the 4 work-items of l.0 as loopy does: a loop of 2 around the axis
    assert.equal(knl.instruction('a_fetch_rule').withinInames, ['a_dim_0_outer', 'a_dim_0_inner']);
    assert.equal(knl.inameTags.get('a_dim_0_inner'), { kind: 'local', axis: 0 });
    const warnings: string[] = [];
    const previous = setWarningHandler((w) => warnings.push(w.toString()));
    try {
      const { out } = await run(knl, device, { a: new Float32Array([1, 2, 3, 4, 5, 6, 7, 8]) });
      assert.equal(Array.from(out as Float32Array), [2, 4, 6, 8, 10, 12, 14, 16]);
    } finally {
      setWarningHandler(previous);
    }
    assert.equal(
      warnings.filter((w) => w.startsWith('WriteRaceConditionWarning')),
      [],
    );
  });
}

for (const device of testDevices()) {
  test(`${device.name}: a fetch double-buffered over a loop that a work-item bounds (j <= i, i on g.0) reads its own row at the next step`, async () => {
    // differential seed 503548: the loops of the work-items (i_outer, i_inner) bound j, but were
    // taken for loops of the fill inside j and copied at the next step, where their copies' row
    // was one past the work-item's own (out[i, j + 1] read d[i + 1, j + 1]), with 2 buffers or 4
    for (const stages of [2, 4]) {
      let knl = makeKernel(
        '{ [i, j]: 0 <= i < n and 0 <= j <= i }',
        'out[i, j] = 2 * d[i, j]',
        [globalArg('d', { shape: ['n', 'n'], dtype: 'int32' }), '...'],
        { assumptions: 'n >= 1' },
      );
      knl = splitIname(knl, 'i', 1, { outerTag: 'g.0', innerTag: 'l.0' });
      knl = addPrefetch(knl, 'd', [], {});
      knl = setTemporaryAddressSpace(knl, 'd_fetch', 'local');
      knl = doubleBuffer(knl, 'd_fetch', 'j', { stages, ahead: 1 });
      const n = 6;
      const d = Int32Array.from({ length: n * n }, (_, k) => k + 1);
      const { out } = await run(knl, device, { d, n, out: new Int32Array(n * n) });
      const expected = Array.from({ length: n * n }, (_, k) => (k % n <= Math.floor(k / n) ? 2 * (k + 1) : 0));
      assert.equal(Array.from(out as Int32Array), expected, `${stages} buffers`);
    }
  });
}

test.run();
