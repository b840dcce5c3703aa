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
import {
  addDtypes,
  defineFunction,
  generateCode,
  globalArg,
  isComplex,
  LoomError,
  makeKernel,
  noOp,
  registerFunction,
  run,
  tagArrayAxes,
} from '@loom/core';
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

/**
 * testlib.py's Log2Callable: float32 or float64 in and out (integers as float32), calling the
 * target's log2. Loom's targets keep their built-ins' names to themselves (a user function's
 * code is called by a name of its own), so each implementation is a one-line wrapper.
 */
let jsCalls = 0;
const wrapper = (qualifier: string, t: 'float' | 'double', log2: string) =>
  `${qualifier} ${t} user_log2_${t}(${t} x) { return ${log2}(x); }`;
const log2Callable = defineFunction({
  name: 'log2',
  signature: ([x]) => {
    if (x === undefined || isComplex(x)) throw new LoomError(`log2: unexpected type ${x}`);
    const t = x === 'float64' ? 'float64' : 'float32';
    return { args: [t], result: t };
  },
  opencl: (s) => {
    const t = s.result === 'float32' ? 'float' : 'double';
    return { name: `user_log2_${t}`, preamble: wrapper('inline', t, 'log2') };
  },
  cuda: (s) => {
    const t = s.result === 'float32' ? 'float' : 'double';
    return { name: `user_log2_${t}`, preamble: wrapper('__device__ inline', t, t === 'float' ? 'log2f' : 'log2') };
  },
  c: (s) => {
    const t = s.result === 'float32' ? 'float' : 'double';
    return { name: `user_log2_${t}`, preamble: wrapper('static inline', t, t === 'float' ? 'log2f' : 'log2') };
  },
  wgsl: { name: 'user_log2', preamble: 'fn user_log2(x: f32) -> f32 { return log2(x); }' },
  js: (x) => {
    jsCalls++;
    return Math.log2(x as number);
  },
});

for (const device of testDevices()) {
  test(`${device.name}: test_register_function_lookup`, async () => {
    const prog = registerFunction(makeKernel('{[i]: 0<=i<10}', 'y[i] = log2(x[i])'), log2Callable);
    const dtype = supportsDType(device, 'float64') ? 'float64' : 'float32';
    const knl = addDtypes(prog, { x: dtype });
    const values = Array.from({ length: 10 }, (_, k) => 0.05 + k / 10.5);
    const x = dtype === 'float64' ? Float64Array.from(values) : Float32Array.from(values);
    const callsBefore = jsCalls;
    const out = (await run(knl, device, { x })).y as Float64Array;
    // the user's log2 is called, not the built-in one of the same name
    assert.ok(generateCode(knl, device.target).code.includes('user_log2') || jsCalls > callsBefore);
    assert.is(out.constructor, x.constructor);
    const ref = [...x].map(Math.log2);
    const err = Math.hypot(...ref.map((v, k) => v - out[k])) / Math.hypot(...ref);
    assert.ok(err < (dtype === 'float64' ? 1e-15 : 1e-6), `relative error ${err}`);
  });
}

for (const device of testDevices()) {
  test(`${device.name}: test_indexof`, async () => {
    const knl = makeKernel('{ [i,j]: 0<=i,j<5 }', 'out[i,j] = indexof(out[i,j])', [
      globalArg('out', { isInput: false, shape: 'auto' }),
    ]);
    const out = (await run(knl, device, {})).out as Int32Array;
    assert.equal(
      [...out],
      Array.from({ length: 25 }, (_, k) => k),
    );
    // the index is where the layout puts the element: in Fortran order, out[i,j] lies at i + 5*j
    const fortran = (await run(tagArrayAxes(knl, 'out', 'f,f'), device, {})).out as Int32Array;
    assert.equal(
      [...fortran],
      Array.from({ length: 25 }, (_, k) => k),
    );
  });
}

test('indexof takes one array element', () => {
  const knl = makeKernel('{ [i]: 0<=i<5 }', 'out[i] = indexof(i)', [globalArg('out', { shape: 5, dtype: 'int32' })]);
  assert.throws(() => generateCode(knl, testDevices()[0].target), /indexof takes one argument, an array element/);
});

for (const device of testDevices()) {
  test(`${device.name}: test_tuple`, async () => {
    const knl = makeKernel('[] -> {[]: }', 'a, b = make_tuple(1, 2.)');
    const { a, b } = await run(knl, device, {});
    assert.equal([...(a as Int32Array)], [1]);
    assert.equal([...(b as Float32Array)], [2]);
  });

  test(`${device.name}: make_tuple in a loop, its id depended on`, async () => {
    const knl = makeKernel(
      '{[i]: 0<=i<4}',
      ['<> s, <> t = make_tuple(x[i], 2*x[i]) {id=tup}', 'out[i] = s + t {dep=tup}'],
      [globalArg('x', { shape: 4, dtype: 'float32' }), '...'],
    );
    const x = Float32Array.of(1, -2, 3.5, 4);
    const out = (await run(knl, device, { x })).out as Float32Array;
    assert.equal(
      [...out],
      [...x].map((v) => 3 * v),
    );
    assert.throws(() => makeKernel('[] -> {[]: }', 'a, b = make_tuple(1)'), /make_tuple gives 1 value to 2 assignees/);
  });
}

test.run();
