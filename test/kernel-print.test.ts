/** The kernel views print like loopy's tutorial shows them. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { globalArg, makeKernel, prioritizeLoops, stringifyKernel } from '@loom/core';

const trimLines = (s: string) =>
  s
    .split('\n')
    .map((l) => l.trim())
    .join('\n')
    .trim();

test('the doubling kernel prints as in "Getting started"', () => {
  const knl = makeKernel('{ [i]: 0<=i<n }', 'out[i] = 2*a[i]');
  const expected = `
---------------------------------------------------------------------------
KERNEL: loopy_kernel
---------------------------------------------------------------------------
ARGUMENTS:
a: type: <auto/runtime>, shape: (n), dim_tags: (N0:stride:1) in aspace: global
n: ValueArg, type: <auto/runtime>
out: type: <auto/runtime>, shape: (n), dim_tags: (N0:stride:1) out aspace: global
---------------------------------------------------------------------------
DOMAINS:
[n] -> { [i] : 0 <= i < n }
---------------------------------------------------------------------------
INAME TAGS:
i: None
---------------------------------------------------------------------------
INSTRUCTIONS:
for i
out[i] = 2*a[i] {id=insn}
end i
---------------------------------------------------------------------------`;
  assert.is(trimLines(knl.toString()), trimLines(expected));
});

test('dependencies are listed dependent : prerequisite', () => {
  const knl = makeKernel(
    '{ [i,j]: 0<=i,j<n }',
    `
    out[j,i] = a[i,j] {id=transpose}
    out[i,j] = 2*out[i,j] {dep=transpose}
    `,
    [globalArg('out', { shape: 'auto', isInput: false }), '...'],
    { name: 'transpose_and_dbl' },
  );
  const text = stringifyKernel(knl, { withDependencies: true });
  assert.ok(text.includes('KERNEL: transpose_and_dbl'));
  assert.ok(text.includes('DEPENDENCIES:'));
  assert.ok(
    text.split('\n').some((l) => l.trim() === 'insn : transpose'),
    text,
  );
  assert.ok(
    text.includes('out: type: <auto/runtime>, shape: (n, n), dim_tags: (N1:stride:n, N0:stride:1) out aspace: global'),
    text,
  );
  assert.ok(text.includes('[n] -> { [i, j] : 0 <= i < n and 0 <= j < n }'), text);
});

test('instructions are nested in their loops, in priority order', () => {
  let knl = makeKernel('{ [i,j]: 0<=i,j<n }', 'a[i,j] = 0');
  knl = prioritizeLoops(knl, 'j,i');
  const lines = knl
    .toString()
    .split('\n')
    .map((l) => l.trim());
  const start = lines.indexOf('INSTRUCTIONS:');
  assert.equal(lines.slice(start + 1, start + 6), ['for j', 'for i', 'a[i, j] = 0 {id=insn}', 'end i', 'end j']);
});

test('temporaries are listed with their types and address space', () => {
  const knl = makeKernel(
    '{ [i]: 0<=i<n }',
    `
    <float32> t = 2*a[i]
    out[i] = t + 1
  `,
  );
  assert.match(knl.toString(), /TEMPORARIES:\nt: type: float32, shape: \(\) aspace: auto/);
});

test.run();
