/**
 * Ports of loopy's test/test_transform.py: a reduction's argument made a substitution rule
 * (`reductionArgToSubstRule`) and the rule precomputed over an iname split around a length-1
 * loop. loopy inspects the kernels; these do, and the reductions also run on every test device
 * against plain JavaScript.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  makeKernel,
  precompute,
  printExpr,
  reductionArgToSubstRule,
  run,
  splitIname,
  type LoopKernel,
} from '@loom/core';
import { assertClose, randomFloat32, testDevices } from '../../support/devices.ts';
import { freeVariablesOf, range, throwsLoom } from './helpers.ts';

const rule = (knl: LoopKernel, name: string) => {
  const r = knl.substitutions.get(name)!;
  return { params: r.params, expression: printExpr(r.expression) };
};

const single = () =>
  makeKernel('{[i,j]: 0<=i,j<n}', 'out[i] = sum(j, a[i,j])  {id=red}', undefined, { name: 'red_subst' });
const multiple = () =>
  makeKernel(
    '{[i,j]: 0<=i,j<n}',
    'out1[i] = sum(j, a[i,j])  {id=red1}\nout2[i] = sum(j, b[i,j])  {id=red2}',
    undefined,
    {
      name: 'red_subst',
    },
  );

test('test_reduction_arg_to_subst_rule_single', () => {
  // the rule's name made from the iname
  const auto = reductionArgToSubstRule(single(), 'j');
  assert.is(printExpr(auto.instruction('red').expression!), 'sum(j, red_j_arg(j))');
  assert.equal(rule(auto, 'red_j_arg'), { params: ['j'], expression: 'a[i, j]' });
  // the rule's name given
  const named = reductionArgToSubstRule(single(), 'j', { ruleName: 'mysubst' });
  assert.is(printExpr(named.instruction('red').expression!), 'sum(j, mysubst(j))');
  assert.equal(rule(named, 'mysubst'), { params: ['j'], expression: 'a[i, j]' });
  assert.not.ok(named.substitutions.has('red_j_arg'));
});

test('test_reduction_arg_to_subst_rule_multiple', () => {
  // each matching reduction gets a rule of its own
  const auto = reductionArgToSubstRule(multiple(), 'j');
  assert.equal([...auto.substitutions.keys()].sort(), ['red_j_arg', 'red_j_arg_0']);
  assert.is(printExpr(auto.instruction('red1').expression!), 'sum(j, red_j_arg(j))');
  assert.is(printExpr(auto.instruction('red2').expression!), 'sum(j, red_j_arg_0(j))');
  assert.equal(rule(auto, 'red_j_arg'), { params: ['j'], expression: 'a[i, j]' });
  assert.equal(rule(auto, 'red_j_arg_0'), { params: ['j'], expression: 'b[i, j]' });
  // a name given can name one rule only
  throwsLoom(
    () => reductionArgToSubstRule(multiple(), 'j', { ruleName: 'mysubst' }),
    /the rule 'mysubst' already exists/,
  );
});

for (const device of testDevices()) {
  test(`${device.name}: test_reduction_arg_to_subst_rule_single and _multiple (the kernels run)`, async () => {
    const n = 7;
    const a = randomFloat32(n * n, 3);
    const b = randomFloat32(n * n, 4);
    const rowSums = (m: Float32Array) => range(n, (i) => m.subarray(i * n, (i + 1) * n).reduce((s, v) => s + v, 0));
    for (const knl of [
      reductionArgToSubstRule(single(), 'j'),
      reductionArgToSubstRule(single(), 'j', { ruleName: 'mysubst' }),
    ])
      assertClose((await run(knl, device, { a })).out as Float32Array, rowSums(a), 'out', 1e-5, 1e-5);
    const out = await run(reductionArgToSubstRule(multiple(), 'j'), device, { a, b });
    assertClose(out.out1 as Float32Array, rowSums(a), 'out1', 1e-5, 1e-5);
    assertClose(out.out2 as Float32Array, rowSums(b), 'out2', 1e-5, 1e-5);
  });
}

test('test_precompute_lets_inner_length1_inames_live', () => {
  // loopy needs _enable_mirgecom_workaround=True; Loom's precompute always keeps a length-1
  // iname of the sweep's surroundings (here e_inner, of e split by 16 over 0 <= e < 1) as it is
  let knl = makeKernel('{[e,i]: 0<=e<1 and 0<=i<10}', 'v(e, i) := e / i\nout[e, i] = v(e, i)');
  knl = splitIname(knl, 'e', 16);
  knl = precompute(knl, 'v', 'i');
  // loopy's (e_inner + e_outer*16) / i_0, in Loom's order of terms
  assert.is(printExpr(knl.instruction('v').expression!), '(16*e_outer + e_inner) / i_0');
  assert.equal(freeVariablesOf(knl.instruction('v').expression!).sort(), ['e_inner', 'e_outer', 'i_0']);
  // the storage is over i alone
  assert.equal(
    knl.temporaries.get('v_0')!.shape.map((s) => printExpr(s)),
    ['10'],
  );
});

test.run();
