// The JavaScript target and the CPU device, on program ASTs built by hand (no kernel model
// involved), checked against the same computation written directly in JavaScript.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  expr as E,
  LoomError,
  programCode,
  type DType,
  type Expr,
  type HostArray,
  type KernelFunction,
  type KernelParam,
  type Stmt,
  requireConstantLocalSize,
} from '@loom/core';
import { cpuDevice, erf, jsTarget } from '@loom/codegen-js';

const { variable: v, subscript, int, float, binary, compare, call, cast, ifThenElse, logical, neg } = E;
const at = (array: string, index: Expr) => subscript(array, [index]);

// --- building kernels and running them ----------------------------------------------------------

interface KernelSpec {
  readonly name?: string;
  /** `name: dtype` for arrays, `name: dtype value` for values. */
  readonly params: readonly string[];
  readonly body: readonly Stmt[];
  /** dtypes of inames and temporaries (params are added). */
  readonly types?: Readonly<Record<string, DType>>;
  readonly localSize?: readonly number[];
}

function kernel(spec: KernelSpec): KernelFunction {
  const params: KernelParam[] = spec.params.map((p) => {
    const [name, dtype, value] = p.split(/[:\s]+/);
    return { name, dtype: dtype as DType, kind: value === 'value' ? 'value' : 'global', written: true };
  });
  const types = new Map<string, DType>(Object.entries(spec.types ?? {}) as [string, DType][]);
  for (const p of params) types.set(p.name, p.dtype);
  return {
    name: spec.name ?? 'knl',
    params,
    body: { kind: 'block', body: spec.body },
    localSize: (spec.localSize ?? [1]).map(int),
    groupCount: [int(1)],
    types,
  };
}

const assign = (target: Expr, value: Expr, dtype: DType = 'float32'): Stmt => ({
  kind: 'assign',
  target,
  value,
  dtype,
  atomic: false,
  insnId: 'insn',
});
const loop = (iname: string, lower: Expr, upper: Expr, ...body: Stmt[]): Stmt => ({
  kind: 'for',
  iname,
  lower,
  upper,
  body: { kind: 'block', body },
});
const when = (condition: Expr, ...body: Stmt[]): Stmt => ({ kind: 'if', condition, then: { kind: 'block', body } });
const barrier: Stmt = { kind: 'barrier', scope: 'local' };

function source(k: KernelFunction): string {
  if (process.env.SHOW_JS) console.log(jsTarget().generate({ kernels: [k] }).code);
  return jsTarget().generate({ kernels: [k] }).code;
}

/**
 * Runs `k` on a fresh CPU device: arrays are copied in (or zero-filled of the given length),
 * values passed; returns every array afterwards.
 */
async function launch(
  k: KernelFunction,
  args: Readonly<Record<string, HostArray | number | bigint>>,
  grid: { groups?: readonly number[]; local?: readonly number[] } = {},
): Promise<Record<string, HostArray>> {
  const device = cpuDevice();
  const code = programCode({ kernels: [k] }, device.target);
  if (process.env.SHOW_JS) console.log(code.code);
  const compiled = await device.compile(code);
  const buffers = new Map<string, ReturnType<typeof device.allocate>>();
  for (const p of k.params) {
    if (p.kind === 'value') continue;
    const data = args[p.name];
    if (!ArrayBuffer.isView(data)) throw new Error(`test: pass an array for '${p.name}'`);
    const buffer = device.allocate(data.byteLength);
    await device.write(buffer, data);
    buffers.set(p.name, buffer);
  }
  const launchArgs = k.params.map((p) =>
    p.kind === 'value'
      ? { kind: 'value' as const, dtype: p.dtype, value: args[p.name] as number | bigint }
      : { kind: 'buffer' as const, buffer: buffers.get(p.name)! },
  );
  await device.launch(
    compiled,
    code.kernels[0],
    launchArgs,
    grid.groups ?? [1],
    grid.local ?? requireConstantLocalSize(k.name, k.localSize, 'the test launches by hand'),
  );
  const out: Record<string, HostArray> = {};
  for (const [name, buffer] of buffers) {
    const given = args[name] as HostArray;
    const copy = new (given.constructor as new (n: number) => HostArray)(given.length);
    await device.read(buffer, copy);
    out[name] = copy;
    device.release(buffer);
  }
  return out;
}

/** Deterministic pseudo-random floats in [-scale, scale). */
function randomFloats(n: number, seed: number, scale = 10): number[] {
  let s = seed >>> 0;
  return Array.from({ length: n }, () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return (s / 2 ** 32 - 0.5) * 2 * scale;
  });
}

function sameBits(actual: ArrayLike<number>, expected: ArrayLike<number>, what: string): void {
  assert.is(actual.length, expected.length, `${what}: length`);
  for (let k = 0; k < expected.length; k++) {
    if (!Object.is(actual[k], expected[k]))
      assert.unreachable(`${what}[${k}]: got ${actual[k]}, expected ${expected[k]}`);
  }
}

const iUpTo = (n: Expr) => binary('-', n, int(1));

// --- the cases ---------------------------------------------------------------------------

test('vector scale in float32 matches plain JS with Math.fround, for n = 1, 7, 1000', async () => {
  // out[i] = 1.1*a[i]: the literal is float32's 1.1, the product rounded to float32
  const k = kernel({
    params: ['a: float32', 'out: float32', 'n: int32 value'],
    types: { i: 'int32' },
    body: [loop('i', int(0), iUpTo(v('n')), assign(at('out', v('i')), binary('*', float(1.1), at('a', v('i')))))],
  });
  for (const n of [1, 7, 1000]) {
    const a = new Float32Array(randomFloats(n, n));
    const { out } = await launch(k, { a, out: new Float32Array(n), n });
    sameBits(
      out as Float32Array,
      Array.from(a, (x) => Math.fround(Math.fround(1.1) * x)),
      `n = ${n}`,
    );
  }
  assert.match(source(k), 'for (let i = 0; i <= n - 1; i++) {');
  assert.match(source(k), 'out[i] = Math.fround(1.100000023841858 * a[i]);');
});

test('a 2-D loop nest with a guard (lower triangle), row-major indices', async () => {
  // for i, j < n: if (j <= i) out[n*i + j] = a[n*i + j] + i*j
  const flat = binary('+', binary('*', v('n'), v('i')), v('j'));
  const k = kernel({
    params: ['a: int32', 'out: int32', 'n: int32 value'],
    types: { i: 'int32', j: 'int32' },
    body: [
      loop(
        'i',
        int(0),
        iUpTo(v('n')),
        loop(
          'j',
          int(0),
          iUpTo(v('n')),
          when(
            compare('<=', v('j'), v('i')),
            assign(at('out', flat), binary('+', at('a', flat), binary('*', v('i'), v('j'))), 'int32'),
          ),
        ),
      ),
    ],
  });
  const n = 6;
  const a = Int32Array.from({ length: n * n }, (_, k) => 100 * k - 7);
  const { out } = await launch(k, { a, out: new Int32Array(n * n).fill(-1), n });
  const expected = Array.from({ length: n * n }, (_, k) => {
    const [i, j] = [Math.floor(k / n), k % n];
    return j <= i ? a[k] + i * j : -1;
  });
  sameBits(out as Int32Array, expected, 'out');
});

test('int32 arithmetic wraps like C: INT_MAX + 1, products (Math.imul), negation, uint32', async () => {
  const k = kernel({
    params: ['out: int32', 'u: uint32', 'x: int32 value', 'y: int32 value', 'w: uint32 value'],
    body: [
      assign(at('out', int(0)), binary('+', v('x'), int(1)), 'int32'),
      assign(at('out', int(1)), binary('*', v('x'), v('x')), 'int32'),
      assign(at('out', int(2)), binary('*', v('y'), int(3)), 'int32'),
      assign(at('out', int(3)), neg(binary('-', v('y'), int(0))), 'int32'),
      // wrapping is visible to a following division: (x + 1) / 2 is INT_MIN / 2
      assign(at('out', int(4)), binary('/', binary('+', v('x'), int(1)), int(2)), 'int32'),
      // a long sum, wrapped once or at every step, gives the same bits
      assign(
        at('out', int(5)),
        [1, 2, 3, 4, 5, 6, 7].reduce<Expr>((acc) => binary('+', acc, v('x')), v('x')),
        'int32',
      ),
      assign(at('out', int(6)), binary('**', int(3), int(40)), 'int32'),
      assign(at('u', int(0)), binary('-', v('w'), int(1)), 'uint32'),
      assign(at('u', int(1)), binary('*', v('w'), v('w')), 'uint32'),
      assign(at('u', int(2)), binary('/', binary('-', v('w'), int(1)), int(2)), 'uint32'),
    ],
  });
  const x = 2147483647;
  const y = -2147483648;
  const { out, u } = await launch(k, { out: new Int32Array(7), u: new Uint32Array(3), x, y, w: 0 });
  let power = 1;
  for (let k = 0; k < 40; k++) power = Math.imul(power, 3);
  sameBits(
    out as Int32Array,
    [-2147483648, Math.imul(x, x), Math.imul(y, 3), -2147483648, -1073741824, Math.imul(x, 8), power],
    'int32',
  );
  sameBits(u as Uint32Array, [4294967295, 0, 2147483647], 'uint32');
});

test("integer / truncates, // floors, % takes the divisor's sign; dividing by zero gives 0", async () => {
  const ops = ['/', '//', '%'] as const;
  const k = kernel({
    params: ['a: int32', 'b: int32', 'q: int32', 'f: int32', 'r: int32', 'n: int32 value'],
    types: { i: 'int32' },
    body: [
      loop(
        'i',
        int(0),
        iUpTo(v('n')),
        ...ops.map((op, k) =>
          assign(at(['q', 'f', 'r'][k], v('i')), binary(op, at('a', v('i')), at('b', v('i'))), 'int32'),
        ),
      ),
    ],
  });
  const a = Int32Array.from([7, -7, 7, -7, -8, 0, -2147483648, 5, -5]);
  const b = Int32Array.from([2, 2, -2, -2, 4, 3, -1, 0, 0]);
  const n = a.length;
  const { q, f, r } = await launch(k, { a, b, q: new Int32Array(n), f: new Int32Array(n), r: new Int32Array(n), n });
  sameBits(q as Int32Array, [3, -3, -3, 3, -2, 0, -2147483648, 0, 0], 'a / b');
  sameBits(f as Int32Array, [3, -4, -4, 3, -2, 0, -2147483648, 0, 0], 'a // b');
  sameBits(r as Int32Array, [1, 1, -1, -1, 0, 0, 0, 0, 0], 'a % b');
});

test("float % is PyTorch's remainder (sign of the divisor; a zero keeps the dividend's), // is floor(a/b), fmod is C's", async () => {
  const k = kernel({
    params: ['a: float64', 'b: float64', 'r: float64', 'f: float64', 'm: float64', 'n: int32 value'],
    types: { i: 'int32' },
    body: [
      loop(
        'i',
        int(0),
        iUpTo(v('n')),
        assign(at('r', v('i')), binary('%', at('a', v('i')), at('b', v('i'))), 'float64'),
        assign(at('f', v('i')), binary('//', at('a', v('i')), at('b', v('i'))), 'float64'),
        assign(at('m', v('i')), call('fmod', [at('a', v('i')), at('b', v('i'))]), 'float64'),
      ),
    ],
  });
  const a = Float64Array.from([5.5, -5.5, 5.5, -5.5, 6, -6]);
  const b = Float64Array.from([2, 2, -2, -2, 3, 3]);
  const n = a.length;
  const { r, f, m } = await launch(k, {
    a,
    b,
    r: new Float64Array(n),
    f: new Float64Array(n),
    m: new Float64Array(n),
    n,
  });
  sameBits(r as Float64Array, [1.5, 0.5, -0.5, -1.5, 0, -0], 'a % b');
  sameBits(f as Float64Array, [2, -3, -3, 2, 2, -2], 'a // b');
  sameBits(m as Float64Array, [1.5, -1.5, 1.5, -1.5, 0, -0], 'fmod(a, b)');
});

test("round is C's: halves away from zero (not Math.round), in float64 and float32", async () => {
  const inputs = [0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 0.49999999999999994, -0.3, 2.4999, -1e20, 3];
  const expected = {
    float64: [1, 2, 3, -1, -2, -3, 0, -0, 2, -1e20, 3],
    // 0.49999999999999994 is 0.5 in float32
    float32: [1, 2, 3, -1, -2, -3, 1, -0, 2, Math.fround(-1e20), 3],
  };
  for (const dtype of ['float64', 'float32'] as const) {
    const k = kernel({
      params: [`a: ${dtype}`, `out: ${dtype}`, 'n: int32 value'],
      types: { i: 'int32' },
      body: [loop('i', int(0), iUpTo(v('n')), assign(at('out', v('i')), call('round', [at('a', v('i'))]), dtype))],
    });
    const Ctor = dtype === 'float64' ? Float64Array : Float32Array;
    const { out } = await launch(k, { a: Ctor.from(inputs), out: new Ctor(inputs.length), n: inputs.length });
    sameBits(out as Float64Array | Float32Array, expected[dtype], dtype);
    assert.not.match(source(k), 'Math.round');
  }
});

test('float32 rounds every intermediate result: (a*b)+c differs from the float64 computation', async () => {
  // a*b = 1 + 2^-11 + 2^-24 exactly; float32 rounds it (a tie) to 1 + 2^-11 before adding c = -1
  const a = 1 + 2 ** -12;
  const c = -1;
  const fma = (t: DType) =>
    kernel({
      params: [`x: ${t}`, `out: ${t}`],
      body: [assign(at('out', int(0)), binary('+', binary('*', at('x', int(0)), at('x', int(1))), at('x', int(2))), t)],
    });
  const single = await launch(fma('float32'), { x: Float32Array.from([a, a, c]), out: new Float32Array(1) });
  const double = await launch(fma('float64'), { x: Float64Array.from([a, a, c]), out: new Float64Array(1) });
  assert.is(single.out[0], 2 ** -11);
  assert.is(double.out[0], 2 ** -11 + 2 ** -24);
  // rounding only when storing would have kept the extra bit (it is representable in float32)
  assert.is(Math.fround(a * a + c), 2 ** -11 + 2 ** -24);
  assert.match(source(fma('float32')), 'out[0] = Math.fround(Math.fround(x[0] * x[1]) + x[2]);');
});

test('a private array temporary: one per work-item, zero-initialized', async () => {
  // for i: for k < 4: tmp[k] = a[i]*(k + 1); out[i] = tmp[0] + tmp[1] + tmp[2] + tmp[3]
  const k = kernel({
    params: ['a: float64', 'out: float64', 'n: int32 value'],
    types: { i: 'int32', k: 'int32', tmp: 'float64' },
    body: [
      { kind: 'declare', name: 'tmp', dtype: 'float64', addressSpace: 'private', length: 4 },
      loop(
        'i',
        int(0),
        iUpTo(v('n')),
        loop(
          'k',
          int(0),
          int(3),
          assign(at('tmp', v('k')), binary('*', at('a', v('i')), binary('+', v('k'), int(1))), 'float64'),
        ),
        assign(
          at('out', v('i')),
          [1, 2, 3].reduce<Expr>((s, j) => binary('+', s, at('tmp', int(j))), at('tmp', int(0))),
          'float64',
        ),
      ),
    ],
  });
  const a = Float64Array.from([1, -2.5, 1e10]);
  const { out } = await launch(k, { a, out: new Float64Array(3), n: 3 });
  sameBits(
    out as Float64Array,
    Array.from(a, (x) => x * 1 + x * 2 + x * 3 + x * 4),
    'out',
  );
  assert.match(source(k), 'const tmp = new Float64Array(4);');
});

test('work-items of a group meet at a barrier: a local temporary written by one is read by another', async () => {
  // work-item 1 writes the local tile, work-item 0 reads it after the barrier: run one after
  // the other without synchronization, work-item 0 would read the zero it started with.
  // Three groups: each has its own tile.
  const lid0 = call('lid', [int(0)]);
  const gid0 = call('gid', [int(0)]);
  const k = kernel({
    params: ['a: float32', 'out: float32'],
    types: { tile: 'float32' },
    localSize: [2],
    body: [
      { kind: 'declare', name: 'tile', dtype: 'float32', addressSpace: 'local', length: 2 },
      when(compare('==', lid0, int(1)), assign(at('tile', int(0)), at('a', gid0))),
      when(compare('==', lid0, int(0)), assign(at('tile', int(1)), binary('*', at('a', gid0), int(10)))),
      barrier,
      assign(at('out', binary('+', binary('*', int(2), gid0), lid0)), at('tile', binary('-', int(1), lid0))),
    ],
  });
  const a = Float32Array.from([1.5, 2.5, 3.5]);
  const { out } = await launch(k, { a, out: new Float32Array(6) }, { groups: [3], local: [2] });
  sameBits(out as Float32Array, [15, 1.5, 25, 2.5, 35, 3.5], 'out');
  const code = source(k);
  assert.match(code, 'function* knl(gid0, gid1, gid2, lid0, lid1, lid2, a, out, tile) {');
  assert.match(code, 'yield 0; // barrier (local)');
});

test('a local scalar is shared by the work-items of a group', async () => {
  const k = kernel({
    params: ['out: int32'],
    types: { s: 'int32' },
    localSize: [4],
    body: [
      { kind: 'declare', name: 's', dtype: 'int32', addressSpace: 'local' },
      when(compare('==', call('lid', [int(0)]), int(3)), assign(v('s'), int(42), 'int32')),
      barrier,
      assign(at('out', call('lid', [int(0)])), binary('+', v('s'), call('lid', [int(0)])), 'int32'),
    ],
  });
  const { out } = await launch(k, { out: new Int32Array(4) }, { local: [4] });
  sameBits(out as Int32Array, [42, 43, 44, 45], 'out');
});

test('barrier divergence is a LoomError: some work-items finishing, or waiting at another barrier', async () => {
  const lid0 = call('lid', [int(0)]);
  const onlyFirst = kernel({
    params: ['out: int32'],
    body: [when(compare('==', lid0, int(0)), barrier), assign(at('out', lid0), int(1), 'int32')],
  });
  try {
    await launch(onlyFirst, { out: new Int32Array(2) }, { local: [2] });
    assert.unreachable('should have thrown');
  } catch (e) {
    assert.instance(e, LoomError);
    assert.match(
      (e as Error).message,
      /^barrier divergence in kernel 'knl', work-group \(0, 0, 0\), after 0 barriers: work-item \(1, 0, 0\) finished while work-item \(0, 0, 0\) waits at barrier #0/,
    );
  }
  const twoBarriers = kernel({
    params: ['out: int32'],
    body: [when(compare('==', lid0, int(0)), barrier), when(compare('!=', lid0, int(0)), barrier)],
  });
  try {
    await launch(twoBarriers, { out: new Int32Array(2) }, { local: [2] });
    assert.unreachable('should have thrown');
  } catch (e) {
    assert.instance(e, LoomError);
    assert.match((e as Error).message, 'work-item (0, 0, 0) waits at barrier #0 but work-item (1, 0, 0) at barrier #1');
  }
  // the same kernels with one work-item per group are fine
  await launch(onlyFirst, { out: new Int32Array(2) }, { local: [1] });
});

// --- conversions, functions, 64-bit integers -----------------------------------------------------

test('comparisons and logic give 0/1 when stored; casts of floats truncate and saturate (NaN → 0); bool stores normalize', async () => {
  const k = kernel({
    params: ['a: float64', 'gt: uint8', 'flag: bool', 'i32: int32', 'u8: uint8', 'f32: float32', 'n: int32 value'],
    types: { i: 'int32' },
    body: [
      loop(
        'i',
        int(0),
        iUpTo(v('n')),
        assign(
          at('gt', v('i')),
          logical('and', compare('>', at('a', v('i')), float(0)), compare('<', at('a', v('i')), int(100))),
          'uint8',
        ),
        assign(at('flag', v('i')), at('a', v('i')), 'bool'),
        assign(at('i32', v('i')), cast('int32', at('a', v('i'))), 'int32'),
        assign(at('u8', v('i')), cast('uint8', at('a', v('i'))), 'uint8'),
        assign(
          at('f32', v('i')),
          ifThenElse(compare('>=', at('a', v('i')), int(0)), at('a', v('i')), cast('bool', at('a', v('i')))),
          'float32',
        ),
      ),
    ],
  });
  const a = Float64Array.from([-2.7, 2.7, 300.5, NaN, 3e9, 0, 1e-40]);
  const n = a.length;
  const out = await launch(k, {
    a,
    gt: new Uint8Array(n),
    flag: new Uint8Array(n),
    i32: new Int32Array(n),
    u8: new Uint8Array(n),
    f32: new Float32Array(n),
    n,
  });
  sameBits(out.gt as Uint8Array, [0, 1, 0, 0, 0, 0, 1], 'a > 0 and a < 100');
  sameBits(out.flag as Uint8Array, [1, 1, 1, 1, 1, 0, 1], 'bool(a)');
  sameBits(out.i32 as Int32Array, [-2, 2, 300, 0, 2 ** 31 - 1, 0, 0], 'int32(a)');
  sameBits(out.u8 as Uint8Array, [0, 2, 255, 0, 255, 0, 0], 'uint8(a)');
  sameBits(
    out.f32 as Float32Array,
    [1, Math.fround(2.7), 300.5, 1, 3e9, 0, Math.fround(1e-40)],
    'if(a >= 0, a, bool(a))',
  );
});

test('math functions: float32 results rounded, min/max propagate NaN (torch.minimum), integer abs/min/max stay integers', async () => {
  const k = kernel({
    params: ['x: float32', 'y: float32', 'out: float32', 'ints: int32', 'n: int32 value'],
    types: { i: 'int32' },
    body: [
      loop(
        'i',
        int(0),
        iUpTo(v('n')),
        assign(at('out', binary('*', int(4), v('i'))), call('sqrt', [at('x', v('i'))])),
        assign(
          at('out', binary('+', binary('*', int(4), v('i')), int(1))),
          call('min', [at('x', v('i')), at('y', v('i')), float(7)]),
        ),
        assign(at('out', binary('+', binary('*', int(4), v('i')), int(2))), call('rsqrt', [at('x', v('i'))])),
        assign(at('out', binary('+', binary('*', int(4), v('i')), int(3))), call('erf', [at('x', v('i'))])),
        assign(at('ints', v('i')), call('max', [call('abs', [cast('int32', at('y', v('i')))]), v('i')]), 'int32'),
      ),
    ],
  });
  const x = Float32Array.from([2, 0.25, NaN, 1.5]);
  const y = Float32Array.from([NaN, -9.5, 3, -1]);
  const n = x.length;
  const { out, ints } = await launch(k, { x, y, out: new Float32Array(4 * n), ints: new Int32Array(n), n });
  const f = Math.fround;
  const expected = [...x].flatMap((xi, i) => {
    return [f(Math.sqrt(xi)), Math.min(xi, y[i], 7), f(1 / Math.sqrt(xi)), f(erf(xi))];
  });
  sameBits(out as Float32Array, expected, 'out');
  sameBits(ints as Int32Array, [0, 9, 3, 3], 'max(abs(int32(y)), i)');
});

test('erf is accurate to a couple of ulps (reference values from mpmath)', () => {
  const reference: Array<[number, number]> = [
    [0.5, 0.5204998778130465],
    [1, 0.8427007929497149],
    [2, 0.9953222650189527],
    [-3, -0.9999779095030014],
    [1e-10, 1.1283791670955126e-10],
    [0.1, 0.1124629160182849],
    [4.5, 0.9999999998033839],
  ];
  for (const [x, expected] of reference) {
    const ulp = 2 ** (Math.floor(Math.log2(Math.abs(expected))) - 52);
    assert.ok(Math.abs(erf(x) - expected) <= 2 * ulp, `erf(${x}) = ${erf(x)}, expected ${expected}`);
  }
  assert.is(erf(6.5), 1);
  assert.is(erf(-Infinity), -1);
  assert.ok(Object.is(erf(-0), -0));
});

test('int64: bigint arithmetic wrapping at 64 bits, mixed with int32 indices and float conversion', async () => {
  const k = kernel({
    params: ['a: int64', 'out: int64', 'f: float32', 'n: int32 value'],
    types: { i: 'int32' },
    body: [
      loop(
        'i',
        int(0),
        iUpTo(v('n')),
        assign(at('out', v('i')), binary('+', binary('*', at('a', v('i')), int(3)), v('i')), 'int64'),
        assign(at('f', v('i')), cast('float32', at('a', v('i'))), 'float32'),
      ),
      assign(at('out', int(3)), binary('//', at('a', int(1)), int(-2)), 'int64'),
    ],
  });
  // 2^62 + 2^38 + 1 rounds to 2^62 + 2^39 as float32 only if rounded once (Number() first would tie to 2^62)
  const a = BigInt64Array.from([2n ** 62n, -5n, 2n ** 62n + 2n ** 38n + 1n, 0n]);
  const { out, f } = await launch(k, { a, out: new BigInt64Array(4), f: new Float32Array(4), n: 4 });
  assert.equal(
    [...(out as BigInt64Array)],
    [BigInt.asIntN(64, 3n * 2n ** 62n), -14n, BigInt.asIntN(64, 3n * (2n ** 62n + 2n ** 38n + 1n) + 2n), 2n],
  );
  sameBits(f as Float32Array, [2 ** 62, -5, 2 ** 62 + 2 ** 39, 0], 'float32(a)');
  assert.is(Math.fround(Number(a[2])), 2 ** 62); // the double rounding the target avoids
});

test('corner cases found by differential testing against gcc-compiled C', async () => {
  const k = kernel({
    params: ['q: uint64', 'f: float64', 'flag: bool', 'z: float64', 'n: int32 value'],
    body: [
      // uint64 max + 1 wraps to 0 before it is tested for truth
      assign(at('flag', int(0)), neg(binary('+', at('q', int(0)), int(1))), 'bool'),
      // the integer -(0) is 0, not the float -0
      assign(at('f', int(0)), neg(int(0)), 'float64'),
      assign(at('f', int(1)), neg(float(0)), 'float64'),
      // fmin/fmax order -0 below +0 (C leaves it open; IEEE 754-2019 minimumNumber does this)
      assign(at('f', int(2)), call('min', [at('z', int(0)), at('z', int(1))]), 'float64'),
      assign(at('f', int(3)), call('max', [at('z', int(1)), at('z', int(0))]), 'float64'),
    ],
  });
  const out = await launch(k, {
    q: BigUint64Array.from([2n ** 64n - 1n]),
    f: new Float64Array(4),
    flag: new Uint8Array(1),
    z: Float64Array.from([0, -0]),
    n: 0,
  });
  sameBits(out.flag as Uint8Array, [0], 'bool(-(q + 1))');
  sameBits(out.f as Float64Array, [0, -0, -0, 0], 'f');
});

test('names that are JavaScript keywords or globals are renamed, not broken', async () => {
  const k = kernel({
    name: 'new',
    params: ['Math: float64', 'loom: float64', 'gid0: int32 value'],
    types: { this: 'int32' },
    body: [
      loop(
        'this',
        int(0),
        int(1),
        assign(at('loom', v('this')), binary('+', call('sqrt', [at('Math', v('this'))]), v('gid0')), 'float64'),
      ),
    ],
  });
  const { loom } = await launch(k, { Math: Float64Array.from([4, 9]), loom: new Float64Array(2), gid0: 1 });
  sameBits(loom as Float64Array, [3, 4], 'loom');
  assert.match(source(k), 'function new$(gid0, gid1, gid2, lid0, lid1, lid2, Math$, loom$, gid0$) {');
});

test('errors: unknown functions at generation, exceptions inside kernels as LoomErrors; every dtype generates', async () => {
  const unknown = kernel({ params: ['out: float32'], body: [assign(at('out', int(0)), call('gamma', [float(1)]))] });
  assert.throws(
    () => source(unknown),
    (e: unknown) => e instanceof LoomError && /does not know the function 'gamma'/.test((e as Error).message),
  );
  // float16 too: computed in doubles, rounded to float16 at every operation
  assert.is(jsTarget().unsupportedDType!('float16'), undefined);
  assert.is(jsTarget().unsupportedDType!('float32'), undefined);

  const huge = kernel({
    name: 'huge',
    params: ['out: float32'],
    body: [{ kind: 'declare', name: 't', dtype: 'float64', addressSpace: 'private', length: 2 ** 45 }],
  });
  try {
    await launch(huge, { out: new Float32Array(1) });
    assert.unreachable('should have thrown');
  } catch (e) {
    assert.instance(e, LoomError);
    // refused before it runs now: the CPU device has a GPU's private memory limit (limits.ts)
    assert.match(
      (e as Error).message,
      /^kernel 'huge': its private temporaries \('t'\) take 281474976710656 bytes per work-item/,
    );
  }
});

test('the CPU device: buffers are zero-filled host memory, copied in and out, unusable after release', async () => {
  const device = cpuDevice();
  assert.is(device.name, 'CPU (generated JavaScript)');
  assert.is(device.target.name, 'js');
  const buffer = device.allocate(8);
  const back = new Int32Array(2).fill(-1);
  await device.read(buffer, back);
  assert.equal([...back], [0, 0]);
  await device.write(buffer, Int32Array.from([7, 8]));
  await device.read(buffer, back);
  assert.equal([...back], [7, 8]);
  device.release(buffer);
  try {
    await device.read(buffer, back);
    assert.unreachable('should have thrown');
  } catch (e) {
    assert.instance(e, LoomError);
  }
});

test.run();
