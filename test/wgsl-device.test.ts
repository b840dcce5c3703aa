/**
 * The kernels of the tutorial and `run` tests on WebGPU (lavapipe on the CPU machines), checked
 * against the CPU device: exactly for integer and copy kernels, within 1e-5 relative for float
 * arithmetic (a GPU may contract a*b + c into one fused operation). Then what only WebGPU has:
 * packed 8/16-bit arrays, shared buffers past the binding limit, atomics, barriers under guards,
 * grids past 65535 work-groups, bindings past 128 MiB, errors and a lost device.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  addDtypes,
  DeviceArray,
  expr as E,
  globalArg,
  LoomError,
  makeKernel,
  prioritizeLoops,
  programCode,
  requireConstantLocalSize,
  run,
  valueArg,
  type Device,
  type DType,
  type Expr,
  type GeneratedCode,
  type HostArray,
  type KernelFunction,
  type LaunchArgument,
  type LoopKernel,
  type ProgramAst,
  type RunArgument,
  type Stmt,
} from '@loom/core';
import { cpuDevice } from '@loom/codegen-js';
import { webgpuDevice } from '@loom/codegen-wgsl';
import { webgpuDeviceOrSkip } from './support/backends.ts';
import { compilationError } from '../packages/codegen-wgsl/src/errors.ts';
import { assertClose, randomFloat32 } from './support/devices.ts';

const device = await webgpuDeviceOrSkip();
const cpu = cpuDevice();

/** A copy of every array argument, so that the two devices never share data they write. */
function copyArgs(args: Readonly<Record<string, RunArgument>>): Record<string, RunArgument> {
  return Object.fromEntries(
    Object.entries(args).map(([k, v]) => [k, ArrayBuffer.isView(v) ? (v as HostArray).slice() : v]),
  );
}

/**
 * Runs `knl` on WebGPU and on the CPU and compares every output: exactly, or within `rtol`
 * (relative, with as much absolute tolerance) for float arithmetic.
 */
async function sameAsCpu(
  gpu: Device,
  knl: LoopKernel,
  args: Readonly<Record<string, RunArgument>>,
  rtol = 0,
): Promise<Record<string, Numbers>> {
  const expected = await run(knl, cpu, copyArgs(args));
  const actual = await run(knl, gpu, copyArgs(args));
  assert.equal(Object.keys(actual).sort(), Object.keys(expected).sort());
  for (const [name, e] of Object.entries(expected)) {
    const a = actual[name] as HostArray;
    assert.is(a.constructor, (e as HostArray).constructor, name);
    if (rtol === 0) assert.equal(Array.from(a as ArrayLike<number>), Array.from(e as ArrayLike<number>), name);
    else assertClose(a as ArrayLike<number>, e as ArrayLike<number>, name, rtol, rtol);
  }
  return actual as Record<string, Numbers>;
}

/** WebGPU has no 64-bit integers: every array here holds numbers. */
type Numbers = Exclude<HostArray, BigInt64Array | BigUint64Array>;

const FLOAT_TOLERANCE = 1e-5;

if (device) {
  const SIZES = [1, 2, 7, 13, 64, 257];

  // --- the tutorial's kernels (test/tutorial-kernels.test.ts) -----------------------------------

  test('out = 2*a (double a vector)', async () => {
    const knl = makeKernel('{ [i]: 0<=i<n }', 'out[i] = 2*a[i]');
    for (const n of SIZES) await sameAsCpu(device, knl, { a: randomFloat32(n, n) });
  });

  test('the wrong transpose-and-double computes what the tutorial says', async () => {
    let knl = makeKernel(
      '{ [i,j]: 0<=i,j<n }',
      `
      out[j,i] = a[i,j] {id=transpose}
      out[i,j] = 2*out[i,j] {dep=transpose}
    `,
      [globalArg('out', { shape: 'auto', isInput: false }), '...'],
      { name: 'transpose_and_dbl' },
    );
    knl = prioritizeLoops(knl, 'i,j');
    await sameAsCpu(device, knl, { a: randomFloat32(25, 3) });
  });

  test('the corrected transpose-and-double', async () => {
    let knl = makeKernel(
      '{ [i,j,ii,jj]: 0<=i,j,ii,jj<n }',
      `
      out[j,i] = a[i,j] {id=transpose}
      out[ii,jj] = 2*out[ii,jj] {dep=transpose}
    `,
      [globalArg('out', { shape: 'auto', isInput: false }), '...'],
    );
    knl = prioritizeLoops(prioritizeLoops(knl, 'i,j'), 'ii,jj');
    for (const n of [1, 3, 16, 31]) await sameAsCpu(device, knl, { a: randomFloat32(n * n, n) });
  });

  test('zero fill with prioritizeLoops(knl, "j,i"), written in place', async () => {
    const knl = prioritizeLoops(makeKernel('{ [i,j]: 0<=i,j<n }', 'a[i,j] = 0'), 'j,i');
    const a = randomFloat32(81, 9);
    const { a: result } = await run(knl, device, { a });
    assert.is(result, a);
    assert.ok(a.every((v) => v === 0));
  });

  test('a reduction (matrix-vector product)', async () => {
    const knl = makeKernel('{ [i,k]: 0<=i<n and 0<=k<m }', 'y[i] = sum(k, A[i,k]*x[k])');
    await sameAsCpu(device, knl, { A: randomFloat32(7 * 13, 5), x: randomFloat32(13, 6), n: 7 }, FLOAT_TOLERANCE);
  });

  test('product, max and min reductions on int32', async () => {
    const knl = makeKernel(
      '{ [i,k]: 0<=i<n and 0<=k<4 }',
      `
      pr[i] = product(k, a[i,k])
      mx[i] = max(k, a[i,k])
      mn[i] = min(k, a[i,k])
    `,
    );
    const res = await sameAsCpu(device, knl, { a: Int32Array.from([1, -2, 3, 4, 5, 6, -7, 8, 0, 1, 2, 3]) });
    assert.equal(Array.from(res.pr), [-24, -1680, 0]);
  });

  test('<> temporaries', async () => {
    const knl = makeKernel(
      '{ [i]: 0<=i<n }',
      `
      <> t = a[i] * a[i]
      <float32> u = t + 1
      out[i] = u / 2
    `,
    );
    await sameAsCpu(device, knl, { a: randomFloat32(11, 4) }, FLOAT_TOLERANCE);
  });

  test('a triangular domain 0 <= j <= i < n', async () => {
    const knl = prioritizeLoops(
      makeKernel('{ [i,j]: 0<=j<=i<n }', 'out[i,j] = a[i] + j', [
        globalArg('out', { shape: ['n', 'n'], isInput: false, dtype: 'float32' }),
        '...',
      ]),
      'i,j',
    );
    await sameAsCpu(device, knl, { a: randomFloat32(6, 8), out: new Float32Array(36).fill(-100) }, FLOAT_TOLERANCE);
  });

  test('mod and exists domains', async () => {
    const everyThird = makeKernel('{ [i]: 0<=i<n and i mod 3 = 0 }', 'out[i] = 1', [
      globalArg('out', { shape: ['n'], dtype: 'int32', isInput: false }),
      '...',
    ]);
    const res = await sameAsCpu(device, everyThird, { out: new Int32Array(10) });
    assert.equal(Array.from(res.out), [1, 0, 0, 1, 0, 0, 1, 0, 0, 1]);
    const evens = makeKernel('{ [i]: 0<=i<n and (exists l: i = 2*l) }', 'out[i] = i', [
      globalArg('out', { shape: ['n'], dtype: 'int32', isInput: false }),
      '...',
    ]);
    await sameAsCpu(device, evens, { out: new Int32Array(7).fill(-1) });
  });

  test('int32 data exactly; float64 data is a LoomError naming the argument', async () => {
    const knl = makeKernel('{ [i]: 0<=i<n }', 'out[i] = 3*a[i] - b[i] // 2 + b[i] % 3');
    await sameAsCpu(device, knl, {
      a: Int32Array.from([1, -2, 3, 1000000, -7]),
      b: Int32Array.from([5, -5, 0, 7, -1]),
    });
    const d = makeKernel('{ [i]: 0<=i<n }', 'out[i] = sqrt(a[i]) * 0.1');
    try {
      await run(d, device, { a: Float64Array.from([0, 1, 2]) });
      assert.unreachable('float64 ran');
    } catch (e) {
      assert.instance(e, LoomError);
      assert.match((e as Error).message, /argument 'a' has dtype float64: WGSL has no 64-bit floats.*OpenCL or CPU/);
    }
  });

  // --- run (test/run.test.ts) --------------------------------------------------------------------

  test('one compiled variant per dtype combination', async () => {
    const knl = makeKernel('{ [i]: 0<=i<n }', 'out[i] = a[i] + 1');
    let compiles = 0;
    const plain: Device = device;
    const counting: Device = Object.create(plain);
    counting.compile = (code: GeneratedCode, options?: { buildOptions?: readonly string[] }) => {
      compiles++;
      return plain.compile(code, options);
    };
    await run(knl, counting, { a: new Float32Array([1, 2]) });
    await run(knl, counting, { a: new Float32Array([3, 4, 5]) });
    assert.is(compiles, 1);
    const { out } = await run(knl, counting, { a: new Int32Array([7, 8]) });
    assert.equal(Array.from(out as Int32Array), [8, 9]);
    assert.is(compiles, 2);
  });

  test('sizes come from shaped arrays and from flat lengths', async () => {
    const knl = makeKernel('{ [i,j]: 0<=i<n and 0<=j<m }', 'out[i,j] = a[i,j] * 2');
    const a = randomFloat32(12, 2);
    await sameAsCpu(device, knl, { a: { data: a, shape: [3, 4] } });
    await sameAsCpu(device, knl, { a, m: 4 });
    await sameAsCpu(device, makeKernel('{ [i,j]: 0<=i,j<n }', 'out[i,j] = a[j,i]'), {
      a: Float32Array.from({ length: 9 }, (_, k) => k),
    });
  });

  test('device arrays in and out stay on the device', async () => {
    // b as float32: a JavaScript number would make it float64, which WGSL lacks
    const knl = makeKernel('{ [i,j]: 0<=i,j<n }', 'out[i,j] = a[j,i] + b', [
      globalArg('out', { shape: 'auto', isInput: false }),
      valueArg('b', 'float32'),
      '...',
    ]);
    const a = await DeviceArray.from(
      device,
      Float32Array.from({ length: 4 }, (_, k) => k),
      'float32',
      [2, 2],
    );
    const out = await DeviceArray.from(device, new Float32Array(4), 'float32', [2, 2]);
    const result = await run(knl, device, { a, out, b: 0.5 });
    assert.is(result.out, out);
    assert.equal(Array.from((await out.toHost()) as Float32Array), [0.5, 2.5, 1.5, 3.5]);
    a.release();
    out.release();
  });

  test('an output passed in keeps the entries the kernel does not write', async () => {
    const knl = makeKernel('{ [i]: 1<=i<n-1 }', 'out[i] = a[i-1] + a[i+1]', [
      globalArg('out', { shape: ['n'], isInput: false }),
      '...',
    ]);
    const res = await sameAsCpu(device, knl, {
      a: Float32Array.from([1, 2, 3, 4, 5]),
      out: new Float32Array(5).fill(-1),
    });
    assert.equal(Array.from(res.out), [-1, 4, 6, 8, -1]);
  });

  test('a domain tree: j ranges up to the outer i', async () => {
    const knl = makeKernel(['{ [i]: 0<=i<n }', '{ [j]: 0<=j<=i }'], 'out[i] = sum(j, a[j])');
    await sameAsCpu(device, knl, { a: Float32Array.from([1, 2, 3, 4]) });
  });

  test('a data-dependent write index is guarded, never out of bounds', async () => {
    const knl = makeKernel('{ [i]: 0<=i<n }', 'out[idx[i]] = a[i]', [
      globalArg('out', { shape: ['m'], dtype: 'float32', isInput: false }),
      '...',
    ]);
    // the drop semantics, not the report (security-bounds.test.ts checks the LoomError)
    const args = { idx: Int32Array.from([2, -1, 0, 99]), a: Float32Array.from([10, 20, 30, 40]), m: 3 };
    for (const d of [cpu, device]) {
      const res = await run(knl, d, { ...args, out: new Float32Array(3) }, { checkBounds: false });
      assert.equal(Array.from(res.out as Float32Array), [30, 0, 10], d.name);
    }
  });

  test('value arguments of float type and zero-size launches', async () => {
    const knl = makeKernel('{ [i]: 0<=i<n }', 'out[i] = alpha*a[i]', [valueArg('alpha', 'float32'), '...']);
    await sameAsCpu(device, knl, { a: Float32Array.from([1, 2]), alpha: 0.25 });
    const empty = await run(knl, device, { a: new Float32Array(0), alpha: 1 });
    assert.is((empty.out as Float32Array).length, 0);
  });

  // --- WGSL's own concerns ------------------------------------------------------------------------

  test('Python semantics of //, % and ** on negative numbers, and C conversions', async () => {
    const knl = makeKernel(
      '{ [i]: 0<=i<n }',
      `
      q[i] = a[i] // b[i]
      r[i] = a[i] % b[i]
      p[i] = b[i] ** 3
      f[i] = x[i] % 0.75 + x[i] // 0.5 + int32(x[i] * 3) + round(x[i] * 4)
    `,
      [globalArg('f', { shape: ['n'], dtype: 'float32', isInput: false }), '...'],
    );
    const a = Int32Array.from([7, -7, 7, -7, 0, 5, -2147483648]);
    const b = Int32Array.from([2, 2, -2, -2, 3, 0, -1]);
    const x = Float32Array.from([0.3, -0.3, 1.875, -1.875, 0.125, -2.5, 2.5]);
    await sameAsCpu(device, knl, { a, b, x }, FLOAT_TOLERANCE);
  });

  test('8- and 16-bit arrays and bools: packed, unpacked and wrapped exactly as on the CPU', async () => {
    const knl = makeKernel(
      '{ [i]: 0<=i<n }',
      `
      s8[i] = a[i] + b[i]
      u8[i] = a[i] * 3
      s16[i] = c[i] * 300
      u16[i] = c[i] - 1
      flag[i] = a[i] > b[i]
      both[i] = flag[i] and c[i] > 0
    `,
      [
        globalArg('s8', { shape: ['n'], dtype: 'int8', isInput: false }),
        globalArg('u8', { shape: ['n'], dtype: 'uint8', isInput: false }),
        globalArg('s16', { shape: ['n'], dtype: 'int16', isInput: false }),
        globalArg('u16', { shape: ['n'], dtype: 'uint16', isInput: false }),
        globalArg('flag', { shape: ['n'], dtype: 'bool', isInput: false }),
        globalArg('both', { shape: ['n'], dtype: 'bool', isInput: false }),
        '...',
      ],
    );
    for (const n of [1, 3, 5, 9]) {
      const a = Int8Array.from({ length: n }, (_, k) => [100, -100, 7, -128, 127, 0, 1, -1, 55][k]);
      const b = Int8Array.from({ length: n }, (_, k) => [100, -100, -7, -1, 1, 0, 2, -2, 3][k]);
      const c = Int16Array.from({ length: n }, (_, k) => [1000, -1000, 0, 32767, -32768, 5, 6, 7, 8][k]);
      const res = await sameAsCpu(device, knl, { a, b, c });
      assert.equal(Array.from(res.s8).slice(0, 2), [-56, 56].slice(0, n), `n=${n}`);
    }
  });

  test('value arguments of every kind travel in the uniform struct', async () => {
    const knl = makeKernel('{ [i]: 0<=i<n }', 'out[i] = if(flag, a[i] * s, -a[i]) + u + h', [
      valueArg('flag', 'bool'),
      valueArg('s', 'int8'),
      valueArg('u', 'uint32'),
      valueArg('h', 'uint16'),
      globalArg('out', { shape: ['n'], dtype: 'float32', isInput: false }),
      '...',
    ]);
    const a = Float32Array.from([1, 2, 3]);
    await sameAsCpu(device, knl, { a, flag: 1, s: -3, u: 7, h: 65535 });
    await sameAsCpu(device, knl, { a, flag: 0, s: 5, u: 4000000000, h: 2 }, FLOAT_TOLERANCE);
  });

  test('names WGSL reserves are renamed, and the shader compiles', async () => {
    const knl = makeKernel(
      '{ [ref]: 0<=ref<n }',
      `
      <float32> sample = 2*active[ref]
      filter[ref] = sample + select[ref]
    `,
      ['...'],
      { name: 'target' },
    );
    await sameAsCpu(device, knl, { active: randomFloat32(5, 1), select: randomFloat32(5, 2) }, FLOAT_TOLERANCE);
  });

  test('more arrays than storage bindings: pooled, narrow ones included', async () => {
    const inputs = Array.from({ length: device.wgslLimits.maxStorageBuffersPerShaderStage + 1 }, (_, k) => `a${k}`);
    const knl = makeKernel(
      '{ [i]: 0<=i<n }',
      `
      out[i] = ${inputs.map((a) => `${a}[i]`).join(' + ')}
      small[i] = out[i] + tiny[i]
      positive[i] = out[i] > 0
    `,
      [
        globalArg('out', { shape: ['n'], dtype: 'int32', isInput: false }),
        globalArg('small', { shape: ['n'], dtype: 'int16', isInput: false }),
        globalArg('positive', { shape: ['n'], dtype: 'bool', isInput: false }),
        '...',
      ],
    );
    const n = 7;
    const args: Record<string, RunArgument> = Object.fromEntries(
      inputs.map((a, k) => [a, Int32Array.from({ length: n }, (_, i) => (i - 3) * (k + 1))]),
    );
    args.tiny = Int8Array.from({ length: n }, (_, i) => -i);
    await sameAsCpu(device, knl, args);
  });

  if (device.shaderF16) {
    test('float16 through shader-f16', async () => {
      const knl = addDtypes(makeKernel('{ [i]: 0<=i<n }', 'out[i] = 2*a[i] + 0.5'), { a: 'float16' });
      // float16 bits of 1, -1.5, 0.25, 3 and of 2.5, -2.5, 1, 6.5
      const a = Uint16Array.from([0x3c00, 0xbe00, 0x3400, 0x4200]);
      const { out } = await run(knl, device, { a });
      assert.equal(Array.from(out as Uint16Array), [0x4100, 0xc100, 0x3c00, 0x4680]);
    });
  }

  // --- hand-built parallel kernels (the next issue generates such ASTs from l.N / g.N tags) -------

  const { call, int, variable, subscript, binary, compare } = E;
  const gid = call('gid', [int(0)]);
  const lid = call('lid', [int(0)]);

  /** Generates, compiles and launches a hand-built one-kernel program; returns the arrays named in `read`. */
  async function launch(
    program: ProgramAst,
    args: Record<string, Numbers | number>,
    groups: number[],
    read: string[],
  ): Promise<Record<string, Numbers>> {
    const kernel = program.kernels[0];
    const code = programCode(program, device!.target);
    const compiled = await device!.compile(code);
    const buffers = new Map<string, DeviceArray>();
    const launchArgs: LaunchArgument[] = [];
    for (const p of kernel.params) {
      const v = args[p.name];
      if (typeof v === 'number') {
        launchArgs.push({ kind: 'value', dtype: p.dtype, value: v });
      } else {
        const array = await DeviceArray.from(device!, v, p.dtype);
        buffers.set(p.name, array);
        launchArgs.push({ kind: 'buffer', buffer: array.buffer });
      }
    }
    await device!.launch(
      compiled,
      code.kernels[0],
      launchArgs,
      groups,
      requireConstantLocalSize(kernel.name, kernel.localSize, 'the test launches by hand'),
    );
    const out: Record<string, Numbers> = {};
    for (const name of read) out[name] = (await buffers.get(name)!.toHost()) as Numbers;
    for (const b of buffers.values()) b.release();
    return out;
  }

  function program(
    body: Stmt[],
    params: KernelFunction['params'],
    types: Record<string, DType>,
    localSize: number[],
  ): ProgramAst {
    return {
      kernels: [
        {
          name: 'knl',
          params,
          body: { kind: 'block', body },
          localSize: localSize.map(int),
          groupCount: [variable('groups')],
          types: new Map(Object.entries(types)),
        },
      ],
    };
  }

  const param = (name: string, dtype: DType, written = false, kind: 'global' | 'value' = 'global') => ({
    name,
    dtype,
    kind,
    written,
  });

  test('a barrier under a guard: every work-item reaches it, the guarded ones do the work', async () => {
    // if (i < n) { tile[lid] = a[i]; barrier; out[i] = tile[63 - lid] }: reverses each block of 64
    const i = binary('+', binary('*', gid, int(64)), lid);
    const knl = program(
      [
        { kind: 'declare', name: 'tile', dtype: 'float32', addressSpace: 'local', length: 64 },
        {
          kind: 'if',
          condition: compare('<', i, variable('n')),
          then: {
            kind: 'block',
            body: [
              {
                kind: 'assign',
                target: subscript('tile', [lid]),
                value: subscript('a', [i]),
                dtype: 'float32',
                atomic: false,
                insnId: 'load',
              },
              { kind: 'barrier', scope: 'local' },
              {
                kind: 'assign',
                target: subscript('out', [i]),
                value: subscript('tile', [binary('-', int(63), lid)]),
                dtype: 'float32',
                atomic: false,
                insnId: 'store',
              },
            ],
          },
        },
      ],
      [param('a', 'float32'), param('out', 'float32', true), param('n', 'int32', false, 'value')],
      { a: 'float32', out: 'float32', tile: 'float32', n: 'int32' },
      [64],
    );
    const n = 192;
    const a = Float32Array.from({ length: 256 }, (_, k) => k);
    const { out } = await launch(knl, { a, out: new Float32Array(256).fill(-1), n }, [4], ['out']);
    const expected = Array.from({ length: 256 }, (_, k) => (k < n ? Math.floor(k / 64) * 64 + 63 - (k % 64) : -1));
    assert.equal(Array.from(out), expected);
  });

  test('an array held as vectors: lanes by a computed index; a buffer of part of a vector is refused before the launch', async () => {
    // out[g] = 2*a[g] per element, on arrays of vec4s: the lane of element g is g % 4, known only at run time
    const knl = program(
      [
        {
          kind: 'assign',
          target: subscript('out', [gid]),
          value: binary('*', int(2), subscript('a', [gid])),
          dtype: 'float32',
          atomic: false,
          insnId: 'double',
        },
      ],
      [
        { ...param('a', 'float32'), vectorWidth: 4 },
        { ...param('out', 'float32', true), vectorWidth: 4 },
      ],
      { a: 'float32', out: 'float32' },
      [1],
    );
    const code = programCode(knl, device!.target).code;
    assert.match(code, 'var<storage, read> a: array<vec4<f32>>;');
    assert.match(code, /out\[floor_div_i32\(group_id\.x, 4i\)\]\[mod_i32\(group_id\.x, 4i\)\] = /);
    const a = Float32Array.from({ length: 8 }, (_, k) => k - 2.5);
    const { out } = await launch(knl, { a, out: new Float32Array(8) }, [8], ['out']);
    assert.equal(
      Array.from(out),
      Array.from(a, (x) => 2 * x),
    );
    try {
      await launch(knl, { a: new Float32Array(10), out: new Float32Array(8) }, [8], ['out']);
      assert.unreachable('a buffer of 10 float32s bound as vec4s');
    } catch (e) {
      assert.instance(e, LoomError);
      assert.match((e as Error).message, /argument 'a' is held as vec4<f32> vectors .* 40 bytes, not a multiple of 16/);
    }
  });

  test('float atomics by compare-and-swap, integer atomics in one instruction, byte stores from many work-items', async () => {
    const i = binary('+', binary('*', gid, int(64)), lid);
    const knl = program(
      [
        {
          kind: 'assign',
          target: subscript('total', [int(0)]),
          value: binary('+', subscript('total', [int(0)]), subscript('a', [i])),
          dtype: 'float32',
          atomic: true,
          insnId: 'sum',
        },
        {
          kind: 'assign',
          target: subscript('count', [int(0)]),
          value: binary('+', subscript('count', [int(0)]), int(1)),
          dtype: 'int32',
          atomic: true,
          insnId: 'count',
        },
        {
          kind: 'assign',
          target: subscript('peak', [int(0)]),
          value: call('max', [subscript('peak', [int(0)]), i]),
          dtype: 'int32',
          atomic: true,
          insnId: 'peak',
        },
        {
          kind: 'assign',
          target: subscript('bytes', [i]),
          value: binary('*', i, int(3)),
          dtype: 'uint8',
          atomic: false,
          insnId: 'bytes',
        },
      ],
      [
        param('a', 'float32'),
        param('total', 'float32', true),
        param('count', 'int32', true),
        param('peak', 'int32', true),
        param('bytes', 'uint8', true),
      ],
      { a: 'float32', total: 'float32', count: 'int32', peak: 'int32', bytes: 'uint8' },
      [64],
    );
    const a = Float32Array.from({ length: 256 }, (_, k) => (k % 7) - 3); // small integers: the sum is exact in any order
    const res = await launch(
      knl,
      { a, total: new Float32Array(1), count: new Int32Array(1), peak: new Int32Array(1), bytes: new Uint8Array(256) },
      [4],
      ['total', 'count', 'peak', 'bytes'],
    );
    assert.is(
      res.total[0],
      a.reduce((s, x) => s + x, 0),
    );
    assert.is(res.count[0], 256);
    assert.is(res.peak[0], 255);
    assert.equal(
      Array.from(res.bytes),
      Array.from({ length: 256 }, (_, k) => (k * 3) & 255),
    );
  });

  test('a 1-D grid of more than 65535 work-groups is folded into y', async () => {
    const groups = 65536 + 64; // 256 * groups > 65535 * 256 work-items
    const n = groups * 256 - 100;
    const i = binary('+', binary('*', gid, int(256)), lid);
    const knl = program(
      [
        {
          kind: 'if',
          condition: compare('<', i, variable('n')),
          then: {
            kind: 'assign',
            target: subscript('out', [i]),
            value: i,
            dtype: 'int32',
            atomic: false,
            insnId: 'iota',
          },
        },
      ],
      [param('out', 'int32', true), param('n', 'int32', false, 'value')],
      { out: 'int32', n: 'int32' },
      [256],
    );
    const { out } = await launch(knl, { out: new Int32Array(groups * 256).fill(-1), n }, [groups], ['out']);
    const values = out as Int32Array;
    let wrong = 0;
    for (let k = 0; k < values.length; k++) if (values[k] !== (k < n ? k : -1)) wrong++;
    assert.is(wrong, 0);
  });

  test('2-D and 3-D grids with more than 65535 work-groups along x are folded, each group its own ids', async () => {
    for (const counts of [
      [65600, 3],
      [65600, 2, 2],
    ]) {
      // one work-item per group writes its ids along y and z (g1 + 4*g2) at the group's linear number
      const ids = counts.map((_, axis) => call('gid', [int(axis)]));
      let at: Expr = ids[counts.length - 1];
      for (let axis = counts.length - 2; axis >= 0; axis--)
        at = binary('+', binary('*', at, variable(`g${axis}`)), ids[axis]);
      const code = counts.length === 2 ? ids[1] : binary('+', ids[1], binary('*', ids[2], int(4)));
      const total = counts.reduce((a, b) => a * b, 1);
      const params = [
        param('out', 'int32', true),
        ...counts.map((_, axis) => param(`g${axis}`, 'int32', false, 'value')),
      ];
      const knl: ProgramAst = {
        kernels: [
          {
            name: 'knl',
            params,
            body: {
              kind: 'block',
              body: [
                {
                  kind: 'assign',
                  target: subscript('out', [at]),
                  value: code,
                  dtype: 'int32',
                  atomic: false,
                  insnId: 'ids',
                },
              ],
            },
            localSize: [int(1)],
            groupCount: counts.map((_, axis) => variable(`g${axis}`)),
            types: new Map(params.map((p) => [p.name, 'int32' as DType])),
          },
        ],
      };
      const args: Record<string, Numbers | number> = { out: new Int32Array(total).fill(-1) };
      counts.forEach((g, axis) => (args[`g${axis}`] = g));
      const { out } = await launch(knl, args, counts, ['out']);
      const values = out as Int32Array;
      let wrong = 0;
      for (let k = 0; k < total; k++) {
        const rest = Math.floor(k / counts[0]);
        const expected = counts.length === 2 ? rest : (rest % counts[1]) + 4 * Math.floor(rest / counts[1]);
        if (values[k] !== expected) wrong++;
      }
      assert.is(wrong, 0, counts.join(' x '));
    }
  });

  test('buffers above 128 MiB: bound where the adapter allows, else a LoomError naming the limit', async () => {
    const bytes = 128 * 1024 * 1024 + 1024;
    const knl = program(
      [
        {
          kind: 'assign',
          target: subscript('big', [binary('-', variable('n'), int(1))]),
          value: int(7),
          dtype: 'int32',
          atomic: false,
          insnId: 'last',
        },
      ],
      [param('big', 'int32', true), param('n', 'int32', false, 'value')],
      { big: 'int32', n: 'int32' },
      [1],
    );
    const n = bytes / 4;
    if (device.wgslLimits.maxStorageBufferBindingSize < bytes) {
      console.warn(
        `loom: skipping the >128 MiB binding on '${device.name}': its maxStorageBufferBindingSize is ${device.wgslLimits.maxStorageBufferBindingSize}`,
      );
      if (device.wgslLimits.maxBufferSize < bytes) return;
      try {
        await launch(knl, { big: new Int32Array(n), n }, [1], []);
        assert.unreachable('a buffer beyond the binding limit was bound');
      } catch (e) {
        assert.instance(e, LoomError);
        assert.match((e as Error).message, /maxStorageBufferBindingSize/);
      }
      return;
    }
    const { big } = await launch(knl, { big: new Int32Array(n), n }, [1], ['big']);
    assert.is(big[n - 1], 7);
    assert.is(big[0], 0);
  });

  // --- errors -------------------------------------------------------------------------------------

  test('shader compilation errors point at the WGSL line', async () => {
    const gpu = device.gpuDevice;
    const code = '@compute @workgroup_size(1)\nfn main() {\n  let active = 1;\n}\n';
    gpu.pushErrorScope('validation');
    const info = await gpu.createShaderModule({ code }).getCompilationInfo();
    await gpu.popErrorScope();
    const message = compilationError("kernel 'main'", code, info.messages).message;
    assert.match(message, 'line 3:   let active = 1;');
    assert.match(message, /\n {16}\^{6}/);
  });

  test('a lost device gives LoomErrors, not a crash or a hang', async () => {
    const doomed = await webgpuDevice();
    assert.ok(doomed);
    const knl = makeKernel('{ [i]: 0<=i<n }', 'out[i] = a[i] + 1');
    await run(knl, doomed, { a: new Float32Array(4) });
    doomed.gpuDevice.destroy(); // lost behind Loom's back (dispose() says 'disposed' instead)
    await new Promise((resolve) => setTimeout(resolve, 50));
    try {
      await run(knl, doomed, { a: new Float32Array(4) });
      assert.unreachable('ran on a destroyed device');
    } catch (e) {
      assert.instance(e, LoomError);
      assert.match((e as Error).message, /WebGPU device was lost/);
    }
  });

  test("float32's largest finite values are literals WGSL accepts (not 3.4028235e38, which exceeds them)", async () => {
    const knl = makeKernel(
      '{ [i]: 0<=i<n }',
      'out[i] = max(a[i], float32(-3.4028234663852886e38)) + if(a[i] > 0, float32(3.4028234663852886e38) - float32(3.4028234663852886e38), 0)',
      [globalArg('a', { dtype: 'float32' }), '...'],
    );
    const a = Float32Array.from([-1, 2, -3.4028234663852886e38, 0]);
    const { out } = await run(knl, device, { a });
    assert.equal([...(out as Float32Array)], [-1, 2, -3.4028234663852886e38, 0]);
  });
}

test.run();
