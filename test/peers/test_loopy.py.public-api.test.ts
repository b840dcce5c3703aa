/**
 * Ports of loopy's tests of the public API its users call (issue 27, "Public API loopy users
 * call"): `all_params`, `parents_per_domain`, `preprocess_kernel` and `linearize`,
 * `uniquify_instruction_ids`, `simplify_indices`, `remove_predicates_from_insn`, and
 * loopy's spellings of make_kernel's arguments. Names are the originals' (from test_loopy.py,
 * test_domain.py and test_transform.py); the ones that run do so on every test device,
 * against plain JavaScript or the kernel before the transformation.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  allParams,
  foldConstants,
  generateCode,
  globalArg,
  linearize,
  LoomError,
  makeKernel,
  mapInstructions,
  parentsPerDomain,
  preprocessKernel,
  printExpr,
  removePredicatesFromInsn,
  run,
  simplifyIndices,
  splitIname,
  uniquifyInstructionIds,
  valueArg,
} from '@loom/core';
import { openclTarget } from '@loom/codegen-opencl';
import { testDevices } from '../support/devices.ts';

test('test_parameter_inference', () => {
  const knl = makeKernel('{[i]: 0 <= i < n and i mod 2 = 0}', '');
  assert.equal(allParams(knl), ['n']);
});

/** test_domain.py's kernel with a loop bound read from data: `jj`'s domain is nested in `i`'s. */
function rowLengthKernel() {
  return makeKernel(
    ['{[i]: 0<=i<n}', '{[jj]: 0<=jj<row_len}'],
    ['<> row_len = a_row_lengths[i]', 'a[i,jj] = 1'],
    [
      globalArg('a_row_lengths', { dtype: 'int32', shape: 'auto' }),
      globalArg('a', { dtype: 'float32', shape: 'n,n' }),
      valueArg('n', 'int32'),
    ],
    { name: 'loopy_kernel' },
  );
}

test('test_dependent_loop_bounds_3', () => {
  assert.equal(parentsPerDomain(rowLengthKernel()), [null, 0]);
  const knl = splitIname(rowLengthKernel(), 'i', 128, { outerTag: 'g.0', innerTag: 'l.0' });
  generateCode(knl, openclTarget());
  // jj's bound is read from data in the kernel: it cannot size a grid axis
  const bad = splitIname(knl, 'jj', 128, { outerTag: 'g.1', innerTag: 'l.1' });
  assert.throws(
    () => generateCode(bad, openclTarget()),
    (e: unknown) => e instanceof LoomError && /row_len/.test(e.message),
  );
});

test('test_independent_multi_domain', () => {
  let knl = makeKernel(
    ['{[i]: 0<=i<n}', '{[j]: 0<=j<n}'],
    ['a[i] = 1', 'b[j] = 2'],
    [
      globalArg('a', { dtype: 'float32', shape: 'n' }),
      globalArg('b', { dtype: 'float32', shape: 'n' }),
      valueArg('n', 'int32'),
    ],
  );
  knl = splitIname(knl, 'i', 16, { outerTag: 'g.0', innerTag: 'l.0' });
  knl = splitIname(knl, 'j', 16, { outerTag: 'g.0', innerTag: 'l.0' });
  assert.equal(parentsPerDomain(knl), [null, null]);
});

for (const device of testDevices()) {
  test(`${device.name}: test_independent_multi_domain (run)`, async () => {
    let knl = makeKernel(
      ['{[i]: 0<=i<n}', '{[j]: 0<=j<n}'],
      ['a[i] = 1', 'b[j] = 2'],
      [
        globalArg('a', { dtype: 'float32', shape: 'n' }),
        globalArg('b', { dtype: 'float32', shape: 'n' }),
        valueArg('n', 'int32'),
      ],
    );
    knl = splitIname(knl, 'i', 16, { outerTag: 'g.0', innerTag: 'l.0' });
    knl = splitIname(knl, 'j', 16, { outerTag: 'g.0', innerTag: 'l.0' });
    const out = await run(knl, device, { n: 50 });
    const [a, b] = [out.a as Float32Array, out.b as Float32Array];
    assert.is(a.length, 50);
    assert.is(b.length, 50);
    assert.ok([...a].every((v) => v === 1) && [...b].every((v) => v === 2));
  });
}

test('test_unscheduled_insn_detection', () => {
  // loopy edits a linearized kernel and generates code from it; Loom linearizes inside
  // generateCode, so what it checks is that linearize's schedules hold every instruction
  const knl = makeKernel('{ [i]: 0 <= i < 10 }', 'out[i] = i {id=insn1}', '...');
  const { kernel, subkernels } = linearize(preprocessKernel(knl));
  const scheduled = JSON.stringify(subkernels.map((s) => s.schedule));
  for (const insn of kernel.instructions) assert.ok(scheduled.includes(`"${insn.id}"`), `${insn.id} is scheduled`);
});

test('test_uniquify_instruction_ids', () => {
  const knl = makeKernel('{[i]: i = 1}', ['b = 1 {id=b}'], ['...'], { name: 'lpy_knl' });
  const insn = knl.instructions[0];
  const fourOfOneId = knl.with({ instructions: [insn, insn, insn, insn] });
  const ids = new Set(uniquifyInstructionIds(fourOfOneId).instructions.map((i) => i.id));
  assert.is(ids.size, 4);
});

for (const device of testDevices()) {
  test(`${device.name}: test_simplify_indices`, async () => {
    const knl = makeKernel(
      '{[j]: 0<=j<10}',
      `
      <> b = Z[0]  {id=b}
      Y[j] = X[10*(j//10 + b) + j - 10*b]  {dep=b}
      `,
      [globalArg('X,Y,Z', { shape: [10], dtype: 'int32' })],
    );
    const hasFloorDiv = (k: typeof knl) =>
      k.instructions.some((insn) => insn.expression !== undefined && printExpr(insn.expression).includes('//'));
    const simplified = simplifyIndices(knl);
    assert.ok(hasFloorDiv(knl));
    assert.not.ok(hasFloorDiv(simplified));
    // loopy's auto_test_vs_ref: the transformed kernel computes what the original does
    const X = Int32Array.from({ length: 10 }, (_, k) => 3 * k - 7);
    const Z = Int32Array.of(4, 0, 0, 0, 0, 0, 0, 0, 0, 0);
    const ref = (await run(knl, device, { X, Z })).Y as Int32Array;
    const got = (await run(simplified, device, { X, Z })).Y as Int32Array;
    assert.equal([...got], [...ref]);
    assert.equal([...got], [...X]);
  });
}

test('test_remove_predicates_from_insn', () => {
  const tUnit = makeKernel(
    '{[i]: 0<=i<10}',
    `
    <> cond = i > 5  {id=cond}
    a[i] = 1         {if=cond,id=a,dep=cond}
    `,
  );
  const ref = makeKernel(
    '{[i]: 0<=i<10}',
    `
    <> cond = i > 5  {id=cond}
    a[i] = 1         {id=a,dep=cond}
    `,
  );
  assert.is(removePredicatesFromInsn(tUnit, ['cond'], 'id:a').toString(), ref.toString());
});

// loopy has no test of map_instructions or fold_constants of their own: these show their use
test('mapInstructions: a function over the instructions a match picks', () => {
  const knl = makeKernel('{[i]: 0<=i<4}', ['a[i] = 1 {id=one}', 'b[i] = 2 {id=two}']);
  const mapped = mapInstructions(knl, 'id:two', (insn) => ({ ...insn, priority: 7 }));
  assert.equal(
    mapped.instructions.map((i) => i.priority),
    [0, 7],
  );
  assert.throws(() => mapInstructions(knl, 'id:two', (insn) => ({ ...insn, id: 'three' })), /replaceInstructionIds/);
});

for (const device of testDevices()) {
  test(`${device.name}: foldConstants computes integer constants and keeps the values`, async () => {
    const knl = makeKernel('{[i]: 0<=i<8}', 'out[i] = a[i + 2*3 - 6] * (4 + 3)', [
      globalArg('a', { shape: 8, dtype: 'float32' }),
      '...',
    ]);
    const folded = foldConstants(knl);
    assert.is(printExpr(folded.instructions[0].expression!), 'a[i]*7');
    const a = Float32Array.from({ length: 8 }, (_, k) => k + 0.5);
    const out = (await run(folded, device, { a })).out as Float32Array;
    assert.equal(
      [...out],
      [...a].map((v) => v * 7),
    );
  });
}

// loopy's spellings of make_kernel's arguments (loopy/kernel/creation.py, kernel/array.py)
for (const device of testDevices()) {
  test(`${device.name}: make_kernel's argument spellings`, async () => {
    const a = Float32Array.from({ length: 6 }, (_, k) => k - 2);
    const expected = [...a].map((v) => 2 * v);
    const spellings = [
      makeKernel('{[i]: 0<=i<n}', 'b[i] = 2*a[i]', [globalArg('a,b', { shape: 'n', dtype: 'float32' }), '...']),
      makeKernel('{[i]: 0<=i<n}', 'b[i] = 2*a[i]', [globalArg('b', { shape: '(n,)' }), 'a', 'n']),
      makeKernel('{[i]: 0<=i<n}', 'b[i] = 2*a[i]', 'a, b, ...'),
      makeKernel('{[i]: 0<=i<n}', 'b[i] = 2*a[i]', { name: 'twice' }),
      makeKernel('{[i]: 0<=i<n}', 'b[i] = 2*a[i]', [globalArg('b', { shape: 'auto' }), '...']),
    ];
    for (const knl of spellings) {
      const b = (await run(knl, device, { a })).b as Float32Array;
      assert.equal([...b], expected, knl.name);
    }
    assert.is(spellings[3].name, 'twice');
  });
}

test.run();
