/**
 * Ports of loopy's test/test_loopy.py: the tests of its validity checks (loopy/check.py),
 * of the preprocessing they rely on, and kernels run on every test device against plain
 * JavaScript. Names are the originals'.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  collectWarnings, generateCode, globalArg, KernelCheckError, LoomError, makeKernel, printExpr, run, tagInames, valueArg,
} from '@loom/core';
import { openclTarget } from '@loom/codegen-opencl';
import { linearizeKernel } from '../../packages/core/src/codegen/generate.ts';
import { preprocess } from '../../packages/core/src/preprocess/pipeline.ts';
import { testDevices } from '../support/devices.ts';

// {{{ test race detection

test('test_ilp_write_race_detection_global', () => {
  // loopy's domain is "[n] -> {[i,j]: 0<=i,j<n}" and it only linearizes; Loom refuses
  // an ILP iname without a constant extent before linearizing (loopy does at code
  // generation), so j gets a constant extent here. The race is the same: every ILP
  // lane j writes the same a[i].
  let knl = makeKernel('[n] -> {[i,j]: 0<=i<n and 0<=j<16 }', 'a[i] = 5+i+j', [
    globalArg('a', { dtype: 'float32' }),
    valueArg('n', 'int32'),
  ], { assumptions: 'n>=1', name: 'loopy_kernel' });
  knl = tagInames(knl, { j: 'ilp' });
  const { warnings } = collectWarnings(() => linearizeKernel(knl));
  assert.ok(warnings.some((w) => w.category === 'WriteRaceConditionWarning'), warnings.map(String).join('\n'));

  // and loopy's original kernel is refused, naming the ILP iname
  const original = tagInames(makeKernel('[n] -> {[i,j]: 0<=i,j<n }', 'a[i] = 5+i+j', [globalArg('a', { dtype: 'float32' }), valueArg('n', 'int32')], { assumptions: 'n>=1' }), { j: 'ilp' });
  assert.throws(() => linearizeKernel(original), (e: unknown) => e instanceof KernelCheckError && e.inames.includes('j'));
});

test('test_ilp_write_race_avoidance_private', () => {
  let knl = makeKernel('{[j]: 0<=j<16 }', '<> a = 5+j', [], { name: 'loopy_kernel' });
  knl = tagInames(knl, { j: 'ilp' });
  const { result, warnings } = collectWarnings(() => preprocess(knl));
  assert.equal(result.temporaries.get('a')!.shape.map((e) => printExpr(e)), ['16']);
  // each lane has its own copy: no race to report
  assert.equal(warnings.map(String), []);
});

// }}}

test('test_multiple_writes_to_local_temporary', () => {
  // Loopy would previously only handle barrier insertion correctly if exactly one
  // instruction wrote to each local temporary. This tests that multiple writes are OK
  // (and that the local-temporary checks accept them: each writer covers l.0).
  let knl = makeKernel('{[i]: 0<=i<5}', '<> temp[i, 0] = 17\ntemp[i, 1] = 15');
  knl = tagInames(knl, { i: 'l.0' });
  const code = generateCode(knl, openclTarget()).code;
  assert.match(code, /__local int temp\[10\];/);
  assert.match(code, /temp\[2 \* lid\(0\)\] = 17;\s+temp\[2 \* lid\(0\) \+ 1\] = 15;/);
});

test('test_non_integral_array_idx_raises', () => {
  // loopy's 'a' has no shape and make_kernel accepts it; Loom infers shapes from the
  // accesses and refuses the non-affine index already there, so the shape is given
  // to reach the check of code generation.
  const instructions = 'out[j] = 0 {id=init}\nout[i] = a[1.94**i-1] {dep=init}';
  const knl = makeKernel('{[i, j]: 0<=i<=4 and 0<=j<16}', instructions, [globalArg('a', { dtype: 'float64', shape: [16] }), '...']);
  assert.throws(() => generateCode(knl, openclTarget()), (e: unknown) => e instanceof KernelCheckError && e.check === 'integer_subscript_indices');
  assert.throws(() => makeKernel('{[i, j]: 0<=i<=4 and 0<=j<16}', instructions, [globalArg('a', { dtype: 'float64' }), '...']), (e: unknown) => e instanceof LoomError);
});

for (const device of testDevices()) {
  test(`${device.name}: test_bare_data_dependency`, async () => {
    // the loop bound is a temporary, read from the argument n when the kernel runs
    const knl = makeKernel(['[znirp] -> {[i]: 0<=i<znirp}'], ['<> znirp = n', 'a[i] = 1'], [
      globalArg('a', { dtype: 'float32', shape: ['n'] }),
      valueArg('n', 'int32'),
    ]);
    const n = 20000;
    const { a } = await run(knl, device, { n });
    assert.is((a as Float32Array).length, n);
    assert.ok((a as Float32Array).every((x) => x === 1));
  });
}

test.run();
