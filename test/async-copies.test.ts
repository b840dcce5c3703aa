/**
 * asyncCopies: the fills of a local temporary issued as asynchronous copies (CUDA's cp.async),
 * waited for at the next barrier. Checked on the kernel (the `async` option, the builder verb,
 * the `{async}` attribute), on what it refuses, on the barrier a work-item needs even for what
 * it copied itself, on the CUDA C (cp.async of 4 bytes, 16 bytes for runs of consecutive
 * elements, the wait before every barrier), and on every device that issues such copies
 * (the CPU device in CI, CUDA on the GPU machine) against plain JavaScript: a matrix-vector
 * product and a matrix product, double-buffered and not, whole and partial tiles.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  addDtypes,
  addPrefetch,
  asyncCopies,
  doubleBuffer,
  fixParameters,
  generateCode,
  LoomError,
  makeKernel,
  prioritizeLoops,
  run,
  setTemporaryAddressSpace,
  splitIname,
  tagInames,
  targetFacts,
  temporaryVariable,
  type LoopKernel,
} from '@loom/core';
import { kernel } from '@loom/dsl';
import { cudaTarget } from '@loom/codegen-cuda';
import { openclTarget } from '@loom/codegen-opencl';
import { wgslTarget } from '@loom/codegen-wgsl';
import { randomFloat32, testDevices } from './support/devices.ts';
import { expectMatvec, expectSquareProduct, stagedMatvec } from './support/staged-matvec.ts';

/**
 * c = a·b in 8 x 8 tiles of work-items, k in steps of 8, both panels in local memory; b's panel
 * copied 4 consecutive floats a work-item (an unrolled loop), which CUDA issues as one 16-byte copy.
 */
function matmul(options: { readonly doubled: boolean }): LoopKernel {
  let knl = makeKernel(
    '{ [i, j, k]: 0 <= i < n and 0 <= j < n and 0 <= k < n }',
    'c[i, j] = sum(k, a[i, k]*b[k, j])',
    undefined,
    { name: 'matmul' },
  );
  knl = splitIname(knl, 'i', 8, { outerTag: 'g.1', innerTag: 'l.1' });
  knl = splitIname(knl, 'j', 8, { outerTag: 'g.0', innerTag: 'l.0' });
  knl = splitIname(knl, 'k', 8);
  knl = addPrefetch(knl, 'a', ['i_inner', 'k_inner'], { temporaryAddressSpace: 'local' });
  knl = addPrefetch(knl, 'b', ['k_inner', 'j_inner'], { temporaryAddressSpace: 'local' });
  // a's 8 x 8 panel: one element a work-item; b's: rows on l.1, 4 consecutive columns on each of two work-items
  knl = tagInames(knl, { a_dim_0: 'l.1', a_dim_1: 'l.0', b_dim_0: 'l.1' });
  knl = splitIname(knl, 'b_dim_1', 4, { outerTag: 'l.0', innerTag: 'unr' });
  if (options.doubled) {
    knl = doubleBuffer(knl, ['a_fetch', 'b_fetch'], 'k_outer');
    knl = prioritizeLoops(knl, 'k_outer_pair,k_outer_parity,k_inner');
  }
  knl = asyncCopies(knl, '*_fetch');
  return addDtypes(knl, { a: 'float32', b: 'float32' });
}

const cuda = (knl: LoopKernel) => generateCode(knl, cudaTarget()).code;

test('asyncCopies marks the fills of the temporaries it names, and the builder verb is the same transformation', () => {
  const knl = asyncCopies(stagedMatvec(), 'x_fetch');
  const fills = knl.instructions.filter((i) => i.asyncCopy);
  assert.equal(
    fills.map((i) => i.id),
    ['x_fetch_rule'],
  );
  assert.match(String(knl), /x_fetch\[x_dim_0\] = x\[.*\] \{id=x_fetch_rule, async\}/);
  const built = kernel('{ [i, j]: 0 <= i < n and 0 <= j < k }', 'y[i] = sum(j, m[i, j]*x[j])', { name: 'matvec' })
    .split('i', 16, { outer: 'g.0', inner: 'l.0' })
    .split('j', 16)
    .prefetch('x', ['j_inner'], { space: 'local' })
    .tag({ x_dim_0: 'l.0' })
    .dtypes({ m: 'float32', x: 'float32' })
    .asyncCopies('x_fetch');
  assert.equal(String(built.kernel), String(knl));
});

test('an {async} attribute makes a written copy asynchronous', () => {
  const knl = makeKernel(
    '{ [g, l]: 0 <= g < 4 and 0 <= l < 8 }',
    `
    <float32> t[l] = x[8*g + l] {id=fill, async}
    y[8*g + l] = 2*t[7 - l] {id=use, dep=fill}
    `,
    [
      { name: 'x', dtype: 'float32', shape: [32] },
      { name: 'y', dtype: 'float32', shape: [32] },
    ],
    { name: 'reverse' },
  );
  const tagged = setTemporaryAddressSpace(tagInames(knl, { g: 'g.0', l: 'l.0' }), 't', 'local');
  assert.equal(tagged.instruction('fill').asyncCopy, true);
  const code = cuda(tagged);
  assert.match(code, 'loom_copy_async_4(t + (tIdx(x)), x + (8 * bIdx(x) + tIdx(x)));');
  assert.match(code, /loom_copy_async_wait\(\);\n\s*__syncthreads\(\)/);
});

test('a work-item waits at a barrier even for the elements it copied itself', () => {
  const knl = makeKernel(
    '{ [g, l]: 0 <= g < 4 and 0 <= l < 8 }',
    `
    <float32> t[l] = x[8*g + l] {id=fill}
    y[8*g + l] = 2*t[l] {id=use, dep=fill}
    `,
    [
      { name: 'x', dtype: 'float32', shape: [32] },
      { name: 'y', dtype: 'float32', shape: [32] },
    ],
    { name: 'own' },
  );
  const local = setTemporaryAddressSpace(tagInames(knl, { g: 'g.0', l: 'l.0' }), 't', 'local');
  // each work-item reads its own element: no barrier for a plain copy
  assert.not.match(cuda(local), '__syncthreads');
  const code = cuda(asyncCopies(local, 't'));
  assert.match(code, /loom_copy_async_4\(t \+ \(tIdx\(x\)\), x \+ \(8 \* bIdx\(x\) \+ tIdx\(x\)\)\);/);
  const copy = code.indexOf('loom_copy_async_4(t');
  const wait = code.indexOf('loom_copy_async_wait();', copy);
  const barrier = code.indexOf('__syncthreads()', wait);
  const use = code.indexOf('y[8 * bIdx(x) + tIdx(x)]');
  assert.ok(copy < wait && wait < barrier && barrier < use, code);
});

test('CUDA issues a run of 4 consecutive floats as one 16-byte copy into an aligned panel, and waits before every barrier', () => {
  const code = cuda(fixParameters(matmul({ doubled: true }), { n: 64 }));
  assert.match(code, '__shared__ __align__(16) float b_fetch');
  assert.match(code, /asm volatile\("cp\.async\.cg\.shared\.global \[%0\], \[%1\], 16;/);
  assert.match(code, /loom_copy_async_16\(b_fetch \+ \(/);
  assert.match(code, /loom_copy_async_4\(a_fetch \+ \(/);
  const barriers = code.match(/__syncthreads\(\)/g)!.length;
  const waits = code.match(/loom_copy_async_wait\(\);\n\s*__syncthreads\(\)/g)!.length;
  assert.equal(waits, barriers);
});

test('what asyncCopies refuses: no local temporary, a computed value, a value from a temporary, a half copied alone', () => {
  const refused = (f: () => unknown, pattern: RegExp) =>
    assert.throws(f, (e: unknown) => e instanceof LoomError && pattern.test(e.message), `expected ${pattern}`);
  refused(() => asyncCopies(stagedMatvec(), 'x'), /'x' is an argument, not a temporary/);
  refused(() => asyncCopies(stagedMatvec(), 'nothing*'), /no temporary matches 'nothing\*'/);
  const scaled = makeKernel(
    '{ [l]: 0 <= l < 8 }',
    `
    <float32> t[l] = 2*x[l] {id=fill}
    y[l] = t[7 - l] {dep=fill}
    `,
    [
      { name: 'x', dtype: 'float32', shape: [8] },
      { name: 'y', dtype: 'float32', shape: [8] },
    ],
  );
  const local = (k: LoopKernel) => setTemporaryAddressSpace(k, 't', 'local');
  refused(() => asyncCopies(local(scaled), 't'), /computes its value/);
  refused(() => asyncCopies(scaled, 't'), /not a local temporary/);
  // an {async} instruction that is no copy is refused when code is generated
  const written = makeKernel('{ [l]: 0 <= l < 8 }', 'y[l] = 2*x[l] {async}', [
    { name: 'x', dtype: 'float32', shape: [8] },
    { name: 'y', dtype: 'float32', shape: [8] },
  ]);
  refused(() => cuda(written), /asynchronous copy, but it writes 'y', which is not a local temporary/);
  // a half copied alone is 2 bytes, which cp.async cannot move
  const halves = tagInames(
    local(
      makeKernel(
        '{ [g, l]: 0 <= g < 4 and 0 <= l < 8 }',
        `
      <float16> t[l] = x[8*g + l] {id=fill, async}
      y[8*g + l] = t[7 - l] {dep=fill}
      `,
        [
          { name: 'x', dtype: 'float16', shape: [32] },
          { name: 'y', dtype: 'float16', shape: [32] },
        ],
      ),
    ),
    { g: 'g.0', l: 'l.0' },
  );
  refused(() => cuda(halves), /instruction 'fill' is an asynchronous copy.*holds float16 values as floats/);
});

test('targets without asynchronous copies refuse them, naming the instruction', () => {
  const knl = fixParameters(asyncCopies(stagedMatvec(), 'x_fetch'), { n: 32, k: 32 });
  for (const target of [openclTarget(), wgslTarget()]) {
    assert.equal(targetFacts(target).asyncCopies, false);
    assert.throws(
      () => generateCode(knl, target),
      (e: Error) =>
        e instanceof LoomError &&
        /'x_fetch_rule' is an asynchronous copy, which the \w+ target cannot issue/.test(e.message),
    );
  }
});

for (const device of testDevices()) {
  if (!targetFacts(device.target).asyncCopies) {
    test(`${device.name}: a kernel with asynchronous copies is refused before it runs`, async () => {
      const knl = fixParameters(asyncCopies(stagedMatvec(), 'x_fetch'), { n: 32, k: 32 });
      try {
        await run(knl, device, { m: randomFloat32(32 * 32, 1), x: randomFloat32(32, 2) });
      } catch (e) {
        assert.instance(e, LoomError);
        assert.match((e as Error).message, 'asynchronous copy');
        return;
      }
      assert.unreachable('expected a LoomError');
    });
    continue;
  }

  test(`${device.name}: a matrix-vector product with x copied asynchronously, plain and double-buffered`, async () => {
    const plain = asyncCopies(stagedMatvec(), 'x_fetch');
    const doubled = asyncCopies(doubleBuffer(stagedMatvec(), 'x_fetch', 'j_outer'), 'x_fetch');
    const cases: [string, LoopKernel, number, number][] = [
      ['plain, whole tiles', fixParameters(plain, { n: 32, k: 64 }), 32, 64],
      ['plain, a runtime length', plain, 48, 37],
      ['double-buffered, 3 steps', fixParameters(doubled, { n: 32, k: 48 }), 32, 48],
      ['double-buffered, a partial last tile', fixParameters(doubled, { n: 32, k: 40 }), 32, 40],
      ['double-buffered, a runtime length', doubled, 48, 37],
    ];
    for (const [what, knl, n, k] of cases) {
      await expectMatvec(device, what, knl, n, k);
    }
  });

  test(`${device.name}: a tile copied asynchronously from a global temporary that a kernel before a global barrier wrote`, async () => {
    let knl = makeKernel(
      ['{ [t]: 0 <= t < n }', '{ [i, j]: 0 <= i < n and 0 <= j < n }'],
      [
        'twice[t] = 2*x[t]  {id=double}',
        '... gbarrier  {id=written, dep=double}',
        'y[i] = sum(j, m[i, j]*twice[j])  {dep=written}',
      ].join('\n'),
      [temporaryVariable('twice', { dtype: 'float32', shape: ['n'], addressSpace: 'global' }), '...'],
    );
    knl = splitIname(knl, 't', 32, { outerTag: 'g.0', innerTag: 'l.0' });
    knl = splitIname(knl, 'i', 32, { outerTag: 'g.0', innerTag: 'l.0' });
    knl = splitIname(knl, 'j', 32);
    knl = addPrefetch(knl, 'twice', ['j_inner'], {
      temporaryAddressSpace: 'local',
      fetchOuterInames: ['i_outer', 'j_outer'],
    });
    knl = tagInames(knl, { twice_dim_0: 'l.0' });
    knl = addDtypes(fixParameters(asyncCopies(knl, 'twice_fetch'), { n: 96 }), { m: 'float32', x: 'float32' });
    const m = randomFloat32(96 * 96, 1);
    const x = randomFloat32(96, 2);
    const { y } = await run(knl, device, { m, x });
    for (let i = 0; i < 96; i++) {
      let sum = 0;
      for (let j = 0; j < 96; j++) sum += m[i * 96 + j]! * 2 * x[j]!;
      assert.ok(Math.abs((y as Float32Array)[i]! - sum) <= 1e-4 * (1 + Math.abs(sum)), `y[${i}]`);
    }
  });

  test(`${device.name}: a matrix product with both panels copied asynchronously (16-byte runs), plain and double-buffered`, async () => {
    for (const doubled of [false, true])
      for (const n of [64, 40]) {
        const a = randomFloat32(n * n, 1);
        const b = randomFloat32(n * n, 2);
        const { c } = await run(fixParameters(matmul({ doubled }), { n }), device, { a, b });
        expectSquareProduct(c as Float32Array, a, b, n, `${doubled ? 'double-buffered' : 'plain'}, n = ${n}`);
      }
  });
}

test.run();
