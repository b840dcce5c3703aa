/**
 * The bounds check before a launch (runtime/bounds-check.ts) counts an access only where it
 * happens: under the instruction's predicates (`if i < 80 ... end`) and inside the branch of
 * `if(c, a, b)` that holds it. A guarded access into a smaller array runs (transformations
 * that change shapes need this, @loom/computation); the same access with a guard one too wide
 * is still refused, before anything runs.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  addDtypes,
  generateCode,
  globalArg,
  LoomError,
  makeKernel,
  run,
  setTemporaryAddressSpace,
  splitArrayAxis,
  splitIname,
  tagInames,
  temporaryVariable,
  type LoopKernel,
} from '@loom/core';
import { openclTarget } from '@loom/codegen-opencl';
import { testDevices } from './support/devices.ts';

const a = Float32Array.from({ length: 100 }, (_, i) => i);

test('an index with floor divisions and remainders by constants is proven in bounds (no guard); one that may leave its array keeps its guard', async () => {
  // a Stockham FFT's output index: (j // 4) * 16 + j % 4 + 4 s, j < 16, s < 4: every element of 64
  const stockham = makeKernel(
    '{ [j, s]: 0<=j<16 and 0<=s<4 }',
    'out[(j // 4) * 16 + j % 4 + 4*s] = a[(j % 4) * 3 + j // 4 + 0*s] + s',
    [globalArg('out', { shape: [64], dtype: 'float32' }), globalArg('a', { shape: [16], dtype: 'float32' }), '...'],
  );
  const code = generateCode(tagInames(stockham, { j: 'l.0' }), openclTarget()).code;
  assert.not.match(code, '0 <= ', 'no bounds guard');
  const expected = new Array<number>(64);
  for (let j = 0; j < 16; j++)
    for (let s = 0; s < 4; s++)
      expected[Math.floor(j / 4) * 16 + (j % 4) + 4 * s] = (j % 4) * 3 + Math.floor(j / 4) + s;
  for (const device of testDevices()) {
    const { out } = await run(stockham, device, { a: a.slice(0, 16) });
    assert.equal([...(out as Float32Array)], expected, device.name);
  }
  // one more than the last element: the guard stays (and the run drops the write)
  const beyond = makeKernel('{ [j]: 0<=j<16 }', 'out[(j // 4) * 16 + j % 4 + 13] = 1', [
    globalArg('out', { shape: [64], dtype: 'float32' }),
    '...',
  ]);
  assert.match(generateCode(beyond, openclTarget()).code, '< 64', 'a guard');
});

test('a product of two loop indices is bounded by their ranges: an FFT twiddle index needs no guard; one that may pass the end keeps it', async () => {
  // (g·9 mod 27)·(l // 3) mod 27 lies in [0, 27) whatever g and l: with 27 added, inside 54
  const twiddle = (extent: number) =>
    makeKernel('{ [g, l]: 0<=g<5 and 0<=l<12 }', `out[g, l] = tw[27 + (g * 9 % 27) * (l // 3) % 27]`, [
      globalArg('out', { shape: [5, 12], dtype: 'float32' }),
      globalArg('tw', { shape: [extent], dtype: 'float32' }),
    ]);
  const knl = tagInames(twiddle(54), { g: 'g.0', l: 'l.0' });
  assert.not.match(generateCode(knl, openclTarget()).code, '0 <= ', 'no bounds guard');
  const tw = Float32Array.from({ length: 54 }, (_, i) => i * i);
  const expected = Array.from({ length: 60 }, (_, e) => {
    const [g, l] = [Math.floor(e / 12), e % 12];
    return (27 + ((((g * 9) % 27) * Math.floor(l / 3)) % 27)) ** 2;
  });
  for (const device of testDevices()) {
    const { out } = await run(knl, device, { tw });
    assert.equal([...(out as Float32Array)], expected, device.name);
  }
  // without the remainder the product reaches 18·3 + 27 = 81: past 54, so the guard stays
  const wide = makeKernel('{ [g, l]: 0<=g<5 and 0<=l<12 }', 'out[g, l] = tw[27 + (g * 9 % 27) * (l // 3)]', [
    globalArg('out', { shape: [5, 12], dtype: 'float32' }),
    globalArg('tw', { shape: [54], dtype: 'float32' }),
  ]);
  assert.match(generateCode(wide, openclTarget()).code, '< 54', 'a guard');
});

test('a store guarded by an if block stays inside a smaller output', async () => {
  const knl = makeKernel(
    '{ [i]: 0<=i<100 }',
    ['if i < 80', '  out[i] = 2*a[i]', 'end'],
    [globalArg('out', { shape: [80], dtype: 'float32' }), '...'],
  );
  for (const device of testDevices()) {
    const { out } = await run(knl, device, { a });
    assert.equal(
      [...(out as Float32Array)],
      Array.from({ length: 80 }, (_, i) => 2 * i),
      device.name,
    );
  }
});

test('a read in the branch of if(c, x, y) stays inside a smaller input; the other branch is not checked against it', async () => {
  const knl = makeKernel('{ [i]: 0<=i<100 }', 'out[i] = if(i >= 80, 0, b[i] + 1)', [
    globalArg('b', { shape: [80], dtype: 'float32' }),
    '...',
  ]);
  const b = a.slice(0, 80);
  for (const device of testDevices()) {
    const { out } = await run(knl, device, { b });
    assert.equal(
      [...(out as Float32Array)],
      Array.from({ length: 100 }, (_, i) => (i >= 80 ? 0 : i + 1)),
      device.name,
    );
  }
});

test('a guard on a parameter the loops do not use is read with its value', async () => {
  // the loops run over m work-groups of 8; `n`, the input's length, appears in the guard alone
  const knl = makeKernel('{ [g, l]: 0<=g<m and 0<=l<8 }', 'out[g, l] = if(8*g + l < n, b[8*g + l], 0)', [
    globalArg('b', { shape: ['n'], dtype: 'float32' }),
    '...',
  ]);
  const b = a.slice(0, 37);
  for (const device of testDevices()) {
    const { out } = await run(knl, device, { b, m: 5 });
    assert.equal(
      [...(out as Float32Array)],
      Array.from({ length: 40 }, (_, i) => (i < 37 ? i : 0)),
      device.name,
    );
  }
});

test('the local-memory check reads a local temporary under its if(c, ...) branch too (a shift by d in a scan step)', async () => {
  const step = (guard: string) =>
    setTemporaryAddressSpace(
      tagInames(
        makeKernel(
          '{ [l]: 0<=l<8 }',
          ['<float32> t[l] = a[l] {id=w}', `out[l] = if(${guard}, t[l - 2] + t[l], t[l]) {id=r, dep=w}`],
          [globalArg('a', { shape: [8], dtype: 'float32' }), '...'],
        ),
        { l: 'l.0' },
      ),
      't',
      'local',
    );
  const a = Float32Array.from({ length: 8 }, (_, i) => i);
  for (const device of testDevices()) {
    const { out } = await run(step('l >= 2'), device, { a });
    assert.equal([...(out as Float32Array)], [0, 1, 2, 4, 6, 8, 10, 12], device.name);
  }
  try {
    await run(step('l >= 1'), testDevices()[0], { a });
    assert.unreachable('t[-1] was read');
  } catch (e) {
    assert.match((e as Error).message, "reads elements -1 to 5 along axis 0 of the local temporary 't'");
  }
});

test('a guard one element too wide is refused before anything runs', async () => {
  const knl = makeKernel(
    '{ [i]: 0<=i<100 }',
    ['if i <= 80', '  out[i] = a[i]', 'end'],
    [globalArg('out', { shape: [80], dtype: 'float32' }), '...'],
  );
  const read = makeKernel('{ [i]: 0<=i<100 }', 'out[i] = if(i < 81, b[i], 0)', [
    globalArg('b', { shape: [80], dtype: 'float32' }),
    '...',
  ]);
  for (const device of testDevices()) {
    try {
      await run(knl, device, { a });
      assert.unreachable('the store past the end was let through');
    } catch (e) {
      assert.instance(e, LoomError);
      assert.match((e as Error).message, "would access 'out' at index i up to 80");
    }
    try {
      await run(read, device, { b: a.slice(0, 80) });
      assert.unreachable('the read past the end was let through');
    } catch (e) {
      assert.instance(e, LoomError);
      assert.match((e as Error).message, "would access 'b' at index i up to 80");
    }
  }
});

test('a guard that is not affine restricts nothing: the access is checked over the whole domain', async () => {
  const knl = makeKernel('{ [i]: 0<=i<100 }', 'out[i] = if(i*i < 6400, b[i], 0)', [
    globalArg('b', { shape: [80], dtype: 'float32' }),
    '...',
  ]);
  try {
    await run(knl, testDevices()[0], { b: a.slice(0, 80) });
    assert.unreachable('a non-affine guard was trusted');
  } catch (e) {
    assert.instance(e, LoomError);
  }
});

/** `t` of 16 elements viewed as 4 x 4 (splitArrayAxis): its indices become `i // 4` and `i % 4`. */
function splitTemporary(loop: number): LoopKernel {
  const knl = makeKernel(
    `{ [i]: 0<=i<${loop} }`,
    ['t[i] = 2*a[i] {id=w}', 'out[i] = t[i] {dep=w}'],
    [temporaryVariable('t', { dtype: 'float32', shape: [16] }), '...'],
  );
  return splitArrayAxis(addDtypes(knl, { a: 'float32' }), 't', 0, 4);
}

test('an index i // 4 is proven in bounds when i lies in [0, 4*extent), and guarded otherwise', async () => {
  const code = (knl: LoopKernel) => generateCode(knl, openclTarget()).code;
  // (i is never negative: C's own / and % by the literal 4, as loopy prints them)
  assert.match(code(splitTemporary(16)), 'out[i] = t[4 * (i / 4) + i % 4];');
  // one step too far: the row i // 4 = 4 is guarded (its write dropped, its read 0), the lane i % 4 needs no guard
  assert.match(code(splitTemporary(17)), /0 <= i \/ 4 && i \/ 4 < 4 \? t\[/);
  for (const device of testDevices()) {
    const { out } = await run(splitTemporary(17), device, { a: a.slice(0, 17) }, { checkBounds: false });
    assert.equal(Array.from(out as Float32Array), [...Array.from(a.slice(0, 16), (x) => 2 * x), 0], device.name);
    // with checkBounds the guard that failed is reported, by its index as written
    await run(splitTemporary(17), device, { a: a.slice(0, 17) }, { checkBounds: true }).then(
      () => assert.unreachable('the row out of bounds was not reported'),
      (e: unknown) =>
        assert.match((e as Error).message, "writes 't' at index i // 4 = 4 on axis 0, outside its extent 4"),
    );
  }
});

test("an unrolled copy's guard is tightened with its value: copies under one bound share one if, and compute what they should", async () => {
  // j = 4*l + u over 0 <= j < 6: the copies u = 0, 1 run for both work-items, u = 2, 3 for the first (4*l + 2 <= 5: l <= 0)
  let knl = addDtypes(makeKernel('{ [g, j]: 0 <= g < 4 and 0 <= j < 6 }', 'y[g, j] = 2*x[g, j]'), { x: 'float32' });
  knl = tagInames(knl, { g: 'g.0' });
  knl = splitIname(knl, 'j', 4, { outerTag: 'l.0', innerTag: 'unr' });
  const code = generateCode(knl, openclTarget()).code;
  assert.is((code.match(/if \(lid\(0\) <= 0\)/g) ?? []).length, 1, code);
  assert.not.match(code, '4 * lid(0) <= 3');
  const x = Float32Array.from({ length: 24 }, (_, k) => k);
  for (const device of testDevices()) {
    const { y } = await run(knl, device, { x });
    assert.equal(
      [...(y as Float32Array)],
      [...x].map((v) => 2 * v),
      device.name,
    );
  }
});

test.run();
