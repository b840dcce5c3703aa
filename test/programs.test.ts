/**
 * Programs of several kernels (program/): the model's functions, the call syntax as the front
 * end reads and prints it, and the errors a wrong call gets, with a caret under the call.
 * loopy's own tests of callable kernels are in peers/test_callables.py.test.ts.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  addDtypes,
  asProgram,
  defineFunction,
  forEachKernel,
  generateCode,
  globalArg,
  inferArgDescr,
  inlineCallableKernel,
  LoomError,
  makeFunction,
  makeKernel,
  mapEntrypoints,
  merge,
  programKernel,
  registerCallable,
  registerFunction,
  renameCallable,
  run,
  setOptions,
  stringifyKernel,
  sweptInames,
} from '@loom/core';
import { cpuDevice } from '@loom/codegen-js';

const twice = () => makeFunction('{ [i]: 0 <= i < 10 }', 'b[i] = 2*a[i]', { name: 'twice' });
const caller = () => makeKernel('{ [i, j]: 0 <= i, j < 10 }', '[j]: y[i, j] = twice([j]: x[j, i])', { name: 'caller' });

test('a call is an instruction of its own: swept inames are not its loops, and it prints as written', () => {
  const knl = caller();
  const call = knl.instructions[0];
  assert.is(call.kind, 'call');
  assert.equal(call.withinInames, ['i']);
  assert.equal([...sweptInames(call)], ['j']);
  assert.equal(knl.arg('x')!.shape!.length, 2);
  assert.match(stringifyKernel(knl), '[j]: y[i, j] = twice([j]: x[j, i])');
});

test('a slice becomes an iname of its own; a whole array sweeps every axis', () => {
  const knl = makeKernel('{ : }', 'y[7:-1:-2] = f(x)', [
    globalArg('x', { shape: [4] }),
    globalArg('y', { shape: [8] }),
  ]);
  const call = knl.instructions[0];
  assert.is(call.call!.assigneeSweeps[0].length, 1);
  assert.is(call.call!.argSweeps[0]!.length, 1);
  assert.match(stringifyKernel(knl), /y\[7 \+ -2\*y_slice\]/);
});

test('merge, entrypoints, renameCallable, registerCallable, forEachKernel', () => {
  const prog = merge([caller(), twice()]);
  assert.equal(prog.entrypoints, ['caller']);
  assert.equal([...prog.callables.keys()].sort(), ['caller', 'twice']);
  const renamed = renameCallable(prog, 'twice', 'double');
  assert.equal([...renamed.callables.keys()].sort(), ['caller', 'double']);
  // the new name reaches generated code as a kernel's: it must be a name
  assert.throws(() => renameCallable(prog, 'caller', 'x(); evil'), /renameCallable: the new name: .* is not a name/);
  assert.match(stringifyKernel(renamed.kernel('caller')), 'double([j]: x[j, i])');
  const names: string[] = [];
  forEachKernel(renamed, (_, name) => names.push(name));
  assert.equal(names.sort(), ['caller', 'double']);
  const fn = defineFunction({
    name: 'halve',
    signature: { args: ['float32'], result: 'float32' },
    js: (v: number) => v / 2,
  });
  assert.ok(registerCallable(prog, 'halve', fn).callables.get('halve') === fn);
  assert.throws(() => merge([prog, makeFunction('{:}', 'y = 1', { name: 'twice' })]), /two different callables/);
  assert.ok(asProgram(caller()).entrypoints.length === 1);
});

test('a program runs as its entrypoint with the callee inlined', async () => {
  const x = Float32Array.from({ length: 100 }, (_, k) => k);
  const prog = mapEntrypoints(merge([caller(), twice()]), (k) => setOptions(k, { writeCode: false }));
  const { y } = await run(prog, cpuDevice(), { x });
  const expected = Array.from({ length: 100 }, (_, k) => 2 * x[(k % 10) * 10 + Math.floor(k / 10)]);
  assert.equal([...(y as Float32Array)], expected);
  const inlined = inlineCallableKernel(prog, 'twice');
  assert.equal([...inlined.callables.keys()], ['caller']);
  assert.ok(programKernel(inlined).instructions.every((i) => i.kind === 'assign'));
});

test('a kernel that calls a kernel it does not hold is refused, naming the callee', () => {
  assert.throws(
    () => generateCode(caller(), cpuDevice().target),
    (e: unknown) => e instanceof LoomError && /calls 'twice'/.test(e.message) && /merge/.test(e.message),
  );
});

test('a user function called in the call syntax of kernels (sub-array references) is refused under the call', () => {
  const f = defineFunction({ name: 'f', signature: { args: ['float32'], result: 'float32' }, js: (x: number) => x });
  const knl = makeKernel('{ [i]: 0 <= i < 10 }', '[i]: y[i] = f([i]: x[i])', [
    globalArg('x, y', { dtype: 'float32', shape: [10] }),
  ]);
  for (const prog of [registerFunction(knl, f), registerCallable(knl, 'f', f)])
    assert.throws(
      () => generateCode(prog, cpuDevice().target),
      (e: unknown) =>
        e instanceof LoomError &&
        /calls the user function 'f' with sub-array references/.test(e.message) &&
        e.span !== undefined,
    );
});

test('a user function called as an instruction of its own is a call statement, its result dropped', async () => {
  const seen: number[] = [];
  const f = defineFunction({
    name: 'f',
    signature: { args: ['float32'], result: 'float32' },
    js: (x: number) => seen.push(x),
  });
  const knl = makeKernel('{ [i]: 0 <= i < 4 }', 'f(sum(i, x[i]))', [globalArg('x', { dtype: 'float32', shape: [4] })]);
  for (const prog of [registerFunction(knl, f), registerCallable(knl, 'f', f)]) {
    const code = generateCode(prog, cpuDevice().target).code;
    assert.match(code, /loom\.user\["f\(float32\)"\]\(acc_i\);/);
    seen.length = 0;
    await run(prog, cpuDevice(), { x: Float32Array.of(1, 2, 3, 4.5) });
    assert.equal(seen, [10.5]);
  }
});

test('a wrong call gets a LoomError under the call', () => {
  const knl = makeKernel('{ [i, j]: 0 <= i < 10 and 0 <= j < 5 }', '[j]: y[i, j] = twice([j]: x[j, i])');
  const e = (() => {
    try {
      programKernel(merge([knl, twice()]));
    } catch (err) {
      return err;
    }
  })();
  assert.ok(e instanceof LoomError && /10 elements along axis 0; the call sweeps 5/.test(e.message), String(e));
  assert.match(String(e), /\^/);
  const two = makeKernel('{ [i, j]: 0 <= i, j < 10 }', '[j]: y[i, j] = twice([j]: x[j, i], [j]: x[j, i])');
  assert.throws(() => programKernel(merge([two, twice()])), /passes 2 argument\(s\); it takes 1/);
  const flat = makeKernel('{ [i, j]: 0 <= i, j < 10 }', '[i, j]: y[i, j] = twice([i, j]: x[j, i])');
  assert.throws(() => programKernel(merge([flat, twice()])), /packAndUnpackArgsForCall/);
});

test('inferArgDescr types a callee from what its callers pass, and refuses a disagreement', () => {
  const prog = inferArgDescr(merge([addDtypes(caller(), { x: 'float64' }), twice()]));
  assert.is(prog.kernel('twice').arg('a')!.dtype, 'float64');
  const typed = makeFunction('{ [i]: 0 <= i < 10 }', 'b[i] = 2*a[i]', [globalArg('a', { dtype: 'float32' }), '...'], {
    name: 'twice',
  });
  assert.throws(
    () => inferArgDescr(merge([addDtypes(caller(), { x: 'float64' }), typed])),
    /takes 'a' as float32; the call passes x, a float64/,
  );
});

test.run();
