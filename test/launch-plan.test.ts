// The host path of a launch (issue 18): `run` plans once per call signature and reuses the
// plan; `prepareLaunch`'s launch can take other arrays; devices skip work they did for the
// previous launch (OpenCL arguments already set, WebGPU launches replayed). None of this
// may change a result: each test checks values against plain JavaScript, on every device.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  DeviceArray,
  globalArg,
  LoomError,
  makeKernel,
  prepareLaunch,
  run,
  splitIname,
  valueArg,
  type LaunchArgument,
} from '@loom/core';
import { openclDevice, type OpenCLDevice } from '@loom/codegen-opencl';
import { testDevices } from './support/devices.ts';

const ramp = (n: number, scale = 1) => Float32Array.from({ length: n }, (_, k) => k * scale);

async function rejects(what: string, call: () => Promise<unknown>, message: RegExp): Promise<void> {
  try {
    await call();
  } catch (e) {
    assert.instance(e, LoomError, what);
    assert.match((e as Error).message, message, what);
    return;
  }
  assert.unreachable(`${what} must be refused`);
}

for (const device of testDevices()) {
  test(`${device.name}: a float value of -0 is not the 0 of an earlier call`, async () => {
    const knl = makeKernel('{ [i]: 0<=i<n }', 'out[i] = a[i] * alpha', [
      globalArg('a', { dtype: 'float32' }),
      valueArg('alpha', 'float32'),
      '...',
    ]);
    const a = new Float32Array([1, 2, 3]);
    for (const alpha of [0, -0, 0, -0]) {
      const out = (await run(knl, device, { a, alpha })).out as Float32Array;
      assert.ok(
        [...out].every((v) => Object.is(v, alpha)),
        `alpha = ${Object.is(alpha, -0) ? '-0' : '0'}: got ${[...out].map((v) => (Object.is(v, -0) ? '-0' : v))}`,
      );
    }
  });

  test(`${device.name}: repeated calls take their values from each call, and a DeviceArray too short for its shape is refused every time`, async () => {
    const knl = splitIname(makeKernel('{ [i]: 0<=i<n }', 'out[i] = a[i] + b'), 'i', 16, {
      outerTag: 'g.0',
      innerTag: 'l.0',
    });
    const out = await DeviceArray.from(device, new Float32Array(40), 'float32');
    const a = await DeviceArray.from(device, ramp(40), 'float32');
    for (const b of [1, 2, 2, 3.5]) {
      await run(knl, device, { a, out, b });
      assert.equal(
        Array.from((await out.toHost()) as Float32Array),
        Array.from(ramp(40), (x) => x + b),
        `b = ${b}`,
      );
    }
    // the same signature (dtype, shape, values) as the planned calls, but a 16-element buffer
    const short = new DeviceArray(device, device.allocate(64), 'float32', [40]);
    await rejects(
      'a short DeviceArray in a planned call',
      () => run(knl, device, { a: short, out, b: 1 }),
      /buffer holds 16/,
    );
    await rejects(
      'a short DeviceArray to prepareLaunch',
      () => prepareLaunch(knl, device, { a: short, out, b: 1 }),
      /buffer holds 16/,
    );
    short.release();
    a.release();
    out.release();
  });

  test(`${device.name}: after a repeated call of DeviceArrays, another shape, dtype or value is planned for, and new contents are read`, async () => {
    const knl = splitIname(
      makeKernel('{ [i]: 0<=i<n }', 'out[i] = a[i] * b', [valueArg('b', 'float32'), '...']),
      'i',
      16,
      { outerTag: 'g.0', innerTag: 'l.0' },
    );
    const made: DeviceArray[] = [];
    const on = async (data: Float32Array | Int32Array, dtype: 'float32' | 'int32') => {
      const x = await DeviceArray.from(device, data, dtype);
      made.push(x);
      return x;
    };
    const a = await on(ramp(40), 'float32');
    const out = await on(new Float32Array(40), 'float32');
    const result = async (x: DeviceArray) => Array.from((await x.toHost()) as Float32Array | Int32Array);
    for (const b of [2, 2, 2]) await run(knl, device, { a, out, b });
    assert.equal(
      await result(out),
      Array.from(ramp(40), (x) => 2 * x),
      'the repeated call',
    );
    // the same arrays with other contents
    await device.write(a.buffer, ramp(40, 3));
    await run(knl, device, { a, out, b: 2 });
    assert.equal(
      await result(out),
      Array.from(ramp(40, 3), (x) => 2 * x),
      'new contents of the same arrays',
    );
    // a shorter shape: n is 24 now, and out's last 16 elements keep what they held
    const a24 = await on(ramp(24, 5), 'float32');
    const out24 = await on(new Float32Array(24), 'float32');
    await run(knl, device, { a: a24, out: out24, b: 2 });
    assert.equal(
      await result(out24),
      Array.from(ramp(24, 5), (x) => 2 * x),
      'another shape',
    );
    // other arrays of the first shape, then a value of -0, then another dtype
    const a40 = await on(ramp(40, 7), 'float32');
    await run(knl, device, { a: a40, out, b: 2 });
    assert.equal(
      await result(out),
      Array.from(ramp(40, 7), (x) => 2 * x),
      'other arrays of the same dtype and shape',
    );
    for (const b of [0, 0, -0, -0, 0]) {
      await run(knl, device, { a: a40, out, b });
      assert.ok(
        (await result(out)).every((v) => Object.is(v, b)),
        `b = ${Object.is(b, -0) ? '-0' : '0'} after repeated calls`,
      );
    }
    const ints = await on(
      Int32Array.from({ length: 40 }, (_, k) => k - 20),
      'int32',
    );
    const intsOut = await on(new Int32Array(40), 'int32');
    await run(knl, device, { a: ints, out: intsOut, b: 3 });
    assert.equal(
      await result(intsOut),
      Array.from({ length: 40 }, (_, k) => 3 * (k - 20)),
      'another dtype',
    );
    for (const x of made) x.release();
  });

  test(`${device.name}: after a repeated call of DeviceArrays, a call that differs wrongly is refused as it would be first`, async () => {
    const typed = () =>
      makeKernel('{ [i]: 0<=i<n }', 'out[i] = a[i] * b', [
        globalArg('a', { dtype: 'float32' }),
        globalArg('out', { dtype: 'float32', shape: ['n'] }),
        valueArg('b', 'float32'),
        valueArg('n', 'int32'),
      ]);
    const knl = typed();
    const a = await DeviceArray.from(device, ramp(8), 'float32');
    const out = await DeviceArray.from(device, new Float32Array(8), 'float32');
    const ints = await DeviceArray.from(device, new Int32Array(8), 'int32');
    const wrongCalls: [string, Record<string, unknown>][] = [
      ['an argument left out', { out, b: 1 }],
      ['an argument more', { a, out, b: 1, c: 2 }],
      ['a wrong dtype', { a: ints, out, b: 1 }],
      ['a value that is not a number', { a, out, b: 'one' }],
    ];
    // what each wrong call gets from a kernel never run before
    const firstTime: string[] = [];
    for (const [, args] of wrongCalls) {
      try {
        await run(typed(), device, args as never);
        assert.unreachable('a wrong call must be refused');
      } catch (e) {
        assert.instance(e, LoomError);
        firstTime.push((e as Error).message);
      }
    }
    for (const [k, [what, args]] of wrongCalls.entries()) {
      for (let repeat = 0; repeat < 3; repeat++) await run(knl, device, { a, out, b: 1 });
      const message = new RegExp(firstTime[k].replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
      await rejects(`${what} after repeated calls`, () => run(knl, device, args as never), message);
    }
    assert.equal(Array.from((await out.toHost()) as Float32Array), Array.from(ramp(8)), 'the good calls ran');
    for (const x of [a, out, ints]) x.release();
  });

  test(`${device.name}: after repeated calls of DeviceArrays, checkBounds turned on is honoured`, async () => {
    const scatter = makeKernel(
      '{ [i]: 0<=i<n }',
      ['<int32> t = idx[i] {id=t}', 'out[t] = 2*a[i] {id=w, dep=t}'],
      [globalArg('out', { shape: ['m'], dtype: 'float32', isInput: true }), '...'],
    );
    const idx = await DeviceArray.from(device, Int32Array.from([1, 8]), 'int32');
    const a = await DeviceArray.from(device, Float32Array.from([3, 5]), 'float32');
    const out = await DeviceArray.from(device, new Float32Array(8), 'float32');
    for (let repeat = 0; repeat < 3; repeat++)
      await run(scatter, device, { idx, a, out, m: 8 }, { checkBounds: false });
    await rejects(
      'checkBounds after unchecked calls',
      () => run(scatter, device, { idx, a, out, m: 8 }, { checkBounds: true }),
      /writes 'out' at index t = 8/,
    );
    await run(scatter, device, { idx, a, out, m: 8 }, { checkBounds: false });
    // the write in range went through every time; the one out of range was dropped
    assert.equal(Array.from((await out.toHost()) as Float32Array), [0, 6, 0, 0, 0, 0, 0, 0]);
    for (const x of [idx, a, out]) x.release();
  });

  test(`${device.name}: a launch's argument list that is not frozen is read again at every launch`, async () => {
    const knl = splitIname(makeKernel('{ [i]: 0<=i<n }', 'out[i] = a[i] + 1'), 'i', 16, {
      outerTag: 'g.0',
      innerTag: 'l.0',
    });
    const a = await DeviceArray.from(device, ramp(32), 'float32');
    const out = await DeviceArray.from(device, new Float32Array(32), 'float32');
    const other = await DeviceArray.from(device, new Float32Array(32), 'float32');
    const prepared = await prepareLaunch(knl, device, { a, out });
    const { kernel, groupCount, localSize } = prepared.kernels[0];
    const args: LaunchArgument[] = [...prepared.kernels[0].args];
    const at = args.findIndex((x) => x.kind === 'buffer' && x.buffer === out.buffer);
    await device.launch(prepared.compiled, kernel, args, groupCount, localSize);
    args[at] = { kind: 'buffer', buffer: other.buffer };
    await device.launch(prepared.compiled, kernel, args, groupCount, localSize);
    // frozen after use: still the list as it is now
    args[at] = { kind: 'buffer', buffer: out.buffer };
    Object.freeze(args);
    await device.write(a.buffer, ramp(32, 2));
    await device.launch(prepared.compiled, kernel, args, groupCount, localSize);
    assert.equal(
      Array.from((await other.toHost()) as Float32Array),
      Array.from(ramp(32), (x) => x + 1),
      'the second launch wrote the other array',
    );
    assert.equal(
      Array.from((await out.toHost()) as Float32Array),
      Array.from(ramp(32, 2), (x) => x + 1),
      'the third launch wrote out again',
    );
    prepared.release();
    for (const x of [a, out, other]) x.release();
  });

  test(`${device.name}: a prepared launch takes other arrays of the same kind (ping-pong), and refuses others`, async () => {
    const knl = splitIname(makeKernel('{ [i]: 0<=i<n }', 'out[i] = a[i] + 1'), 'i', 16, {
      outerTag: 'g.0',
      innerTag: 'l.0',
    });
    const n = 48;
    const ping = await DeviceArray.from(device, ramp(n), 'float32');
    const pong = await DeviceArray.from(device, new Float32Array(n), 'float32');
    const prepared = await prepareLaunch(knl, device, { a: ping, out: pong });
    for (let step = 0; step < 5; step++) {
      const [from, to] = step % 2 === 0 ? [ping, pong] : [pong, ping];
      await prepared.launch({ a: from, out: to });
    }
    // five steps of +1, the last written into pong
    assert.equal(
      Array.from((await pong.toHost()) as Float32Array),
      Array.from(ramp(n), (x) => x + 5),
    );
    await prepared.launch();
    assert.equal(
      Array.from((await pong.toHost()) as Float32Array),
      Array.from((await ping.toHost()) as Float32Array, (x) => x + 1),
      'launch() again uses the arrays it was prepared with',
    );

    const other = await DeviceArray.from(device, ramp(n - 1), 'float32');
    const ints = await DeviceArray.from(device, new Int32Array(n), 'int32');
    await rejects(
      'another shape',
      () => prepared.launch({ a: other }),
      /has shape \(47\), but the launch was prepared for \(48\)/,
    );
    await rejects(
      'another dtype',
      () => prepared.launch({ a: ints }),
      /is int32, but the launch was prepared with float32/,
    );
    await rejects('no such argument', () => prepared.launch({ b: ping }), /no array argument 'b'/);
    await rejects('not a DeviceArray', () => prepared.launch({ a: ramp(n) as never }), /must be a DeviceArray/);
    other.release();
    const gone = await DeviceArray.from(device, ramp(n), 'float32');
    gone.release();
    await rejects('a released array', () => prepared.launch({ a: gone }), /released/);
    for (const x of [ping, pong, ints]) x.release();
    prepared.release();
  });
}

const opencl = testDevices().find((d): d is OpenCLDevice => d.name.startsWith('OpenCL'));
if (opencl) {
  test(`${opencl.name}: kernel arguments are set again whenever they change, and after their memory was freed`, async () => {
    // a context of its own, with no pool: every release frees a cl_mem, whose number may come back
    const device = openclDevice({ bufferPoolBytes: 0 })!;
    const cl = device.context;
    const program = cl.buildProgram(
      '__kernel void axpb(__global const float *x, __global float *y, float a, int b) { int i = get_global_id(0); y[i] = a * x[i] + b; }',
    );
    const n = 32;
    const y = cl.createBuffer(4 * n);
    const expect = (x: Float32Array, a: number, b: number) => Array.from(x, (v) => Math.fround(Math.fround(a * v) + b));
    for (const [round, [scale, a, b]] of [
      [1, 2, 3],
      [1, 2, 3],
      [1, 2, 4],
      [2, 2, 4],
      [2, -0.5, 4],
    ].entries()) {
      const data = ramp(n, scale);
      const x = cl.createBufferFrom(data);
      cl.launch(
        program,
        'axpb',
        [
          { kind: 'buffer', buffer: x },
          { kind: 'buffer', buffer: y },
          { kind: 'scalar', dtype: 'float32', value: a },
          { kind: 'scalar', dtype: 'int32', value: b },
        ],
        [n],
      );
      const got = new Float32Array(n);
      cl.read(y, got);
      assert.equal(Array.from(got), expect(data, a, b), `round ${round}`);
      x.release(); // freed: the next round's buffer may get the same handle
    }
    device.dispose();
  });
}

test.run();
