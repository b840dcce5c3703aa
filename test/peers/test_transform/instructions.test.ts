/**
 * Ports of loopy's test/test_transform.py: instructions: nosync, barriers, renamed and ordered arguments, removal, ids, priorities.
 * Tests of the same transformations in test_loopy.py and test_reduction.py are named after their
 * file. Each transformed kernel runs on every test device and is compared with the same
 * computation in plain JavaScript; where loopy only inspects the kernel, so do these, and they
 * run it as well.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  addAndInferDtypes,
  addBarrier,
  assume,
  changeArgToImage,
  getOneLinearizedKernel,
  realizeReduction,
  removeInstructions,
  removeUnusedArguments,
  renameArgument,
  replaceInstructionIds,
  setArgumentOrder,
  setInstructionPriority,
  tagArrayAxes,
  tagInstructions,
  addNosync,
  generateCode,
  globalArg,
  makeKernel,
  run,
  splitIname,
  setTemporaryAddressSpace,
  valueArg,
  expr,
} from '@loom/core';
import { openclTarget } from '@loom/codegen-opencl';
import { assertClose, randomFloat32, testDevices } from '../../support/devices.ts';
import { f32, range, throwsLoom } from './helpers.ts';

test('test_add_nosync', () => {
  let orig = makeKernel(
    '{[i]: 0<=i<10}',
    `
    <>tmp[i] = 10 {id=insn1}
    <>tmp2[i] = 10 {id=insn2}

    <>tmp3[2*i] = 0 {id=insn3}
    <>tmp4 = 1 + tmp3[2*i] {id=insn4}

    <>tmp5[i] = 0 {id=insn5,groups=g1}
    tmp5[i] = 1 {id=insn6,conflicts=g1}
  `,
    [],
    { name: 'nosync' },
  );
  orig = setTemporaryAddressSpace(setTemporaryAddressSpace(orig, 'tmp3', 'local'), 'tmp5', 'local');
  // no dependency: nothing to waive
  assert.equal(
    addNosync(orig, 'any', 'writes:tmp', 'writes:tmp2', { emptyOk: true }).instruction('insn2').noSyncWith,
    [],
  );
  const one = addNosync(orig, 'local', 'writes:tmp3', 'reads:tmp3');
  assert.equal(one.instruction('insn3').noSyncWith, []);
  assert.equal(one.instruction('insn4').noSyncWith, ['insn3@local']);
  const both = addNosync(orig, 'local', 'writes:tmp3', 'reads:tmp3', { bidirectional: true });
  assert.equal(both.instruction('insn3').noSyncWith, ['insn4@local']);
  assert.equal(both.instruction('insn4').noSyncWith, ['insn3@local']);
  assert.equal(addNosync(orig, 'local', 'insn5', 'insn6').instruction('insn6').noSyncWith, ['insn5@local']);
  throwsLoom(
    () => addNosync(orig, 'local', 'writes:nothing', 'insn6'),
    /the source 'writes:nothing' matches no instruction/,
  );
});

for (const device of testDevices()) {
  test(`${device.name}: test_add_barrier`, async () => {
    let knl = makeKernel(
      '{[i, j, ii, jj]: 0<=i,j, ii, jj<n}',
      `
      out[j, i] = a[i, j]{id=transpose}
      out[ii, jj] = 2*out[ii, jj]{id=double}
    `,
      [f32('out', ['n', 'n']), f32('a', ['n', 'n']), '...'],
    );
    knl = addBarrier(knl, 'id:transpose', 'id:double', { id: 'gb1' });
    knl = splitIname(knl, 'i', 2, { outerTag: 'g.0', innerTag: 'l.0' });
    knl = splitIname(knl, 'j', 2, { outerTag: 'g.1', innerTag: 'l.1' });
    knl = splitIname(knl, 'ii', 2, { outerTag: 'g.0', innerTag: 'l.0' });
    knl = splitIname(knl, 'jj', 2, { outerTag: 'g.1', innerTag: 'l.1' });
    assert.equal(knl.instruction('double').dependsOn, ['gb1']);
    const n = 16;
    const a = randomFloat32(n * n, 1);
    const { out } = await run(knl, device, { a, out: new Float32Array(n * n) });
    assertClose(
      out as Float32Array,
      range(n * n, (k) => 2 * a[(k % n) * n + Math.floor(k / n)]),
      'out',
      0,
      0,
    );
    throwsLoom(
      () => addBarrier(knl, 'id:nothing', 'id:double'),
      /the instructions before: 'id:nothing' matches no instruction/,
    );
    throwsLoom(
      () => addBarrier(knl, 'id:transpose', 'id:double', { synchronizationKind: 'warp' as 'local' }),
      /synchronizationKind must be 'global' or 'local'/,
    );
  });

  test(`${device.name}: test_rename_argument, test_rename_argument_of_domain_params`, async () => {
    const knl = renameArgument(
      makeKernel('{ [i]: 0<=i<n }', 'out[i] = a + 2', [
        valueArg('a', 'float32'),
        globalArg('out', { dtype: 'float32' }),
        '...',
      ]),
      'a',
      'b',
    );
    assertClose(
      (await run(knl, device, { b: 12, n: 20 })).out as Float32Array,
      range(20, () => 14),
      'out',
      0,
      0,
    );
    let params = makeKernel('{[i, j]: 0<=i<n and 0<=j<m}', 'y[i, j] = 2.0', [
      globalArg('y', { dtype: 'float32' }),
      '...',
    ]);
    params = renameArgument(renameArgument(params, 'n', 'N'), 'm', 'M');
    const code = generateCode(params, openclTarget()).code;
    assert.ok(!code.includes('int const n') && !code.includes('int const m'));
    assert.ok(code.includes('int const N') && code.includes('int const M'));
    assertClose(
      (await run(params, device, { M: 10, N: 4 })).y as Float32Array,
      range(40, () => 2),
      'y',
      0,
      0,
    );
    const strided = renameArgument(
      tagArrayAxes(makeKernel('{[i]: 0<=i<10}', 'y[i] = x[i]', [f32('x', [10]), f32('y', [10])]), 'x', 'stride:1'),
      'x',
      'x_new',
    );
    const x = randomFloat32(10, 2);
    assert.ok(generateCode(strided, openclTarget()).code.includes('x_new'));
    assertClose((await run(strided, device, { x_new: x })).y as Float32Array, x, 'y', 0, 0);
  });
}

test('test_rename_argument_with_assumptions, test_set_arg_order, removeUnusedArguments, changeArgToImage', () => {
  const knl = renameArgument(assume(makeKernel('{[i]: 0<=i<n_old}', 'y[i] = 2.0'), 'n_old=10'), 'n_old', 'n_new');
  assert.ok(!knl.assumptions.params.includes('n_old') && knl.assumptions.params.includes('n_new'));
  assert.ok(knl.assumptions.implies({ kind: 'eq', expr: expr.toLinear(expr.parseExpression('n_new - 10'))! }));
  throwsLoom(() => renameArgument(knl, 'y', 'n_new'), /'n_new' is already used/);
  const ordered = setArgumentOrder(makeKernel('{ [i,j]: 0<=i,j<n }', 'out[i,j] = a[i]*b[j]'), 'out,a,n,b');
  assert.equal(
    ordered.args.map((a) => a.name),
    ['out', 'a', 'n', 'b'],
  );
  throwsLoom(() => setArgumentOrder(ordered, 'out,a,n'), /'b' is missing from the order/);
  const unused = makeKernel('{ [i]: 0<=i<n }', 'out[i] = 1', [
    globalArg('out', { dtype: 'float32', shape: ['n'] }),
    globalArg('spare', { dtype: 'float32', shape: [3] }),
    '...',
  ]);
  assert.equal(
    removeUnusedArguments(unused)
      .args.map((a) => a.name)
      .sort(),
    ['n', 'out'],
  );
  // an image is read-only (loopy's ImageArg is never an output): test/images.test.ts runs images
  throwsLoom(() => changeArgToImage(unused, 'out'), /image argument 'out' is written by instruction/);
});

test('test_remove_instructions_with_recursive_deps', () => {
  const knl = makeKernel(
    '{[i]: 0<=i<10}',
    `
    y[i] = 0 {id=insn0}
    a[i] = 2*b[i] {id=insn1}
    c[i] = 2*b[i] {id=insn2}
    y[i] = y[i] + x[i] {id=insn3}
  `,
    undefined,
    { seqDependencies: true, name: 'myknl' },
  );
  const removed = removeInstructions(knl, ['id:insn1', 'id:insn2']);
  assert.equal(removed.instruction('insn3').dependsOn, ['insn0']);
  assert.equal(removed.instruction('insn0').dependsOn, []);
});

for (const device of testDevices()) {
  test(`${device.name}: realizeReduction, addAndInferDtypes, getOneLinearizedKernel, replaceInstructionIds, setInstructionPriority`, async () => {
    const knl = addAndInferDtypes(
      makeKernel('{[i, j]: 0<=i<8 and 0<=j<5}', '<> t[i] = 2*a[i] {id=w}\nout[i] = sum(j, t[i]*j) {id=r}'),
      { a: 'float32' },
    );
    assert.is(knl.temporaries.get('t')!.dtype, 'float32');
    const realized = realizeReduction(knl);
    assert.ok(realized.instructions.some((i) => i.id.includes('_update')));
    const a = randomFloat32(8, 3);
    assertClose(
      (await run(realized, device, { a })).out as Float32Array,
      range(8, (i) => 10 * Math.fround(2 * a[i])),
      'out',
      1e-6,
      1e-6,
    );
    const { subkernels } = getOneLinearizedKernel(knl, device.target);
    assert.is(subkernels.length, 1);
    const replaced = replaceInstructionIds(knl, { w: ['w'] });
    assert.equal(replaced.instruction('r').dependsOn, ['w']);
    assert.is(setInstructionPriority(knl, 'id:r', 7).instruction('r').priority, 7);
    assert.equal(tagInstructions(knl, 'late', 'writes:out').instruction('r').tags, ['late']);
  });
}

test.run();
