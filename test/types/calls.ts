/**
 * Programs in the DSL: `.calls({ callee })` checks each call the instructions write against
 * the callee's signature, and the program's `run` is typed by the entrypoint's.
 */
import type { Device } from '@loom/core';
import { f32, f64, i32, kernel, type CallFacts } from '@loom/dsl';
import { value, type Equal, type Expect } from './helpers.ts';

// ---- the calls a literal instruction block makes ----
export type FactCases = [
  Expect<
    Equal<
      CallFacts<'[j]: y[i, j] = twice([j]: x[j, i])'>,
      { readonly callee: 'twice'; readonly args: ['x']; readonly results: ['y'] }
    >
  >,
  Expect<
    Equal<
      CallFacts<'[]: lo[()], []: at[()] = argmin([i]: b[i], n, 2*n) {id=c}'>,
      { readonly callee: 'argmin'; readonly args: ['b', 'n', '#']; readonly results: ['lo', 'at'] }
    >
  >,
  Expect<
    Equal<
      CallFacts<'z[i, 3:-1:-1] = f(x[i, :])'>,
      { readonly callee: 'f'; readonly args: ['x']; readonly results: ['z'] }
    >
  >,
  // no sub-array reference or slice: an ordinary assignment; a rule is no call
  Expect<Equal<CallFacts<'y[i] = f(x[i])\ng(a) := a + 1\nout[i] = max(a[i], b[i])'>, never>>,
];

const device = value<Device>();
const twice = kernel('{ [i]: 0<=i<10 }', 'b[i] = 2*a[i]').args({ a: f32(10), b: f32.out(10) });
const main = kernel('{ [i, j]: 0<=i,j<10 }', '[j]: y[i, j] = twice([j]: x[j, i])').args({
  x: f32(10, 10),
  y: f32.out(10, 10),
});

export async function callCases(): Promise<void> {
  // a right call compiles, and the program's run is the entrypoint's
  const prog = main.calls({ twice });
  const { y } = await prog.run(device, { x: new Float32Array(100) });
  type _y = Expect<Equal<typeof y, Float32Array>>;
  // @ts-expect-error: x is a float32 array
  await prog.run(device, { x: new Float64Array(100) });
  // @ts-expect-error: x is required
  await prog.run(device, {});

  // a callee of another dtype
  const twice64 = kernel('{ [i]: 0<=i<10 }', 'b[i] = 2*a[i]').args({ a: f64(10), b: f64.out(10) });
  // @ts-expect-error: 'x' is a float32 array; the input arrays of 'twice' are float64
  main.calls({ twice: twice64 });
  // a callee taking two arrays, called with one
  const add = kernel('{ [i]: 0<=i<10 }', 'c[i] = a[i] + b[i]').args({ a: f32(10), b: f32(10), c: f32.out(10) });
  // @ts-expect-error: the call of 'twice' passes 1 argument(s); 'twice' takes 2
  main.calls({ twice: add });
  // a callee with a parameter: the call passes it too
  const twiceN = kernel('{ [i]: 0<=i<n }', 'b[i] = 2*a[i]').args({ a: f32('n'), b: f32.out('n') });
  // @ts-expect-error: 'twice' takes 2 (a and n)
  main.calls({ twice: twiceN });
  kernel('{ [i, j]: 0<=i,j<10 }', '[j]: y[i, j] = twice([j]: x[j, i], 10)')
    .args({ x: f32(10, 10), y: f32.out(10, 10) })
    .calls({ twice: twiceN });
  // two results from a callee with one output
  const pair = kernel('{ [i, j]: 0<=i,j<10 }', '[j]: y[i, j], [j]: z[i, j] = twice([j]: x[j, i])').args({
    x: f32(10, 10),
    y: f32.out(10, 10),
    z: f32.out(10, 10),
  });
  // @ts-expect-error: assigns 2 result(s); 'twice' has 1 output array(s)
  pair.calls({ twice });
  // a result written to an input of the caller
  const intoInput = kernel('{ [i, j]: 0<=i,j<10 }', '[j]: y[i, j] = twice([j]: x[j, i])').args({
    x: f32(10, 10),
    y: f32(10, 10),
  });
  // @ts-expect-error: 'y' is an input of this kernel; the call of 'twice' writes it
  intoInput.calls({ twice });
  // dtypes given later keep the calls checked
  const typedLater = kernel('{ [i, j]: 0<=i,j<10 }', '[j]: y[i, j] = twice([j]: x[j, i])').dtypes({ x: 'float64' });
  // @ts-expect-error: 'x' is a float64 array
  typedLater.calls({ twice });
  // a callee missing, or under another name
  // @ts-expect-error: the instructions call 'twice'
  main.calls({});
  // @ts-expect-error: 'twice' is missing
  main.calls({ double: twice });
  // callees of literal text without declarations: any dtype goes, the counts are checked
  const loose = kernel('{ [i]: 0<=i<10 }', 'b[i] = 2*a[i]');
  main.calls({ twice: loose });
  const twoIn = kernel('{ [i]: 0<=i<10 }', 'c[i] = a[i] + b[i]');
  // @ts-expect-error: passes 1 argument(s); takes 2
  main.calls({ twice: twoIn });
  // value arguments are declared values of the callee
  const scale = kernel('{ [i]: 0<=i<10 }', 'b[i] = s*a[i]').args({ a: f32(10), b: f32.out(10), s: f32.value() });
  kernel('{ [i, j]: 0<=i,j<10 }', '[j]: y[i, j] = scale([j]: x[j, i], 3)')
    .args({ x: f32(10, 10), y: f32.out(10, 10) })
    .calls({ scale });
  const indices = kernel('{ [i, j]: 0<=i,j<10 }', '[j]: y[i, j] = scale([j]: x[j, i], 3)').args({
    x: i32(10, 10),
    y: f32.out(10, 10),
  });
  // @ts-expect-error: 'x' is a int32 array
  indices.calls({ scale });
}

export function programVerbCases(): void {
  const prog = main.calls({ twice });
  // a callee transformed by its own builder's verbs, which know its inames
  prog.mapKernel('twice', (t) => t.split('i', 2, { inner: 'unr' }));
  // @ts-expect-error: 'j' is no iname of twice
  prog.mapKernel('twice', (t) => t.split('j', 2));
  // @ts-expect-error: the callee must keep its signature
  prog.mapKernel('twice', () => twice64());
  // @ts-expect-error: no callee 'add'
  prog.mapKernel('add', (t) => t);
  // the entrypoint, likewise
  const split = prog.mapEntrypoints((m) => m.split('i', 2, { outer: 'g.0', inner: 'l.0' }));
  // @ts-expect-error: 'i' was split
  split.mapEntrypoints((m) => m.split('i', 2));
  // inlined, a callee is no longer one
  const inlined = prog.inlineCallableKernel('twice');
  type _inlined = Expect<Equal<Parameters<typeof inlined.mapKernel>[0], never>>;
  // @ts-expect-error: no callee 'twice' left
  inlined.inlineCallableKernel('twice');
  // a callee renamed is known by its new name
  const renamed = prog.renameCallable('twice', 'double');
  type _renamed = Expect<Equal<Parameters<typeof renamed.mapKernel>[0], 'double'>>;
  // @ts-expect-error: no callee 'thrice'
  prog.renameCallable('thrice', 'double');
  // a program calls programs
  const outer = kernel('{ [k, i, j]: 0<=k<2 and 0<=i,j<10 }', '[i, j]: w[k, i, j] = inner([i, j]: v[k, i, j])')
    .args({ v: f32(2, 10, 10), w: f32.out(2, 10, 10) })
    .calls({ inner: prog });
  void outer;
}

function twice64() {
  return kernel('{ [i]: 0<=i<10 }', 'b[i] = 2*a[i]').args({ a: f64(10), b: f64.out(10) });
}
