/**
 * Ports of loopy's test/test_loopy.py tests of issue 27's "atomics of temporaries, base
 * storage" group: `dep_query` (a dependency given as a match expression) and temporaries
 * sharing a `baseStorage` (`allocateTemporariesForBaseStorage`); `atomic=init` is ported
 * with the atomics (test_loopy.py.atomics.test.ts). Each runs on every test device and is
 * checked against plain JavaScript. Names are the originals'.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  allocateTemporariesForBaseStorage,
  generateCode,
  LoomError,
  makeKernel,
  preprocessKernel,
  run,
  temporaryVariable,
} from '@loom/core';
import { cTarget } from '@loom/codegen-c';
import { supportsDType, testDevices } from '../support/devices.ts';

/**
 * loopy's kernel of test_missing_definition_check_respects_aliases: `b` shares `a`'s storage,
 * so `c = b` reads what `a = ...` wrote; `dep_query=writes:a` orders it after that write.
 * `aValue` is what `a` gets (loopy's 0; the run also writes `2*i`, so that a read of
 * anything but the shared storage shows).
 */
function aliasedKernel(aValue: string, dtype: 'float64' | 'float32') {
  return makeKernel(
    '{ [i] : 0<=i<n }',
    `a[i] = ${aValue}
     c[i] = b[i]  {dep_query=writes:a}`,
    [
      temporaryVariable('a', { dtype, shape: 'n', baseStorage: 'base', addressSpace: 'global' }),
      temporaryVariable('b', { dtype, shape: 'n', baseStorage: 'base', addressSpace: 'global' }),
      '...',
    ],
    { silencedWarnings: ['read_no_write(b)'] },
  );
}

test('test_missing_definition_check_respects_aliases: code for the C target', () => {
  let knl = aliasedKernel('0', 'float64');
  knl = preprocessKernel(knl, cTarget());
  knl = allocateTemporariesForBaseStorage(knl);
  const code = generateCode(knl, cTarget()).code;
  // one storage of n doubles, written and read: no definition is missing
  assert.ok(/double \*__restrict__ base/.test(code), code);
  assert.not.ok(/\bb\[/.test(code), code);
});

test('dep_query: the instructions it selects become dependencies; selecting none is an error', () => {
  const knl = aliasedKernel('0', 'float64');
  const reader = knl.instructions.find((insn) => insn.assignees.length && insn.dependsOn.length);
  const writer = knl.instructions.find((insn) => insn !== reader);
  assert.equal(reader?.dependsOn, [writer?.id]);
  assert.throws(
    () => makeKernel('{ [i]: 0<=i<4 }', 'out[i] = 1 {dep_query=writes:zz}'),
    (e: unknown) => e instanceof LoomError && /selects no instruction/.test(String(e)),
  );
  assert.throws(
    () => makeKernel('{ [i]: 0<=i<4 }', 'out[i] = 1 {dep_query=writes:(}'),
    (e: unknown) => e instanceof LoomError,
  );
});

test('base storage of parametric temporaries of different sizes is a LoomError', () => {
  assert.throws(
    () =>
      makeKernel('{ [i]: 0<=i<n }', 'a[i] = 1\nc[i] = b[i] {dep_query=writes:a}', [
        temporaryVariable('a', { dtype: 'float32', shape: 'n', baseStorage: 's', addressSpace: 'global' }),
        temporaryVariable('b', { dtype: 'float32', shape: 'n + 1', baseStorage: 's', addressSpace: 'global' }),
        '...',
      ]),
    (e: unknown) => e instanceof LoomError && /sizes are the same/.test(String(e)),
  );
});

for (const device of testDevices()) {
  test(`${device.name}: test_missing_definition_check_respects_aliases`, async () => {
    const dtype = supportsDType(device, 'float64') ? 'float64' : 'float32';
    const n = 37;
    for (const aValue of ['0', '2*i']) {
      const knl = allocateTemporariesForBaseStorage(preprocessKernel(aliasedKernel(aValue, dtype)));
      const { c } = await run(knl, device, { n });
      const expected = Array.from({ length: n }, (_, i) => (aValue === '0' ? 0 : 2 * i));
      assert.equal(Array.from(c as ArrayLike<number>), expected, `a = ${aValue}`);
    }
  });
}

test.run();
