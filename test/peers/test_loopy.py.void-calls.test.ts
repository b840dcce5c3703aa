/**
 * Ports of loopy's test/test_loopy.py tests of calls with no returned value: a user function
 * whose result is void, called as an instruction of its own (`f()`, loopy's `CallInstruction`
 * with no assignees), kept through every pass and printed as a call statement on every target.
 * Its side effect is what each test checks, as each target lets a function have one
 * (support/void-calls.ts): printed lines on OpenCL, CUDA and C, read from a child process;
 * calls of a JavaScript function on the CPU device; private state read back on WebGPU.
 * Names are the originals'.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  addDtypes,
  defineFunction,
  generateCode,
  LoomError,
  makeKernel,
  preprocessKernel,
  registerFunction,
  run,
} from '@loom/core';
import { cudaTarget } from '@loom/codegen-cuda';
import { stdoutOf } from '../support/child-stdout.ts';
import { testDevices } from '../support/devices.ts';
import {
  hitsFunction,
  noRetFunction,
  noRetKernel,
  printsWithPrintf,
  seenFunction,
  SUM_INPUT,
  sumCallKernel,
  valueFunction,
} from '../support/void-calls.ts';

/** What the C-family devices printed (one child process for every test of this file). */
let printed: string[] | undefined;
const printedLines = () => {
  printed ??= stdoutOf('test/support/void-calls.ts', 'printCFamilyCalls').split('\n');
  return printed;
};

/** The call statement of `f` as the target spells it, for a look at the generated code. */
const callStatement = (code: string, args: string) =>
  new RegExp(`(^|[\\s;{])(f|f_of|loom\\.user\\["f\\([^)]*\\)"\\])\\(${args}\\);`, 'm').test(code);

const SUM = SUM_INPUT.reduce((a, b) => a + b, 0);

for (const [k, device] of testDevices().entries()) {
  test(`${device.name}: test_call_with_no_returned_value`, async () => {
    let calls = 0;
    const f = noRetFunction(k, () => void calls++);
    // loopy builds the instruction from nodes: CallInstruction((), Call(Variable('f'), ()))
    const knl = registerFunction(noRetKernel(), f);
    const fromText = makeKernel('{:}', 'f()').instructions[0];
    assert.equal([knl.instructions[0].kind, knl.instructions[0].expression], [fromText.kind, fromText.expression]);
    assert.ok(callStatement(generateCode(knl, device.target).code, ''), 'f() is a call statement');
    if (printsWithPrintf(device)) {
      assert.equal(
        printedLines().filter((l) => l.includes(`(device ${k})`) && l.startsWith('Hi!')),
        [`Hi! (device ${k})`],
      );
    } else if (device.target.functionDialects?.includes('wgsl')) {
      // the call ran once before `hits()` read its count
      const counted = registerFunction(
        makeKernel('{:}', ['f() {id=call}', 'out[0] = hits() {dep=call}']),
        f,
        hitsFunction,
      );
      assert.equal([...((await run(counted, device, {})).out as Int32Array)], [1]);
    } else {
      await run(knl, device, {});
      assert.is(calls, 1);
    }
  });

  test(`${device.name}: test_regression_no_ret_call_removal`, async () => {
    const seen: number[] = [];
    const f = valueFunction(k, (s) => seen.push(s));
    // loopy's check: the call outlives preprocessing beside the reduction's two instructions
    const pre = preprocessKernel(sumCallKernel(f));
    assert.is(pre.instructions.length, 3);
    const call = pre.instructions.find((i) => i.id === 'call')!;
    assert.is(call.kind, 'user-call');
    assert.equal(call.assignees, []);
    assert.ok(call.dependsOn.some((d) => pre.instructions.find((i) => i.id === d)?.kind === 'assign'));
    // ... and it runs, with the sum
    if (printsWithPrintf(device)) {
      assert.equal(
        printedLines().filter((l) => l.startsWith(`f(s) (device ${k})`)),
        [`f(s) (device ${k}) = ${SUM}`],
      );
    } else if (device.target.functionDialects?.includes('wgsl')) {
      const knl = registerFunction(sumCallKernel(f, ['out[0] = seen() {dep=call}']), seenFunction);
      assert.equal([...((await run(knl, device, { x: SUM_INPUT })).out as Float32Array)], [SUM]);
    } else {
      await run(sumCallKernel(f), device, { x: SUM_INPUT });
      assert.equal(seen, [SUM]);
    }
  });

  test(`${device.name}: test_call_with_options`, () => {
    // loopy prints the code of `f() {id=init}`; here the attributes (an id, a dependency on it)
    // are read, and the call is a statement of the code, before what depends on it
    const knl = registerFunction(makeKernel('{:}', ['f() {id=init}', 'f() {id=again, dep=init}']), noRetFunction(k));
    assert.equal(
      knl.instructions.map((i) => [i.id, i.dependsOn]),
      [
        ['init', []],
        ['again', ['init']],
      ],
    );
    const code = generateCode(knl, device.target).code;
    assert.ok(callStatement(code, ''), code);
  });
}

/** `twice(x)`: a value, in every target's language. */
const twice = defineFunction({
  name: 'twice',
  signature: { args: ['float32'], result: 'float32' },
  opencl: { name: 'twice', preamble: 'float twice(float x) { return 2.0f * x; }' },
  cuda: { name: 'twice', preamble: '__device__ float twice(float x) { return 2.0f * x; }' },
  c: { name: 'twice', preamble: 'static float twice(float x) { return 2.0f * x; }' },
  wgsl: { name: 'twice', preamble: 'fn twice(x: f32) -> f32 { return 2.0 * x; }' },
  js: (x: number) => 2 * x,
});

for (const device of testDevices()) {
  test(`${device.name}: a function with a result, called on a line of its own, has it dropped`, async () => {
    const knl = registerFunction(makeKernel('{[i]: 0<=i<3}', ['twice(x[i]) {id=c}', 'y[i] = x[i] + 1 {dep=c}']), twice);
    const typed = addDtypes(knl, { x: 'float32' });
    // WGSL drops a value only through the phony assignment
    if (device.target.functionDialects?.includes('wgsl'))
      assert.match(generateCode(typed, device.target).code, /_ = twice\(/);
    const out = await run(knl, device, { x: Float32Array.of(1, 2, 3) });
    assert.equal([...(out.y as Float32Array)], [2, 3, 4]);
  });
}

test('test_call_with_no_returned_value: CUDA code (no CUDA device here to run it)', () => {
  const code = generateCode(registerFunction(makeKernel('{:}', 'f()'), noRetFunction(0)), cudaTarget()).code;
  assert.ok(code.includes('__device__ void f() { printf("Hi! (device 0)\\n"); }'), code);
  assert.ok(callStatement(code, ''), code);
});

test('a void function has no value: used in an expression, it is refused', () => {
  const device = testDevices()[0];
  const f = valueFunction(0);
  for (const text of ['y = f(x)', 'y = 1 + f(x)']) {
    const knl = addDtypes(registerFunction(makeKernel('{:}', text), f), { x: 'float32', y: 'float32' });
    assert.throws(
      () => generateCode(knl, device.target),
      (e: unknown) => e instanceof LoomError && /returns nothing/.test(e.message),
    );
  }
});

test.run();
