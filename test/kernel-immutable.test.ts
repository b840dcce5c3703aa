/**
 * Kernels are deeply immutable: `run` and code generation cache by kernel identity, so
 * nothing reachable from a kernel may change. The types forbid it (each `@ts-expect-error`
 * below is a compile error without the cast), and the objects refuse it at run time.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { makeKernel, splitIname, tagInames, type Instruction } from '@loom/core';

const knl = tagInames(
  splitIname(
    makeKernel('{ [i]: 0<=i<n }', ['<float32> t = 2*a[i]', 'out[i] = t'], undefined, { assumptions: 'n >= 1' }),
    'i',
    16,
  ),
  { i_inner: 'l.0' },
);

const refuses = (what: string, mutate: () => unknown) => assert.throws(mutate, TypeError, what);

test('the arrays of a kernel refuse to change', () => {
  // @ts-expect-error: a kernel's arrays are readonly
  refuses('instructions.push', () => knl.instructions.push(knl.instructions[0]));
  refuses('args[0] =', () => {
    // @ts-expect-error: a kernel's arrays are readonly
    knl.args[0] = knl.args[1];
  });
  // @ts-expect-error: a kernel's arrays are readonly
  refuses('domains.pop', () => knl.domains.pop());
  // @ts-expect-error: a kernel's arrays are readonly
  refuses('silencedWarnings.push', () => knl.silencedWarnings.push('write_race(*)'));
});

test('the records inside a kernel refuse to change, nested arrays included', () => {
  const insn = knl.instructions[0];
  refuses('insn.id =', () => {
    // @ts-expect-error: records are readonly
    insn.id = 'renamed';
  });
  // @ts-expect-error: records are readonly
  refuses('withinInames.push', () => insn.withinInames.push('j'));
  refuses('dependsOn.length =', () => {
    // @ts-expect-error: records are readonly
    (insn as Instruction).dependsOn.length = 0;
  });
  // @ts-expect-error: records are readonly
  refuses('arg.shape.push', () => knl.arg('a')!.shape!.push(knl.arg('a')!.shape![0]));
  refuses('options.writeCode =', () => {
    // @ts-expect-error: records are readonly
    knl.options.writeCode = true;
  });
  refuses('temporary.addressSpace =', () => {
    // @ts-expect-error: records are readonly
    knl.temporaries.get('t')!.addressSpace = 'local';
  });
});

test('the maps of a kernel refuse to change, though they read as maps', () => {
  // @ts-expect-error: a kernel's maps are ReadonlyMaps
  refuses('inameTags.set', () => knl.inameTags.set('i_outer', { kind: 'group', axis: 0 }));
  // @ts-expect-error: a kernel's maps are ReadonlyMaps
  refuses('temporaries.delete', () => knl.temporaries.delete('t'));
  // @ts-expect-error: a kernel's maps are ReadonlyMaps
  refuses('substitutions.clear', () => knl.substitutions.clear());
  assert.equal(knl.inameTags.get('i_inner'), { kind: 'local', axis: 0 });
  assert.ok(knl.temporaries.has('t'));
  // a copy is an ordinary Map again, the way transformations build the next kernel's
  const copy = new Map(knl.inameTags);
  copy.set('i_outer', { kind: 'group', axis: 0 });
  assert.is(knl.with({ inameTags: copy }).inameTags.get('i_outer')?.kind, 'group');
  assert.is(knl.inameTags.has('i_outer'), false);
});

test('what a kernel was made from is frozen with it, and unchanged maps are shared, not copied', () => {
  const tags = new Map([['i_inner', { kind: 'local', axis: 0 } as const]]);
  const made = knl.with({ inameTags: tags });
  assert.is.not(made.inameTags, tags, 'a mutable map is copied');
  assert.is(made.with({ name: 'other' }).inameTags, made.inameTags, 'a frozen one is kept');
  assert.is(made.with({ name: 'other' }).instructions, made.instructions);
});

test.run();
