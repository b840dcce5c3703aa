/**
 * Differential testing of what a kernel is called with, the bounded sample CI runs: complex
 * DeviceArrays and one array passed as two arguments, arrays of struct dtypes, and argument layouts
 * (order F, views, padded arrays, loopy's spellings, complex values), on every device present,
 * against plain JS or a LoomError where Loom cannot take them (test/support/differential/ makes the
 * cases). Fixed seeds: a failure names the command that reproduces it.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runArgumentCase } from './support/differential/kernel-arguments.ts';
import { runStructCase } from './support/differential/struct-arrays.ts';
import { runLayoutCase } from './support/differential/argument-layouts.ts';
import { casesOf, range } from './support/differential/sample.ts';

test('kernel arguments (complex DeviceArrays for inferred dtypes; one array as two arguments) agree with plain JS on every device, or are LoomErrors where aliasing is unsafe, fixed seeds', async () => {
  const ran = await casesOf(range(25_000, 2), runArgumentCase);
  assert.ok(
    ran.some((w) => w.startsWith('complex arguments')) && ran.some((w) => w.startsWith('aliased arguments')),
    ran.join('; '),
  );
});

test('arrays of struct dtypes (nested structs, array fields, 64-bit fields where held) agree with plain JS on every device, or are LoomErrors where a field cannot be held, fixed seeds', async () => {
  const ran = await casesOf(range(29_000, 3), runStructCase);
  assert.ok(ran.length === 3, ran.join('; '));
});

test("argument layouts (order F, views with offsets and strides, padded arrays passed flat), loopy's argument spellings and complex value arguments agree with plain JS on every device, fixed seeds", async () => {
  const ran = await casesOf(range(27_000, 6), runLayoutCase);
  // the sample reaches a view, an F-order layout, a spelling other than a list, and a complex value
  for (const kind of [
    /views/,
    / F /,
    /arguments: (?!list)/,
    /^complex value arguments/,
    /^padded arguments: .*split by/,
  ])
    assert.ok(
      ran.some((w) => kind.test(w)),
      `no case matches ${kind}: ${ran.join('; ')}`,
    );
});

test.run();
