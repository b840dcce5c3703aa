/**
 * Ports of loopy's test/test_loopy.py (issue 28, batch A): what makeKernel works out about the
 * arguments the text leaves unsaid (their existence, shapes, dtypes) and the loops an
 * instruction runs in. loopy only prints most of these kernels; here each guessed shape is
 * asserted and the kernel runs on every test device against plain JavaScript. Names are the
 * originals'.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  addDtypes,
  generateCode,
  globalArg,
  LoomError,
  makeKernel,
  printExpr,
  run,
  valueArg,
  type LoopKernel,
} from '@loom/core';
import { openclTarget } from '@loom/codegen-opencl';
import { countingCompiles, randomFloat32, supportsDType, testDevices } from '../support/devices.ts';

/** Each argument's shape as text, `null` for a shape-less one. */
const shapes = (knl: LoopKernel) =>
  Object.fromEntries(knl.args.map((a) => [a.name, a.shape ? a.shape.map((e) => printExpr(e)) : null]));

const SHAPES_TEXT = 'a = 1.5 + sum((i,j), i*j)\nb[i, j] = i*j\nc[i+j, j] = b[j,i]';

/** The values of loopy's arg-guessing kernels for n: a = 1.5 + sum of i*j, b[i, j] = c[i+j, j] = i*j. */
function shapesReference(n: number) {
  let sum = 0;
  const b: number[] = [];
  const c = new Array<number>((2 * n - 1) * n).fill(-1);
  for (let i = 0; i < n; i++)
    for (let j = 0; j < n; j++) {
      sum += i * j;
      b.push(i * j);
      c[(i + j) * n + j] = i * j;
    }
  return { a: 1.5 + sum, b, c };
}

/**
 * Runs a kernel of SHAPES_TEXT on every device. `b` is passed holding what the kernel writes
 * into it: `c[i+j, j] = b[j, i]` reads elements another iteration writes, so that the result
 * would otherwise depend on the order of the loops, which loopy leaves to the scheduler.
 */
async function checkShapesKernel(knl: LoopKernel, extra: (n: number) => Record<string, number> = () => ({})) {
  const n = 5;
  const ref = shapesReference(n);
  for (const device of testDevices()) {
    const out = await run(knl, device, {
      n,
      b: Int32Array.from(ref.b),
      c: new Int32Array((2 * n - 1) * n).fill(-1),
    });
    assert.equal(Array.from(out.a as ArrayLike<number>), [ref.a], `${device.name}: a`);
    assert.equal(Array.from(out.b as ArrayLike<number>), ref.b, `${device.name}: b`);
    assert.equal(Array.from(out.c as ArrayLike<number>), ref.c, `${device.name}: c`);
    for (const [name, value] of Object.entries(extra(n)))
      assert.equal(Array.from(out[name] as ArrayLike<number>), [value], `${device.name}: ${name}`);
  }
}

test('test_write_parameter', () => {
  // a domain parameter cannot be written by the kernel: loopy refuses it when it generates the
  // code, Loom as soon as the instruction reads as a write of the value argument
  for (const args of [
    [
      globalArg('a', { dtype: 'float32', shape: [] }),
      globalArg('b', { dtype: 'float32', shape: [] }),
      valueArg('n', 'int32'),
    ],
    undefined,
  ]) {
    assert.throws(
      () =>
        generateCode(
          makeKernel('{[i,j]: 0<=i,j<n }', 'a = sum((i,j), i*j)\nb = sum(i, sum(j, i*j))\nn = 15', args, {
            assumptions: 'n>=1',
          }),
          openclTarget(),
        ),
      (e: unknown) => e instanceof LoomError && /'n'/.test(String(e)),
    );
  }
});

// {{{ arg guessing

test('test_arg_shape_guessing', async () => {
  // the arguments are declared without shapes (loopy's shape=lp.auto): each is the extent of
  // its indices over the domain, c's first axis reaching i+j = 2n-2
  const knl = makeKernel(
    '{[i,j]: 0<=i,j<n }',
    SHAPES_TEXT,
    [
      globalArg('a', { shape: 'auto' }),
      globalArg('b', { shape: 'auto' }),
      globalArg('c', { shape: 'auto' }),
      valueArg('n'),
    ],
    { assumptions: 'n>=1' },
  );
  assert.equal(shapes(knl), { a: [], b: ['n', 'n'], c: ['2*n - 1', 'n'], n: null });
  assert.match(generateCode(knl, openclTarget()).code, /c\[n \* \(i \+ j\) \+ j\] = b\[n \* j \+ i\];/);
  await checkShapesKernel(knl);
});

test('test_arg_guessing', async () => {
  // no argument declared: makeKernel finds them, and their shapes, as above
  const knl = makeKernel('{[i,j]: 0<=i,j<n }', SHAPES_TEXT, undefined, { assumptions: 'n>=1' });
  assert.equal(shapes(knl), { a: [], b: ['n', 'n'], c: ['2*n - 1', 'n'], n: null });
  assert.equal(
    knl.args.map((a) => [a.name, a.kind]),
    [
      ['a', 'global'],
      ['b', 'global'],
      ['c', 'global'],
      ['n', 'value'],
    ],
  );
  await checkShapesKernel(knl);
});

test('test_arg_guessing_with_reduction', async () => {
  // simul_reduce over both inames, with (i,j) and [i,j] as its iname list; d reads b, which
  // makes b an input as well as an output
  const knl = makeKernel(
    '{[i,j]: 0<=i,j<n }',
    'a = 1.5 + simul_reduce(sum, (i,j), i*j)\nd = 1.5 + simul_reduce(sum, [i,j], b[i,j])\nb[i, j] = i*j\nc[i+j, j] = b[j,i]',
    undefined,
    { assumptions: 'n>=1' },
  );
  assert.equal(shapes(knl), { a: [], b: ['n', 'n'], c: ['2*n - 1', 'n'], d: [], n: null });
  await checkShapesKernel(knl, (n) => ({ d: shapesReference(n).a }));
});

test('test_unknown_arg_shape', async () => {
  // a is indexed by a temporary: its shape is unknown, so it becomes the length the caller
  // passes (a_length), every access guarded by it
  const knl = addDtypes(
    makeKernel(
      '{[i,j]: 0<=i<n and 0<=j<m}',
      `
      for i
          <int32> gid = i/256
          <int32> start = gid*256
          for j
              a[start + j] = a[start + j] + j
          end
      end
      `,
      undefined,
      { seqDependencies: true, name: 'uniform_l', assumptions: 'm<=256 and m>=1 and n mod 256 = 0' },
    ),
    { a: 'float32' },
  );
  assert.equal(shapes(knl).a, ['a_length']);
  assert.match(generateCode(knl, openclTarget()).code, /if \(0 <= start \+ j && start \+ j < a_length\)/);
  // n = 512: i runs over two blocks of 256, each adding j to a[256*block + j] 256 times
  const n = 512;
  const m = 3;
  const a0 = randomFloat32(n, 3);
  const expected = Array.from(a0);
  for (let i = 0; i < n; i++) for (let j = 0; j < m; j++) expected[Math.floor(i / 256) * 256 + j] += j;
  for (const device of testDevices()) {
    const out = await run(knl, device, { a: a0.slice(), n, m });
    assert.equal(Array.from(out.a as Float32Array), Array.from(Float32Array.from(expected)), device.name);
  }
});

// }}}

test('test_nonlinear_index', async () => {
  // a[i*i] is not affine: the write is guarded by a's declared shape n
  const knl = makeKernel('{[i]: 0<=i<n }', 'a[i*i] = 17', [globalArg('a', { shape: 'n' }), valueArg('n')], {
    assumptions: 'n>=1',
  });
  assert.match(generateCode(knl, openclTarget()).code, /if \(0 <= i \* i && i \* i < n\)\s+a\[i \* i\] = 17;/);
  // with n = 10, i*i leaves a from i = 4 on: those writes are dropped, and reported where run
  // checks such indices (the CPU device always, every device under LOOM_DEBUG)
  for (const device of testDevices()) {
    const { a } = await run(knl, device, { n: 2, a: new Int32Array(2) });
    assert.equal(Array.from(a as Int32Array), [17, 17], device.name);
    const big = await run(knl, device, { n: 10, a: new Int32Array(10) }).catch((e: unknown) => {
      assert.ok(e instanceof LoomError && /writes 'a' at index i\*i = \d+/.test(String(e)), String(e));
      return undefined;
    });
    if (big) assert.equal(Array.from(big.a as Int32Array), [17, 17, 0, 0, 17, 0, 0, 0, 0, 17], device.name);
  }
});

test('test_inames_deps_from_write_subscript', () => {
  // the write's subscript reads src_ibox, written in loop i: the reduction runs inside i too
  const knl = makeKernel(
    '{[i,j]: 0<=i,j<n}',
    '<> src_ibox = source_boxes[i]\n<int32> something = 5\na[src_ibox] = sum(j, something) {id=myred}',
    [
      globalArg('box_source_starts', { shape: null }),
      globalArg('box_source_counts_nonchild', { shape: null }),
      globalArg('a', { shape: null }),
      '...',
    ],
    { name: 'loopy_kernel' },
  );
  assert.ok(knl.instructions.find((i) => i.id === 'myred')!.withinInames.includes('i'));
});

test('test_modulo_indexing', async () => {
  const knl = addDtypes(
    makeKernel('{[i,j]: 0<=i<n and 0<=j<5}', 'b[i] = sum(j, a[(i+j)%n])', [globalArg('a', { shape: 'n' }), '...']),
    { a: 'float32' },
  );
  const n = 7;
  const a = randomFloat32(n, 5);
  const expected = Array.from({ length: n }, (_, i) => {
    let s = 0;
    for (let j = 0; j < 5; j++) s = Math.fround(s + a[(i + j) % n]);
    return s;
  });
  for (const device of testDevices()) {
    const { b } = await run(knl, device, { a, n });
    assert.equal(Array.from(b as Float32Array), expected, device.name);
  }
});

test('test_arg_shape_uses_assumptions', () => {
  // out[0, 0] is in range only because n >= 1: the shape found is (n, n), not something larger
  const knl = makeKernel('{ [i,j]: 0<=i,j<n }', 'out[i,j] = 2*a[i,j]\nout[0,0] = 13.0', undefined, {
    assumptions: 'n>=1',
  });
  assert.equal(shapes(knl).out, ['n', 'n']);
});

test('test_execution_backend_can_cache_dtypes', async () => {
  // loopy's point: a kernel whose dtypes were given (Python's int: int64) is a key of its
  // execution cache. Loom's run caches the compiled program by kernel and device: a second
  // call compiles nothing
  const knl = addDtypes(makeKernel('{[i]: 0 <= i < 10}', '<>tmp[i] = i\nout[i] = tmp[i]'), { tmp: 'int64' });
  for (const plain of testDevices()) {
    if (!supportsDType(plain, 'int64')) continue;
    const { device, compiles } = countingCompiles(plain);
    for (let call = 0; call < 2; call++) {
      const { out } = await run(knl, device, {});
      assert.equal(
        Array.from(out as ArrayLike<number | bigint>, Number),
        Array.from({ length: 10 }, (_, i) => i),
      );
    }
    assert.is(compiles(), 1, plain.name);
    // loopy's kernel as it is: its one temporary is all it writes
    const only = addDtypes(makeKernel('{[i]: 0 <= i < 10}', '<>tmp[i] = i'), { tmp: 'int64' });
    assert.equal(await run(only, device, {}), {}, plain.name);
  }
});

test.run();
