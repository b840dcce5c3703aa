/**
 * Reductions (issue 14, items 1 and 2): across work-items (a tree in local memory), argument
 * reductions and multiple assignment, the `reduce(...)` spellings, registered and segmented
 * reductions, empty domains. Every kernel runs on every test device against plain JavaScript.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  addDtypes,
  addPrefetch,
  expr,
  fixParameters,
  globalArg,
  LoomError,
  makeKernel,
  makeReductionInamesUnique,
  parseExpression,
  printExpr,
  realizeReduction,
  reductionArgToSubstRule,
  registerFunction,
  registerReduction,
  run,
  defineFunction,
  splitIname,
  splitReductionOutward,
  tagInames,
  type Device,
  type DType,
} from '@loom/core';
import { kernel } from '@loom/dsl';
import { preprocess } from '../packages/core/src/preprocess/pipeline.ts';
import { assertClose, randomFloat32, testDevices } from './support/devices.ts';

function holds(device: Device, dtype: DType, name: string): boolean {
  const why = device.target.unsupportedDType?.(dtype);
  if (why) console.warn(`loom: skipping ${name} on ${device.name}: ${dtype}: ${why}`);
  return !why;
}

/** numpy's argmax: the first index of the largest value, NaN counting as the largest. */
function argmaxOf(xs: ArrayLike<number>): number {
  let best = 0;
  for (let i = 1; i < xs.length; i++) {
    const x = xs[i];
    const y = xs[best];
    if (!Number.isNaN(y) && (Number.isNaN(x) || x > y)) best = i;
  }
  return best;
}

let registered = false;
function registerOnce(): void {
  if (registered) return;
  registered = true;
  // the largest magnitude, kept with its sign: associative and commutative
  registerReduction({
    name: 'absmax_signed',
    neutral: ['0'],
    combine: ['if(abs(b) > abs(a) or (abs(b) == abs(a) and b > a), b, a)'],
  });
  // (count, total) pairs, from a function of the operands
  registerReduction({
    name: 'count_and_sum',
    arity: 2,
    resultDtypes: ([, t]) => ['int32', t],
    neutral: () => [0, 0],
    combine: (a, b) => [expr.add(a[0], b[0]), expr.add(a[1], b[1])],
  });
  // nodes built by hand, as plain objects rather than with expr's constructors
  registerReduction({
    name: 'hand_built_max',
    neutral: [{ kind: 'float', value: -1e30 }] as never,
    combine: (a, b) =>
      [
        { kind: 'if', condition: { kind: 'compare', op: '>', left: b[0], right: a[0] }, then: b[0], otherwise: a[0] },
      ] as never,
  });
}

for (const device of testDevices()) {
  const on = device.name;

  test(`${on}: a row sum over a split iname: 96 work-items per row, each summing its stride first`, async () => {
    for (const m of [1000, 96, 5]) {
      const n = 7;
      let knl = makeKernel('{[i, j]: 0 <= i < n and 0 <= j < m}', 'out[i] = sum(j, a[i, j])', [
        globalArg('a', { dtype: 'float32', shape: ['n', 'm'] }),
        '...',
      ]);
      knl = splitIname(tagInames(knl, { i: 'g.0' }), 'j', 96, { innerTag: 'l.0' });
      const a = randomFloat32(n * m, m);
      const { out } = await run(knl, device, { a, n, m });
      const expected = Array.from({ length: n }, (_, i) => a.subarray(i * m, (i + 1) * m).reduce((s, x) => s + x, 0));
      assertClose(out as Float32Array, expected, `m=${m}`, 1e-5, 1e-5);
    }
  });

  test(`${on}: a reduction over two local inames combines both axes in one tree`, async () => {
    let knl = makeKernel('{[k, i, j]: 0 <= k < 3 and 0 <= i < 6 and 0 <= j < 10}', 'out[k] = sum((i, j), a[k, i, j])', [
      globalArg('a', { dtype: 'float32' }),
      '...',
    ]);
    knl = tagInames(knl, { i: 'l.1', j: 'l.0', k: 'g.0' });
    const a = randomFloat32(180, 2);
    const { out } = await run(knl, device, { a });
    assertClose(
      out as Float32Array,
      [0, 1, 2].map((k) => a.subarray(60 * k, 60 * k + 60).reduce((s, x) => s + x, 0)),
      'out',
      1e-5,
      1e-5,
    );
  });

  test(`${on}: nested reductions over two local axes, and a local one inside a sequential one`, async () => {
    const a = randomFloat32(60, 3);
    const total = a.reduce((s, x) => s + x, 0);
    const nested = tagInames(
      makeKernel('{[i, j]: 0 <= i < 6 and 0 <= j < 10}', 'out = sum(i, sum(j, a[i, j]))', [
        globalArg('a', { dtype: 'float32' }),
        '...',
      ]),
      {
        i: 'l.1',
        j: 'l.0',
      },
    );
    assertClose((await run(nested, device, { a })).out as Float32Array, [total], 'both local', 1e-5, 1e-5);
    const mixed = tagInames(
      makeKernel('{[i, j]: 0 <= i < 6 and 0 <= j < 10}', 'out = sum(i, sum(j, a[i, j]))', [
        globalArg('a', { dtype: 'float32' }),
        '...',
      ]),
      { j: 'l.0' },
    );
    assertClose((await run(mixed, device, { a })).out as Float32Array, [total], 'outer sequential', 1e-5, 1e-5);
  });

  test(`${on}: a matrix-vector product reducing across work-items over a prefetched vector`, async () => {
    const [n, m] = [40, 100];
    let knl = makeKernel('{[i, j]: 0 <= i < n and 0 <= j < m}', 'y[i] = sum(j, A[i, j]*x[j])', [
      globalArg('A', { dtype: 'float32', shape: ['n', 'm'] }),
      globalArg('x', { dtype: 'float32', shape: ['m'] }),
      '...',
    ]);
    knl = splitIname(tagInames(knl, { i: 'g.0' }), 'j', 32, { innerTag: 'l.0' });
    knl = addPrefetch(knl, 'x', ['j_inner'], {
      fetchOuterInames: ['i', 'j_outer'],
      temporaryAddressSpace: 'local',
      defaultTag: 'l.auto',
    });
    const A = randomFloat32(n * m, 4);
    const x = randomFloat32(m, 5);
    const { y } = await run(knl, device, { A, x, n, m });
    const expected = Array.from({ length: n }, (_, i) => x.reduce((s, xj, j) => s + A[i * m + j] * xj, 0));
    assertClose(y as Float32Array, expected, 'y', 1e-5, 1e-5);
  });

  test(`${on}: a local iname that does not start at 0, beside another local axis the reduction leaves idle`, async () => {
    const knl = tagInames(
      makeKernel(['{[j]: 0<=j<4}', '{[i]: 3 <= i < 10}'], ['out = sum(i, i)', 'o2[j] = sum(i, i*j)']),
      { i: 'l.0', j: 'l.1' },
    );
    const r = await run(knl, device, {});
    assert.equal([...(r.out as Int32Array), ...(r.o2 as Int32Array)], [42, 0, 42, 84, 126]);
  });

  test(`${on}: a reduction into a private temporary reaches every work-item (a normalization)`, async () => {
    const n = 50;
    let knl = makeKernel(
      '{[j, j2]: 0 <= j, j2 < n}',
      ['<> s = sum(j, a[j])', 'out[j2] = a[j2] / s'],
      [globalArg('a', { dtype: 'float32', shape: ['n'] }), '...'],
    );
    knl = tagInames(fixParameters(knl, { n }), { j: 'l.0', j2: 'l.0' });
    const a = Float32Array.from({ length: n }, (_, k) => k + 1);
    const { out } = await run(knl, device, { a });
    assertClose(
      out as Float32Array,
      Array.from(a, (v) => v / ((n * (n + 1)) / 2)),
      'out',
      1e-6,
      0,
    );
  });

  test(`${on}: a triangle of work-items: those outside the domain add the neutral element`, async () => {
    let knl = makeKernel('{[i, j]: 0 <= i < 20 and 0 <= j <= i}', 'out[i] = max(j, a[j])', [
      globalArg('a', { dtype: 'float32', shape: [20] }),
      '...',
    ]);
    knl = tagInames(knl, { j: 'l.0' });
    const a = randomFloat32(20, 6);
    const { out } = await run(knl, device, { a });
    assert.equal(
      Array.from(out as Float32Array),
      Array.from({ length: 20 }, (_, i) => Math.max(...a.subarray(0, i + 1))),
    );
  });

  test(`${on}: argmax and argmin, sequential and across work-items, with ties, NaN and -inf`, async () => {
    const n = 37;
    const cases = [[3, 1, 3, 2, 3], [NaN, 1, NaN, 5], [-Infinity, -Infinity], [1, 5, 5, 5, 0], []];
    for (const data of cases) {
      const a = Float32Array.from({ length: n }, (_, i) => (i < data.length ? data[i] : -1e30));
      const knl = makeKernel(
        `{[i]: 0<=i<${n}}`,
        ['v, k = argmax(i, a[i], i)', 'w, q = argmin(i, -a[i], i)'],
        [globalArg('a', { dtype: 'float32' }), '...'],
      );
      for (const tags of [{}, { i: 'l.0' }]) {
        const r = await run(tagInames(knl, tags), device, { a });
        const best = argmaxOf(a);
        const where = `${JSON.stringify(data)} ${JSON.stringify(tags)}`;
        assert.equal([(r.k as Int32Array)[0], (r.q as Int32Array)[0]], [best, best], where);
        assert.ok(Object.is((r.v as Float32Array)[0], a[best]) && Object.is((r.w as Float32Array)[0], -a[best]), where);
      }
    }
  });

  test(`${on}: any and all across work-items (truth values in local memory)`, async () => {
    const knl = tagInames(
      makeKernel(
        '{[i, j]: 0<=i,j<10}',
        ['out1 = any(i, x[i] > 2)', 'out2 = all(j, x[j] >= 0)'],
        [globalArg('x', { dtype: 'int32' }), '...'],
      ),
      {
        i: 'l.0',
        j: 'l.0',
      },
    );
    for (const x of [
      [0, 1, 2, 3, 0, 0, 0, 0, 0, 0],
      [0, 1, 2, -1, 0, 0, 0, 0, 0, 0],
    ]) {
      const r = await run(knl, device, { x: Int32Array.from(x) });
      assert.equal(
        [(r.out1 as Uint8Array)[0], (r.out2 as Uint8Array)[0]],
        [x.some((v) => v > 2) ? 1 : 0, x.every((v) => v >= 0) ? 1 : 0],
      );
    }
  });

  test(`${on}: a multiple assignment into temporaries, read afterwards`, async () => {
    const knl = makeKernel(
      '{[i, k]: 0<=i<n and 0<=k<2}',
      ['<> best, <> at = argmax(i, a[i], i)', 'out[k] = if(k == 0, best, at)'],
      [globalArg('a', { dtype: 'float32', shape: ['n'] }), '...'],
    );
    const a = Float32Array.from([2, 9, -4, 9, 1]);
    const { out } = await run(knl, device, { a, n: a.length });
    assert.equal(Array.from(out as Float32Array), [9, 1]);
  });

  test(`${on}: a reduction over an empty domain yields the neutral element`, async () => {
    const knl = makeKernel(
      ['{[i]: 0<=i<3}', '[i, m] -> {[j]: 0<=j<m}'],
      ['s[i] = sum(j, a[j])', 'p[i] = product(j, a[j])', 'hi[i] = max(j, a[j])', 'v[i], k[i] = argmax(j, a[j], j)'],
      [globalArg('a', { dtype: 'float32', shape: [4] }), '...'],
    );
    const r = await run(knl, device, { a: new Float32Array(4), m: 0 });
    assert.equal(
      [...(r.s as Float32Array), ...(r.p as Float32Array), ...(r.hi as Float32Array)],
      [0, 0, 0, 1, 1, 1, -Infinity, -Infinity, -Infinity],
    );
    // argmax's neutral pair: the lowest value and the largest index (every real index beats it on a tie)
    assert.equal(Array.from(r.k as Int32Array), [2147483647, 2147483647, 2147483647]);
  });

  test(`${on}: segmented sums and products (scans as reductions over a triangle)`, async () => {
    const n = 16;
    const arr = Float32Array.from({ length: n }, (_, i) => (i % 3) + 1);
    const segflag = Int32Array.from({ length: n }, (_, i) => (i % 5 === 0 ? 1 : 0));
    for (const [op, combine, start] of [
      ['sum', (x: number, y: number) => x + y, 0],
      ['product', (x: number, y: number) => x * y, 1],
    ] as [string, (x: number, y: number) => number, number][]) {
      for (const tags of [{}, { i: 'l.0' }]) {
        const knl = makeKernel(
          '{[i,j]: 0<=i<n and 0<=j<=i}',
          `out[i], <>flag = reduce(segmented(${op}), j, arr[j], segflag[j])`,
          [
            globalArg('arr', { dtype: 'float32', shape: ['n'] }),
            globalArg('segflag', { dtype: 'int32', shape: ['n'] }),
            '...',
          ],
        );
        const { out } = await run(tagInames(fixParameters(knl, { n }), tags), device, { arr, segflag });
        const expected: number[] = [];
        let acc = start;
        arr.forEach((x, i) => expected.push((acc = segflag[i] ? x : combine(acc, x))));
        assert.equal(Array.from(out as Float32Array), expected, `${op} ${JSON.stringify(tags)}`);
      }
    }
  });

  test(`${on}: registered reductions, in text and as functions, sequential and across work-items`, async () => {
    registerOnce();
    const a = Float32Array.from([3, -7, 2, 7, -1, 0.5]);
    for (const tags of [{}, { i: 'l.0' }]) {
      const knl = tagInames(
        makeKernel(
          '{[i]: 0<=i<n}',
          [
            'm = absmax_signed(i, a[i])',
            'c, t = reduce(count_and_sum, i, if(a[i] > 0, 1, 0), a[i])',
            'h = hand_built_max(i, a[i])',
          ],
          [globalArg('a', { dtype: 'float32', shape: ['n'] }), '...'],
        ),
        tags,
      );
      const r = await run(fixParameters(knl, { n: a.length }), device, { a });
      const expected = [
        Math.max(...a.map(Math.abs)),
        a.filter((x) => x > 0).length,
        a.reduce((s, x) => s + x, 0),
        Math.max(...a),
      ];
      assert.equal(
        [(r.m as Float32Array)[0], (r.c as Int32Array)[0], (r.t as Float32Array)[0], (r.h as Float32Array)[0]],
        expected,
        JSON.stringify(tags),
      );
    }
  });

  test(`${on}: int64 max and min start from the dtype's extremes`, async () => {
    if (!holds(device, 'int64', 'int64 max and min')) return;
    const knl = makeKernel(
      '{[i]: 0<=i<3}',
      ['hi = max(i, a[i])', 'lo = min(i, b[i])'],
      [globalArg('a', { dtype: 'int64' }), globalArg('b', { dtype: 'int64' }), '...'],
    );
    const a = BigInt64Array.from([-(2n ** 62n) * 2n + 5n, -(2n ** 62n) * 2n + 3n, -(2n ** 62n) * 2n + 9n]);
    const b = BigInt64Array.from([2n ** 63n - 4n, 2n ** 63n - 2n, 2n ** 63n - 9n]);
    const r = await run(knl, device, { a, b });
    assert.equal([(r.hi as BigInt64Array)[0], (r.lo as BigInt64Array)[0]], [a[2], b[2]]);
  });
}

test('the builder verbs give the kernels the functions give, and run typed', async () => {
  const text = ['a = sum((i, j), x[i, j])', 'b = sum(i, sum(j, x[i, j]))'];
  const base = makeKernel('{ [i, j]: 0<=i<4 and 0<=j<5 }', text);
  const built = kernel('{ [i, j]: 0<=i<4 and 0<=j<5 }', text)
    .splitReductionOutward('j', 'id:insn')
    .makeReductionInamesUnique({ inames: ['i', 'j'] })
    .reductionRule(['j'], { within: 'id:insn' })
    .dtypes({ x: 'float32' })
    .realizeReduction({ insnIdFilter: ['insn_0'] });
  let functional = splitReductionOutward(base, 'j', 'id:insn');
  functional = makeReductionInamesUnique(functional, { inames: ['i', 'j'] });
  functional = reductionArgToSubstRule(functional, ['j'], { within: 'id:insn' });
  functional = realizeReduction(addDtypes(functional, { x: 'float32' }), { insnIdFilter: ['insn_0'] });
  assert.is(built.toString(), functional.toString());
  const x = randomFloat32(20, 9);
  const { a, b } = await built.run(testDevices()[0], { x });
  const total = x.reduce((s, v) => s + v, 0);
  assertClose([(a as Float32Array)[0], (b as Float32Array)[0]], [total, total], 'a, b', 1e-5, 1e-5);

  const argmax = kernel('{ [i]: 0<=i<n }', 'v, k = argmax(i, abs(a[i]), i)').tag({ i: 'l.0' }).fix({ n: 6 });
  const { v, k } = await argmax.run(testDevices()[0], { a: Float32Array.from([1, -8, 3, 8, 0, 2]) });
  assert.equal([(v as Float32Array)[0], (k as Int32Array)[0]], [8, 1]);
});

test('a reduction over a group iname is refused, naming the alternatives', () => {
  const knl = tagInames(
    makeKernel('{[i]: 0<=i<n}', 'out = sum(i, a[i])', [globalArg('a', { dtype: 'float32', shape: ['n'] }), '...']),
    { i: 'g.0' },
  );
  assert.throws(
    () => preprocess(knl),
    (e: unknown) =>
      e instanceof LoomError &&
      /work-groups cannot combine/.test(e.message) &&
      /splitIname/.test(e.message) &&
      /gbarrier/.test(e.message) &&
      /atomic/.test(e.message),
  );
});

test('a reduction over a local iname inside one of the same axis is refused', () => {
  const knl = tagInames(
    makeKernel('{[i, j]: 0<=i,j<8}', 'out[j] = sum(i, a[i, j])', [globalArg('a', { dtype: 'float32' }), '...']),
    { i: 'l.0', j: 'l.0' },
  );
  assert.throws(
    () => preprocess(knl),
    (e: unknown) => e instanceof LoomError && /both tagged l\.0/.test(e.message),
  );
  const two = tagInames(
    makeKernel('{[i, j]: 0<=i,j<8}', 'out = sum((i, j), a[i, j])', [globalArg('a', { dtype: 'float32' }), '...']),
    { i: 'l.0', j: 'l.0' },
  );
  assert.throws(
    () => preprocess(two),
    (e: unknown) => e instanceof LoomError && /both tagged l\.0/.test(e.message),
  );
});

test('an order-keeping reduction is refused across work-items', () => {
  const knl = tagInames(
    makeKernel('{[i]: 0<=i<8}', 'out, <>f = reduce(segmented(sum), i, a[i], g[i])', [
      globalArg('a', { dtype: 'float32' }),
      globalArg('g', { dtype: 'int32' }),
      '...',
    ]),
    { i: 'l.0' },
  );
  assert.throws(
    () => preprocess(knl),
    (e: unknown) => e instanceof LoomError && /depends on the order/.test(e.message),
  );
});

test('reduce(), simul_reduce() and the iname lists read back as they were written', () => {
  for (const [text, printed] of [
    ['reduce(sum, i, a[i])', 'sum(i, a[i])'],
    ['reduce(max, [i, j], a[i, j])', 'max((i, j), a[i, j])'],
    ['reduce(sum, (i, j), 1)', 'sum((i, j), 1)'],
    ['simul_reduce(sum, i, a[i])', 'simul_reduce(sum, i, a[i])'],
    ['reduce(any, [], 5)', 'reduce(any, [], 5)'],
    ['argmax(i, abs(a[i]), i)', 'argmax(i, abs(a[i]), i)'],
    ['reduce(segmented(sum), j, x[j], f[j])', 'reduce(segmented(sum), j, x[j], f[j])'],
  ]) {
    const e = parseExpression(text);
    assert.is(printExpr(e), printed, text);
    assert.ok(expr.exprEquals(parseExpression(printExpr(e)), e), text);
  }
});

test('reductions written wrong are LoomErrors with a caret', () => {
  const cases: [string | string[], RegExp][] = [
    ['out = reduce(nope, i, a[i])', /unknown reduction 'nope'[\s\S]*\^/],
    ['out = reduce(sum, i)', /reduce\(\) takes an operation, its inames and the values/],
    ['out = argmax(i, a[i])', /argmax\(\) takes an iname \(or a tuple of inames\) and 2 expressions/],
    ['out = 2*argmax(i, a[i], i)', /argmax\(\) yields 2 results, so it must be the whole right-hand side/],
    ['out = argmax(i, a[i], i)', /assigns one target, but argmax\(\) yields 2 results/],
    ['v, k, w = argmax(i, a[i], i)', /assigns 3 targets, but argmax\(\) yields 2/],
    ['v, k = a[i] + 1', /only a reduction with several results/],
    ['v, 2 = argmax(i, a[i], i)', /the left-hand side must be a variable or an array element/],
  ];
  for (const [text, pattern] of cases) {
    assert.throws(
      () => makeKernel('{[i]: 0<=i<n}', text),
      (e: unknown) => e instanceof LoomError && pattern.test(e.message),
      String(text),
    );
  }
});

test('registerReduction refuses what it cannot honour', () => {
  registerOnce();
  const refuses = (f: () => void, pattern: RegExp) =>
    assert.throws(f, (e: unknown) => e instanceof LoomError && pattern.test(e.message));
  refuses(() => registerReduction({ name: 'absmax_signed', neutral: ['0'], combine: ['a'] }), /already registered/);
  refuses(() => registerReduction({ name: 'sum', neutral: ['0'], combine: ['a + b'] }), /already registered/);
  refuses(
    () => registerReduction({ name: 'reduce', neutral: ['0'], combine: ['a + b'] }),
    /word of the expression language/,
  );
  refuses(() => registerReduction({ name: 'bad name', neutral: ['0'], combine: ['a + b'] }), /must be a name/);
  refuses(
    () => registerReduction({ name: 'uses_c', neutral: ['0'], combine: ['a + c'] }),
    /names 'c'; it may only name a, b/,
  );
  refuses(
    () => registerReduction({ name: 'two_results', neutral: ['0'], combine: ['a', 'b'] }),
    /gives 2 expressions for 1 results/,
  );
  refuses(
    () => registerReduction({ name: 'typo', neutral: ['0'], combine: ['a + b'], commutatve: false } as never),
    /unknown field 'commutatve'/,
  );
});

test('registerReduction checks every part it is given, naming the reduction and the part', () => {
  const refuses = (f: () => unknown, pattern: RegExp) =>
    assert.throws(f, (e: unknown) => e instanceof LoomError && pattern.test(e.message), String(pattern));
  const base = { neutral: ['0'], combine: ['a + b'] };
  refuses(() => registerReduction(null as never), /^registerReduction: expected \{ name, neutral, combine/);
  refuses(
    () => registerReduction({ ...base, name: 'bad_arity', arity: 'two' } as never),
    /^reduction 'bad_arity': arity must be an integer from 1 to 8, got "two"/,
  );
  refuses(
    () => registerReduction({ ...base, name: 'bad_commutative', commutative: 'no' } as never),
    /^reduction 'bad_commutative': commutative must be true or false/,
  );
  refuses(
    () => registerReduction({ ...base, name: 'bad_result_dtypes', resultDtypes: 'float32' } as never),
    /^reduction 'bad_result_dtypes': resultDtypes must be a function/,
  );
  refuses(
    () => registerReduction({ name: 'bad_neutral', neutral: '0', combine: ['a + b'] } as never),
    /^reduction 'bad_neutral': neutral must be a list/,
  );
  refuses(
    () => registerReduction({ name: 'bad_combine', neutral: ['0'], combine: 'a + b' } as never),
    /^reduction 'bad_combine': combine must be a list of texts or a function/,
  );
  refuses(
    () => registerReduction({ name: 'bad_text', neutral: ['0 +'], combine: ['a + b'] }),
    /^reduction 'bad_text': neutral: /,
  );
  // expression nodes built by hand: checked node by node, as well-formed as the parser's
  const nodes: [unknown, RegExp][] = [
    [{ kind: 'int', value: 1.5 }, /'int' node's value 1.5 is not a safe integer/],
    [{ kind: 'frob' }, /its kind "frob" is none of Loom's/],
    [
      { kind: 'binary', op: '+', left: null, right: { kind: 'int', value: 1 } },
      /at left, null is not an expression node/,
    ],
    [
      { kind: 'binary', op: '<>', left: { kind: 'int', value: 1 }, right: { kind: 'int', value: 1 } },
      /'binary' node's op "<>" is not one of/,
    ],
    [{ kind: 'var', name: 3 }, /'var' node's name 3 is not a name/],
    [
      {
        kind: 'call',
        fn: 'max',
        args: [
          { kind: 'int', value: 0 },
          { kind: 'cast', dtype: 'float99', operand: { kind: 'int', value: 0 } },
        ],
      },
      /at args\[1\], a 'cast' node's dtype "float99" is not a dtype/,
    ],
    [true, /true is not an expression/],
  ];
  nodes.forEach(([node, pattern], k) => {
    refuses(
      () => registerReduction({ name: `bad_node_${k}`, neutral: [node as never], combine: ['a + b'] }),
      new RegExp(`^reduction 'bad_node_${k}': neutral: .*${pattern.source}`),
    );
  });
  const cyclic: { kind: string; operand?: unknown } = { kind: 'neg' };
  cyclic.operand = cyclic;
  refuses(
    () => registerReduction({ name: 'bad_cycle', neutral: [cyclic as never], combine: ['a + b'] }),
    /^reduction 'bad_cycle': neutral: the expression contains itself/,
  );

  // what the functions give is checked where a kernel first uses the reduction
  const uses = (name: string) => () =>
    realizeReduction(
      makeKernel('{[i]: 0<=i<n}', `s = ${name}(i, a[i])`, [globalArg('a', { dtype: 'float32', shape: ['n'] }), '...']),
    );
  registerReduction({ ...base, name: 'gives_text', resultDtypes: () => 'float32' as never });
  refuses(
    uses('gives_text'),
    /reduction 'gives_text': resultDtypes\(float32\) must give a list of 1 dtype, got "float32"/,
  );
  registerReduction({ ...base, name: 'gives_bad_dtype', resultDtypes: () => ['float99' as DType] });
  refuses(
    uses('gives_bad_dtype'),
    /reduction 'gives_bad_dtype': resultDtypes\(float32\) gave "float99", which is not a dtype/,
  );
  registerReduction({ name: 'gives_bad_node', neutral: () => [{ kind: 'frob' } as never], combine: ['a + b'] });
  refuses(
    uses('gives_bad_node'),
    /reduction 'gives_bad_node': neutral\(float32\): .*its kind "frob" is none of Loom's/,
  );
  registerReduction({
    name: 'combines_bad_node',
    neutral: ['0'],
    combine: (a) => [{ kind: 'neg', operand: undefined }, a[0]] as never,
  });
  refuses(uses('combines_bad_node'), /reduction 'combines_bad_node': combine must give 1 expression/);
});

test('a reduction and a registered function cannot share a name, either way round', () => {
  const refuses = (f: () => unknown, pattern: RegExp) =>
    assert.throws(f, (e: unknown) => e instanceof LoomError && pattern.test(e.message), String(pattern));
  const spec = { signature: { args: ['float32' as DType], result: 'float32' as DType }, js: (x: number) => x };
  registerFunction({ ...spec, name: 'taken_by_function' });
  refuses(
    () => registerReduction({ name: 'taken_by_function', neutral: ['0'], combine: ['a + b'] }),
    /^reduction 'taken_by_function': the function 'taken_by_function' \(registerFunction\) has that name already/,
  );
  // a function defined before the reduction existed is refused when it is registered
  const early = defineFunction({ ...spec, name: 'taken_later' });
  registerReduction({ name: 'taken_later', neutral: ['0'], combine: ['a + b'] });
  refuses(
    () => registerFunction(early),
    /function 'taken_later' cannot be registered: the reduction 'taken_later' \(registerReduction\)/,
  );
  refuses(() => registerFunction(makeKernel('{[i]: 0<=i<4}', 'y[i] = 1.0'), early), /the reduction 'taken_later'/);
  refuses(
    () => defineFunction({ ...spec, name: 'taken_later' }),
    /^defineFunction: 'taken_later' is the name of a reduction/,
  );
});

test.run();
