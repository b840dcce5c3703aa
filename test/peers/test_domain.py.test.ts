/**
 * Ports of loopy's test_domain.py: assumptions that remove guards, equality constraints,
 * existential (stride) constraints, loop bounds read from temporaries, and triangular domains.
 * test_dependent_loop_bounds, _2 and _3 and test_independent_multi_domain are ported with
 * test_loopy.py's kernels (test_loopy.py.arrays-arguments and .public-api). Where loopy only
 * prints the code, the kernel here also runs on every test device against plain JavaScript.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  addInamesToInsn,
  assume,
  fixParameters,
  generateCode,
  globalArg,
  type LoopKernel,
  makeKernel,
  prioritizeLoops,
  run,
  someStmt,
  splitIname,
  stringifyKernel,
  valueArg,
} from '@loom/core';
import { openclTarget } from '@loom/codegen-opencl';
import { randomFloat32, testDevices } from '../support/devices.ts';

/**
 * Whether the device code of `knl` guards the last block: an `if` statement (loopy's `"if" not in
 * code`), or a `min` in a loop bound, where Loom folds a guard of one loop variable.
 */
function hasGuard(knl: LoopKernel): boolean {
  const { code, program } = generateCode(knl, openclTarget());
  return (
    code.includes('if') || /\bmin\(/.test(code) || program.kernels.some((k) => someStmt(k.body, (s) => s.kind === 'if'))
  );
}

function assumeKernel(): LoopKernel {
  let knl = makeKernel('{[i]: 0<=i<n}', 'a[i] = a[i] + 1', [globalArg('a', { dtype: 'float32', shape: 'n' }), '...']);
  knl = splitIname(knl, 'i', 16);
  knl = prioritizeLoops(knl, 'i_outer,i_inner');
  knl = assume(knl, 'n mod 16 = 0');
  return assume(knl, 'n > 10');
}

function divisibilityKernel(assumptions = 'n>=1 and (exists zz: n = 16*zz)'): LoopKernel {
  return makeKernel(
    '[n] -> {[i]: 0<=i<n}',
    ['b[i] = 2*a[i]'],
    [
      globalArg('a', { dtype: 'float32', shape: ['n'] }),
      globalArg('b', { dtype: 'float32', shape: ['n'] }),
      valueArg('n', 'int32'),
    ],
    { assumptions },
  );
}

test('test_assume', () => {
  const knl = assumeKernel();
  assert.not.ok(hasGuard(knl));
  // without the divisibility, the last block needs its guard
  let unassumed = makeKernel('{[i]: 0<=i<n}', 'a[i] = a[i] + 1', [
    globalArg('a', { dtype: 'float32', shape: 'n' }),
    '...',
  ]);
  unassumed = prioritizeLoops(splitIname(unassumed, 'i', 16), 'i_outer,i_inner');
  assert.ok(hasGuard(assume(unassumed, 'n > 10')));
});

test('test_divisibility_assumption', () => {
  const knl = splitIname(divisibilityKernel(), 'i', 16);
  assert.not.ok(hasGuard(knl));
  assert.ok(hasGuard(splitIname(divisibilityKernel('n>=1'), 'i', 16)));
});

function eqConstraintKernel(): LoopKernel {
  let knl = makeKernel(
    '{[i]: 0<= i < 32}',
    ['a[i] = b[i]'],
    [globalArg('a', { dtype: 'float32', shape: [1000] }), globalArg('b', { dtype: 'float32', shape: [1000] })],
  );
  knl = splitIname(knl, 'i', 16, { outerTag: 'g.0' });
  return splitIname(knl, 'i_inner', 16, { outerTag: null, innerTag: 'l.0' });
}

test('test_eq_constraint', () => {
  // loopy prints the code: it must generate, the split of 16 by 16 leaving a loop of one trip
  const code = generateCode(eqConstraintKernel(), openclTarget()).code;
  assert.match(code, /get_local_id/);
});

function dependentLoopBounds4(): LoopKernel {
  const knl = makeKernel(
    ['{[a]: 0<=a<10}', '{[b]: b_start<=b<b_end}', '{[c,idim]: c_start<=c<c_end and 0<=idim<dim}'],
    `
    for a
      <> b_start = 1
      <> b_end = 2
      for b
        <> c_start = 1
        <> c_end = 2
        for c
          ... nop
        end
        <>t[idim] = 1
      end
    end
    `,
    '...',
    { seqDependencies: true },
  );
  return fixParameters(knl, { dim: 3 });
}

test('test_dependent_loop_bounds_4', () => {
  // loopy's issue 23: a domain whose bounds are temporaries set inside the loop of another such domain
  const knl = dependentLoopBounds4();
  assert.equal(knl.temporaries.get('t')!.shape, [{ kind: 'int', value: 3 }]);
  const code = generateCode(knl, openclTarget()).code;
  assert.match(code, /for \(int b = b_start; b <= -1 \+ b_end; \+\+b\)/);
  assert.match(code, /for \(int c = c_start; c <= -1 \+ c_end; \+\+c\)/);
});

function equalityConstraintsKernel(): LoopKernel {
  return makeKernel(
    ['[n] -> {[i,j]: 0<=i,j<n }', '{[k]: k =i+5 and k < n}'],
    ['a[i,j] = 5 {id=set_all}', 'b[i,k] = 22 {id=set_b, dep=set_all}'],
    [globalArg('a,b', { dtype: 'float32', shape: 'n, n' }), valueArg('n', 'int32')],
    { name: 'equality_constraints', assumptions: 'n>=1' },
  );
}

function strideKernel(): LoopKernel {
  return makeKernel(
    ['{[i]: 0<=i<n and (exists l: i = 2*l)}'],
    ['a[i] = 5'],
    [globalArg('a', { dtype: 'float32', shape: 'n' }), valueArg('n', 'int32')],
    { assumptions: 'n>=1' },
  );
}

function existentialDependencyKernel(): LoopKernel {
  return makeKernel(
    ['{[i]: 0<=i<n }', '{[k]: k=i and (exists l: k = 2*l) }'],
    ['a[i] = 5 {id=set}', 'b[k] = 6 {dep=set}'],
    [globalArg('a,b', { dtype: 'float32', shape: 'n' }), valueArg('n', 'int32')],
    { assumptions: 'n>=1' },
  );
}

function triangleKernel(): LoopKernel {
  return makeKernel('{[i,j]: 0<=i,j<n and i <= j}', 'a[i,j] = 17', undefined, { assumptions: 'n>=1' });
}

test('test_triangle_domain', () => {
  const knl = triangleKernel();
  assert.match(stringifyKernel(knl), /\[n\] -> \{ \[i, j\] : 0 <= i < n and 0 <= j < n and j >= i \}/);
  assert.match(generateCode(knl, openclTarget()).code, /for \(int j = i; j <= -1 \+ n; \+\+j\)/);
});

for (const device of testDevices()) {
  test(`${device.name}: test_assume`, async () => {
    const n = 48;
    const a = randomFloat32(n, 3);
    const out = (await run(assumeKernel(), device, { a: a.slice(), n })).a as Float32Array;
    assert.equal(
      [...out],
      [...a].map((v) => Math.fround(v + 1)),
    );
  });

  test(`${device.name}: test_divisibility_assumption`, async () => {
    // loopy's auto_test_vs_ref with n = 16**3: the split kernel against the unsplit one and plain JS
    const n = 16 ** 3;
    const a = randomFloat32(n, 5);
    const expected = [...a].map((v) => 2 * v);
    const ref = (await run(divisibilityKernel(), device, { a, n })).b as Float32Array;
    const got = (await run(splitIname(divisibilityKernel(), 'i', 16), device, { a, n })).b as Float32Array;
    assert.equal([...ref], expected);
    assert.equal([...got], expected);
  });

  test(`${device.name}: test_eq_constraint`, async () => {
    const b = randomFloat32(1000, 7);
    const a = new Float32Array(1000).fill(-1);
    const out = (await run(eqConstraintKernel(), device, { a, b })).a as Float32Array;
    assert.equal(
      [...out],
      [...a].map((v, i) => (i < 32 ? b[i] : v)),
    );
  });

  test(`${device.name}: test_dependent_loop_bounds_4`, async () => {
    // no outputs: it compiles and runs
    await run(dependentLoopBounds4(), device, {});
  });

  test(`${device.name}: test_equality_constraints`, async () => {
    const n = 10;
    let knl = equalityConstraintsKernel();
    knl = splitIname(knl, 'i', 16, { outerTag: 'g.0', innerTag: 'l.0' });
    knl = splitIname(knl, 'j', 16, { outerTag: 'g.1', innerTag: 'l.1' });
    // every j writes the same b[i, i + 5]: the race loopy's kernel has, of equal values
    knl = addInamesToInsn(knl, 'j_inner, j_outer', 'id:set_b').with({
      silencedWarnings: ['write_race(set_b)'],
    });
    const fresh = () => new Float32Array(n * n).fill(-1);
    const expectedB = [...fresh()].map((v, f) => (f % n === Math.floor(f / n) + 5 ? 22 : v));
    for (const k of [equalityConstraintsKernel(), knl]) {
      const out = await run(k, device, { a: fresh(), b: fresh(), n });
      assert.equal([...(out.a as Float32Array)], new Array(n * n).fill(5));
      assert.equal([...(out.b as Float32Array)], expectedB);
    }
  });

  test(`${device.name}: test_stride`, async () => {
    const n = 10;
    const out = (await run(strideKernel(), device, { a: new Float32Array(n).fill(-1), n })).a as Float32Array;
    assert.equal(
      [...out],
      Array.from({ length: n }, (_, i) => (i % 2 === 0 ? 5 : -1)),
    );
  });

  test(`${device.name}: test_domain_dependency_via_existentially_quantified_variable`, async () => {
    const n = 10;
    const fresh = () => new Float32Array(n).fill(-1);
    const out = await run(existentialDependencyKernel(), device, { a: fresh(), b: fresh(), n });
    assert.equal([...(out.a as Float32Array)], new Array(n).fill(5));
    assert.equal(
      [...(out.b as Float32Array)],
      Array.from({ length: n }, (_, k) => (k % 2 === 0 ? 6 : -1)),
    );
  });

  test(`${device.name}: test_triangle_domain`, async () => {
    const n = 6;
    const out = (await run(triangleKernel(), device, { a: new Int32Array(n * n).fill(-1), n })).a as Int32Array;
    assert.equal(
      [...out],
      Array.from({ length: n * n }, (_, f) => (Math.floor(f / n) <= f % n ? 17 : -1)),
    );
  });
}

test.run();
