/**
 * Programs in the DSL (`.calls({ callee })`): run on every device present against plain
 * JavaScript, transformed by kernel name, inlined, nested; and the calls the compiler cannot
 * read checked when the program is made, with a caret under the call and its place in this file.
 * The compile-time checks are in types/calls.ts.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { LoomError, type LoopKernel } from '@loom/core';
import { cpuDevice } from '@loom/codegen-js';
import { domain, f32, insn, kernel, ProgramBuilder, templateLocationOf } from '@loom/dsl';
import { randomFloat32, testDevices } from './support/devices.ts';

const N = 10;
const twice = kernel('{ [i]: 0<=i<10 }', 'b[i] = 2*a[i]').args({ a: f32(10), b: f32.out(10) });
const main = kernel('{ [i, j]: 0<=i,j<10 }', '[j]: y[i, j] = twice([j]: x[j, i])', { name: 'main' }).args({
  x: f32(10, 10),
  y: f32.out(10, 10),
});
const prog = main.calls({ twice });

/** y[i, j] = 2 * x[j, i] */
const twiceTransposed = (x: Float32Array) =>
  Array.from({ length: N * N }, (_, k) => Math.fround(2 * x[(k % N) * N + Math.floor(k / N)]));

for (const device of testDevices()) {
  test(`${device.name}: a kernel calls another builder's kernel`, async () => {
    const x = randomFloat32(N * N, 3);
    const { y } = await prog.run(device, { x });
    assert.instance(y, Float32Array);
    assert.equal(Array.from(y), twiceTransposed(x));
  });

  test(`${device.name}: a program transformed by kernel name, with its callee inlined, with its callee renamed`, async () => {
    const x = randomFloat32(N * N, 4);
    const split = prog
      .mapKernel('twice', (t) => t.split('i', 3, { inner: 'unr' }).prioritize('i_outer,i_inner'))
      .mapEntrypoints((m) => m.split('i', 4, { outer: 'g.0', inner: 'l.0' }));
    assert.equal(Array.from((await split.run(device, { x })).y), twiceTransposed(x), 'split');
    const inlined = prog.inlineCallableKernel('twice');
    assert.equal([...inlined.program.callables.keys()], ['main']);
    assert.equal(Array.from((await inlined.run(device, { x })).y), twiceTransposed(x), 'inlined');
    const renamed = prog.renameCallable('twice', 'double');
    assert.equal([...renamed.program.callables.keys()].sort(), ['double', 'main']);
    assert.equal(Array.from((await renamed.run(device, { x })).y), twiceTransposed(x), 'renamed');
  });

  test(`${device.name}: values passed to a callee (a scalar, then the parameter its shapes name), and a program called by another`, async () => {
    const scale = kernel('{ [i]: 0<=i<n }', 'b[i] = s*a[i]').args({ a: f32('n'), b: f32.out('n'), s: f32.value() });
    const scaled = kernel('{ [i, j]: 0<=i<4 and 0<=j<6 }', '[j]: y[i, j] = scale([j]: x[i, j], 0.5, 6)')
      .args({ x: f32(4, 6), y: f32.out(4, 6) })
      .calls({ scale });
    const x = randomFloat32(24, 5);
    assert.equal(
      Array.from((await scaled.run(device, { x })).y),
      Array.from(x, (v) => Math.fround(0.5 * v)),
    );
    const outer = kernel(
      '{ [k, i, j]: 0<=k<2 and 0<=i,j<10 }',
      '[i, j]: w[k, i, j] = transposeTwice([i, j]: v[k, i, j])',
    )
      .args({ v: f32(2, 10, 10), w: f32.out(2, 10, 10) })
      .calls({ transposeTwice: prog });
    assert.equal([...outer.program.callables.keys()].sort(), ['loopy_kernel', 'transposeTwice', 'twice']);
    const v = randomFloat32(200, 6);
    const expected = [...twiceTransposed(v.subarray(0, 100)), ...twiceTransposed(v.subarray(100))];
    assert.equal(Array.from((await outer.run(device, { v })).w), expected);
  });
}

/** The error `f` throws. */
function thrown(f: () => unknown): unknown {
  try {
    f();
  } catch (e) {
    return e;
  }
  throw new Error('expected an error');
}

test('a call the compiler cannot read is checked when the program is made, the caret in the template', () => {
  // 5 columns swept, 10 taken
  const narrow = thrown(() =>
    kernel(domain`{ [i, j]: 0<=i<10 and 0<=j<5 }`, insn`[j]: y[i, j] = twice([j]: x[j, i])`).calls({ twice }),
  );
  assert.ok(narrow instanceof LoomError, String(narrow));
  assert.match(narrow.message, /10 elements along axis 0; the call sweeps 5/);
  assert.match(narrow.message, /\^\^\^/);
  assert.match(templateLocationOf(narrow)?.file ?? '', /dsl-programs\.test\.ts$/);
  // a callee not given
  const missing = thrown(() =>
    kernel(domain`{ [i, j]: 0<=i,j<10 }`, insn`[j]: y[i, j] = thrice([j]: x[j, i])`).calls({ twice }),
  );
  assert.ok(missing instanceof LoomError);
  assert.match(missing.message, /calls 'thrice', which \.calls\(\) was not given: pass its kernel/);
  assert.ok(templateLocationOf(missing));
  // a dtype the callee does not take
  const wrongDtype = thrown(() =>
    kernel(domain`{ [i, j]: 0<=i,j<10 }`, insn`[j]: y[i, j] = twice([j]: x[j, i])`)
      .dtypes({ x: 'float64' })
      .calls({ twice }),
  );
  assert.ok(wrongDtype instanceof LoomError);
  assert.match(wrongDtype.message, /'twice' takes 'a' as float32; the call passes x, a float64/);
  // too many arguments
  assert.throws(
    () =>
      kernel(domain`{ [i, j]: 0<=i,j<10 }`, insn`[j]: y[i, j] = twice([j]: x[j, i], [j]: x[i, j])`).calls({ twice }),
    /passes 2 argument\(s\); it takes 1/,
  );
  // what is no builder, the caller's own name, no object
  assert.throws(() => main.calls({ twice: twice.kernel } as never), /'twice' must be a kernel builder/);
  assert.throws(() => main.calls({ main: twice } as never), /'main' is the calling kernel's own name/);
  assert.throws(() => main.calls([twice] as never), /pass the callees by name/);
  assert.throws(() => main.calls({ twice, 'two words': twice } as never), /"two words" is not a name/);
  // a builder interpolated where its name belongs
  assert.throws(
    () => insn`[j]: y[i, j] = ${twice as never}([j]: x[j, i])`,
    /cannot interpolate a KernelBuilder: a kernel calls another by name; .*\.calls\(\{ twice \}\)/,
  );
});

test('a program builder: its kernels, its code with the callee a device function, its statistics, its kernel view', () => {
  assert.ok(prog instanceof ProgramBuilder);
  assert.is(prog.name, 'main');
  const names: string[] = [];
  prog.forEachKernel((knl: LoopKernel, name) => {
    names.push(name);
    assert.is(knl.name, name);
  });
  assert.equal(names.sort(), ['main', 'twice']);
  // the callee keeps its builder's kernel under the name the calls use
  assert.is(prog.program.kernel('twice').instructions.length, 1);
  // the CPU device's target calls functions: the callee is one, gone once inlined
  assert.match(prog.code(cpuDevice().target), /twice\(/);
  assert.not.match(prog.inlineCallableKernel('twice').code(cpuDevice().target), /twice\(/);
  const ops = prog
    .stats({ subgroupSize: 32 })
    .ops.filterBy({ dtype: ['float32'] })
    .evalAndSum({});
  assert.is(ops, N * N);
  const view = prog.toString();
  assert.ok(view.indexOf('KERNEL: main') < view.indexOf('KERNEL: twice'), view);
  // builders are immutable: mapping gives a new program and leaves this one
  const mapped = prog.mapKernel('twice', (t) => t.split('i', 2));
  assert.ok(mapped.program.kernel('twice').inames.includes('i_outer'));
  assert.not.ok(prog.program.kernel('twice').inames.includes('i_outer'));
  assert.throws(() => mapped.mapKernel('nope' as never, (t) => t), /calls no kernel 'nope'/);
  assert.throws(() => prog.renameCallable('twice', 'main' as never), /already has a kernel 'main'/);
  assert.throws(() => prog.renameCallable('twice', 'x(); evil' as never), /not a name/);
  assert.throws(() => prog.mapEntrypoints((m) => m.apply((k) => k.with({ name: 'other' }))), /came back named 'other'/);
});

test.run();
