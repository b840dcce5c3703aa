/**
 * doubleBuffer: a local fetch filled one step of a sequential loop ahead, into a second
 * buffer, one barrier a step. Checked on a tiled matrix-vector product (a 1-D sum staged
 * through local memory: whole tiles, a partial last tile, an odd count of steps, a runtime
 * length) and a tiled matrix product (both panels double-buffered) against plain JavaScript on
 * every device; on the generated OpenCL C (the next step's fill before this step's reads,
 * one barrier a step, twice the local memory); the builder verb; and its errors.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  addDtypes,
  addPrefetch,
  doubleBuffer,
  fixParameters,
  generateCode,
  LoomError,
  makeKernel,
  pipelinePrefetch,
  prioritizeLoops,
  run,
  setTemporaryAddressSpace,
  splitIname,
  tagInames,
  type LoopKernel,
} from '@loom/core';
import { kernel } from '@loom/dsl';
import { openclTarget } from '@loom/codegen-opencl';
import { randomFloat32, testDevices } from './support/devices.ts';
import { expectMatvec, expectSquareProduct, matvecReference, stagedMatvec } from './support/staged-matvec.ts';

/** c = a·b in 8 x 8 tiles of work-items, k in steps of 4, both panels staged in local memory and double-buffered. */
function matmul(): LoopKernel {
  let knl = makeKernel(
    '{ [i, j, k]: 0 <= i < n and 0 <= j < n and 0 <= k < n }',
    'c[i, j] = sum(k, a[i, k]*b[k, j])',
    undefined,
    { name: 'matmul' },
  );
  knl = splitIname(knl, 'i', 8, { outerTag: 'g.1', innerTag: 'l.1' });
  knl = splitIname(knl, 'j', 8, { outerTag: 'g.0', innerTag: 'l.0' });
  knl = splitIname(knl, 'k', 4);
  knl = addPrefetch(knl, 'a', ['i_inner', 'k_inner'], { temporaryAddressSpace: 'local' });
  knl = addPrefetch(knl, 'b', ['k_inner', 'j_inner'], { temporaryAddressSpace: 'local' });
  // a's panel is 8 x 4: rows on l.1, the 4 columns on the first half of l.0 (the rest idle)
  knl = splitIname(knl, 'a_dim_1', 4, { innerTag: 'l.0' });
  knl = tagInames(knl, { a_dim_0: 'l.1', b_dim_0: 'l.1', b_dim_1: 'l.0' });
  knl = doubleBuffer(knl, ['a_fetch', 'b_fetch'], 'k_outer');
  knl = prioritizeLoops(knl, 'k_outer_pair,k_outer_parity,k_inner');
  return addDtypes(knl, { a: 'float32', b: 'float32' });
}

const openclCode = (knl: LoopKernel) => generateCode(knl, openclTarget()).code;

for (const device of testDevices()) {
  test(`${device.name}: a double-buffered fetch computes what the plain one does (whole tiles, a partial last tile, odd and even step counts, a runtime length)`, async () => {
    const cases: [string, LoopKernel, number, number][] = [
      [
        'whole tiles, 4 steps',
        fixParameters(doubleBuffer(stagedMatvec(), 'x_fetch', 'j_outer'), { n: 32, k: 64 }),
        32,
        64,
      ],
      [
        'whole tiles, 3 steps',
        fixParameters(doubleBuffer(stagedMatvec(), 'x_fetch', 'j_outer'), { n: 32, k: 48 }),
        32,
        48,
      ],
      [
        'a partial last tile',
        fixParameters(doubleBuffer(stagedMatvec(), 'x_fetch', 'j_outer'), { n: 32, k: 40 }),
        32,
        40,
      ],
      ['a runtime length', doubleBuffer(stagedMatvec(), 'x_fetch', 'j_outer'), 48, 37],
      ['a runtime length of one tile', doubleBuffer(stagedMatvec(), 'x_fetch', 'j_outer'), 16, 5],
    ];
    for (const [what, knl, n, k] of cases) {
      await expectMatvec(device, what, knl, n, k);
    }
  });

  test(`${device.name}: a pipelined fetch double-buffered: its registers two steps ahead, local memory one`, async () => {
    for (const [n, k] of [
      [32, 64],
      [32, 40],
      [16, 48],
    ]) {
      const knl = fixParameters(
        doubleBuffer(pipelinePrefetch(stagedMatvec(), 'x_fetch_rule', 'j_outer'), 'x_fetch', 'j_outer'),
        {
          n,
          k,
        },
      );
      const m = randomFloat32(n * k, 3);
      const x = randomFloat32(k, 4);
      const expected = matvecReference(m, x, n, k);
      const { y } = await run(knl, device, { m, x });
      for (let i = 0; i < n; i++)
        assert.ok(
          Math.abs((y as Float32Array)[i] - expected[i]) <= 1e-5 * k,
          `k = ${k}: y[${i}] = ${(y as Float32Array)[i]}, expected ${expected[i]}`,
        );
    }
  });

  test(`${device.name}: a matrix product with both panels double-buffered`, async () => {
    for (const n of [24, 20]) {
      const a = randomFloat32(n * n, 1);
      const b = randomFloat32(n * n, 2);
      const { c } = await run(fixParameters(matmul(), { n }), device, { a, b });
      expectSquareProduct(c as Float32Array, a, b, n, `n = ${n}`);
    }
  });
}

test("the next step's fill goes before this step's reads, into the other buffer, with one barrier a step", () => {
  const code = openclCode(fixParameters(doubleBuffer(stagedMatvec(), 'x_fetch', 'j_outer'), { n: 32, k: 64 }));
  // twice the local memory; the first step filled before the loop, then one barrier
  assert.match(code, '__local float x_fetch[32];');
  const loop = code.indexOf('for (int j_outer_pair');
  const first = code.indexOf('x_fetch[lid(0)] = x[lid(0)];');
  assert.ok(first >= 0 && first < loop, code);
  assert.is((code.slice(0, loop).match(/barrier\(/g) ?? []).length, 1, code);
  // the unrolled pair of steps: fill buffer 1 (step + 1), read buffer 0, barrier; fill buffer 0, read buffer 1, barrier
  const body = code.slice(loop);
  const fillOne = body.indexOf('x_fetch[lid(0) + 16] = x[32 * j_outer_pair + lid(0) + 16];');
  const readZero = body.indexOf('* x_fetch[j_inner]');
  const fillZero = body.indexOf('x_fetch[lid(0)] = x[32 * j_outer_pair + lid(0) + 32];');
  const readOne = body.indexOf('* x_fetch[j_inner + 16]');
  assert.ok(0 < fillOne && fillOne < readZero && readZero < fillZero && fillZero < readOne, body);
  assert.is((body.match(/barrier\(/g) ?? []).length, 2, body);
  // the plain kernel waits twice a step
  const plain = openclCode(fixParameters(stagedMatvec(), { n: 32, k: 64 }));
  assert.is((plain.match(/barrier\(/g) ?? []).length, 2);
  assert.match(plain, '__local float x_fetch[16];');
});

test('the last step fills nothing: the fill of step j + 1 is guarded where a step may be the last', () => {
  const code = openclCode(fixParameters(doubleBuffer(stagedMatvec(), 'x_fetch', 'j_outer'), { n: 32, k: 48 }));
  // three steps: the second pair's first step is the last one; its fill of a fourth step is guarded away
  assert.match(
    code,
    /if \([^\n]*j_outer_pair[^\n]*\)\n\s*x_fetch\[lid\(0\)\] = x\[32 \* j_outer_pair \+ lid\(0\) \+ 32\];/,
  );
});

test('the kernel it returns is new; the one it was given is unchanged; inames and ids', () => {
  const plain = stagedMatvec();
  const before = plain.toString();
  const doubled = doubleBuffer(plain, 'x_fetch', 'j_outer', { pairIname: 'jp', parityIname: 'jq' });
  assert.is(plain.toString(), before);
  assert.equal(doubled.temporaries.get('x_fetch')?.shape.length, 2);
  assert.equal(doubled.inameTags.get('jq')?.kind, 'unroll');
  assert.ok(doubled.inames.includes('jp') && !doubled.inames.includes('j_outer'));
  assert.equal(
    doubled.instructions.map((i) => i.id),
    ['x_fetch_rule_first', 'x_fetch_rule', 'insn'],
  );
});

test('the builder verb is the same transformation', () => {
  const built = kernel('{ [i, j]: 0 <= i < n and 0 <= j < k }', 'y[i] = sum(j, m[i, j]*x[j])', { name: 'matvec' })
    .split('i', 16, { outer: 'g.0', inner: 'l.0' })
    .split('j', 16)
    .prefetch('x', ['j_inner'], { space: 'local' })
    .tag({ x_dim_0: 'l.0' })
    .doubleBuffer('x_fetch', 'j_outer')
    .dtypes({ m: 'float32', x: 'float32' }).kernel;
  assert.is(openclCode(built), openclCode(doubleBuffer(stagedMatvec(), 'x_fetch', 'j_outer')));
});

test('what it cannot double-buffer is a LoomError saying why', () => {
  const knl = stagedMatvec();
  const fails = (f: () => unknown, message: RegExp) =>
    assert.throws(
      f,
      (e: unknown) => e instanceof LoomError && message.test((e as Error).message),
      `expected ${message}`,
    );
  fails(() => doubleBuffer(knl, 'x_fetch', 'nope'), /unknown iname 'nope'/);
  fails(() => doubleBuffer(knl, 'x_fetch', 'i_inner'), /'i_inner' is tagged local; only a sequential loop/);
  fails(() => doubleBuffer(knl, 'nothing', 'j_outer'), /'nothing' is not a temporary/);
  fails(() => doubleBuffer(knl, [], 'j_outer'), /no temporary named/);
  fails(
    () => doubleBuffer(setTemporaryAddressSpace(knl, 'x_fetch', 'private'), 'x_fetch', 'j_outer'),
    /'x_fetch' is in private memory; only a local temporary/,
  );
  fails(() => doubleBuffer(knl, 'x_fetch', 'j_outer', { pairIname: 'i_inner' }), /'i_inner' is already used/);
  fails(() => doubleBuffer(knl, 'x_fetch', 'j_outer', { parityIname: 'a b' }), /parityIname/);
  // one step: nothing to fill ahead
  fails(
    () => doubleBuffer(fixParameters(knl, { n: 16, k: 16 }), 'x_fetch', 'j_outer'),
    /runs one step; there is no next step/,
  );
  // a fill that reads what the loop changes for others than the fills
  const stepped = makeKernel(
    '{ [t, s]: 0 <= t < 8 and 0 <= s < 16 }',
    ['<float32> u[s] = v[t, s] {id=fill}', 'v[t + 1, s] = u[s] + 1 {id=step, dep=fill}'],
    undefined,
    { name: 'recurrence' },
  );
  fails(
    () => doubleBuffer(setTemporaryAddressSpace(tagInames(stepped, { s: 'l.0' }), 'u', 'local'), 'u', 't'),
    /reads 'v', which 'step' writes inside loop 't'/,
  );
  // a scalar refilled in a loop the reads share: the step's fill would keep its last value only
  // (found by the differential generator, seed 3967484683: t local, double-buffered over i of j <= i)
  const refilled = setTemporaryAddressSpace(
    makeKernel(
      '{ [i, j]: 0 <= i < n and 0 <= j <= i }',
      ['<> t = a[i, j]*a[i, j]', 'out[i, j] = t*a[i, j]'],
      undefined,
      {
        name: 'refilled',
      },
    ),
    't',
    'local',
  );
  fails(() => doubleBuffer(refilled, 't', 'i'), /writes an element of 't' more than once in a step of 'i'/);
  // slabs of the loop would be lost by its split
  const slabbed = splitIname(
    makeKernel('{ [i, j]: 0 <= i < 16 and 0 <= j < k }', 'y[i] = sum(j, m[i, j]*x[j])'),
    'j',
    16,
    { slabs: [0, 1] },
  );
  const tiled = tagInames(
    addPrefetch(tagInames(slabbed, { i: 'l.0' }), 'x', ['j_inner'], { temporaryAddressSpace: 'local' }),
    {
      x_dim_0: 'l.0',
    },
  );
  fails(() => doubleBuffer(tiled, 'x_fetch', 'j_outer'), /has slabs/);
  // a loop that starts at a parameter: which buffer its first step fills is not known
  const shifted = makeKernel('{ [i, j]: 0 <= i < 16 and s <= j < s + 64 }', 'y[i] = sum(j, m[i, j]*x[j])');
  const tiledShifted = tagInames(
    addPrefetch(tagInames(splitIname(shifted, 'j', 16), { i: 'l.0' }), 'x', ['j_inner'], {
      temporaryAddressSpace: 'local',
    }),
    { x_dim_0: 'l.0' },
  );
  fails(() => doubleBuffer(tiledShifted, 'x_fetch', 'j_outer'), /no single affine first value \(s - 15\)/);
  assert.throws(() => doubleBuffer(knl, 'x_fetch', 'j_outer', { buffers: 3 } as never), /unknown option/);
});

test.run();
