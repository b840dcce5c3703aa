/**
 * Ports of loopy's test/test_transform.py tests of inlining a callee (`inlineCallableKernel`):
 * the inlined kernel's indices come out simplified, and it computes what the program did, on
 * every test device (`autoTestVsRef`, the program as the reference). Names are the originals'.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  autoTestVsRef,
  expr,
  globalArg,
  inlineCallableKernel,
  makeFunction,
  makeKernel,
  merge,
  type Expr,
} from '@loom/core';
import { supportsDType, testDevices } from '../../support/devices.ts';

/** loopy's ContainsFloorDiv: whether `e` has a `//` anywhere. */
function containsFloorDiv(e: Expr): boolean {
  let found = false;
  expr.walk(e, (n) => {
    if (n.kind === 'binary' && n.op === '//') found = true;
    return !found;
  });
  return found;
}

for (const device of testDevices()) {
  test(`${device.name}: test_simplify_indices_when_inlining`, async () => {
    const dtype = supportsDType(device, 'float64') ? 'float64' : 'float32';
    const twice = makeFunction('{[i, j]: 0<=i<10 and 0<=j<4}', 'y[i,j] = 2*x[i,j]', undefined, {
      name: 'zerozerozeroonezeroify',
    });
    const knl = makeKernel('{:}', 'Y[:,:] = zerozerozeroonezeroify(X[:,:])', [
      globalArg('X,Y', { shape: [10, 4], dtype }),
    ]);
    const prog = merge([knl, twice]);
    const inlined = inlineCallableKernel(prog, 'zerozerozeroonezeroify');
    const insns = inlined.defaultEntrypoint.instructions;
    assert.ok(insns.length > 0);
    assert.ok(insns.every((i) => i.kind !== 'call'));
    // the callee's x[i, j] over the whole of X reads X[i, j]: no flat index split back by //
    assert.ok(insns.every((i) => i.expression === undefined || !containsFloorDiv(i.expression)));
    assert.ok(insns.every((i) => i.assignees.every((a) => !containsFloorDiv(a))));
    const { compared } = await autoTestVsRef(prog, device, inlined);
    assert.equal(compared, ['Y']);
  });
}

test('test_simplify_indices_when_inlining: a floor division is seen', () => {
  // the check itself finds what it looks for
  assert.ok(containsFloorDiv(makeKernel('{[j]: 0<=j<10}', 'Y[j] = X[10*(j//10) + j]').instructions[0].expression!));
});

test.run();
