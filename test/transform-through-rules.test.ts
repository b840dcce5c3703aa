/**
 * addPrefetch and precompute read through substitution rules without writing them out
 * (loopy's rule-aware mapping; its add_prefetch extracts the reads into a rule and
 * precomputes it): the rules stay, reading the copy, so a later `precompute` of one still
 * finds it (test_tim2d's sequence). On every test device, against plain JavaScript.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  addPrefetch,
  expr,
  globalArg,
  LoomError,
  makeKernel,
  precompute,
  run,
  splitIname,
  type LoopKernel,
} from '@loom/core';
import { assertClose, randomFloat32, testDevices } from './support/devices.ts';

/** out[i] = E(i) + E(i+1), E(ii) := 2*a[ii], and a second instruction that calls E outside the prefetch. */
function twoReaders(): LoopKernel {
  return makeKernel(
    '{[i]: 0<=i<n}',
    ['E(ii) := 2*a[ii]', 'out[i] = E(i) + E(i+1) {id=sum2}', 'other[i] = E(i) {id=copy}'],
    [
      globalArg('a', { dtype: 'float32', shape: ['n + 1'] }),
      globalArg('out', { dtype: 'float32', shape: ['n'] }),
      globalArg('other', { dtype: 'float32', shape: ['n'] }),
      '...',
    ],
  );
}

function expected(a: Float32Array, n: number) {
  return {
    out: Float32Array.from({ length: n }, (_, i) => 2 * a[i] + 2 * a[i + 1]),
    other: Float32Array.from({ length: n }, (_, i) => 2 * a[i]),
  };
}

test('the rule read through stays, and one copy serves every caller alike', () => {
  let knl = splitIname(twoReaders(), 'i', 16, { outerTag: 'g.0', innerTag: 'l.0' });
  knl = addPrefetch(knl, 'a', ['i_inner'], { defaultTag: 'l.auto' });
  assert.equal([...knl.substitutions.keys()], ['E']);
  const body = knl.substitutions.get('E')!.expression;
  assert.equal([...expr.arraysAccessed(body).keys()], ['a_fetch']);
  assert.ok(expr.freeVariables(body).has('ii'), 'the copy still reads its parameter');
});

test('a caller outside the prefetch keeps the rule; the chosen one calls a copy', () => {
  let knl = splitIname(twoReaders(), 'i', 16, { outerTag: 'g.0', innerTag: 'l.0' });
  knl = addPrefetch(knl, 'a', ['i_inner'], { defaultTag: 'l.auto', within: 'id:sum2' });
  assert.equal([...knl.substitutions.keys()].sort(), ['E', 'E_0']);
  assert.equal([...expr.arraysAccessed(knl.substitutions.get('E')!.expression).keys()], ['a']);
  assert.equal([...expr.arraysAccessed(knl.substitutions.get('E_0')!.expression).keys()], ['a_fetch']);
  const calls = (id: string) => {
    const out = new Set<string>();
    expr.walk(knl.instruction(id).expression!, (x) => {
      if (x.kind === 'call') out.add(x.fn);
    });
    return [...out];
  };
  assert.equal(calls('sum2'), ['E_0']);
  assert.equal(calls('copy'), ['E']);
});

test("a rule parameter named like an iname of the copy's index is refused, not captured", () => {
  const knl = splitIname(
    makeKernel(
      '{[i]: 0<=i<n}',
      ['E(i_outer) := 2*a[i_outer]', 'out[i] = E(i)'],
      [globalArg('a', { dtype: 'float32' }), globalArg('out', { dtype: 'float32' }), '...'],
    ),
    'i',
    16,
    { outerTag: 'g.0', innerTag: 'l.0' },
  );
  assert.throws(
    () => addPrefetch(knl, 'a', ['i_inner'], { defaultTag: 'l.auto' }),
    (e: unknown) => e instanceof LoomError && /parameter named 'i_outer'/.test(e.message),
  );
});

/** g calls f twice; out reads g within the precompute, other outside it. */
function callerRule(): LoopKernel {
  return makeKernel(
    '{[i]: 0<=i<n}',
    ['f(x) := a[x]*2', 'g(x) := f(x) + f(x + 1)', 'out[i] = g(i) {id=w}', 'other[i] = g(i) + 1 {id=o}'],
    [
      globalArg('a', { dtype: 'float32', shape: ['n + 1'] }),
      globalArg('out', { dtype: 'float32', shape: ['n'] }),
      globalArg('other', { dtype: 'float32', shape: ['n'] }),
      '...',
    ],
  );
}

test('precompute of f keeps the rule g that calls it, reading the temporary', () => {
  const base = splitIname(callerRule(), 'i', 16, { outerTag: 'g.0', innerTag: 'l.0' });
  const all = precompute(base, 'f', ['i_inner'], { defaultTag: 'l.0' });
  assert.equal([...all.substitutions.keys()], ['g']);
  assert.equal([...expr.arraysAccessed(all.substitutions.get('g')!.expression).keys()], ['f_0']);
  // within one instruction: it calls a copy, the other keeps g and f
  const some = precompute(base, 'f', ['i_inner'], { defaultTag: 'l.0', within: 'id:w' });
  assert.equal([...some.substitutions.keys()].sort(), ['f', 'g', 'g_0']);
});

for (const device of testDevices()) {
  test(`${device.name}: precompute through a rule that calls the rule, within all instructions or one`, async () => {
    const base = splitIname(callerRule(), 'i', 16, { outerTag: 'g.0', innerTag: 'l.0' });
    const n = 40;
    const a = randomFloat32(n + 1, 9);
    const want = expected(a, n);
    for (const within of [undefined, 'id:w']) {
      const knl = precompute(base, 'f', ['i_inner'], { defaultTag: 'l.0', within });
      const r = await run(knl, device, { a, n });
      assertClose(r.out as Float32Array, want.out, 'out', 0, 0);
      // (a + b) + 1: WGSL may reassociate it (one ulp on lavapipe)
      assertClose(
        r.other as Float32Array,
        want.out.map((x) => x + 1),
        'other',
        1e-6,
        0,
      );
    }
  });

  test(`${device.name}: prefetch through a rule, then precompute the rule`, async () => {
    let knl = splitIname(twoReaders(), 'i', 16, { outerTag: 'g.0', innerTag: 'l.0' });
    knl = addPrefetch(knl, 'a', ['i_inner'], { defaultTag: 'l.auto' });
    // the rule is still there to precompute: its values over the work-group, from the copy of a
    const both = precompute(knl, 'E', 'i_inner', { defaultTag: 'l.auto', within: 'id:sum2' });
    assert.ok(both.temporaries.has('E_0'));
    const n = 100;
    const a = randomFloat32(n + 1, 7);
    const want = expected(a, n);
    for (const k of [knl, both]) {
      const r = await run(k, device, { a, n });
      assertClose(r.out as Float32Array, want.out, 'out', 0, 0);
      assertClose(r.other as Float32Array, want.other, 'other', 0, 0);
    }
  });

  test(`${device.name}: prefetch within some instructions, through a rule others call too`, async () => {
    let knl = splitIname(twoReaders(), 'i', 16, { outerTag: 'g.0', innerTag: 'l.0' });
    knl = addPrefetch(knl, 'a', ['i_inner'], { defaultTag: 'l.auto', within: 'id:sum2' });
    const n = 37;
    const a = randomFloat32(n + 1, 8);
    const want = expected(a, n);
    const r = await run(knl, device, { a, n });
    assertClose(r.out as Float32Array, want.out, 'out', 0, 0);
    assertClose(r.other as Float32Array, want.other, 'other', 0, 0);
  });
}

test.run();
