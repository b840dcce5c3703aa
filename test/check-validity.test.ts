/**
 * The validity checks (packages/core/src/check): kernels that would compute wrong
 * numbers are refused with a KernelCheckError naming the kernel, the instruction, the
 * inames and a fix — one test per check. For the two that used to run and give wrong
 * answers silently, every device refuses before it compiles, allocates or launches.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  addPrefetch,
  collectWarnings,
  fixParameters,
  generateCode,
  globalArg,
  KernelCheckError,
  makeKernel,
  prioritizeLoops,
  run,
  setTemporaryAddressSpace,
  splitIname,
  tagInames,
  type Device,
  type LoopKernel,
} from '@loom/core';
import { jsTarget } from '@loom/codegen-js';
import { randomFloat32, testDevices } from './support/devices.ts';

/** Generating code must fail with a KernelCheckError of this check; returns it. */
function refused(knl: LoopKernel, check: string): KernelCheckError {
  try {
    generateCode(knl, jsTarget());
  } catch (e) {
    assert.instance(e, KernelCheckError, `expected a KernelCheckError, got ${e}`);
    assert.is((e as KernelCheckError).check, check, (e as Error).message);
    return e as KernelCheckError;
  }
  assert.unreachable(`expected the ${check} check to refuse the kernel`);
  throw new Error('unreachable');
}

/** The error names the kernel, the instruction and every iname it is about, and says what to do. */
function assertNames(e: KernelCheckError, insn: string, inames: readonly string[]): void {
  assert.is(e.instruction, insn);
  assert.equal([...e.inames].sort(), [...inames].sort());
  assert.ok(e.message.includes(`in kernel '${e.kernel}'`), e.message);
  assert.ok(e.message.includes(`instruction '${insn}'`), e.message);
  for (const n of inames) assert.ok(e.message.includes(`'${n}'`), e.message);
}

/** A device that records whether anything reached it (compile, allocate, write, launch). */
function watched(device: Device): { device: Device; touched: string[] } {
  const touched: string[] = [];
  const wrapped: Device = Object.create(device);
  for (const method of ['compile', 'allocate', 'write', 'launch'] as const) {
    (wrapped as unknown as Record<string, unknown>)[method] = (...args: unknown[]) => {
      touched.push(method);
      return (device[method] as (...a: unknown[]) => unknown).apply(device, args);
    };
  }
  return { device: wrapped, touched };
}

async function refusedBeforeRunning(
  knl: LoopKernel,
  device: Device,
  args: Record<string, Float32Array>,
  check: string,
): Promise<void> {
  const { device: d, touched } = watched(device);
  try {
    await run(knl, d, args);
  } catch (e) {
    assert.instance(e, KernelCheckError, `${device.name}: expected a KernelCheckError, got ${e}`);
    assert.is((e as KernelCheckError).check, check);
    assert.equal(touched, [], `${device.name}: the device was used before the refusal`);
    return;
  }
  assert.unreachable(`${device.name}: the kernel ran`);
}

const sameAxisTwice = () =>
  tagInames(makeKernel('{ [i,j]: 0<=i<16 and 0<=j<32 }', 'out[i,j] = 2*a[i,j]', undefined, { name: 'twice' }), {
    i: 'l.0',
    j: 'l.0',
  });
const reductionOverOwnLoop = () => makeKernel('{ [i]: 0<=i<16 }', 'a[i] = sum(i, 2)', undefined, { name: 'redn' });

test('a: one local axis used by two inames of an instruction', () => {
  const e = refused(sameAxisTwice(), 'double_use_of_hw_axes');
  assertNames(e, 'insn', ['i', 'j']);
  assert.is(e.kernel, 'twice');
  assert.match(e.message, /multiple inames tagged 'l\.0'/);
});

test('a: one group axis used by two inames of an instruction', () => {
  const knl = tagInames(
    makeKernel('{ [i,j]: 0<=i,j<16 }', 'out[i,j] = a[i,j]', [globalArg('a', { dtype: 'float32' }), '...']),
    { i: 'g.1', j: 'g.1' },
  );
  assertNames(refused(knl, 'double_use_of_hw_axes'), 'insn', ['i', 'j']);
  // the same axis in different instructions is fine: each has one index per axis
  const apart = tagInames(
    makeKernel('{ [i,j]: 0<=i,j<16 }', 'out[i] = a[i]\nb[j] = a[j]', [globalArg('a', { dtype: 'float32' }), '...']),
    { i: 'l.0', j: 'l.0' },
  );
  assert.match(generateCode(apart, jsTarget()).code, /out\[lid0\] = a\[lid0\]/);
});

for (const device of testDevices()) {
  test(`a: ${device.name} refuses two inames on l.0 before running`, async () => {
    await refusedBeforeRunning(sameAxisTwice(), device, { a: randomFloat32(16 * 32) }, 'double_use_of_hw_axes');
  });
}

test("b: a reduction over an iname the instruction is already inside (loopy: 'reduction used within loop(s)...')", () => {
  const e = refused(reductionOverOwnLoop(), 'reduction_within_its_inames');
  assertNames(e, 'insn', ['i']);
  assert.match(e.message, /reduction within loop\(s\) that it was supposed to reduce over: 'i'/);
  // nested: the inner reduction reuses the outer one's iname
  const nested = makeKernel('{ [i,k]: 0<=i,k<16 }', 'out[i] = sum(k, sum(k, a[i,k]))');
  assertNames(refused(nested, 'reduction_within_its_inames'), 'insn', ['k']);
});

for (const device of testDevices()) {
  test(`b: ${device.name} refuses a[i] = sum(i, 2) before running`, async () => {
    await refusedBeforeRunning(reductionOverOwnLoop(), device, {}, 'reduction_within_its_inames');
  });
}

test('c: a write to global memory across a parallel iname it is not indexed by warns', () => {
  for (const tag of ['l.0', 'g.0'] as const) {
    const knl = tagInames(
      makeKernel('{ [i,j]: 0<=i,j<16 }', 'out[i] = 5+i+j', [globalArg('out', { dtype: 'float32', shape: [16] })]),
      { j: tag },
    );
    const { warnings } = collectWarnings(() => generateCode(knl, jsTarget()));
    const race = warnings.find((w) => w.category === 'WriteRaceConditionWarning');
    assert.ok(race, `${tag}: no write race reported`);
    assert.match(race!.message, /instruction 'insn' contains a write race/);
    assert.match(race!.message, new RegExp(`'j' \\(j: ${tag.replace('.', '\\.')}\\)`));
  }
  // indexed by the parallel iname: every copy writes its own element
  const fine = tagInames(
    makeKernel('{ [i,j]: 0<=i,j<16 }', 'out[i,j] = 5+i+j', [globalArg('out', { dtype: 'float32', shape: [16, 16] })]),
    { j: 'l.0' },
  );
  assert.equal(collectWarnings(() => generateCode(fine, jsTarget())).warnings.map(String), []);
});

test('c: a write its predicate leaves to one value of the parallel iname is no race; i == j still races along j', () => {
  const out = [globalArg('out', { dtype: 'float32', shape: [16] })];
  const pinned = tagInames(makeKernel('{ [i,j]: 0<=i,j<16 }', 'out[i] = i+j {if=j == 3}', out), { j: 'l.0' });
  assert.equal(collectWarnings(() => generateCode(pinned, jsTarget())).warnings.map(String), []);
  const diagonal = tagInames(makeKernel('{ [i,j]: 0<=i,j<16 }', 'out[0] = i+j {if=i == j}', out), {
    i: 'l.0',
    j: 'l.1',
  });
  const races = collectWarnings(() => generateCode(diagonal, jsTarget())).warnings.filter(
    (w) => w.category === 'WriteRaceConditionWarning',
  );
  assert.is(races.length, 1);
  assert.match(races[0].message, "'i', 'j'");
});

test('c: an index computed in a private temporary from the parallel iname is no race', () => {
  // the elementwise kernels' multi-indices: each work-item writes its own element
  const knl = tagInames(
    makeKernel(
      '{ [t]: 0<=t<64 }',
      '<int32> q = t // 8 {id=q}\n<int32> r = t - 8*q {id=r, dep=q}\nout[q, r] = 1 {dep=r}',
      [globalArg('out', { dtype: 'float32', shape: [8, 8] })],
    ),
    { t: 'l.0' },
  );
  assert.equal(collectWarnings(() => generateCode(knl, jsTarget())).warnings.map(String), []);
  // a private temporary that does not depend on the iname does not index by it
  const constant = tagInames(
    makeKernel('{ [t]: 0<=t<64 }', '<int32> q = 3 {id=q}\nout[q] = t {dep=q}', [
      globalArg('out', { dtype: 'float32', shape: [8] }),
    ]),
    { t: 'l.0' },
  );
  assert.ok(
    collectWarnings(() => generateCode(constant, jsTarget())).warnings.some(
      (w) => w.category === 'WriteRaceConditionWarning',
    ),
  );
});

test('c: the race warning is silenced by write_race(insn)', () => {
  const knl = tagInames(
    makeKernel('{ [i,j]: 0<=i,j<16 }', 'out[i] = 5+i', [globalArg('out', { dtype: 'float32', shape: [16] })], {
      silencedWarnings: ['write_race(insn)'],
    }),
    {
      j: 'l.0',
    },
  );
  assert.equal(collectWarnings(() => generateCode(knl, jsTarget())).warnings.map(String), []);
});

test('d: an unr or ilp iname without a constant extent', () => {
  for (const tag of ['unr', 'ilp'] as const) {
    const knl = tagInames(
      makeKernel('{ [i]: 0<=i<n }', 'out[i] = 2*a[i]', [globalArg('a', { dtype: 'float32' }), '...']),
      { i: tag },
    );
    const e = refused(knl, 'constant_iname_extent');
    assertNames(e, 'insn', ['i']);
    assert.match(e.message, /its length is not a constant \(it runs from 0 to n - 1\)/);
    assert.match(e.message, /splitIname\(knl, 'i', 4/);
    // the suggested fix works
    const split = tagInames(splitIname(tagInames(knl, { i: 'for' }), 'i', 4), { i_inner: tag });
    assert.ok(generateCode(split, jsTarget()).code.length > 0);
  }
});

test('e: a local temporary written by only some work-items of the axis that reads it', () => {
  const args = [globalArg('a', { dtype: 'float32', shape: [16] }), '...'] as const;
  // written inside an iname spanning half of l.0, read by all 16 work-items
  const half = tagInames(
    makeKernel('{ [i,j]: 0<=i<8 and 0<=j<16 }', '<> t[i] = a[i]\nout[j] = t[j] {dep=*}', [...args]),
    { i: 'l.0', j: 'l.0' },
  );
  const e = refused(half, 'local_read_not_written');
  assertNames(e, 'insn_0', ['j']);
  assert.match(e.message, /reads elements 0 to 15 along axis 0 of the local temporary 't'/);
  assert.match(e.message, /write only 0 to 7/);
  // written under a condition on the local id, read by all
  const cond = tagInames(
    makeKernel('{ [i,j]: 0<=i,j<16 }', 'if i < 8\n  <> t[i] = a[i]\nend\nout[j] = t[j] {dep=*}', [...args]),
    { i: 'l.0', j: 'l.0' },
  );
  assertNames(refused(cond, 'local_read_not_written'), 'insn_0', ['j']);
  // the same condition on the reader: it reads only what was written
  const both = tagInames(
    makeKernel('{ [i,j]: 0<=i,j<16 }', 'if i < 8\n  <> t[i] = a[i]\nend\nif j < 8\n  out[j] = t[j] {dep=*}\nend', [
      ...args,
    ]),
    { i: 'l.0', j: 'l.0' },
  );
  assert.match(generateCode(both, jsTarget()).code, /out\[lid0\] = t\[lid0\]/);
});

/**
 * A 2-D convolution tiled by 32 over an image of 24: the tile's staged rows run to 27 only, though
 * the rational hull of the reader's loops reaches 35. Judged at integer points, it is accepted.
 */
function convolutionTileOverExtent(n: number): LoopKernel {
  let knl = makeKernel(
    '{ [i,j,di,dj]: 0<=i,j<n and 0<=di,dj<5 }',
    'out[i, j] = sum((di, dj), w[di, dj]*a[i + di, j + dj])',
    [
      globalArg('a', { dtype: 'float32', shape: [n + 4, n + 4] }),
      globalArg('w', { dtype: 'float32', shape: [5, 5] }),
      '...',
    ],
  );
  knl = splitIname(fixParameters(knl, { n }), 'j', 32, { outerTag: 'g.0', innerTag: 'l.0' });
  knl = splitIname(knl, 'i', 32, { outerTag: 'g.1' });
  knl = splitIname(knl, 'i_inner', 4, { outerTag: 'l.1', innerTag: 'unr' });
  knl = prioritizeLoops(tagInames(knl, { di: 'unr', dj: 'unr' }), 'di,dj');
  knl = addPrefetch(knl, 'a', ['i_inner_outer', 'i_inner_inner', 'j_inner', 'di', 'dj'], {
    temporaryAddressSpace: 'local',
    defaultTag: 'l.auto',
  });
  return addPrefetch(knl, 'w', ['di', 'dj'], { temporaryAddressSpace: 'local', defaultTag: 'l.auto' });
}

for (const device of testDevices()) {
  test(`e: ${device.name} runs a staged tile wider than the extent it tiles (rows read only where written)`, async () => {
    const n = 24;
    const a = randomFloat32((n + 4) * (n + 4));
    const w = randomFloat32(25);
    const { out } = await run(convolutionTileOverExtent(n), device, { a, w });
    const expected = Float32Array.from({ length: n * n }, (_, p) => {
      const [i, j] = [Math.floor(p / n), p % n];
      let s = 0;
      for (let t = 0; t < 25; t++) s += w[t]! * a[(i + Math.floor(t / 5)) * (n + 4) + j + (t % 5)]!;
      return s;
    });
    const got = out as Float32Array;
    for (let p = 0; p < n * n; p++)
      assert.ok(Math.abs(got[p]! - expected[p]!) <= 1e-4 * (1 + Math.abs(expected[p]!)), `out[${p}]`);
  });
}

test('e: a staged tile read past the rows its fetch writes is still refused, at integer points', () => {
  // 24 work-items of l.0 write, 32 read: rows 24 to 31 exist at integer points, and are refused
  const knl = tagInames(
    makeKernel('{ [i,j]: 0<=i<24 and 0<=j<32 }', '<> t[i] = a[i] {id=w}\nout[j] = t[j] {dep=w}', [
      globalArg('a', { dtype: 'float32', shape: [24] }),
      '...',
    ]),
    { i: 'l.0', j: 'l.0' },
  );
  const e = refused(knl, 'local_read_not_written');
  assert.match(e.message, /reads elements 0 to 31 along axis 0 of the local temporary 't'/);
  assert.match(e.message, /write only 0 to 23/);
});

test('e: a local temporary written without one of the local axes (loopy: "does not use all local hw axes")', () => {
  const knl = tagInames(
    makeKernel('{ [i,k]: 0<=i<16 and 0<=k<4 }', '<> t[k] = a[k]\nout[i] = t[k] {dep=*}', [
      globalArg('a', { dtype: 'float32', shape: [4] }),
      '...',
    ]),
    {
      i: 'l.0',
    },
  );
  const e = refused(setTemporaryAddressSpace(knl, 't', 'local'), 'unused_hw_axes');
  assertNames(e, 'insn', ['i']);
  assert.match(e.message, /without using local axis l\.0/);
  // left to placement, the same temporary is private to each work-item, which is right
  assert.ok(generateCode(knl, jsTarget()).code.length > 0);
});

test('f: a non-integer index names the array and the subscript, with a caret', () => {
  const knl = makeKernel('{ [i]: 0<=i<16 }', 'out[i] = 2*a[i*0.5]', [
    globalArg('a', { dtype: 'float32', shape: [16] }),
    '...',
  ]);
  const e = refused(knl, 'integer_subscript_indices');
  assertNames(e, 'insn', ['i']);
  // (0.5 is exact in float32, so i*0.5 is float32, as loopy types it)
  assert.match(e.message, /indexes 'a' with 'i\*0\.5' \(axis 0, over 'i'\), which is float32, not an integer/);
  assert.ok(e.message.endsWith('  out[i] = 2*a[i*0.5]\n             ^^^^^^^^'), e.message);
  // integer division is an integer
  assert.ok(
    generateCode(
      makeKernel('{ [i]: 0<=i<16 }', 'out[i] = a[i // 2]', [globalArg('a', { dtype: 'float32', shape: [8] }), '...']),
      jsTarget(),
    ).code.length > 0,
  );
});

test.run();
