/**
 * Issue 10, "No silent wrong results": transformations that produced wrong results
 * (or crashed late) where loopy computes the right thing, each pinned on every device.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  addPrefetch,
  duplicateInames,
  fixParameters,
  generateCode,
  globalArg,
  joinInames,
  LoomError,
  makeKernel,
  mapDomain,
  precompute,
  realizeReduction,
  reductionArgToSubstRule,
  renameIname,
  run,
  splitIname,
  splitReductionInward,
  splitReductionOutward,
  stringifyKernel,
  tagArrayAxes,
  tagInames,
  valueArg,
  type LoopKernel,
} from '@loom/core';
import { openclTarget } from '@loom/codegen-opencl';
import { wgslTarget } from '@loom/codegen-wgsl';
import { assertClose, randomFloat32, testDevices } from './support/devices.ts';

const throwsLoom = (f: () => unknown, message: RegExp) =>
  assert.throws(f, (e: unknown) => e instanceof LoomError && message.test((e as Error).message));

// {{{ 3: a local prefetch swept over an iname that is also an outer iname of the fetch

function rankOneSplit(): LoopKernel {
  let knl = makeKernel(
    '[n] -> {[i,j]: 0<=i,j<n}',
    'c[i, j] = a[i]*b[j]',
    [
      globalArg('a', { dtype: 'float32', shape: ['n'] }),
      globalArg('b', { dtype: 'float32', shape: ['n'] }),
      globalArg('c', { dtype: 'float32', shape: ['n', 'n'] }),
      valueArg('n', 'int32'),
    ],
    { assumptions: 'n >= 16' },
  );
  knl = splitIname(knl, 'i', 16, { outerTag: 'g.0', innerTag: 'l.0' });
  return splitIname(knl, 'j', 16, { outerTag: 'g.1', innerTag: 'l.1' });
}

for (const device of testDevices()) {
  test(`${device.name}: 3. a local prefetch over j_inner, inside j_inner, holds all 16 values`, async () => {
    const outer = ['i_outer', 'j_outer', 'j_inner'];
    const knl = addPrefetch(rankOneSplit(), 'b', ['j_inner'], {
      fetchOuterInames: outer,
      temporaryAddressSpace: 'local',
      defaultTag: 'l.auto',
    });
    const n = 32;
    const a = randomFloat32(n, 3);
    const b = randomFloat32(n, 4);
    const { c } = await run(knl, device, { a, b, n });
    assertClose(
      c as Float32Array,
      Array.from({ length: n * n }, (_, k) => Math.fround(a[Math.floor(k / n)] * b[k % n])),
      'c',
      0,
      0,
    );
  });
}

test('3. a local box that moves with an unswept local iname is refused', () => {
  throwsLoom(
    () =>
      addPrefetch(rankOneSplit(), 'b', [], {
        fetchOuterInames: ['i_outer', 'j_outer', 'j_inner'],
        temporaryAddressSpace: 'local',
      }),
    /addPrefetch: the local temporary for 'b' would hold a different part for each work-item along the local iname\(s\) 'j_inner'/,
  );
  throwsLoom(
    () => addPrefetch(rankOneSplit(), 'b', ['j_inner'], { fetchOuterInames: ['j_middle'] }),
    /unknown iname 'j_middle' in fetchOuterInames/,
  );
});

// }}}

// {{{ 5: options are honoured or refused, never parsed and dropped

/** Each work-item reads what its neighbour wrote to global memory, across a local barrier. */
function rotateThroughGlobal(memKind: string): LoopKernel {
  const knl = makeKernel(
    '{[i]: 0<=i<32}',
    `
    a[i] = i {id=w}
    ... lbarrier {id=b, dep=w, mem_kind=${memKind}}
    out[i] = a[(i + 1) % 32] {dep=b, nosync=w}
  `,
    [globalArg('a', { dtype: 'float32', shape: [32] }), globalArg('out', { dtype: 'float32', shape: [32] })],
  );
  return tagInames(knl, { i: 'l.0' });
}

for (const device of testDevices()) {
  test(`${device.name}: 5. a local barrier with mem_kind=global fences global memory`, async () => {
    const knl = rotateThroughGlobal('global');
    // each language's own spelling of the fence, whichever devices are here
    assert.match(generateCode(knl, openclTarget()).code, 'barrier(CLK_GLOBAL_MEM_FENCE)');
    assert.match(generateCode(knl, wgslTarget()).code, 'storageBarrier()');
    assert.match(stringifyKernel(knl), '... lbarrier {id=b, dep=w, mem_kind=global}');
    const { out } = await run(knl, device, { a: new Float32Array(32) });
    assertClose(
      out as Float32Array,
      Array.from({ length: 32 }, (_, i) => (i + 1) % 32),
      'out',
      0,
      0,
    );
  });

  test(`${device.name}: 5. addPrefetch within some instructions, with a named fetch`, async () => {
    const knl = splitIname(
      makeKernel(
        '{[i]: 0<=i<n}',
        `
      out1[i] = 2*a[i] {id=first}
      out2[i] = 3*a[i] {id=second}
    `,
        [globalArg('a', { dtype: 'float32', shape: ['n'] }), valueArg('n', 'int32'), '...'],
      ),
      'i',
      16,
      { outerTag: 'g.0', innerTag: 'l.0' },
    );
    const fetched = addPrefetch(knl, 'a', ['i_inner'], {
      defaultTag: 'l.0',
      within: 'second',
      prefetchInsnId: 'load_a',
    });
    assert.match(stringifyKernel(fetched), 'out1[16*i_outer + i_inner] = 2*a[16*i_outer + i_inner] {id=first}');
    assert.match(stringifyKernel(fetched), 'out2[16*i_outer + i_inner] = 3*a_fetch[i_inner] {id=second, dep=load_a}');
    const n = 40;
    const a = randomFloat32(n, 5);
    const result = await run(fetched, device, { a, n });
    assertClose(
      result.out1 as Float32Array,
      Array.from(a, (x) => Math.fround(2 * x)),
      'out1',
      0,
      0,
    );
    assertClose(
      result.out2 as Float32Array,
      Array.from(a, (x) => Math.fround(3 * x)),
      'out2',
      0,
      0,
    );
  });

  test(`${device.name}: 5. seqDependencies orders the instructions as written`, async () => {
    const text = 'out[k] = 1 {id=w1}\nout[k] = 2 {id=w2, priority=1}';
    const args = [globalArg('out', { dtype: 'int32', shape: [1] })];
    const seq = makeKernel('{[k]: 0<=k<1}', text, args, { seqDependencies: true });
    assert.equal(seq.instruction('w2').dependsOn, ['w1']);
    assert.equal([...((await run(seq, device, {})).out as Int32Array)], [2]);
    // without it, the higher priority runs first (and the later write wins)
    assert.equal([...((await run(makeKernel('{[k]: 0<=k<1}', text, args), device, {})).out as Int32Array)], [1]);
  });
}

test('5. malformed or misplaced options are LoomErrors', () => {
  throwsLoom(() => rotateThroughGlobal('shared'), /mem_kind must be 'local' or 'global', got 'shared'/);
  throwsLoom(
    () => makeKernel('{[i]: 0<=i<4}', 'out[i] = 1 {mem_kind=global}'),
    /the attribute 'mem_kind' belongs on barriers/,
  );
  throwsLoom(
    () =>
      makeKernel('{[i]: 0<=i<4}', 'out[i] = 1', undefined, { seqDependencies: true, seqDependences: true } as object),
    /makeKernel: unknown option 'seqDependences'/,
  );
  const knl = makeKernel('{[i]: 0<=i<16}', 'out[i] = a[i] {id=only}');
  throwsLoom(
    () => addPrefetch(knl, 'a', ['i'], { within: 'nobody' }),
    /no instruction within 'nobody' reads 'a' \(readers: only\)/,
  );
  throwsLoom(
    () => addPrefetch(knl, 'a', ['i'], { prefetchInsnId: 'only' }),
    /the instruction id 'only' is already used/,
  );
  const cube = makeKernel('{ [i,j,k]: 0<=i<3 and 0<=j<4 and 0<=k<5 }', 'out[i, j, k] = 2*a[i, j, k]');
  throwsLoom(() => tagArrayAxes(cube, 'a', 'N1,N0,N5'), /nesting levels of 'a' \(N1, N0, N5\) are not contiguous/);
  throwsLoom(() => tagArrayAxes(cube, 'a', 'N1,N0,c'), /mixes explicit nesting levels \(N0-N9\) with 'c'/);
});

// }}}

// {{{ 7: substitution rules are rewritten with the instructions

/** `f` reads the iname `i` free; its own argument `x` is not an iname. */
function ruleReadingIname(): LoopKernel {
  return makeKernel(
    '{[i, j]: 0<=i<n and 0<=j<4}',
    `
    f(x) := x + a[i]
    out[i] = f(2) {id=w1}
    out2[i, j] = f(j) {id=w2}
  `,
    [globalArg('a', { dtype: 'float32', shape: ['n'] }), valueArg('n', 'int32'), '...'],
  );
}

const ruleOf = (knl: LoopKernel, name: string) =>
  stringifyKernel(knl)
    .split('\n')
    .find((l) => l.startsWith(`${name}(`));

for (const device of testDevices()) {
  test(`${device.name}: 7. every iname transformation rewrites substitution-rule bodies`, async () => {
    const n = 10;
    const a = randomFloat32(n, 7);
    const out = Array.from({ length: n }, (_, i) => Math.fround(2 + a[i]));
    const out2 = Array.from({ length: n * 4 }, (_, k) => Math.fround((k % 4) + a[Math.floor(k / 4)]));
    const variants: [string, LoopKernel, Record<string, number>][] = [
      ['split', splitIname(ruleReadingIname(), 'i', 4, { outerTag: 'g.0', innerTag: 'l.0' }), { n }],
      ['rename', renameIname(ruleReadingIname(), 'i', 'row'), { n }],
      ['duplicate within w2', duplicateInames(ruleReadingIname(), 'i', { within: 'w2' }), { n }],
      ['fixParameters', fixParameters(ruleReadingIname(), { n }), {}],
    ];
    for (const [what, knl, params] of variants) {
      const result = await run(knl, device, { a, ...params });
      assertClose(result.out as Float32Array, out, `${what}: out`, 0, 0);
      assertClose(result.out2 as Float32Array, out2, `${what}: out2`, 0, 0);
    }
    const square = makeKernel('{[i, j]: 0<=i<10 and 0<=j<4}', 'f(x) := x + a[i]\nout2[i, j] = f(j)', [
      globalArg('a', { dtype: 'float32', shape: [10] }),
      '...',
    ]);
    assertClose(
      (await run(joinInames(square, ['i', 'j']), device, { a })).out2 as Float32Array,
      out2,
      'join: out2',
      0,
      0,
    );
  });
}

test('7. rule bodies after each transformation (arguments are not inames; copies where callers differ)', () => {
  assert.is(ruleOf(splitIname(ruleReadingIname(), 'i', 4), 'f'), 'f(x) := x + a[4*i_outer + i_inner]');
  const dup = duplicateInames(ruleReadingIname(), 'i', { within: 'w2' });
  assert.is(ruleOf(dup, 'f'), 'f(x) := x + a[i]');
  assert.is(ruleOf(dup, 'f_0'), 'f_0(x) := x + a[i_0]');
  assert.match(stringifyKernel(dup), 'out2[i_0, j] = f_0(j)');
  const shadow = makeKernel('{[i]: 0<=i<n}', 'g(i) := 2*i\nout[i] = g(i + 1)', [valueArg('n', 'int32'), '...']);
  assert.is(ruleOf(splitIname(shadow, 'i', 4), 'g'), 'g(i) := 2*i');
  const capture = makeKernel('{[i]: 0<=i<n}', 'h(i_inner) := i_inner + i\nout[i] = h(1)', [
    valueArg('n', 'int32'),
    '...',
  ]);
  throwsLoom(
    () => splitIname(capture, 'i', 4),
    /splitIname: the substitution rule 'h' has a parameter named 'i_inner'/,
  );
});

for (const device of testDevices()) {
  test(`${device.name}: 7. prefetch and precompute reach into rule bodies`, async () => {
    const n = 40;
    const a = randomFloat32(n + 1, 9);
    const base = () =>
      splitIname(
        makeKernel(
          '{[i]: 0<=i<n}',
          `
      f(x) := a[x]*2
      g(x) := f(x) + f(x + 1)
      out[i] = g(i)
    `,
          [globalArg('a', { dtype: 'float32', shape: ['n + 1'] }), valueArg('n', 'int32'), '...'],
        ),
        'i',
        16,
        { outerTag: 'g.0', innerTag: 'l.0' },
      );
    const expected = Array.from({ length: n }, (_, i) =>
      Math.fround(Math.fround(a[i] * 2) + Math.fround(a[i + 1] * 2)),
    );
    const fetched = addPrefetch(base(), 'a', ['i_inner'], { defaultTag: 'l.0' });
    // the rules stay, reading the copy in their own parameter (as after loopy's add_prefetch)
    assert.match(stringifyKernel(fetched), 'f(x) := a_fetch[x - 16*i_outer]*2');
    assert.match(stringifyKernel(fetched), 'g(x) := f(x) + f(x + 1)');
    const precomputed = precompute(base(), 'f', ['i_inner'], { defaultTag: 'l.0' });
    assert.equal(
      precomputed.temporaries.get('f_0')!.shape.map((s) => (s as { value: number }).value),
      [17],
    );
    for (const knl of [fetched, precomputed])
      assertClose((await run(knl, device, { a, n })).out as Float32Array, expected, 'out', 0, 0);
  });

  test(`${device.name}: 7. a loop bounded by a temporary (test_bare_data_dependency) runs`, async () => {
    const knl = makeKernel(
      ['[znirp] -> {[i]: 0<=i<znirp}'],
      ['a[i] = 1', '<> znirp = n'],
      [globalArg('a', { dtype: 'float32', shape: ['n'] }), valueArg('n', 'int32')],
    );
    for (const k of [knl, splitIname(knl, 'i', 16, { innerTag: 'l.0' })]) {
      const { a } = await run(k, device, { n: 37 });
      assert.ok((a as Float32Array).every((x) => x === 1));
    }
    await run(splitIname(knl, 'i', 16, { outerTag: 'g.0', innerTag: 'l.0' }), device, { n: 37 }).then(
      () => assert.unreachable('a group count read from a temporary must be refused'),
      (e: unknown) =>
        assert.ok(
          e instanceof LoomError &&
            /'i_outer' is tagged g.0, but its bound reads the temporary 'znirp'/.test((e as Error).message),
        ),
    );
  });
}

// }}}

// {{{ precompute of a rule whose reduction's domain is tied to the rule's argument

// test_reduction.py::test_global_parallel_reduction's recipe: the per-block sums of
// `sum(i, a[i])` over i < n, split by 2560 then 128, go to a global temporary computed over
// i_outer_0. The block sum's inames are bounded by `2560*i_outer + 128*i_inner_outer +
// i_inner_inner < n`: the store, which runs over i_outer_0 and not i_outer, must keep that
// bound (with i_outer read as i_outer_0). It used to lose it: the last, partial block summed
// past n, silently when `a` is longer than n (102400 for n = 100000 ones).
function blockSums(n: number): LoopKernel {
  let knl = makeKernel('{[i]: 0 <= i < n }', 'z[0] = sum(i, a[i])', [
    globalArg('a', { dtype: 'float32', shape: ['m'] }),
    '...',
  ]);
  knl = fixParameters(knl, { n });
  knl = splitIname(knl, 'i', 2560);
  knl = splitIname(knl, 'i_inner', 128, { innerTag: 'l.0' });
  knl = splitReductionOutward(knl, 'i_outer');
  knl = splitReductionInward(knl, 'i_inner_outer');
  knl = reductionArgToSubstRule(knl, 'i_outer');
  return precompute(knl, 'red_i_outer_arg', 'i_outer', {
    temporaryAddressSpace: 'global',
    precomputeInames: ['i_outer_0'],
  });
}

for (const device of testDevices()) {
  test(`${device.name}: precompute keeps the domain of a reduction tied to the rule's argument (global parallel reduction, a longer than n)`, async () => {
    for (const n of [100_000, 2560 * 3, 1000]) {
      const m = n + 10_000;
      // small integers, exact in float32 sums; past n, values that would show in the sum
      const a = Float32Array.from({ length: m }, (_, k) => (k < n ? k % 7 : 1000));
      let expected = 0;
      for (let k = 0; k < n; k++) expected += a[k];
      const knl = tagInames(realizeReduction(blockSums(n)), { i_outer_0: 'g.0' });
      const { z } = await run(knl, device, { a, m });
      assert.is((z as Float32Array)[0], expected, `n = ${n}`);
    }
  });

  test(`${device.name}: precompute keeps a reduction's domain tied to an outer iname the store runs in`, async () => {
    // f's sum over j runs to k, an iname of the use that f does not take: the store must run
    // inside k (precomputeOuterInames), with the sum bounded by the same k
    const knl = makeKernel('{[k,i,j]: 0<=k<3 and 0<=i<4 and 0<=j<=k}', 'f(x) := sum(j, a[x + j])\nc[k, i] = f(i)', [
      globalArg('a', { dtype: 'float32', shape: [40] }),
      globalArg('c', { dtype: 'float32', shape: [3, 4] }),
    ]);
    const a = randomFloat32(40, 11);
    const expected = Array.from({ length: 12 }, (_, q) => {
      const [k, i] = [Math.floor(q / 4), q % 4];
      let s = 0;
      for (let j = 0; j <= k; j++) s = Math.fround(s + a[i + j]);
      return s;
    });
    const { c } = await run(precompute(knl, 'f', 'i', { precomputeOuterInames: ['k'] }), device, { a });
    assertClose(c as Float32Array, expected, 'c', 1e-6, 1e-6);
    // an iname tied to the sum's that the use does not run in (w, another instruction's) is
    // not needed to bound it: the store's sum over j runs to its argument x as the use's to i
    const other = makeKernel(
      '{[i,j,w]: 0<=i<4 and 0<=j<=i and 0<=w<=j}',
      ['f(x) := sum(j, a[x + j])', 'c[i] = f(i)', 'e[w] = w'],
      [globalArg('a', { dtype: 'float32', shape: [40] }), '...'],
    );
    const sums = Array.from({ length: 4 }, (_, i) => {
      let s = 0;
      for (let j = 0; j <= i; j++) s = Math.fround(s + a[i + j]);
      return s;
    });
    const stored = precompute(other, 'f', 'i');
    assert.match(stringifyKernel(stored), '[x] -> { [j_0] : 0 <= x <= 3 and 0 <= j_0 <= x }');
    assertClose((await run(stored, device, { a })).c as Float32Array, sums, 'c (w tied to j)', 1e-6, 1e-6);
  });

  test(`${device.name}: precompute over an iname that bounds an iname of the rule's value (not a reduction's)`, async () => {
    // j <= i: the store runs inside j (the value names it) over x = i's values for that j;
    // the box (clipped, or the bounding box) holds what every use reads
    const knl = makeKernel('{[i,j]: 0<=i<6 and 0<=j<=i}', 'f(x) := a[x - j + 20]*10 + j\nc[i, j] = f(i)', [
      globalArg('a', { dtype: 'float32', shape: [80] }),
      globalArg('c', { dtype: 'float32', shape: [6, 6] }),
    ]);
    const a = randomFloat32(80, 13);
    const expected = Array.from({ length: 36 }, (_, q) => {
      const [i, j] = [Math.floor(q / 6), q % 6];
      return j <= i ? Math.fround(Math.fround(a[i - j + 20] * 10) + j) : 0;
    });
    for (const fetchBoundingBox of [false, true]) {
      const { c } = await run(precompute(knl, 'f', 'i', { fetchBoundingBox }), device, { a, c: new Float32Array(36) });
      assertClose(c as Float32Array, expected, `c (fetchBoundingBox ${fetchBoundingBox})`, 1e-6, 1e-6);
    }
  });

  test(`${device.name}: transformations that substitute an iname keep the domains tied to it`, async () => {
    // j's domain is tied to i: renaming, duplicating, splitting j and mapping i rewrite the
    // bound along with the loops
    const knl = makeKernel(
      '{[i,j]: 0<=i<8 and 0<=j<=i}',
      ['c[i] = sum(j, a[i - j]) {id=r}', 'd[i] = 2*i {id=w2}'],
      [globalArg('a', { dtype: 'float32', shape: [80] }), globalArg('c', { dtype: 'float32', shape: [8] }), '...'],
    );
    const a = randomFloat32(80, 12);
    const expected = Array.from({ length: 8 }, (_, i) => {
      let s = 0;
      for (let j = 0; j <= i; j++) s = Math.fround(s + a[i - j]);
      return s;
    });
    const variants: [string, LoopKernel][] = [
      ['renameIname j', renameIname(knl, 'j', 'jj')],
      ['duplicateInames j', duplicateInames(knl, 'j')],
      ['splitIname j within r', splitIname(knl, 'j', 3, { within: 'id:r' })],
      ['mapDomain i', mapDomain(knl, '{[i] -> [ii]: ii = 7 - i}')],
    ];
    for (const [what, k] of variants)
      assertClose((await run(k, device, { a })).c as Float32Array, expected, what, 1e-6, 1e-6);
  });
}

test("precompute: the store's reduction runs over fresh inames bounded through the storage iname", () => {
  const text = stringifyKernel(blockSums(100_000));
  assert.match(
    text,
    'sum(i_inner_inner_0, sum(i_inner_outer_0, a[2560*i_outer_0 + (128*i_inner_outer_0 + i_inner_inner_0)]))',
  );
  assert.match(
    text,
    '[i_outer_0] -> { [i_inner_outer_0, i_inner_inner_0] : -2560i_outer_0 - 128i_inner_outer_0 <= i_inner_inner_0 <= -2560i_outer_0 - 128i_inner_outer_0 + 99999',
  );
  // the copy of a local reduction iname is local too
  assert.is(blockSums(100_000).inameTags.get('i_inner_inner_0')?.kind, 'local');
});

test("precompute: a reduction's domain tied to an iname the store cannot read off is refused", () => {
  const knl = makeKernel('{[k,i,j]: 0<=k<3 and 0<=i<4 and 0<=j<=k}', 'f(x) := sum(j, a[x + j])\nc[k, i] = f(i)', [
    globalArg('a', { dtype: 'float32', shape: [40] }),
    globalArg('c', { dtype: 'float32', shape: [3, 4] }),
  ]);
  const why =
    /precompute: the domain of a reduction in 'f' depends on 'k', which the store does not run in as the use in instruction 'insn' does/;
  throwsLoom(() => precompute(knl, 'f', 'i'), why);
  throwsLoom(() => precompute(knl, 'f', ['i', 'k']), why);
  // two uses that give the tied iname differently: one store cannot serve both
  const two = makeKernel(
    '{[i,j]: 0<=i<4 and 0<=j<=i}',
    ['f(x) := sum(j, a[x + j])', 'c[i] = f(i)', 'd[i] = f(i + 1)'],
    [globalArg('a', { dtype: 'float32', shape: [40] }), '...'],
  );
  throwsLoom(
    () => precompute(two, 'f', 'i'),
    /precompute: the domain of a reduction in 'f' depends on 'i', and the uses give 'i' differently/,
  );
});

// }}}

// {{{ a footprint whose least index is piecewise (found porting test_apps.py's nonzero-base convolution)

for (const device of testDevices()) {
  test(`${device.name}: a prefetch over a split of a domain that starts above zero has a box of constant size`, async () => {
    // x from 2: the least index of group o is max(8*o, 2) - 2; of its bounds 0 and 8*o - 2, the
    // second gives a box of 12 (0 gave one as long as the array, which OpenCL could not declare)
    let knl = makeKernel('{ [x, f]: 2 <= x < n - 2 and -2 <= f <= 2 }', 'out[x - 2] = sum(f, a[x - f])', [
      globalArg('a, out', { dtype: 'float32' }),
      '...',
    ]);
    knl = splitIname(knl, 'x', 8, { outerTag: 'g.0', innerTag: 'l.0' });
    knl = addPrefetch(knl, 'a', ['x_inner', 'f'], { defaultTag: 'l.auto' });
    assert.equal(knl.temporaries.get('a_fetch')!.shape, [{ kind: 'int', value: 12 }]);
    for (const n of [30, 7]) {
      const a = randomFloat32(n, n);
      const { out } = await run(knl, device, { a, n, out: new Float32Array(n - 4) });
      const expected = Array.from({ length: n - 4 }, (_, k) => {
        let s = 0;
        for (let f = -2; f <= 2; f++) s += a[k + 2 - f];
        return s;
      });
      assertClose(out as Float32Array, expected, `n=${n}`, 1e-5, 1e-5);
    }
  });
}

// }}}

test.run();
