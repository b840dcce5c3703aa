/**
 * Atomic fetches (`old = atomicAdd(counter[0], 1)`): on every device their results against what
 * plain JavaScript says any order of the work-items gives (tickets are a permutation, a claimed
 * slot has one winner); the refusals, with their carets; printing, statistics, dependencies and
 * differentiation.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  diffKernel,
  generateCode,
  getMemAccessMap,
  getOpMap,
  globalArg,
  makeKernel,
  parseExpression,
  printExpr,
  run,
  splitIname,
  tagInames,
  targetFacts,
  temporaryVariable,
  type DType,
  type LoopKernel,
} from '@loom/core';
import { jsTarget } from '@loom/codegen-js';
import { openclTarget } from '@loom/codegen-opencl';
import { wgslTarget } from '@loom/codegen-wgsl';
import { cudaTarget } from '@loom/codegen-cuda';
import { cTarget } from '@loom/codegen-c';
import { testDevices } from './support/devices.ts';
import { refusal, refused } from './support/refusals.ts';

/** `n` work-items in groups of 64, each fetching once from `counter` (int32 unless said) and keeping what it saw in `out[i]`. */
function fetchKernel(fetch: string, dtype: DType = 'int32', shape = [1]): LoopKernel {
  const knl = makeKernel(
    '{ [i]: 0<=i<n }',
    [`<> t = ${fetch} {id=fetch, inames=i}`, 'out[i] = t {dep=fetch}'],
    [globalArg('counter', { dtype, shape, forAtomic: true }), globalArg('out', { dtype, shape: ['n'] }), '...'],
  );
  return splitIname(knl, 'i', 64, { outerTag: 'g.0', innerTag: 'l.0' });
}

const N = 1000;
const sorted = (a: ArrayLike<number>) => Array.from(a).sort((x, y) => x - y);
const range = (from: number, to: number) => Array.from({ length: to - from }, (_, k) => from + k);
for (const device of testDevices()) {
  test(`${device.name}: each work-item's ticket from atomicAdd is a different one, 0 to n-1`, async () => {
    for (const dtype of ['int32', 'uint32', 'float32'] as const) {
      const knl = fetchKernel('atomicAdd(counter[0], 1)', dtype);
      // WGSL fetches integers only (its atomics hold i32 and u32): said before anything runs
      const Array_ = dtype === 'int32' ? Int32Array : dtype === 'uint32' ? Uint32Array : Float32Array;
      const counter = new Array_(1);
      const out = new Array_(N);
      const fetches = targetFacts(device.target).atomicFetches;
      if ('dtypes' in fetches && !fetches.dtypes.includes(dtype)) {
        await refused(
          () => run(knl, device, { counter, out }),
          `atomic fetches take only ${fetches.dtypes.join(', ')}`,
        );
        continue;
      }
      await run(knl, device, { counter, out });
      assert.equal(sorted(out), range(0, N), dtype);
      assert.is(counter[0], N, dtype);
    }
  });

  test(`${device.name}: atomicSub counts down: the old values are n to 1, the counter ends at 0`, async () => {
    const counter = Int32Array.of(N);
    const out = new Int32Array(N);
    await run(fetchKernel('atomicSub(counter[0], 1)'), device, { counter, out });
    assert.equal(sorted(out), range(1, N + 1));
    assert.is(counter[0], 0);
  });

  test(`${device.name}: atomicMax and atomicMin leave the extreme value and return values seen before it`, async () => {
    const values = Int32Array.from({ length: N }, (_, k) => ((k * 7919) % 2003) - 1000);
    for (const [fn, pick] of [
      ['atomicMax', Math.max],
      ['atomicMin', Math.min],
    ] as const) {
      const knl = makeKernel(
        '{ [i]: 0<=i<n }',
        [`<> t = ${fn}(counter[0], a[i]) {id=fetch}`, 'out[i] = t {dep=fetch}'],
        [
          globalArg('counter', { dtype: 'int32', shape: [1], forAtomic: true }),
          globalArg('a', { dtype: 'int32' }),
          '...',
        ],
      );
      const counter = Int32Array.of(5);
      const out = new Int32Array(N);
      await run(splitIname(knl, 'i', 64, { outerTag: 'g.0', innerTag: 'l.0' }), device, { counter, out, a: values });
      const extreme = pick(5, ...values);
      assert.is(counter[0], extreme, fn);
      // every old value is the start or a value some work-item stored, and never past the extreme
      const seen = new Set([5, ...values]);
      for (const old of out) assert.ok(seen.has(old) && pick(old, extreme) === extreme, `${fn}: ${old}`);
    }
  });

  test(`${device.name}: atomicExchange hands each stored value on exactly once`, async () => {
    // work-item i stores i + 1: the values returned and the one left are 0 (the start) to n, each once
    const knl = makeKernel(
      '{ [i]: 0<=i<n }',
      ['<> t = atomicExchange(counter[0], i + 1) {id=fetch}', 'out[i] = t {dep=fetch}'],
      [globalArg('counter', { dtype: 'int32', shape: [1], forAtomic: true }), '...'],
    );
    const counter = new Int32Array(1);
    const out = new Int32Array(N);
    await run(splitIname(knl, 'i', 64, { outerTag: 'g.0', innerTag: 'l.0' }), device, { counter, out });
    assert.equal(sorted([...out, counter[0]]), range(0, N + 1));
  });

  test(`${device.name}: atomicCompareExchange lets one work-item claim each slot`, async () => {
    // work-item i tries to claim slot i % 8 (0: free) with i + 1: one sees 0, the others the winner
    const knl = makeKernel(
      '{ [i]: 0<=i<n }',
      ['<> t = atomicCompareExchange(slots[i % 8], 0, i + 1) {id=fetch}', 'out[i] = t {dep=fetch}'],
      [globalArg('slots', { dtype: 'int32', shape: [8], forAtomic: true }), '...'],
    );
    const slots = new Int32Array(8);
    const out = new Int32Array(N);
    await run(splitIname(knl, 'i', 64, { outerTag: 'g.0', innerTag: 'l.0' }), device, { slots, out });
    for (let s = 0; s < 8; s++) {
      const mine = range(0, N).filter((i) => i % 8 === s);
      const winner = slots[s] - 1;
      assert.ok(mine.includes(winner), `slot ${s} holds ${slots[s]}`);
      for (const i of mine) assert.is(out[i], i === winner ? 0 : slots[s], `work-item ${i}`);
    }
  });

  test(`${device.name}: tickets from a local counter are 0 to w-1 in every work-group`, async () => {
    const knl = makeKernel(
      '{ [g, l]: 0<=g<8 and 0<=l<32 }',
      [
        'if l == 0',
        '  tick[0] = 0 {id=zero}',
        'end',
        '<> t = atomicAdd(tick[0], 1) {id=fetch, dep=zero, inames=g:l}',
        'out[g, l] = t {dep=fetch}',
      ],
      [
        globalArg('out', { dtype: 'int32', shape: [8, 32] }),
        temporaryVariable('tick', { dtype: 'int32', shape: [1], addressSpace: 'local', forAtomic: true }),
      ],
    );
    const { out } = await run(tagInames(knl, { g: 'g.0', l: 'l.0' }), device, {});
    const rows = out as Int32Array;
    for (let g = 0; g < 8; g++) assert.equal(sorted(rows.subarray(32 * g, 32 * g + 32)), range(0, 32), `group ${g}`);
  });
}

test('an atomic fetch is spelled by every target as its atomic built-in', () => {
  const knl = fetchKernel('atomicAdd(counter[0], 1)');
  const spelled = (t: Parameters<typeof generateCode>[1]) =>
    generateCode(knl, t)
      .code.split('\n')
      .map((l) => l.trim())
      .filter((l) => /^t = /.test(l));
  assert.equal(spelled(openclTarget()), ['t = atomic_inc(&counter[0]);']);
  assert.equal(spelled(cudaTarget()), ['t = atomicAdd(&counter[0], 1);']);
  assert.equal(spelled(wgslTarget()), ['t = atomicAdd(&counter[0i], 1i);']);
  assert.ok(spelled(cTarget()).includes('t = __atomic_fetch_add(&counter[0], 1, __ATOMIC_RELAXED);'));
  assert.ok(generateCode(knl, jsTarget()).code.includes('const old$ = counter[0];'));
});

test('a fetch anywhere but as a whole right-hand side is refused at its name', () => {
  const counter = globalArg('counter', { dtype: 'int32', shape: [1], forAtomic: true });
  const make = (insn: string) => () => makeKernel('{ [i]: 0<=i<n }', insn, [counter, '...']);
  const nested = refusal(make('<> t = 1 + atomicAdd(counter[0], 1) {inames=i}\nout[i] = t'));
  assert.match(nested, 'it must be the whole right-hand side of an assignment to a private temporary');
  assert.match(nested, 'it cannot be part of a larger expression');
  assert.match(nested, /\n.*<> t = 1 \+ atomicAdd\(counter\[0\], 1\).*\n\s+\^{9}$/);
  assert.match(
    refusal(make('out[atomicAdd(counter[0], 1)] = i')),
    'it cannot stand in a condition, a substitution rule or an index',
  );
  assert.match(refusal(make('if atomicAdd(counter[0], 1) > 0\n  out[i] = i\nend')), 'cannot stand in a condition');
  assert.match(
    refusal(make('f(x) := atomicAdd(counter[0], x)\nout[i] = f(i)')),
    'cannot stand in a condition, a substitution rule',
  );
  assert.match(refusal(make('<> t = atomicAdd(counter, 1) {inames=i}\nout[i] = t')), "not the name 'counter'");
  assert.match(
    refusal(make('<> t = atomicAdd(counter[0]) {inames=i}\nout[i] = t')),
    'atomicAdd() takes 2 arguments, got 1',
  );
});

test('a fetch of an array not declared forAtomic, into an argument, or marked {atomic} is refused', () => {
  const plain = refusal(() =>
    makeKernel('{ [i]: 0<=i<n }', '<> t = atomicAdd(counter[0], 1) {inames=i}\nout[i] = t', [
      globalArg('counter', { dtype: 'int32', shape: [1] }),
      '...',
    ]),
  );
  assert.match(plain, "'counter' is not declared for atomic access: declare it with forAtomic");
  assert.match(plain, /\n.*\n\s+\^{7}$/);
  const counter = globalArg('counter', { dtype: 'int32', shape: [1], forAtomic: true });
  assert.match(
    refusal(() => makeKernel('{ [i]: 0<=i<n }', 'out[i] = atomicAdd(counter[0], 1)', [counter, '...'])),
    "goes to a private temporary ('<> out = atomicAdd(...)'), not to the argument 'out'",
  );
  assert.match(
    refusal(() =>
      makeKernel('{ [i]: 0<=i<n }', '<> t = atomicAdd(counter[0], 1) {atomic, inames=i}\nout[i] = t', [counter, '...']),
    ),
    'atomic in itself: it takes no {atomic} attribute',
  );
});

test('a fetch of a dtype the target has no fetches of, or a compare-exchange of floats, is refused before any code', async () => {
  const float = fetchKernel('atomicAdd(counter[0], 1)', 'float32');
  assert.match(
    refusal(() => generateCode(float, wgslTarget())),
    "atomicAdd() updates 'counter' (float32), but the wgsl target's atomic fetches take only int32, uint32",
  );
  assert.match(
    refusal(() => generateCode(fetchKernel('atomicAdd(counter[0], 1)', 'int64'), openclTarget())),
    "the opencl target's atomic fetches take only int32, uint32, float32, float64",
  );
  assert.match(
    refusal(() => generateCode(fetchKernel('atomicCompareExchange(counter[0], 0, 1)', 'float32'), cTarget())),
    "atomicCompareExchange() compares integers only, and 'counter' is float32",
  );
  // through run, before anything runs
  await refused(
    () =>
      run(
        float,
        { ...testDevices()[0], target: wgslTarget() },
        { counter: new Float32Array(1), out: new Float32Array(4) },
      ),
    'atomic fetches take only int32, uint32',
  );
});

test('the targets state what they fetch', () => {
  const dtypes = (t: Parameters<typeof targetFacts>[0]) => {
    const fetches = targetFacts(t).atomicFetches;
    return 'dtypes' in fetches ? [...fetches.dtypes] : fetches.refused;
  };
  assert.equal(dtypes(openclTarget()), ['int32', 'uint32', 'float32', 'float64']);
  assert.equal(dtypes(cudaTarget()), ['int32', 'uint32', 'float32', 'float64']);
  assert.equal(dtypes(cTarget()), ['int32', 'uint32', 'int64', 'uint64', 'float32', 'float64']);
  assert.equal(dtypes(jsTarget()), ['int32', 'uint32', 'int64', 'uint64', 'float32', 'float64']);
  assert.equal(dtypes(wgslTarget()), ['int32', 'uint32']);
});

test('a target without atomic fetches refuses one with its reason', () => {
  const bare = { name: 'bare', generate: jsTarget().generate };
  assert.match(
    refusal(() => generateCode(fetchKernel('atomicAdd(counter[0], 1)'), bare)),
    'makes an atomic fetch (atomicAdd), which the bare target cannot: it has no atomic fetches',
  );
});

test('a fetch prints back as written, and reads back the same', () => {
  const knl = fetchKernel('atomicCompareExchange(counter[0], 0, i + 1)');
  const printed = String(knl);
  assert.match(printed, '<> t = atomicCompareExchange(counter[0], 0, 64*i_outer + i_inner + 1) {id=fetch}');
  const e = parseExpression('atomicAdd(counter[0], 2*x)', { atomicFetch: true });
  assert.is(printExpr(e), 'atomicAdd(counter[0], 2*x)');
  assert.equal(parseExpression(printExpr(e), { atomicFetch: true }), e);
});

test('a fetch writes its array: readers after it depend on it, and it is an output of run', () => {
  const knl = makeKernel(
    '{ [i]: 0<=i<n }',
    ['<> t = atomicAdd(counter[0], 1) {id=fetch, inames=i}', 'out[i] = t + counter[0] {id=read}'],
    [globalArg('counter', { dtype: 'int32', shape: [1], forAtomic: true }), '...'],
  );
  assert.equal(knl.instruction('read').dependsOn, ['fetch']);
  assert.is(knl.arg('counter')!.isOutput, true);
  assert.is(knl.arg('counter')!.isInput, true);
});

test('statistics count a fetch as the {atomic} update it makes: its load, its store, its operation', () => {
  const fetch = fetchKernel('atomicAdd(counter[0], 1)');
  const update = splitIname(
    makeKernel(
      '{ [i]: 0<=i<n }',
      ['counter[0] = counter[0] + 1 {id=fetch, atomic, inames=i}', 'out[i] = 0 {dep=fetch}'],
      [
        globalArg('counter', { dtype: 'int32', shape: [1], forAtomic: true }),
        globalArg('out', { dtype: 'int32', shape: ['n'] }),
        '...',
      ],
    ),
    'i',
    64,
    { outerTag: 'g.0', innerTag: 'l.0' },
  );
  const n = { n: 1000 };
  const adds = (knl: LoopKernel) =>
    getOpMap(knl, { subgroupSize: 32 })
      .filterBy({ dtype: ['int32'], name: ['add'] })
      .evalAndSum(n);
  assert.ok(adds(fetch) > 0);
  assert.is(adds(fetch), adds(update));
  for (const direction of ['load', 'store'] as const) {
    const counted = (knl: LoopKernel) =>
      getMemAccessMap(knl, { subgroupSize: 32 })
        .filterBy({ variable: ['counter'], direction: [direction] })
        .evalAndSum(n);
    assert.ok(counted(fetch) > 0, direction);
    assert.is(counted(fetch), counted(update), direction);
  }
});

test('a fetch has no derivative', () => {
  const knl = makeKernel(
    '{ [i]: 0<=i<n }',
    ['<float32> t = atomicAdd(s[0], x[i]) {id=fetch}', 'z[i] = t * x[i]'],
    [globalArg('s', { dtype: 'float32', shape: [1], forAtomic: true }), globalArg('x', { dtype: 'float32' }), '...'],
  );
  assert.match(
    refusal(() => diffKernel(knl, 'z', 'x')),
    "no derivative is known for 'atomicAdd'",
  );
});

test.run();
