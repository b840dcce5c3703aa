/**
 * What only the WebGPU device has (lavapipe on the CPU machines): shared buffers past the binding
 * limit, barriers under guards, arrays held as vectors, atomics, grids past 65535 work-groups,
 * bindings past 128 MiB, compilation errors, a lost device. The tutorial's kernels against the CPU
 * device are wgsl-device.test.ts.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  addDtypes,
  DeviceArray,
  expr as E,
  globalArg,
  LoomError,
  makeKernel,
  programCode,
  requireConstantLocalSize,
  run,
  type DType,
  type Expr,
  type KernelFunction,
  type LaunchArgument,
  type ProgramAst,
  type RunArgument,
  type Stmt,
} from '@loom/core';
import { webgpuDevice } from '@loom/codegen-wgsl';
import { webgpuDeviceOrSkip } from './support/backends.ts';
import { compilationError } from '../packages/codegen-wgsl/src/errors.ts';
import { sameAsCpu, type Numbers } from './support/same-as-cpu.ts';

const device = await webgpuDeviceOrSkip();

if (device) {
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
    // a hardware id is never negative: WGSL's own / and % compute its floor division and remainder
    assert.match(code, /out\[group_id\.x \/ 4i\]\[group_id\.x % 4i\] = /);
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

  test("Dawn's devices are destroyed as the process exits (before Node frees what their objects point to)", () => {
    // a child that makes a device, runs a kernel, and asks after the exit hooks whether it is still alive
    const script = [
      "import { webgpuDevice } from '@loom/codegen-wgsl';",
      "import { makeKernel, run } from '@loom/core';",
      'const device = await webgpuDevice();',
      "await run(makeKernel('{ [i]: 0<=i<4 }', 'out[i] = 2*a[i]'), device, { a: new Float32Array(4) });",
      "process.on('exit', () => {",
      '  try { device.allocate(4); console.log("alive"); } catch (e) { console.log(e.message); }',
      '});',
    ].join('\n');
    const child = spawnSync(
      process.execPath,
      ['--conditions=loom-source', '--import', 'tsx', '--input-type=module', '-e', script],
      { encoding: 'utf8', cwd: fileURLToPath(new URL('..', import.meta.url)) },
    );
    assert.is(child.status, 0, child.stderr);
    assert.match(child.stdout, 'the WebGPU device was disposed');
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
