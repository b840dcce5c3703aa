/**
 * Ports of loopy's test/test_transform.py tests of substitution rules (issue 27, "Typing,
 * rules, tags"): bare names of parameterless rules are calls of them, and precompute of a
 * rule that calls another keeps the rule it calls, in the store's inames. Each runs on every test device, against plain JavaScript.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { addDtypes, expr, makeKernel, precompute, run, splitIname } from '@loom/core';
import { assertClose, randomFloat32, testDevices } from '../support/devices.ts';

/** loopy's `precomputer`: D := E*E with E := a[i], both called by their bare names. */
function precomputer() {
  return addDtypes(
    makeKernel(
      '{[i]: 0<=i<n}',
      `
      E:=a[i]
      D:=E*E
      b[i] = D
      `,
      undefined,
      { name: 'precomputer' },
    ),
    { a: 'float32' },
  );
}

for (const device of testDevices()) {
  test(`${device.name}: test_precompute_nested_subst`, async () => {
    let knl = splitIname(precomputer(), 'i', 128, { outerTag: 'g.0', innerTag: 'l.0' });
    // D's body names no iname itself: it reads through E
    assert.not.ok(expr.freeVariables(knl.substitutions.get('D')!.expression).has('i_inner'));
    knl = precompute(knl, 'D', 'i_inner', { defaultTag: 'l.auto' });
    // there's only one surviving 'E' rule
    assert.equal(
      [...knl.substitutions.keys()].filter((name) => name.startsWith('E')),
      ['E'],
    );
    // that rule uses the newly created precompute inames, not the prior 'i_inner'
    const E = knl.substitutions.get('E')!.expression;
    assert.not.ok(expr.freeVariables(E).has('i_inner'));
    assert.ok(expr.freeVariables(E).has('D_i_inner'));
    // loopy runs n = 12345 against the sequential kernel: here against plain JavaScript
    const n = 12345;
    const a = randomFloat32(n, 3);
    const { b } = await run(knl, device, { a, n });
    assertClose(
      b as Float32Array,
      a.map((x) => Math.fround(x * x)),
      'b',
    );
  });
}

test.run();
