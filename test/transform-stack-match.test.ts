/**
 * Stack matches (loopy's match_stack syntax) in expandSubst's `within`: the instruction,
 * then the rule invocations on the way, joined by `>`, with `...` for any levels and a
 * trailing `$` for the innermost. Results against plain JavaScript on every device.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { expandSubst, LoomError, makeKernel, run } from '@loom/core';
import { testDevices } from './support/devices.ts';

const rules = () =>
  makeKernel(
    '{[i]: 0<=i<n}',
    `sq(x) := x*x
     twice(x) := 2*sq(x)
     out[i] = twice$a(a[i]) + sq$b(a[i]) {id=both}
     out2[i] = twice(a[i]) {id=other}`,
  );

test('a stack match expands the calls its stack picks, and copies a rule whose body changes for one call', () => {
  // only sq called from twice, called from the instruction 'both'
  const knl = expandSubst(rules(), 'id:both > twice > sq $');
  const text = knl.toString();
  assert.match(text, /out\[i\] = twice_0\$a\(a\[i\]\) \+ sq\$b\(a\[i\]\)/);
  assert.match(text, /twice_0\(x\) := 2\*\(x\*x\)/);
  assert.match(text, /out2\[i\] = twice\(a\[i\]\)/);
  // '...' reaches any level; 'tag:' matches the call's tag
  assert.match(expandSubst(rules(), '... > tag:b').toString(), /out\[i\] = twice\$a\(a\[i\]\) \+ a\[i\]\*a\[i\]/);
  // a plain match expression keeps its meaning: every call in the instructions it picks
  assert.match(expandSubst(rules(), 'id:other').toString(), /out2\[i\] = 2\*\(a\[i\]\*a\[i\]\)/);
});

test('a stack match that picks nothing, or asks a rule what only an instruction has, is an error', () => {
  const refuses = (within: string, pattern: RegExp) =>
    assert.throws(
      () => expandSubst(rules(), within),
      (e: unknown) => e instanceof LoomError && pattern.test(e.message),
    );
  refuses('id:both > nosuchrule', /matches no rule invocation/);
  refuses('id:both > writes:out', /'writes:' cannot be applied to a rule invocation \('twice'\)/);
  refuses('id:both > > sq', /has an empty entry/);
});

for (const device of testDevices()) {
  test(`${device.name}: a kernel gives the same values with its rules expanded on a stack`, async () => {
    const a = Float32Array.from({ length: 9 }, (_, k) => k * 0.5 - 2);
    const square = (x: number) => Math.fround(x * x);
    const expected = {
      out: Array.from(a, (x) => Math.fround(Math.fround(2 * square(x)) + square(x))),
      out2: Array.from(a, (x) => Math.fround(2 * square(x))),
    };
    for (const within of ['id:both > twice > sq $', '... > tag:b', '... > sq']) {
      const { out, out2 } = await run(expandSubst(rules(), within), device, { a });
      assert.equal({ out: Array.from(out as Float32Array), out2: Array.from(out2 as Float32Array) }, expected, within);
    }
  });
}

test.run();
