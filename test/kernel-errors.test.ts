/** Bad input is a LoomError naming the problem, raised before anything runs. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  InternalError,
  LoomError,
  LinearizationError,
  prioritizeLoops,
  globalArg,
  makeKernel,
  run,
  valueArg,
  collectWarnings,
  generateCode,
} from '@loom/core';
import { cpuDevice, jsTarget } from '@loom/codegen-js';
import { jsName } from '../packages/codegen-js/src/names.ts';

function throwsLoom(fn: () => unknown, pattern: RegExp): string {
  try {
    fn();
  } catch (e) {
    assert.instance(e, LoomError, `expected a LoomError, got ${e}`);
    assert.match((e as Error).message, pattern);
    return (e as Error).message;
  }
  assert.unreachable(`expected a LoomError matching ${pattern}`);
  return '';
}

async function rejectsLoom(p: Promise<unknown>, pattern: RegExp): Promise<string> {
  try {
    await p;
  } catch (e) {
    assert.instance(e, LoomError, `expected a LoomError, got ${e}`);
    assert.match((e as Error).message, pattern);
    return (e as Error).message;
  }
  assert.unreachable(`expected a LoomError matching ${pattern}`);
  return '';
}

test('a name used only as an index that is nothing the kernel knows is a LoomError with a did-you-mean (issue 24: out[i] = 2*a[ii] was [6, 6, 6])', () => {
  const msg = throwsLoom(
    () => makeKernel('{[i]: 0<=i<3}', 'out[i] = 2*a[ii]'),
    /'ii' in instruction '\w+' is used only as an index, and is neither an iname, an argument, a temporary nor a domain parameter; did you mean the iname 'i'\?/,
  );
  assert.match(msg, /out\[i\] = 2\*a\[ii\]\n\s*\^\^\n?/);
  // legitimate uses stay: a domain parameter, a declared value argument, a shape variable
  makeKernel('{[i]: 0<=i<n}', 'out[i] = 2*a[i + n - 1]');
  makeKernel('{[i]: 0<=i<3}', 'out[i] = 2*a[i + off]', [valueArg('off', 'int32'), '...']);
  makeKernel('{[i]: 0<=i<3}', 'out[i] = 2*a[i + m]', [globalArg('a', { dtype: 'float32', shape: ['m + 3'] }), '...']);
  // and a name also read as a value is a value argument, as before
  makeKernel('{[i]: 0<=i<3}', 'out[i] = off*a[i + off]');
});

test('a malformed instruction points at the problem', () => {
  const msg = throwsLoom(() => makeKernel('{ [i]: 0<=i<n }', 'out[i] = 2*a[i'), /./);
  assert.match(msg, /\^/);
  throwsLoom(() => makeKernel('{ [i]: 0<=i<n }', 'out[i] 2*a[i]'), /expected an assignment/);
  throwsLoom(
    () => makeKernel('{ [i]: 0<=i<n }', 'out[i] = a[i] {colour=red}'),
    /unknown instruction attribute 'colour'/,
  );
  throwsLoom(() => makeKernel('{ [i]: 0<=i<n }', 'for i\n out[i] = 1'), /never closed/);
  throwsLoom(() => makeKernel('{ [i]: 0<=i<n }', '<floaty> t = 1'), /unknown type 'floaty'/);
});

test('an unknown variable is named, with a caret under it', () => {
  const msg = throwsLoom(
    () => makeKernel('{ [i]: 0<=i<n }', 'out[i] = a[i] * scale', [globalArg('a'), globalArg('out'), valueArg('n')]),
    /unknown variable 'scale'/,
  );
  const lines = msg.split('\n');
  const caretLine = lines[lines.length - 1];
  const sourceLine = lines[lines.length - 2];
  assert.is(sourceLine.slice(caretLine.indexOf('^'), caretLine.lastIndexOf('^') + 1), 'scale');
});

test('an instruction whose inames= leaves out an iname it reads is refused (loopy: check_for_inactive_iname_access)', () => {
  // before this check, code generation wrote `j` where no loop declares it
  throwsLoom(
    () => makeKernel('{ [i,j]: 0<=i,j<n }', 'out[i,j] = a[i,j] {inames=i}'),
    /reads the iname 'j' outside its loop/,
  );
  throwsLoom(
    () => makeKernel('{ [i,j]: 0<=i,j<n }', 'out[i] = a[i] {inames=i}\nif j > 0\n  out[i] = 0 {inames=i}\nend'),
    /reads the iname 'j'/,
  );
  // inside a reduction over it, the iname is bound, not read from a loop
  const ok = makeKernel('{ [i,j]: 0<=i,j<n }', 'out[i] = sum(j, a[i,j]) {inames=i}');
  assert.equal(ok.instructions[0].withinInames, ['i']);
});

test('an unknown dependency is named', () => {
  throwsLoom(() => makeKernel('{ [i]: 0<=i<n }', 'out[i] = 1 {dep=nothere}'), /matches no instruction/);
});

test('a wrong argument name, a wrong dtype and a short array fail before launching', async () => {
  const knl = makeKernel('{ [i]: 0<=i<n }', 'out[i] = 2*a[i]', [globalArg('a', { dtype: 'float32' }), '...']);
  const device = cpuDevice();
  await rejectsLoom(run(knl, device, { b: new Float32Array(3) } as never), /has no argument 'b'/);
  await rejectsLoom(run(knl, device, { a: new Float64Array(3) }), /'a' is float32, but a Float64Array/);
  await rejectsLoom(
    run(knl, device, { a: new Float32Array(3), n: 4 }),
    /'a' has 3 elements, but shape \(n\) = \(4\) needs 4/,
  );
  await rejectsLoom(run(knl, device, {}), /missing value for argument 'n'|missing input array 'a'/);
  await rejectsLoom(run(knl, device, { a: new Float32Array(3), out: new Float32Array(2) }), /'out' has 2 elements/);
});

test('a declared shape too small for the accesses is caught before launching', async () => {
  const knl = makeKernel('{ [i]: 0<=i<n }', 'out[i+1] = a[i]', [
    globalArg('out', { shape: ['n'], dtype: 'float32', isInput: false }),
    '...',
  ]);
  const out = new Float32Array(4).fill(7);
  await rejectsLoom(run(knl, cpuDevice(), { a: new Float32Array(4), out }), /outside its shape/);
  assert.ok(
    out.every((v) => v === 7),
    'nothing was written',
  );
});

test('parameter values must satisfy the assumptions', async () => {
  const knl = makeKernel('{ [i]: 0<=i<n }', 'out[i] = 5\nout[0] = 6', undefined, { assumptions: 'n>=1' });
  await rejectsLoom(run(knl, cpuDevice(), { n: 0 }), /violates the kernel's assumptions/);
});

test('a dependency cycle is explained', () => {
  const knl = makeKernel(
    '{ [i]: 0<=i<n }',
    `
    a[i] = b[i] {id=x, dep=y}
    b[i] = a[i] {id=y, dep=x}
  `,
  );
  throwsLoom(
    () =>
      generateCode(
        knl.with({ args: knl.args.map((a) => ({ ...a, dtype: a.kind === 'value' ? 'int32' : 'float32' })) }),
        jsTarget(),
      ),
    /dependency cycle: 'x' depends on 'y' depends on 'x'/,
  );
});

test('a loop that would be entered twice is explained', () => {
  const knl = makeKernel(
    '{ [i]: 0<=i<n }',
    `
    a[i] = 1 {id=first}
    <> s = a[0] {id=middle, dep=first}
    b[i] = s {id=last, dep=middle}
  `,
    [globalArg('a', { shape: ['n'], dtype: 'float32' }), globalArg('b', { shape: ['n'], dtype: 'float32' }), '...'],
    { assumptions: 'n>=1' },
  );
  try {
    generateCode(knl, jsTarget());
    assert.unreachable();
  } catch (e) {
    assert.instance(e, LinearizationError);
    assert.match(
      (e as Error).message,
      /'last' \(inside loop 'i'\) depends on 'middle' \(outside loop 'i'\), which depends on 'first' \(inside loop 'i'\)/,
    );
  }
});

test('ambiguous loop nesting warns; prioritizeLoops silences it', () => {
  const knl = makeKernel('{ [i,j]: 0<=i,j<n }', 'a[i,j] = 0', [globalArg('a', { dtype: 'float32' }), '...']);
  const { warnings } = collectWarnings(() => generateCode(knl, jsTarget()));
  assert.ok(
    warnings.some((w) => /ambiguous/.test(w.message)),
    warnings.map(String).join('\n'),
  );
  const quiet = collectWarnings(() => generateCode(prioritizeLoops(knl, 'j,i'), jsTarget()));
  assert.equal(quiet.warnings, []);
});

test('a broken invariant is an InternalError, no LoomError: it asks for a bug report and carries the detail', () => {
  // a printer's backstop: core never hands a target a non-name, so meeting one is Loom's bug
  try {
    jsName('not a name');
    assert.unreachable('expected an InternalError');
  } catch (e) {
    assert.instance(e, InternalError);
    assert.not.instance(e, LoomError);
    assert.match((e as InternalError).message, /this is a bug in Loom, please report it/);
    assert.match((e as InternalError).detail, /^a name in the generated JavaScript: .* is not a name$/);
  }
});

test.run();
