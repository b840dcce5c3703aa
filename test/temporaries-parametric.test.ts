/**
 * Temporaries whose size depends on the parameters: global ones, which run and
 * prepareLaunch allocate for each call at the size the call's values give; a private or
 * local one is declared sized at launch where the target can (C's variable-length arrays),
 * and refused elsewhere, saying why (test/peers/test_loopy.py.temps.test.ts runs them).
 * addPrefetch and precompute store a footprint of parametric size in global memory when
 * asked to.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  addDtypes,
  addPrefetch,
  DeviceArray,
  generateCode,
  LoomError,
  makeKernel,
  precompute,
  prepareLaunch,
  printExpr,
  run,
  setTemporaryAddressSpace,
  splitIname,
} from '@loom/core';
import { openclTarget } from '@loom/codegen-opencl';
import { cTarget } from '@loom/codegen-c';
import { testDevices } from './support/devices.ts';

/** out[i] = sum of a[0..i], through a global temporary c of n elements that the second kernel reads. */
function prefixThroughGlobal() {
  const knl = makeKernel(
    '{ [i, j]: 0<=i<n and 0<=j<=i }',
    `for i
       <> c[i] = 2*a[i]
     end
     ... gbarrier
     for i
       out[i] = sum(j, c[j])
     end`,
    undefined,
    { seqDependencies: true },
  );
  const typed = addDtypes(setTemporaryAddressSpace(knl, 'c', 'global'), { a: 'float32' });
  return splitIname(typed, 'i', 4, { outerTag: 'g.0', innerTag: 'l.0' });
}

const prefixReference = (a: Float32Array) => {
  let s = 0;
  return Array.from(a, (x) => (s = Math.fround(s + Math.fround(2 * x))));
};

test('a global temporary of parametric size is a buffer of the call, with its shape in the parameters', () => {
  const code = generateCode(prefixThroughGlobal(), openclTarget());
  assert.equal(
    code.host.temporaries.map((t) => [t.name, t.shape.map(printExpr)]),
    [['c', ['n']]],
  );
});

test('a private temporary of parametric size is refused on OpenCL, naming the target and global memory as the way out; C declares it, and a local one on OpenCL is a __local argument', () => {
  const knl = makeKernel('{ [i]: 0<=i<n }', ['<> c[i] = 2*a[i]', 'out[i] = c[i]'].join('\n'));
  const local = addDtypes(setTemporaryAddressSpace(knl, 'c', 'local'), { a: 'float32' });
  assert.match(generateCode(local, openclTarget()).code, /, __local float \*__restrict__ c\)/);
  assert.match(generateCode(local, cTarget()).code, /\bfloat c\[n\];/);
  for (const space of ['private', 'auto'] as const) {
    const placed = addDtypes(space === 'auto' ? knl : setTemporaryAddressSpace(knl, 'c', space), { a: 'float32' });
    assert.throws(
      () => generateCode(placed, openclTarget()),
      (e: unknown) =>
        e instanceof LoomError &&
        e.message.includes("temporary 'c' in private memory has a size known only at launch (n elements)") &&
        e.message.includes('the opencl target cannot declare such an array') &&
        e.message.includes("temporaryAddressSpace: 'global'"),
      space,
    );
    assert.match(generateCode(placed, cTarget()).code, /\bfloat c\[n\];/, space);
  }
});

test('a footprint of parametric size is a private array sized at launch (refused where the target has none), or a global one', () => {
  const knl = addDtypes(makeKernel('{ [i,j]: 0<=i<n and 0<=j<m }', 'out[i] = sum(j, a[j] * b[i])'), {
    a: 'float32',
    b: 'float32',
  });
  const privately = addPrefetch(knl, 'a', ['j']);
  assert.equal(privately.temporaries.get('a_fetch')?.shape.map(printExpr), ['m']);
  assert.throws(
    () => generateCode(privately, openclTarget()),
    (e: unknown) =>
      e instanceof LoomError &&
      /temporary 'a_fetch' in private memory has a size known only at launch \(m elements\)/.test(e.message) &&
      /temporaryAddressSpace: 'global'/.test(e.message),
  );
  const fetched = addPrefetch(knl, 'a', ['j'], { temporaryAddressSpace: 'global' });
  assert.equal(fetched.temporaries.get('a_fetch')?.shape.map(printExpr), ['m']);
});

for (const device of testDevices()) {
  test(`${device.name}: a global temporary of parametric size, through run at several sizes`, async () => {
    for (const n of [7, 16, 1]) {
      const a = Float32Array.from({ length: n }, (_, k) => (k % 5) - 1.5);
      const { out } = await run(prefixThroughGlobal(), device, { a, n });
      assert.equal(Array.from(out as Float32Array), prefixReference(a), `n=${n}`);
    }
  });

  test(`${device.name}: a global temporary of parametric size, through prepareLaunch`, async () => {
    const n = 11;
    const a0 = Float32Array.from({ length: n }, (_, k) => k * 0.5);
    const a = await DeviceArray.from(device, a0, 'float32');
    const out = await DeviceArray.from(device, new Float32Array(n), 'float32');
    const prepared = await prepareLaunch(prefixThroughGlobal(), device, { a, out, n });
    await prepared.launch();
    assert.equal(Array.from((await out.toHost()) as Float32Array), prefixReference(a0));
    prepared.release();
    a.release();
    out.release();
  });

  test(`${device.name}: addPrefetch and precompute into global temporaries of parametric size`, async () => {
    const knl = addDtypes(makeKernel('{ [i,j]: 0<=i<n and 0<=j<m }', 'out[i] = sum(j, a[j] * b[i])'), {
      a: 'float32',
      b: 'float32',
    });
    const ruled = addDtypes(
      makeKernel('{ [i,j]: 0<=i<n and 0<=j<m }', ['twice(j) := 2*a[j]', 'out[i] = sum(j, twice(j) * b[i])'].join('\n')),
      { a: 'float32', b: 'float32' },
    );
    const variants = [
      addPrefetch(knl, 'a', ['j'], { temporaryAddressSpace: 'global' }),
      precompute(ruled, 'twice', ['j'], { temporaryAddressSpace: 'global' }),
    ];
    const [n, m] = [5, 9];
    const a = Float32Array.from({ length: m }, (_, k) => k - 4);
    const b = Float32Array.from({ length: n }, (_, k) => k + 0.5);
    for (const [k, variant] of variants.entries()) {
      const { out } = await run(variant, device, { a, b, n, m });
      const factor = k === 0 ? 1 : 2;
      const expected = Array.from(b, (bi) =>
        a.reduce((s, aj) => Math.fround(s + Math.fround(Math.fround(factor * aj) * bi)), 0),
      );
      assert.equal(Array.from(out as Float32Array), expected);
    }
  });
}

test.run();
