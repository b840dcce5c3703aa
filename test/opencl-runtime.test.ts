// The OpenCL host runtime, run for real on whatever OpenCL device is here (PoCL on the CPU machines):
// hand-written kernels, checked against the same computation in plain JS.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  OpenCLBuildError,
  OpenCLContext,
  OpenCLError,
  type KernelArgument,
  type OpenCLBuffer,
} from '../packages/codegen-opencl/src/runtime/index.ts';
import { LoomError } from '../packages/core/src/errors.ts';
import { backendLeftOut, backendRequired, noteBackendMissing, openclDeviceOrSkip } from './support/backends.ts';

const cl = OpenCLContext.open();
const reasonWhenMissing = cl ? undefined : OpenCLContext.unavailableReason();

// --- what runs everywhere: the policy, and how a missing device is reported ----------------------

test('a device that is not there gives undefined and a one-line reason, never a throw', () => {
  const none = OpenCLContext.open({ device: /no-such-device-anywhere/ });
  assert.is(none, undefined);
  const reason = OpenCLContext.unavailableReason();
  assert.type(reason, 'string');
  assert.ok(reason!.length > 0);
  assert.not.ok(reason!.includes('\n'));
});

if (reasonWhenMissing !== undefined) {
  test('OpenCL being unavailable comes with a one-line reason', () => {
    assert.ok(reasonWhenMissing.length > 0);
    assert.not.ok(reasonWhenMissing.includes('\n'));
  });
}

test('backend policy: CI=true or LOOM_REQUIRE makes a backend required', () => {
  withEnvironment({ CI: undefined, LOOM_REQUIRE: undefined }, () => assert.not.ok(backendRequired('opencl')));
  withEnvironment({ CI: 'true', LOOM_REQUIRE: undefined }, () => assert.ok(backendRequired('webgpu')));
  withEnvironment({ CI: 'false', LOOM_REQUIRE: ' OpenCL , cpu' }, () => {
    assert.ok(backendRequired('opencl'));
    assert.ok(backendRequired('cpu'));
    assert.not.ok(backendRequired('webgpu'));
  });
  withEnvironment({ CI: undefined, LOOM_REQUIRE: 'all' }, () => assert.ok(backendRequired('webgpu')));
});

test('backend policy: a required backend that is missing is a LoomError naming the reason', () => {
  withEnvironment({ CI: undefined, LOOM_REQUIRE: 'webgpu' }, () => {
    assert.throws(
      () => noteBackendMissing('webgpu', 'no adapter'),
      (e: unknown) =>
        e instanceof LoomError &&
        /^WebGPU backend required \(LOOM_REQUIRE=webgpu\) but unavailable: no adapter$/.test(e.message),
    );
  });
});

test('backend policy: LOOM_BACKENDS keeps only the backends it lists; leaving out a required one is an error', () => {
  withEnvironment({ LOOM_BACKENDS: undefined }, () => assert.is(backendLeftOut('webgpu'), undefined));
  withEnvironment({ LOOM_BACKENDS: ' OpenCL , cpu' }, () => {
    assert.is(backendLeftOut('opencl'), undefined);
    assert.is(backendLeftOut('cpu'), undefined);
    assert.is(backendLeftOut('webgpu'), 'not in LOOM_BACKENDS= OpenCL , cpu');
  });
  withEnvironment({ CI: undefined, LOOM_REQUIRE: 'opencl', LOOM_BACKENDS: 'cpu' }, () => {
    assert.throws(
      () => openclDeviceOrSkip(),
      (e: unknown) =>
        e instanceof LoomError &&
        /^OpenCL backend required \(LOOM_REQUIRE=opencl\) but unavailable: not in LOOM_BACKENDS=cpu$/.test(e.message),
    );
  });
});

// In CI (or with LOOM_REQUIRE=opencl) this throws, failing the file: a broken driver must not pass as a skip.
if (!cl) noteBackendMissing('opencl', reasonWhenMissing ?? 'unknown reason');
else registerOpenCLTests(cl);

test.run();

// --- the runtime on a real device ----------------------------------------------------------------

function registerOpenCLTests(cl: OpenCLContext): void {
  const buffer = (b: OpenCLBuffer): KernelArgument => ({ kind: 'buffer', buffer: b });
  const int32 = (value: number): KernelArgument => ({ kind: 'scalar', dtype: 'int32', value });

  test('the device describes itself', () => {
    const { info } = cl;
    assert.ok(info.platformName.length > 0 && info.deviceName.length > 0);
    assert.ok(info.maxWorkItemSizes.length >= 1);
    assert.ok(info.maxWorkGroupSize >= 1 && info.computeUnits >= 1);
    assert.ok(info.localMemSize > 0 && info.globalMemSize >= info.maxMemAllocSize);
    assert.ok(Array.isArray(info.extensions));
    assert.type(info.supportsFloat64, 'boolean');
  });

  const SCALE = `
    __kernel void scale(__global const float *a, __global float *out, int n) {
      int i = get_global_id(0);
      if (i < n) out[i] = 2 * a[i];
    }`;

  for (const n of [1, 17, 1000]) {
    test(`float32: out[i] = 2*a[i] for n = ${n}`, () => {
      const a = Float32Array.from({ length: n }, (_, i) => Math.sin(i) * 100);
      const input = cl.createBufferFrom(a);
      const output = cl.createBuffer(4 * n);
      // an exact range, and a range rounded up to whole work-groups of 16 (the guard keeps it in bounds)
      for (const [global, local] of [
        [[n], undefined],
        [[Math.ceil(n / 16) * 16], [16]],
      ] as const) {
        cl.fill(output, 0);
        cl.launch(cl.buildProgram(SCALE), 'scale', [buffer(input), buffer(output), int32(n)], global, local);
        const result = new Float32Array(n);
        cl.read(output, result);
        assert.equal(
          [...result],
          [...a].map((x) => Math.fround(2 * x)),
        );
      }
      input.release();
      output.release();
    });
  }

  test('int32: wrapping arithmetic matches JS', () => {
    const program = cl.buildProgram(`
      __kernel void affine(__global const int *a, __global int *out, int k) {
        int i = get_global_id(0);
        out[i] = a[i] * k - 7;
      }`);
    const a = Int32Array.from([0, 1, -1, 123456, -2147483648, 2147483647, 99999]);
    const out = cl.createBuffer(a.byteLength);
    cl.launch(program, 'affine', [buffer(cl.createBufferFrom(a)), buffer(out), int32(65537)], [a.length]);
    const result = new Int32Array(a.length);
    cl.read(out, result);
    assert.equal(
      [...result],
      [...a].map((x) => (Math.imul(x, 65537) - 7) | 0),
    );
  });

  if (cl.info.supportsFloat64) {
    test('float64: arrays and a double scalar', () => {
      const program = cl.buildProgram(`
        #pragma OPENCL EXTENSION cl_khr_fp64 : enable
        __kernel void axpy(double alpha, __global const double *x, __global double *y) {
          int i = get_global_id(0);
          y[i] = alpha * x[i] + y[i];
        }`);
      const x = Float64Array.from({ length: 33 }, (_, i) => 1 / (i + 1));
      const y = Float64Array.from({ length: 33 }, (_, i) => Math.PI * i);
      const yBuffer = cl.createBufferFrom(y);
      const alpha = 1 / 3; // not representable as a float32: a truncated scalar would show
      cl.launch(
        program,
        'axpy',
        [{ kind: 'scalar', dtype: 'float64', value: alpha }, buffer(cl.createBufferFrom(x)), buffer(yBuffer)],
        [33],
      );
      const result = new Float64Array(33);
      cl.read(yBuffer, result);
      assert.equal(
        [...result],
        [...x].map((xi, i) => alpha * xi + y[i]),
      );
    });
  }

  test('scalar arguments of each integer width, bool and float32 arrive intact', () => {
    const program = cl.buildProgram(`
      __kernel void scalars(__global long *ints, __global float *f, char a, uchar b, short c, ushort d,
                            int e, uint g, long h, ulong k, uchar flag, float x) {
        ints[0] = a; ints[1] = b; ints[2] = c; ints[3] = d; ints[4] = e;
        ints[5] = g; ints[6] = h; ints[7] = (long)k; ints[8] = flag;
        f[0] = x;
      }`);
    const ints = cl.createBuffer(9 * 8);
    const floats = cl.createBuffer(4);
    cl.launch(
      program,
      'scalars',
      [
        buffer(ints),
        buffer(floats),
        { kind: 'scalar', dtype: 'int8', value: -128 },
        { kind: 'scalar', dtype: 'uint8', value: 255 },
        { kind: 'scalar', dtype: 'int16', value: -32768 },
        { kind: 'scalar', dtype: 'uint16', value: 65535 },
        { kind: 'scalar', dtype: 'int32', value: -2147483648 },
        { kind: 'scalar', dtype: 'uint32', value: 4294967295 },
        { kind: 'scalar', dtype: 'int64', value: -(2n ** 63n) },
        { kind: 'scalar', dtype: 'uint64', value: 2n ** 64n - 2n },
        { kind: 'scalar', dtype: 'bool', value: 1 },
        { kind: 'scalar', dtype: 'float32', value: -1.5 },
      ],
      [1],
    );
    const intResult = new BigInt64Array(9);
    const floatResult = new Float32Array(1);
    cl.read(ints, intResult);
    cl.read(floats, floatResult);
    assert.equal([...intResult], [-128n, 255n, -32768n, 65535n, -2147483648n, 4294967295n, -(2n ** 63n), -2n, 1n]);
    assert.is(floatResult[0], -1.5);
  });

  test('scalars that do not fit their dtype are LoomErrors before anything runs', () => {
    const program = cl.buildProgram(SCALE);
    const a = cl.createBuffer(4);
    const launchWith = (n: KernelArgument) => () => cl.launch(program, 'scale', [buffer(a), buffer(a), n], [1]);
    assert.throws(launchWith({ kind: 'scalar', dtype: 'int32', value: 1.5 }), /int32 scalar needs an integer/);
    assert.throws(launchWith({ kind: 'scalar', dtype: 'int32', value: 2 ** 31 }), /does not fit in int32/);
    assert.throws(launchWith({ kind: 'scalar', dtype: 'float32', value: 1n }), /float32 scalar needs a number/);
    assert.throws(
      launchWith({ kind: 'scalar', dtype: 'int64', value: 2 ** 60 }),
      /pass a int64 this large as a bigint/,
    );
    assert.throws(launchWith({ kind: 'scalar', dtype: 'complex64' as never, value: 1 }), /is not a dtype/);
    // a well-formed scalar of the wrong width: the driver refuses it, and the error says where
    assert.throws(
      launchWith({ kind: 'scalar', dtype: 'float64', value: 1 }),
      (e: unknown) =>
        e instanceof OpenCLError &&
        e.codeName === 'CL_INVALID_ARG_SIZE' &&
        /argument 2 \(a float64 scalar of 8 bytes/.test(e.message),
    );
    assert.throws(() => cl.launch(program, 'scale', [buffer(a)], [1]), /takes 3 arguments, 1 given/);
  });

  test('local memory: per-work-group sums through a __local scratch array', () => {
    const program = cl.buildProgram(`
      __kernel void group_sums(__global const float *a, __global float *sums, __local float *scratch) {
        int l = get_local_id(0);
        scratch[l] = a[get_global_id(0)];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int stride = get_local_size(0) / 2; stride > 0; stride /= 2) {
          if (l < stride) scratch[l] += scratch[l + stride];
          barrier(CLK_LOCAL_MEM_FENCE);
        }
        if (l == 0) sums[get_group_id(0)] = scratch[0];
      }`);
    const groupSize = 64;
    const groups = 5;
    const a = Float32Array.from({ length: groupSize * groups }, (_, i) => i % 7); // small integers: exact sums
    const sums = cl.createBuffer(4 * groups);
    cl.launch(
      program,
      'group_sums',
      [buffer(cl.createBufferFrom(a)), buffer(sums), { kind: 'local', byteLength: 4 * groupSize }],
      [groupSize * groups],
      [groupSize],
    );
    const result = new Float32Array(groups);
    cl.read(sums, result);
    const expected = Array.from({ length: groups }, (_, g) =>
      a.subarray(g * groupSize, (g + 1) * groupSize).reduce((s, x) => s + x, 0),
    );
    assert.equal([...result], expected);
    assert.throws(
      () => cl.launch(program, 'group_sums', [buffer(sums), buffer(sums), { kind: 'local', byteLength: 0 }], [1]),
      /local memory needs a positive whole number of bytes/,
    );
  });

  test('a 2-D NDRange: transposing a 13 x 7 matrix', () => {
    const program = cl.buildProgram(`
      __kernel void transpose(__global const int *a, __global int *t, int rows, int cols) {
        int c = get_global_id(0), r = get_global_id(1);
        t[c * rows + r] = a[r * cols + c];
      }`);
    const rows = 7;
    const cols = 13;
    const a = Int32Array.from({ length: rows * cols }, (_, i) => i * 10 + 1);
    const t = cl.createBuffer(a.byteLength);
    cl.launch(
      program,
      'transpose',
      [buffer(cl.createBufferFrom(a)), buffer(t), int32(rows), int32(cols)],
      [cols, rows],
    );
    const result = new Int32Array(rows * cols);
    cl.read(t, result);
    const expected: number[] = [];
    for (let c = 0; c < cols; c++) for (let r = 0; r < rows; r++) expected.push(a[r * cols + c]);
    assert.equal([...result], expected);
  });

  test('a compile error is an OpenCLBuildError with the compiler log and the line it blames', () => {
    const source = '__kernel void broken(__global float *x) {\n  x[0] = undefined_thing * 2;\n}\n';
    let error: unknown;
    try {
      cl.buildProgram(source);
    } catch (e) {
      error = e;
    }
    assert.instance(error, LoomError);
    assert.instance(error, OpenCLBuildError);
    const message = (error as Error).message;
    assert.match(message, 'OpenCL call clBuildProgram failed: CL_BUILD_PROGRAM_FAILURE');
    assert.match(message, 'undefined_thing'); // the compiler's own words name the identifier
    assert.match(message, /the first error in the source:\n {2}line 2: {3}x\[0\] = undefined_thing \* 2;\n {19}\^/);
    assert.ok((error as OpenCLBuildError).buildLog.length > 0);
  });

  test('programs are cached by source and options; kernels are found by name', () => {
    assert.is(cl.buildProgram(SCALE), cl.buildProgram(SCALE));
    assert.is.not(cl.buildProgram(SCALE), cl.buildProgram(SCALE, ['-cl-fast-relaxed-math']));
    assert.equal(cl.buildProgram(SCALE).kernelNames, ['scale']);
    assert.throws(
      () => cl.launch(cl.buildProgram(SCALE), 'scael', [], [1]),
      /CL_INVALID_KERNEL_NAME[\s\S]*has no kernel 'scael' \(it has: scale\)/,
    );
  });

  test('zero-length buffers: create, write, read, fill, copy and launch with them', () => {
    const empty = cl.createBuffer(0);
    assert.is(empty.byteLength, 0);
    cl.write(empty, new Float32Array(0));
    cl.read(empty, new Float32Array(0));
    cl.fill(empty, 7);
    cl.copy(empty, cl.createBuffer(0));
    const program = cl.buildProgram(SCALE);
    cl.launch(program, 'scale', [buffer(empty), buffer(empty), int32(0)], [0]); // an empty range runs nothing
    cl.launch(program, 'scale', [buffer(empty), buffer(empty), int32(0)], [4]); // runs, the guard skips every item
    assert.is(cl.launchTimed(program, 'scale', [buffer(empty), buffer(empty), int32(0)], [0]), 0);
    cl.finish();
    assert.throws(() => cl.read(empty, new Float32Array(1)), /outside the 0-byte buffer/);
    empty.release();
  });

  test('reading into a subarray at a byte offset, and writing at one', () => {
    const b = cl.createBufferFrom(Float32Array.from({ length: 10 }, (_, i) => i));
    cl.write(b, new Float32Array([42]), 4 * 9);
    const into = new Float32Array(8).fill(-1);
    cl.read(b, into.subarray(2, 5), 4 * 3);
    assert.equal([...into], [-1, -1, 3, 4, 5, -1, -1, -1]);
    const last = new Float32Array(1);
    cl.read(b, last, 4 * 9);
    assert.is(last[0], 42);
    assert.throws(() => cl.read(b, new Float32Array(2), 4 * 9), /bytes 36 \.\. 44 are outside the 40-byte buffer/);
    assert.throws(() => cl.write(b, new Float32Array(1), -4), /offset must be a whole number/);
  });

  test('fill with a byte or a typed pattern, and copy between buffers', () => {
    const b = cl.createBuffer(4 * 6);
    cl.fill(b, new Float32Array([2.5]));
    const copy = cl.createBuffer(4 * 6);
    cl.fill(copy, 0);
    cl.copy(b, copy, { byteLength: 8, targetOffset: 16 });
    const result = new Float32Array(6);
    cl.read(copy, result);
    assert.equal([...result], [0, 0, 0, 0, 2.5, 2.5]);
    cl.fill(b, 0x01);
    const bytes = new Uint8Array(24);
    cl.read(b, bytes);
    assert.ok(bytes.every((x) => x === 1));
    assert.throws(() => cl.fill(b, new Uint8Array(3)), /pattern must be 1, 2, 4/);
    assert.throws(() => cl.fill(b, 256), /byte pattern is a whole number from 0 to 255/);
  });

  test('launchTimed reports the kernel time in nanoseconds', () => {
    const n = 1 << 16;
    const input = cl.createBufferFrom(new Float32Array(n).fill(1));
    const output = cl.createBuffer(4 * n);
    const ns = cl.launchTimed(cl.buildProgram(SCALE), 'scale', [buffer(input), buffer(output), int32(n)], [n]);
    assert.type(ns, 'number');
    assert.ok(ns > 0 && ns < 60e9, `implausible kernel time ${ns} ns`);
  });

  test('launchSequenceTimed reports the time from the start of the first kernel to the end of the last', () => {
    const n = 1 << 16;
    const program = cl.buildProgram(SCALE);
    const input = cl.createBufferFrom(new Float32Array(n).fill(1));
    const middle = cl.createBuffer(4 * n);
    const output = cl.createBuffer(4 * n);
    const empty = cl.createBuffer(4);
    const launches = [
      { program, kernelName: 'scale', args: [buffer(input), buffer(middle), int32(n)], globalSize: [n] },
      // an empty range runs nothing and is not counted
      { program, kernelName: 'scale', args: [buffer(empty), buffer(empty), int32(0)], globalSize: [0] },
      { program, kernelName: 'scale', args: [buffer(middle), buffer(output), int32(n)], globalSize: [n] },
    ];
    const ns = cl.launchSequenceTimed(launches);
    assert.ok(ns > 0 && ns < 60e9, `implausible time ${ns} ns`);
    const out = new Float32Array(n);
    cl.read(output, out);
    assert.ok(
      out.every((x) => x === 4),
      'both kernels ran, in order',
    );
    assert.is(cl.launchSequenceTimed([launches[1]!]), 0, 'nothing ran');
    assert.is(cl.launchSequenceTimed([]), 0);
  });

  test('NDRange shapes are checked against the device', () => {
    const program = cl.buildProgram(SCALE);
    const a = cl.createBuffer(4);
    const args = [buffer(a), buffer(a), int32(1)];
    assert.throws(() => cl.launch(program, 'scale', args, []), /needs 1 to \d dimensions/);
    assert.throws(() => cl.launch(program, 'scale', args, [4, 4], [4]), /differ in dimensions/);
    assert.throws(() => cl.launch(program, 'scale', args, [4], [cl.info.maxWorkGroupSize * 2]), /exceeds the device's/);
    assert.throws(() => cl.launch(program, 'scale', args, [1.5]), /not whole numbers/);
  });

  test('buffers and programs of another context, released buffers and a disposed context are LoomErrors', () => {
    const other = OpenCLContext.open({ platform: cl.info.platformName, device: cl.info.deviceName });
    assert.ok(other, 'a second context on the same device');
    const foreign = other!.createBuffer(4);
    const mine = cl.createBuffer(4);
    const program = cl.buildProgram(SCALE);
    assert.throws(() => cl.write(foreign, new Float32Array(1)), /write: the buffer belongs to another OpenCLContext/);
    assert.throws(
      () => cl.launch(program, 'scale', [buffer(foreign), buffer(mine), int32(1)], [1]),
      /argument 0: the buffer belongs to another OpenCLContext/,
    );
    assert.throws(
      () => other!.launch(program, 'scale', [buffer(foreign), buffer(foreign), int32(1)], [1]),
      /built by another OpenCLContext/,
    );

    mine.release();
    mine.release(); // twice is harmless
    assert.ok(mine.released);
    assert.throws(() => cl.read(mine, new Float32Array(1)), /the buffer was released/);

    const kept = other!.createBuffer(8);
    other!.dispose();
    other!.dispose();
    assert.ok(other!.disposed);
    assert.ok(kept.released, 'disposing a context releases its buffers');
    assert.throws(() => other!.createBuffer(4), /createBuffer: the OpenCLContext was disposed/);
    assert.throws(() => other!.finish(), /the OpenCLContext was disposed/);
  });

  test('an out-of-range allocation is a LoomError', () => {
    assert.throws(() => cl.createBuffer(cl.info.maxMemAllocSize + 1), /exceed the device's largest allocation/);
    assert.throws(() => cl.createBuffer(-1), /whole number of bytes/);
  });
}

/** Runs `fn` with some environment variables set (undefined: unset), restoring them afterwards. */
function withEnvironment(values: Record<string, string | undefined>, fn: () => void): void {
  const saved = Object.fromEntries(Object.keys(values).map((k) => [k, process.env[k]]));
  const apply = (vars: Record<string, string | undefined>) => {
    for (const [k, v] of Object.entries(vars)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  };
  apply(values);
  try {
    fn();
  } finally {
    apply(saved);
  }
}
