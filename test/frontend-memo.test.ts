// Parsing is remembered per text (issue 18, item 4: the fixed cost of small kernels): a kernel
// built again from the same strings shares the parsed sets and instructions. What the cache keys
// on must be everything a parse depends on; these tests pin the parts that are not the text.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { addDtypes, generateCode, makeKernel, registerReduction, splitIname } from '@loom/core';
import { openclTarget } from '@loom/codegen-opencl';

test('a kernel built again from the same text shares its parsed domain and generates the same code', () => {
  const build = () =>
    addDtypes(
      splitIname(makeKernel('{ [i]: 0<=i<n }', 'out[i] = 2*a[i]'), 'i', 16, { outerTag: 'g.0', innerTag: 'l.0' }),
      { a: 'float32' },
    );
  const first = build();
  const second = build();
  assert.is.not(first, second, 'two kernels');
  assert.is(first.domains[0], second.domains[0], 'the same split of the same parsed set is one set');
  assert.is(generateCode(second, openclTarget()).code, generateCode(first, openclTarget()).code);
});

test('registering a reduction changes how a remembered instruction text reads', () => {
  const domain = '{ [i, k]: 0 <= i < n and 0 <= k < 4 }';
  const text = 'out[i] = memoized_sum(k, a[i, k])';
  assert.is(makeKernel(domain, text).instructions[0].expression?.kind, 'call', 'an unknown name is a call');
  registerReduction({ name: 'memoized_sum', neutral: ['0'], combine: ['a + b'] });
  assert.is(
    makeKernel(domain, text).instructions[0].expression?.kind,
    'reduce',
    'after registration, the same text is a reduction',
  );
});

test('the inames decide how a remembered instruction text reads', () => {
  // `max(k, e)` is a reduction over k when k is an iname, else the function max
  const text = 'out[i] = max(k, a[i])';
  const overK = makeKernel('{ [i, k]: 0 <= i < n and 0 <= k < 4 }', text);
  assert.is(overK.instructions[0].expression?.kind, 'reduce');
  const ofValue = makeKernel('{ [i]: 0 <= i < n }', text);
  assert.is(ofValue.instructions[0].expression?.kind, 'call');
});

test('sets with existentials are parsed afresh (their names are never shared between kernels)', () => {
  const domain = '{ [i]: 0 <= i < n and i mod 2 = 0 }';
  const a = makeKernel(domain, 'out[i] = 1');
  const b = makeKernel(domain, 'out[i] = 1');
  assert.is.not(a.domains[0], b.domains[0]);
  assert.ok(Object.isFrozen(a.instructions[0]) && Object.isFrozen(b.instructions[0]));
});

test.run();
