/**
 * Temporaries, barriers, prefetch, global barriers and atomics — the tutorial's
 * "Precomputation, Storage, and Temporary Variables" and "Synchronization" — on
 * every device.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  addDtypes,
  addPrefetch,
  collectWarnings,
  generateCode,
  globalArg,
  makeKernel,
  MissingBarrierError,
  MissingDefinitionError,
  prioritizeLoops,
  run,
  saveAndReloadTemporaries,
  setTemporaryAddressSpace,
  splitIname,
  tagInames,
  temporaryVariable,
  type LoopKernel,
} from '@loom/core';
import { openclTarget } from '@loom/codegen-opencl';
import { assertClose, randomFloat32, supportsDType, testDevices } from './support/devices.ts';

const code = (knl: LoopKernel) => generateCode(addDtypes(knl, { a: 'float32' }), openclTarget()).code;
const lines = (c: string) =>
  c
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));

function localSumKernel(): LoopKernel {
  const knl = makeKernel(
    '{ [i_outer,i_inner, k]: 0<= 16*i_outer + i_inner <n and 0<= i_inner,k <16}',
    `
    <> a_temp[i_inner] = a[16*i_outer + i_inner] {priority=10}
    out[16*i_outer + i_inner] = sum(k, a_temp[k])
    `,
  );
  return tagInames(knl, { i_outer: 'g.0', i_inner: 'l.0' });
}

function rotate(withBarrier: boolean): LoopKernel {
  const knl = makeKernel(
    '[n] -> {[i] : 0<=i<n}',
    withBarrier
      ? `for i
           <>tmp = arr[i] {id=maketmp,dep=*}
           ... gbarrier {id=bar,dep=*maketmp}
           arr[(i + 1) % n] = tmp {id=rotate,dep=*bar}
         end`
      : `for i
           <>tmp = arr[i] {id=maketmp,dep=*}
           arr[(i + 1) % n] = tmp {id=rotate,dep=*maketmp}
         end`,
    [globalArg('arr', { shape: ['n'], dtype: 'int32' }), '...'],
    { name: withBarrier ? 'rotate_v2' : 'rotate_v1', assumptions: 'n mod 16 = 0' },
  );
  return splitIname(knl, 'i', 16, { innerTag: 'l.0', outerTag: 'g.0' });
}

test('a temporary written across local ids goes to local memory, with a barrier before its readers', () => {
  const c = lines(code(localSumKernel()));
  assert.ok(c.includes('__local float a_temp[16];'), c.join('\n'));
  assert.ok(
    c.includes('barrier(CLK_LOCAL_MEM_FENCE) /* for a_temp (insn_0_acc_k_update depends on insn) */;'),
    c.join('\n'),
  );
  const barrierAt = c.findIndex((l) => l.startsWith('barrier('));
  assert.ok(
    barrierAt < c.findIndex((l) => l.startsWith('for (int k')),
    'the barrier comes before the loop, not inside it',
  );
});

/** A block staged in local memory, each work-item updating its own 3 elements in place, then stored. */
function stagedBlockKernel(): LoopKernel {
  const knl = makeKernel(
    '{ [g, l, c, e, k]: 0 <= g < 4 and 0 <= l < 8 and 0 <= c, e, k < 3 }',
    `
    tile[8*c + l] = a[24*g + 8*c + l] {id=load}
    <float32> x = tile[3*l + e] {id=take, dep=load, inames=g:l:e}
    tile[3*l + e] = 2*x {id=put, dep=take, inames=g:l:e}
    out[24*g + 8*k + l] = tile[8*k + l] {id=store, dep=put}
    `,
    [
      globalArg('a', { dtype: 'float32', shape: [96] }),
      globalArg('out', { dtype: 'float32', shape: [96] }),
      temporaryVariable('tile', { dtype: 'float32', shape: [24], addressSpace: 'local' }),
    ],
  );
  return tagInames(knl, { g: 'g.0', l: 'l.0' });
}

test('a work-item that rewrites only its own elements of a local array needs no barrier in between (the group inames need not index it)', () => {
  const c = lines(code(stagedBlockKernel()));
  const comments = c.filter((l) => l.startsWith('barrier(')).map((l) => l.slice(l.indexOf('/*')));
  assert.equal(
    comments,
    ['/* for tile (take depends on load) */;', '/* for tile (store depends on put) */;'],
    c.join('\n'),
  );
});

/**
 * t[l + e], written then read in each step e: work-items l and l + 1 reach the same element
 * t[l + 1] in different steps (e = 1 and e = 0), never in the same one, where each reads what it
 * wrote itself. One barrier a step, at its end, keeps the next step's writes off what this
 * step's neighbours still read.
 */
function overlappingTile(): LoopKernel {
  return tagInames(
    makeKernel(
      '{ [g, l, e]: 0 <= g < 4 and 0 <= l < 16 and 0 <= e < 3 }',
      `
      t[l + e] = a[16*g + l] + e {id=write}
      out[16*g + l] = out[16*g + l] + t[l + e] {id=read, dep=write}
      `,
      [
        globalArg('a', { dtype: 'float32', shape: [64] }),
        globalArg('out', { dtype: 'float32', shape: [64] }),
        temporaryVariable('t', { dtype: 'float32', shape: [18], addressSpace: 'local' }),
      ],
    ),
    { g: 'g.0', l: 'l.0' },
  );
}

test('work-items whose identical indices overlap (tile[l + e]) across steps get a barrier between the steps', () => {
  const barriers = lines(code(overlappingTile())).filter((l) => l.startsWith('barrier('));
  assert.equal(barriers, [
    "barrier(CLK_LOCAL_MEM_FENCE) /* for t (read depends on write) across iterations of 'e' */;",
  ]);
});

for (const device of testDevices())
  test(`${device.name}: the overlapping tile computes a + e summed over the steps`, async () => {
    const a = randomFloat32(64, 3);
    const { out } = await run(overlappingTile(), device, { a, out: new Float32Array(64) });
    assertClose(
      out as Float32Array,
      Array.from(a, (x) => 3 * x + 3),
      'out',
    );
  });

test('setTemporaryAddressSpace overrides the placement', () => {
  const knl = setTemporaryAddressSpace(localSumKernel(), 'a_temp', 'local');
  assert.ok(code(knl).includes('__local float a_temp[16];'));
});

test('prefetch without sweeping fetches one value per work-item into a private temporary', () => {
  let knl = makeKernel(
    '{ [i_outer,i_inner, k]: 0<= 16*i_outer + i_inner <n and 0<= i_inner,k <16}',
    'out[16*i_outer + i_inner] = sum(k, a[16*i_outer + i_inner])',
  );
  knl = tagInames(knl, { i_outer: 'g.0', i_inner: 'l.0' });
  const c = lines(code(addPrefetch(knl, 'a')));
  assert.ok(c.includes('float a_fetch;'));
  assert.ok(c.includes('a_fetch = a[16 * gid(0) + lid(0)];'));
  assert.ok(c.includes('acc_k = acc_k + a_fetch;'));
  const swept = lines(code(addPrefetch(knl, 'a', ['i_inner'], { defaultTag: 'l.0' })));
  assert.ok(swept.includes('__local float a_fetch[16];'), swept.join('\n'));
  assert.ok(swept.includes('acc_k = acc_k + a_fetch[lid(0)];'), swept.join('\n'));
});

test('a prefetch across only i_inner warns of a write race', () => {
  let knl = makeKernel('{ [i,j]: 0<=i,j<n }', 'out[j,i] = a[i,j]', undefined, {
    assumptions: 'n>=1',
    name: 'transpose',
  });
  knl = splitIname(knl, 'j', 16, { innerTag: 'l.1', outerTag: 'g.0' });
  knl = splitIname(knl, 'i', 16, { innerTag: 'l.0', outerTag: 'g.1' });
  knl = addPrefetch(knl, 'a', 'i_inner', { defaultTag: 'l.auto' });
  const { warnings } = collectWarnings(() => code(knl));
  assert.ok(
    warnings.some(
      (w) =>
        w.category === 'WriteRaceConditionWarning' &&
        w.message.includes("a write race across the iname(s) 'j_inner' would emerge"),
    ),
  );
});

test('the rotate kernel: missing global barrier, then missing definition', () => {
  assert.throws(
    () => generateCode(rotate(false), openclTarget()),
    (e: unknown) =>
      e instanceof MissingBarrierError &&
      e.message ===
        "rotate_v1: Dependency 'rotate depends on maketmp' (for variable 'arr') requires synchronization by a global barrier (add a 'no_sync_with' instruction option to state that no synchronization is needed)",
  );
  assert.throws(
    () => generateCode(rotate(true), openclTarget()),
    (e: unknown) =>
      e instanceof MissingDefinitionError &&
      e.message ===
        "temporary variable 'tmp' gets used in subkernel 'rotate_v2_0' without a definition (maybe you forgot to call saveAndReloadTemporaries?); 'maketmp' wrote it in subkernel 'rotate_v2', before the global barrier",
  );
  const c = generateCode(saveAndReloadTemporaries(rotate(true)), openclTarget()).code;
  assert.match(
    c,
    /__kernel void .* rotate_v2\(__global int const \*__restrict__ arr, int const n, __global int \*__restrict__ tmp_save_slot\)/,
  );
  assert.match(
    c,
    /__kernel void .* rotate_v2_0\(__global int \*__restrict__ arr, int const n, __global int const \*__restrict__ tmp_save_slot\)/,
  );
});

for (const device of testDevices()) {
  test(`${device.name}: local temporary with a barrier`, async () => {
    for (const n of [16, 37, 5]) {
      const a = randomFloat32(n, n);
      const { out } = await run(localSumKernel(), device, { a });
      const expected = Array.from(a, (_, i) => {
        const base = 16 * Math.floor(i / 16);
        let s = 0;
        for (let k = 0; k < 16; k++) s = Math.fround(s + (base + k < n ? a[base + k] : NaN));
        return s;
      });
      // the last group reads past n only when n is not a multiple of 16: compare the full groups
      const full = 16 * Math.floor(n / 16);
      assert.equal(Array.from(out as Float32Array).slice(0, full), expected.slice(0, full), `n=${n}`);
    }
  });

  test(`${device.name}: a local block rewritten in place by its own work-items`, async () => {
    const a = randomFloat32(96, 3);
    const { out } = await run(stagedBlockKernel(), device, { a });
    assert.equal(
      Array.from(out as Float32Array),
      Array.from(a, (v) => 2 * v),
    );
  });

  test(`${device.name}: prefetch into local memory`, async () => {
    let knl = makeKernel(
      '{ [i_outer,i_inner, k]: 0<= 16*i_outer + i_inner <n and 0<= i_inner,k <16}',
      'out[16*i_outer + i_inner] = sum(k, a[16*i_outer + i_inner])',
    );
    knl = addPrefetch(tagInames(knl, { i_outer: 'g.0', i_inner: 'l.0' }), 'a', ['i_inner'], { defaultTag: 'l.0' });
    const a = randomFloat32(37, 2);
    const { out } = await run(knl, device, { a });
    assert.equal(
      Array.from(out as Float32Array),
      Array.from(a, (x) => {
        let s = 0;
        for (let k = 0; k < 16; k++) s = Math.fround(s + x);
        return s;
      }),
    );
  });

  test(`${device.name}: rotate after saveAndReloadTemporaries gives [15 0 1 ... 14]`, async () => {
    const arr = Int32Array.from({ length: 16 }, (_, k) => k);
    await run(saveAndReloadTemporaries(rotate(true)), device, { arr });
    assert.equal(Array.from(arr), [15, ...Array.from({ length: 15 }, (_, k) => k)]);
    const big = Int32Array.from({ length: 64 }, (_, k) => k * 3);
    await run(saveAndReloadTemporaries(rotate(true)), device, { arr: big });
    assert.equal(
      Array.from(big),
      Array.from({ length: 64 }, (_, k) => ((k + 63) % 64) * 3),
    );
  });

  test(`${device.name}: a temporary's writer that depends on nothing lands in its readers' kernel, after a global barrier`, async () => {
    // 'start' depends on nothing: without keepWritersWithReaders it was scheduled into the first kernel
    const knl = makeKernel(
      ['{ [t]: 0 <= t < n }', '{ [i]: 0 <= i < n }'],
      [
        'twice[t] = 2*a[t]  {id=double}',
        '... gbarrier  {id=written, dep=double}',
        '<float32> c = 3  {id=start}',
        'out[i] = c*twice[i]  {id=use, dep=written:start}',
      ].join('\n'),
      [temporaryVariable('twice', { dtype: 'float32', shape: ['n'], addressSpace: 'global' }), '...'],
    );
    const a = randomFloat32(40, 3);
    const { out } = await run(knl, device, { a });
    assertClose(
      out as Float32Array,
      Float32Array.from(a, (x) => 6 * x),
      'c * twice',
      1e-6,
      1e-6,
    );
    // a value that must cross the barrier (its writer comes before it) is still refused, saying so
    const crossing = addDtypes(
      makeKernel(
        '{ [i]: 0 <= i < 8 }',
        [
          'for i',
          '  <float32> t = 2*a[i]  {id=w}',
          '  ... gbarrier  {id=b, dep=w}',
          '  out[i] = t  {dep=b}',
          'end',
        ].join('\n'),
      ),
      { a: 'float32' },
    );
    assert.throws(
      () => generateCode(crossing, device.target),
      (e: unknown) =>
        e instanceof MissingDefinitionError &&
        /'w' wrote it in subkernel '\w+', before the global barrier/.test((e as Error).message),
    );
  });

  test(`${device.name}: atomic updates of any form (a compare-and-swap loop where the target has no instruction for it)`, async () => {
    // each element multiplied by 2 (floats) or 3 (integers) by each of 8 work-items: the order does
    // not matter, so every device gives exactly these (integers wrap as Loom's do)
    for (const dtype of ['float32', 'float64', 'int32'] as const) {
      if (!supportsDType(device, dtype)) continue;
      const factor = dtype === 'int32' ? 3 : 2;
      let knl = makeKernel('{ [i]: 0<=i<32 }', `out[i%4] = ${factor}*out[i%4] {atomic}`, [
        globalArg('out', { dtype, shape: [4] }),
        '...',
      ]);
      knl = splitIname(knl, 'i', 8, { outerTag: 'g.0', innerTag: 'l.0' });
      const start =
        dtype === 'int32'
          ? new Int32Array([1, 2, -7, 5])
          : dtype === 'float64'
            ? new Float64Array([1, -1, 0.5, 3])
            : new Float32Array([1, -1, 0.5, 3]);
      const { out } = await run(knl, device, { out: start.slice() });
      assert.equal(
        Array.from(out as ArrayLike<number>),
        Array.from(start as ArrayLike<number>, (x) => (dtype === 'int32' ? Math.imul(x, 3 ** 8) : x * 256)),
        `${device.name} ${dtype}`,
      );
    }
  });

  test(`${device.name}: an atomic histogram`, async () => {
    for (const dtype of ['float32', 'int32'] as const) {
      let knl = makeKernel(
        '{ [i]: 0<=i<n }',
        'out[i%20] = out[i%20] + 2*a[i] {atomic}',
        [globalArg('out', { dtype, shape: [20], forAtomic: true }), globalArg('a', { dtype, shape: 'auto' }), '...'],
        { assumptions: 'n>0' },
      );
      knl = splitIname(knl, 'i', 32, { outerTag: 'g.0', innerTag: 'l.0' });
      const n = 999;
      const a =
        dtype === 'float32'
          ? Float32Array.from({ length: n }, (_, k) => k % 7)
          : Int32Array.from({ length: n }, (_, k) => k % 7);
      const out = dtype === 'float32' ? new Float32Array(20) : new Int32Array(20);
      await run(knl, device, { a, out });
      const expected = new Array(20).fill(0);
      for (let i = 0; i < n; i++) expected[i % 20] += 2 * (i % 7);
      assert.equal(Array.from(out), expected, dtype);
    }
  });

  test(`${device.name}: the tiled matrix multiply with prefetching into local memory`, async () => {
    let knl = makeKernel('{ [i,j,k]: 0<=i<n and 0<=j<m and 0<=k<l }', 'c[i, j] = sum(k, a[i, k]*b[k, j])', undefined, {
      assumptions: 'n>=1 and m>=1 and l>=1',
    });
    knl = splitIname(knl, 'i', 16, { outerTag: 'g.1', innerTag: 'l.1' });
    knl = splitIname(knl, 'j', 16, { outerTag: 'g.0', innerTag: 'l.0' });
    knl = splitIname(knl, 'k', 16);
    knl = addPrefetch(knl, 'a', ['k_inner', 'i_inner'], { defaultTag: 'l.auto' });
    knl = addPrefetch(knl, 'b', ['j_inner', 'k_inner'], { defaultTag: 'l.auto' });
    knl = prioritizeLoops(knl, 'k_outer,k_inner');
    for (const [n, m, l] of [
      [32, 48, 64],
      [17, 5, 33],
      [1, 1, 1],
    ]) {
      const a = randomFloat32(n * l, 1);
      const b = randomFloat32(l * m, 2);
      const { c } = await run(knl, device, { a, b, m });
      const expected = new Float32Array(n * m);
      for (let i = 0; i < n; i++) {
        for (let j = 0; j < m; j++) {
          let s = 0;
          for (let k = 0; k < l; k++) s = Math.fround(s + Math.fround(a[i * l + k] * b[k * m + j]));
          expected[i * m + j] = s;
        }
      }
      // OpenCL may contract acc + a*b into one fused multiply-add: equal up to rounding
      assertClose(c as Float32Array, expected, `${n}x${m}x${l}`, 1e-5, 1e-6);
    }
  });
}

function registerTiledMatmul(): LoopKernel {
  let mm = makeKernel('{ [i,j,k]: 0<=i<n and 0<=j<n and 0<=k<n }', 'c[i, j] = sum(k, a[i, k]*b[k, j])', undefined, {
    assumptions: 'n >= 1',
  });
  mm = splitIname(mm, 'i', 32, { outerTag: 'g.1' });
  mm = splitIname(mm, 'i_inner', 4, { outerTag: 'l.1', innerTag: 'ilp' });
  mm = splitIname(mm, 'j', 32, { outerTag: 'g.0' });
  mm = splitIname(mm, 'j_inner', 4, { outerTag: 'l.0', innerTag: 'ilp' });
  mm = splitIname(mm, 'k', 8);
  mm = addPrefetch(mm, 'a', ['i_inner_outer', 'i_inner_inner', 'k_inner']);
  mm = addPrefetch(mm, 'b', ['k_inner', 'j_inner_outer', 'j_inner_inner']);
  mm = tagInames(splitIname(mm, 'a_dim_0', 8, { innerTag: 'l.1', outerTag: 'unr' }), { a_dim_1: 'l.0' });
  mm = tagInames(splitIname(mm, 'b_dim_1', 8, { innerTag: 'l.0', outerTag: 'unr' }), { b_dim_0: 'l.1' });
  return prioritizeLoops(mm, 'k_outer,k_inner');
}

test('ilp inames give each work-item a register tile: privatized accumulators, no loop around the group', () => {
  const c = generateCode(addDtypes(registerTiledMatmul(), { a: 'float32', b: 'float32' }), openclTarget()).code;
  assert.match(c, 'float acc_k_outer_k_inner[16];');
  assert.match(c, 'acc_k_outer_k_inner[15] = acc_k_outer_k_inner[15] + a_fetch[');
  assert.not.match(c, /for \(int i_inner_inner/);
});

for (const device of testDevices()) {
  test(`${device.name}: the register-tiled matrix multiply (ilp)`, async () => {
    for (const n of [64, 45]) {
      const a = Float32Array.from({ length: n * n }, (_, k) => (k % 7) - 3);
      const b = Float32Array.from({ length: n * n }, (_, k) => (k % 5) - 2);
      const { c } = await run(registerTiledMatmul(), device, { a, b });
      const expected = Array.from({ length: n * n }, (_, k) => {
        let s = 0;
        for (let t = 0; t < n; t++) s += a[Math.floor(k / n) * n + t] * b[t * n + (k % n)];
        return s;
      });
      assert.equal(Array.from(c as Float32Array), expected, `n=${n}`);
    }
  });
}

test.run();
