/**
 * A global barrier inside a sequential loop: the host runs the loop around the device
 * kernels of its body (as loopy's host program does), passing the loop's value to each.
 * Nested host loops, bounds in the parameters and in the outer loop, on every device,
 * through run and prepareLaunch, against plain JavaScript.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  prioritizeLoops,
  globalArg,
  valueArg,
  DeviceArray,
  generateCode,
  getSynchronizationMap,
  LoomError,
  makeKernel,
  MissingDefinitionError,
  prepareLaunch,
  run,
  splitIname,
  stringifyLinearized,
  tagInames,
} from '@loom/core';
import { openclTarget } from '@loom/codegen-opencl';
import { testDevices } from './support/devices.ts';

/** Per step (t, s) with s <= t: x is shifted by one place and s + 10t is added to it. */
function shiftingKernel() {
  const knl = makeKernel(
    '{ [t, s, i]: 0<=t<T and 0<=s<=t and 0<=i<n }',
    `for t, s
       for i
         tmp[i] = x[i] + s + 10*t
       end
       ... gbarrier
       for i
         x[(i + 1) % n] = tmp[i]
       end
       ... gbarrier
     end`,
    [
      globalArg('x', { dtype: 'float32', shape: ['n'] }),
      globalArg('tmp', { dtype: 'float32', shape: ['n'] }),
      valueArg('n', 'int32'),
      valueArg('T', 'int32'),
    ],
    { seqDependencies: true, name: 'shifting' },
  );
  return prioritizeLoops(splitIname(knl, 'i', 4, { outerTag: 'g.0', innerTag: 'l.0' }), 't,s');
}

function shiftingReference(x0: Float32Array, T: number): number[] {
  let x = Array.from(x0);
  const n = x.length;
  for (let t = 0; t < T; t++) {
    for (let s = 0; s <= t; s++) {
      const tmp = x.map((v) => Math.fround(v + s + 10 * t));
      x = x.map((_, i) => tmp[(i + n - 1) % n]);
    }
  }
  return x;
}

test('the host loops around the device kernels: the linearization and the printed host program show them', () => {
  const view = stringifyLinearized(shiftingKernel());
  const all = view.split('\n');
  const lines = all.slice(all.indexOf('LINEARIZATION:')).map((l) => l.replace(/^\d+: /, ''));
  const at = (text: string) => lines.indexOf(text);
  assert.ok(at('for t') >= 0 && at('    for s') > at('for t'), view);
  assert.ok(at('        CALL KERNEL shifting') > at('    for s'), view);
  assert.ok(at('        CALL KERNEL shifting_0') > at('        CALL KERNEL shifting'), view);
  assert.ok(at('    end s') > at('        CALL KERNEL shifting_0') && at('end t') > at('    end s'), view);

  const code = generateCode(shiftingKernel(), openclTarget());
  assert.is(code.kernels.length, 2);
  // each device kernel takes the host loops' values, as int arguments after the caller's
  assert.match(code.code, /shifting\(.*int const t, int const s\)/);
  assert.equal(
    code.kernels[0].parameters.filter((p) => p.kind === 'host-loop').map((p) => p.argument),
    ['t', 's'],
  );
  assert.equal(code.host.program.length, 1);
  assert.is(
    code.hostCode,
    [
      'for (t = 0; t <= T - 1; t++) {',
      '  for (s = 0; s <= t; s++) {',
      '    shifting(x, tmp, n, T, t, s);  // (n + 3) // 4 groups of 4',
      '    shifting_0(x, tmp, n, T, t, s);  // (n + 3) // 4 groups of 4',
      '  }',
      '}',
    ].join('\n'),
  );
  assert.ok(
    String(code).endsWith(
      `// host program:\n${code.hostCode
        .split('\n')
        .map((l) => `//   ${l}`)
        .join('\n')}`,
    ),
  );
});

test('the synchronization map counts launches and global barriers per host loop iteration', () => {
  const sync = getSynchronizationMap(shiftingKernel());
  const params = { T: 4, n: 8 };
  // sum over t < 4 of (t + 1) steps = 10 steps, each two launches and two barriers
  assert.is(sync.filterBy({ kind: 'kernel_launch' }).evalAndSum(params), 20);
  assert.is(sync.filterBy({ kind: 'barrier_global' }).evalAndSum(params), 20);
});

for (const device of testDevices()) {
  test(`${device.name}: nested host loops with parametric and triangular bounds, through run`, async () => {
    for (const [n, T] of [
      [10, 3],
      [7, 1],
      [5, 0],
    ]) {
      const x = Float32Array.from({ length: n }, (_, k) => k * 0.5);
      const expected = shiftingReference(x, T);
      await run(shiftingKernel(), device, { x, tmp: new Float32Array(n), n, T });
      assert.equal(Array.from(x), expected, `n=${n} T=${T}`);
    }
  });

  test(`${device.name}: host loops through prepareLaunch, launched twice`, async () => {
    const n = 9;
    const x0 = Float32Array.from({ length: n }, (_, k) => k - 3);
    const x = await DeviceArray.from(device, x0, 'float32');
    const tmp = await DeviceArray.from(device, new Float32Array(n), 'float32');
    const prepared = await prepareLaunch(shiftingKernel(), device, { x, tmp, n, T: 3 });
    // two launches of three host iterations of t, each launching two kernels per s <= t
    assert.is(prepared.kernels.length, 2 * (1 + 2 + 3));
    await prepared.launch();
    await prepared.launch();
    const once = shiftingReference(x0, 3);
    assert.equal(Array.from((await x.toHost()) as Float32Array), shiftingReference(Float32Array.from(once), 3));
    prepared.release();
    x.release();
    tmp.release();
  });

  test(`${device.name}: host loops through launchRounds, each launch with its own loop values`, async () => {
    // the same kernel is launched with other values of t and s: a device that batches the rounds
    // into one submission (WebGPU) must not give them one set of values
    const n = 9;
    const x0 = Float32Array.from({ length: n }, (_, k) => 2 * k - 5);
    const x = await DeviceArray.from(device, x0, 'float32');
    const tmp = await DeviceArray.from(device, new Float32Array(n), 'float32');
    const prepared = await prepareLaunch(shiftingKernel(), device, { x, tmp, n, T: 2 });
    await prepared.launchRounds(3);
    let expected = Array.from(x0);
    for (let round = 0; round < 3; round++) expected = shiftingReference(Float32Array.from(expected), 2);
    assert.equal(Array.from((await x.toHost()) as Float32Array), expected);
    prepared.release();
    x.release();
    tmp.release();
  });
}

test('a host loop cannot be unrolled, and cannot have bounds only a work-item knows', () => {
  const constant = makeKernel(
    '{ [k, i]: 0<=k<3 and 0<=i<n }',
    ['for k, i', '  ... gbarrier', '  a[k, i] = k', 'end'].join('\n'),
    undefined,
    { seqDependencies: true },
  );
  assert.throws(
    () => generateCode(tagInames(constant, { k: 'unr', i: 'l.0' }), openclTarget()),
    (e: unknown) => e instanceof LoomError && /cannot unroll 'k': a global barrier sits inside it/.test(e.message),
  );
  const knl = tagInames(
    makeKernel(
      ['{ [i]: 0<=i<n }', '{ [k]: 0<=k<i }'],
      ['for i', '  for k', '    ... gbarrier', '    a[i, k] = 1', '  end', 'end'].join('\n'),
      undefined,
      {
        seqDependencies: true,
      },
    ),
    { i: 'g.0' },
  );
  assert.throws(
    () => generateCode(knl, openclTarget()),
    (e: unknown) =>
      e instanceof LoomError &&
      /loop 'k' holds a global barrier, so the host runs it, but its bounds depend on 'i'/.test(e.message),
  );
});

test('a private temporary written in one host iteration and read in the next is a missing definition', () => {
  const knl = makeKernel(
    '{ [k, i]: 0<=k<n and 0<=i<8 }',
    `<> t = 0
     for k
       for i
         out[k, i] = t
       end
       ... gbarrier
       t = k
     end`,
    undefined,
    { seqDependencies: true },
  );
  assert.throws(
    () => generateCode(tagInames(knl, { i: 'l.0' }), openclTarget()),
    (e: unknown) => e instanceof MissingDefinitionError && /'t' gets used in subkernel/.test(e.message),
  );
});

test.run();
