/**
 * The C device (`@loom/codegen-c`): kernels with barriers, every integer width and float64
 * against the CPU device; a compile error and a missing compiler as LoomErrors; the disk cache
 * shared by devices. Every device test (testDevices()) runs on it too.
 */
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  addDtypes,
  addPrefetch,
  defineFunction,
  globalArg,
  registerFunction,
  generateCode,
  hostArrayConstructor,
  LoomError,
  makeKernel,
  run,
  splitIname,
  tagInames,
  type DType,
  type LoopKernel,
} from '@loom/core';
import { cpuDevice } from '@loom/codegen-js';
import { cDevice, cTarget, cUnavailableReason } from '@loom/codegen-c';
import { cDeviceOrSkip } from './support/backends.ts';
import { assertClose, randomFloat32 } from './support/devices.ts';

const device = cDeviceOrSkip();
const cpu = cpuDevice();

/** Runs `knl` on the C device and the CPU device; their outputs must agree. */
async function agree(
  knl: LoopKernel,
  data: Record<string, ArrayLike<number> | number>,
  output: string,
  rtol = 0,
): Promise<void> {
  if (!device) return;
  const expected = (await run(knl, cpu, data as never))[output] as ArrayLike<number>;
  const actual = (await run(knl, device, data as never))[output] as ArrayLike<number>;
  if (rtol === 0) assert.equal(Array.from(actual), Array.from(expected), output);
  else assertClose(actual, expected, output, rtol, rtol);
}

test('a local-memory reversal, cut at its barrier: every work-item reads what another wrote', async () => {
  let knl = makeKernel(
    '{ [g, l]: 0<=g<4 and 0<=l<64 }',
    ['<float32> t[l] = a[64*g + l]  {id=fetch}', 'out[64*g + l] = t[63 - l]  {dep=fetch}'],
    undefined,
    { name: 'reverse' },
  );
  knl = addDtypes(tagInames(knl, { g: 'g.0', l: 'l.0' }), { a: 'float32' });
  // two regions, each a loop over the 64 work-items
  assert.is(generateCode(knl, cTarget()).code.match(/for \(int lid_0 = 0; lid_0 <= 63; \+\+lid_0\)/g)?.length, 2);
  await agree(knl, { a: randomFloat32(256) }, 'out');
});

test('a tree sum over a work-group, and a prefix scan over the sequential axis', async () => {
  let sum = makeKernel('{ [g, j]: 0<=g<8 and 0<=j<128 }', 'out[g] = sum(j, a[128*g + j])', undefined, {
    name: 'tree_sum',
  });
  sum = tagInames(sum, { g: 'g.0', j: 'l.0' });
  await agree(addDtypes(sum, { a: 'float32' }), { a: randomFloat32(1024) }, 'out', 1e-5);
  const scan = makeKernel('{ [i, j]: 0<=i<n and 0<=j<=i }', 'out[i] = sum(j, a[j])', undefined, { name: 'scan' });
  await agree(addDtypes(scan, { a: 'float64' }), { a: Float64Array.from(randomFloat32(300)), n: 300 }, 'out', 1e-12);
});

const INTEGERS: DType[] = ['int8', 'uint8', 'int16', 'uint16', 'int32', 'uint32', 'int64', 'uint64'];

test('integers of every width wrap, divide and shift as on the CPU device', async () => {
  for (const dtype of INTEGERS) {
    const knl = addDtypes(
      makeKernel('{ [i]: 0<=i<n }', 'out[i] = a[i] * b[i] + a[i] // (b[i] | 1) - (a[i] % 7) + (b[i] >> 2)', undefined, {
        name: `ints_${dtype}`,
      }),
      {
        a: dtype,
        b: dtype,
      },
    );
    const n = 97;
    const wide = dtype.endsWith('64');
    const values = (seed: number) => Array.from(randomFloat32(n, seed), (x) => Math.trunc(x * 2 ** 15));
    const Ctor = hostArrayConstructor(dtype);
    // negative values wrap into the unsigned types, as C's conversion does
    const typed = (xs: number[]) =>
      wide
        ? dtype === 'int64'
          ? BigInt64Array.from(xs, BigInt)
          : BigUint64Array.from(xs, (x) => BigInt.asUintN(64, BigInt(x)))
        : new (Ctor as Int32ArrayConstructor)(xs);
    const a = typed(values(3));
    const b = typed(values(7));
    if (!device) return;
    const expected = (await run(knl, cpu, { a, b, n } as never)).out as ArrayLike<unknown>;
    const actual = (await run(knl, device, { a, b, n } as never)).out as ArrayLike<unknown>;
    assert.equal(Array.from(actual), Array.from(expected), dtype);
  }
});

test('float64 math agrees with the CPU device', async () => {
  const knl = addDtypes(
    makeKernel('{ [i]: 0<=i<n }', 'out[i] = sqrt(abs(a[i])) + exp(a[i]) * sin(a[i]) / (1 + a[i]*a[i])', undefined, {
      name: 'f64',
    }),
    { a: 'float64' },
  );
  await agree(knl, { a: Float64Array.from(randomFloat32(200, 5), (x) => 4 * x), n: 200 }, 'out', 1e-14);
});

test('atomic updates from work-groups that run in parallel: every dtype the C target states, against the CPU device', async () => {
  if (!device) return;
  assert.equal([...device.target.atomicDTypes!], ['int32', 'uint32', 'int64', 'uint64', 'float32', 'float64']);
  // one work-item per group, 512 groups: OpenMP's threads update the same 4 elements at once
  const updates = [
    'out[i%4] = out[i%4] + a[i] {atomic}',
    'lo[i%4] = min(lo[i%4], a[i]) {atomic}',
    'hi[i%4] = max(hi[i%4], a[i]) {atomic}',
  ];
  for (const dtype of ['int32', 'uint32', 'int64', 'uint64', 'float32', 'float64'] as const) {
    const args = ['out', 'lo', 'hi'].map((name) => globalArg(name, { dtype, shape: [4], forAtomic: true }));
    const knl = tagInames(
      makeKernel('{ [i]: 0<=i<n }', updates, [...args, globalArg('a', { dtype, shape: ['n'] }), '...']),
      { i: 'g.0' },
    );
    const Host = hostArrayConstructor(dtype) as unknown as new (
      values: readonly (number | bigint)[],
    ) => ArrayLike<number>;
    const host = (values: number[]) => new Host(dtype === 'int64' || dtype === 'uint64' ? values.map(BigInt) : values);
    // small whole numbers: float sums are exact in any order, so the result is one value
    const values = Array.from(randomFloat32(512, 11), (x) => Math.round(50 * x + (dtype.startsWith('u') ? 50 : 0)));
    const data = {
      a: host(values),
      n: 512,
      out: host([0, 0, 0, 0]),
      lo: host([200, 200, 200, 200]),
      hi: host([0, 0, 0, 0]),
    };
    const expected = await run(knl, cpu, data as never);
    const actual = await run(knl, device, data as never);
    for (const name of ['out', 'lo', 'hi'])
      assert.equal(
        Array.from(actual[name] as ArrayLike<number>),
        Array.from(expected[name] as ArrayLike<number>),
        `${dtype} ${name}`,
      );
  }
});

test('groups that reach past the domain: guards folded into the work-item loops, loops sunk and split, same values as the CPU', async () => {
  // n not a multiple of the groups: the last group's guards cut its work-item loops short
  for (const n of [1, 37, 130]) {
    let fill = makeKernel('{ [i]: 0<=i<n }', 'a[i] = 2*i + 1', [globalArg('a', { dtype: 'float32', shape: ['n'] })]);
    fill = tagInames(splitIname(fill, 'i', 16), { i_outer: 'g.0', i_inner: 'l.0' });
    await agree(fill, { n }, 'a');

    // a 16x16-tiled matmul: the fetches split per guard, the work-items innermost in the k_inner loop
    let mm = makeKernel('{ [i, j, k]: 0<=i,j,k<n }', 'c[i, j] = sum(k, a[i, k] * b[k, j])', undefined, {
      assumptions: 'n >= 1',
    });
    mm = addDtypes(mm, { a: 'float32', b: 'float32' });
    mm = splitIname(mm, 'i', 16, { outerTag: 'g.1', innerTag: 'l.1' });
    mm = splitIname(mm, 'j', 16, { outerTag: 'g.0', innerTag: 'l.0' });
    mm = splitIname(mm, 'k', 16);
    mm = addPrefetch(mm, 'a', ['k_inner', 'i_inner'], { defaultTag: 'l.auto' });
    mm = addPrefetch(mm, 'b', ['j_inner', 'k_inner'], { defaultTag: 'l.auto' });
    const code = generateCode(mm, cTarget()).code;
    assert.match(code, /for \(int k_inner[^\n]*\n\s*for \(int lid_1/);
    await agree(mm, { a: randomFloat32(n * n, 3), b: randomFloat32(n * n, 4), n }, 'c', 1e-5);
  }
});

test('a private scalar the work-items take turns with keeps each work-item whole in a loop', async () => {
  // t is one variable the serialized work-items share: the work-item loop must stay outside k
  let knl = makeKernel(
    '{ [g, l, k]: 0<=g<3 and 0<=l<8 and 0<=k<4 }',
    ['<float32> t = a[8*g + l, k] * 2  {id=t}', 'out[8*g + l, k] = t + k  {dep=t}'],
    [globalArg('a', { dtype: 'float32', shape: [24, 4] }), '...'],
  );
  knl = tagInames(knl, { g: 'g.0', l: 'l.0' });
  assert.match(generateCode(knl, cTarget()).code, /for \(int lid_0[^\n]*\n\s*for \(int k/);
  await agree(knl, { a: randomFloat32(96, 5) }, 'out');
});

test('a compile error is a LoomError with the compiler message and the generated line', async () => {
  if (!device) return;
  const broken = defineFunction({
    name: 'broken',
    signature: { args: ['float32'], result: 'float32' },
    c: { name: 'loom_user_broken', preamble: 'float loom_user_broken(float x) { return x +; }' },
    js: (x: number) => x,
  });
  const knl = addDtypes(
    registerFunction(
      makeKernel('{ [i]: 0<=i<n }', 'out[i] = broken(a[i])', undefined, { name: 'broken_kernel' }),
      broken,
    ),
    { a: 'float32' },
  );
  const code = generateCode(knl, cTarget());
  try {
    await device.compile(code);
    assert.unreachable('the broken code compiled');
  } catch (e) {
    assert.ok(e instanceof LoomError, String(e));
    assert.match(e.message, /rejected the generated code/);
    assert.match(e.message, /error/);
    assert.match(e.message, /return x \+; }/);
  }
});

test('without a C compiler cDevice() is undefined and the reason names LOOM_CC', () => {
  const saved = process.env.LOOM_CC;
  process.env.LOOM_CC = '/nonexistent/loom-cc';
  try {
    assert.is(cDevice(), undefined);
    assert.match(cUnavailableReason(), /no C compiler.*\/nonexistent\/loom-cc.*LOOM_CC/);
  } finally {
    if (saved === undefined) delete process.env.LOOM_CC;
    else process.env.LOOM_CC = saved;
  }
});

test('a second device finds the library the first compiled, in the cache folder', async () => {
  if (!device) return;
  const saved = process.env.LOOM_CACHE_DIR;
  const folder = mkdtempSync(path.join(tmpdir(), 'loom-c-cache-'));
  process.env.LOOM_CACHE_DIR = folder;
  try {
    const knl = addDtypes(makeKernel('{ [i]: 0<=i<n }', 'out[i] = 3*a[i]', undefined, { name: 'cached' }), {
      a: 'float32',
    });
    const code = generateCode(knl, cTarget());
    const first = cDevice()!;
    await first.compile(code);
    const libraries = readdirSync(path.join(folder, 'c'));
    assert.is(libraries.length, 1, 'one library, no temporary file left');
    const written = statSync(path.join(folder, 'c', libraries[0])).mtimeMs;
    const second = cDevice()!;
    await second.compile(code);
    assert.equal(readdirSync(path.join(folder, 'c')), libraries);
    assert.is(statSync(path.join(folder, 'c', libraries[0])).mtimeMs, written, 'not compiled again');
    const { out } = await run(knl, second, { a: new Float32Array([1, 2]) });
    assert.equal(Array.from(out as Float32Array), [3, 6]);
    first.dispose();
    second.dispose();
  } finally {
    if (saved === undefined) delete process.env.LOOM_CACHE_DIR;
    else process.env.LOOM_CACHE_DIR = saved;
    rmSync(folder, { recursive: true, force: true });
  }
});

test('cDevice({ flags }) adds compiler flags, keyed in the cache; a flag that changes the results is refused', async () => {
  if (!device) return;
  for (const flag of ['-ffast-math', '-Ofast', '-ffp-contract=fast', '-fno-wrapv', '-funsigned-char'])
    assert.throws(
      () => cDevice({ flags: [flag] }),
      (e: unknown) => e instanceof LoomError && e.message.includes(`'${flag}'`),
      flag,
    );
  assert.throws(
    () => cDevice({ flags: [''] }),
    (e: unknown) => e instanceof LoomError,
  );
  const tuned = cDevice({ flags: ['-O2', '-funroll-loops'] })!;
  try {
    assert.ok(tuned.name.endsWith('-O2 -funroll-loops'), tuned.name);
    const knl = addDtypes(makeKernel('{ [i]: 0<=i<n }', 'out[i] = 2*a[i] + 1', undefined, { name: 'flagged' }), {
      a: 'float32',
    });
    const { out } = await run(knl, tuned, { a: new Float32Array([1, 2, 3]) });
    assert.equal(Array.from(out as Float32Array), [3, 5, 7]);
  } finally {
    tuned.dispose();
  }
});

test.run();
