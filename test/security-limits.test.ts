// Hostile sizes (issue 11): every device refuses the same kernels, before any driver sees them,
// with a LoomError naming the limit, the value and the kernel; none crashes, none says RangeError.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  BasicSet,
  CoefficientRangeError,
  COMMON_LIMITS,
  LoomError,
  MAX_INDEX,
  makeKernel,
  prioritizeLoops,
  run,
  setTemporaryAddressSpace,
  splitIname,
  tagInames,
  type Device,
} from '@loom/core';
import { domain, insn, kernel } from '@loom/dsl';
import { cpuDevice } from '@loom/codegen-js';
import { testDevices } from './support/devices.ts';

/** Runs `body`, which must fail with a LoomError whose message matches every pattern; returns the message. */
async function refused(what: string, body: () => unknown, ...patterns: RegExp[]): Promise<string> {
  try {
    await body();
  } catch (e) {
    if (!(e instanceof LoomError))
      throw new Error(`${what}: expected a LoomError, got ${(e as Error).name}: ${(e as Error).message}`);
    for (const p of patterns) assert.match(e.message, p, `${what}: ${e.message}`);
    return e.message;
  }
  throw new Error(`${what}: expected a LoomError, but it ran`);
}

const devices = testDevices();

test('a private temporary of 10^8 elements is refused on every device (PoCL crashed, WGSL blamed itself)', async () => {
  const knl = prioritizeLoops(
    makeKernel(
      '{ [i,k]: 0<=i<4 and 0<=k<100000000 }',
      '<float32> t[k] = a[i] {id=w}\nout[i] = t[5] {dep=w}',
      undefined,
      { name: 'huge_private' },
    ),
    'i,k',
  );
  for (const device of devices) {
    const message = await refused(
      device.name,
      () => run(knl, device, { a: new Float32Array(4) }),
      /kernel 'huge_private'/,
      /private/,
      /400000000 bytes/,
    );
    assert.match(message, String(device.limits.maxPrivateMemoryBytes), 'the message names the limit');
  }
});

test('a private temporary within the common 8 KiB runs on every device (NVIDIA under Vulkan refuses 16 KiB)', async () => {
  const knl = prioritizeLoops(
    makeKernel('{ [i,k]: 0<=i<4 and 0<=k<2048 }', '<float32> t[k] = a[i] + k {id=w}\nout[i] = t[5] {dep=w}'),
    'i,k',
  );
  for (const device of devices) {
    const { out } = await run(knl, device, { a: new Float32Array([1, 2, 3, 4]) });
    assert.equal([...(out as Float32Array)], [6, 7, 8, 9], device.name);
  }
});

test("an 'l.0' extent of 100,000 is refused on every device, the CPU device included", async () => {
  const knl = tagInames(makeKernel('{ [i]: 0<=i<100000 }', 'out[i] = 2*a[i]', undefined, { name: 'wide_group' }), {
    i: 'l.0',
  });
  for (const device of devices) {
    await refused(
      device.name,
      () => run(knl, device, { a: new Float32Array(100000) }),
      /kernel 'wide_group'/,
      /work-group/,
      /100000/,
    );
  }
});

test('the CPU device takes the limits of a typical GPU', () => {
  const cpu = cpuDevice();
  assert.equal(cpu.limits, COMMON_LIMITS);
  assert.is(cpu.limits.maxWorkGroupSize, 1024);
  for (const device of devices) {
    for (const key of Object.keys(COMMON_LIMITS) as (keyof typeof COMMON_LIMITS)[])
      assert.ok(device.limits[key] !== undefined, `${device.name} states ${key}`);
  }
});

test('local temporaries beyond the local memory are refused on every device', async () => {
  let knl = makeKernel(
    '{ [i,k]: 0<=i<16 and 0<=k<1000000 }',
    '<float32> t[k] = a[i] {id=w}\nout[i] = t[i] {dep=w}',
    undefined,
    { name: 'huge_local' },
  );
  knl = setTemporaryAddressSpace(tagInames(knl, { i: 'l.0' }), 't', 'local');
  for (const device of devices) {
    await refused(
      device.name,
      () => run(knl, device, { a: new Float32Array(16) }),
      /kernel 'huge_local'/,
      /local/,
      /4000000 bytes/,
    );
  }
});

test('n = 2^31 is a LoomError on every device (int32 indices would overflow), not a RangeError', async () => {
  const knl = makeKernel('{ [i]: 0<=i<n and i < 4 }', 'out[i] = i', undefined, { name: 'big_n' });
  for (const device of devices) {
    await refused(
      device.name,
      () => run(knl, device, { n: 2 ** 31 }),
      /kernel 'big_n'/,
      /'n' = 2147483648 does not fit/,
      /32-bit/,
    );
  }
});

test('an array of more than 2^31 - 1 elements is refused on every device: its indices would overflow', async () => {
  const knl = makeKernel('{ [i,j]: 0<=i<n and 0<=j<m }', 'out[i, j] = i + j', undefined, { name: 'big_array' });
  for (const device of devices) {
    await refused(
      device.name,
      () => run(knl, device, { n: 50000, m: 50000 }),
      /'out' would have 2500000000 elements/,
      new RegExp(String(MAX_INDEX)),
    );
  }
});

test('a buffer beyond the device limit is a LoomError naming the limit on every device', async () => {
  for (const device of devices) {
    // past the device's own limit (an H100 under Vulkan grants far more than 2^40 bytes)
    const tooMany = device.limits.maxBufferBytes + 4;
    await refused(
      device.name,
      () => device.allocate(tooMany),
      new RegExp(`cannot allocate ${tooMany} bytes`),
      new RegExp(String(device.limits.maxBufferBytes)),
    );
  }
});

test('a split factor of 1e9 is a CoefficientRangeError naming the kernel on every device', async () => {
  const knl = splitIname(
    makeKernel('{ [i]: 0<=i<n }', 'out[i] = 2*a[i]', undefined, { name: 'giant_split' }),
    'i',
    1e9,
    { outerTag: 'g.0', innerTag: 'l.0' },
  );
  for (const device of devices) {
    const message = await refused(
      device.name,
      () => run(knl, device, { a: new Float32Array(10) }),
      /kernel 'giant_split'/,
      /2\^53/,
    );
    assert.not.match(message, /RangeError/);
  }
});

test('a divisor of 10^8 in a domain is a CoefficientRangeError, not a RangeError', () => {
  for (const text of [
    '{ [i,j]: 0<=i<n and j = floor(i/100000000) }',
    '{ [i]: 0<=i<n and exists k: i = 200000000*k + 3 and k < 100000000 }',
  ]) {
    try {
      makeKernel(text, 'out[i] = 2*a[i]');
      assert.unreachable(text);
    } catch (e) {
      assert.instance(e, CoefficientRangeError, text);
      assert.instance(e, LoomError, text);
    }
  }
});

test("1e21 in a domain string is a LoomError with a caret, never a parameter named 'e'", async () => {
  const message = await refused(
    '1e21',
    () => makeKernel('{ [i]: 0<=i<1e21 }', 'out[i] = 2*a[i]'),
    /1e21 is beyond 9007199254740991/,
  );
  assert.match(message, '\n  { [i]: 0<=i<1e21 }\n              ^^^^');
  await refused('1.5e1', () => BasicSet.parse('{ [i]: 0<=i<15e-1 }'), /15e-1 is not an integer/);
});

test('1e21 interpolated into a DSL domain template is a LoomError pointing into the template', async () => {
  await refused(
    'dsl 1e21',
    () => kernel(domain`{ [i]: 0<=i<${1e21} }`, insn`out[i] = 2*a[i]`),
    /1e\+21 is beyond/,
    /security-limits\.test\.ts/,
  );
});

test('1e3 in a domain (string or template) reads as 1000 and runs so on every device', async () => {
  const fromString = makeKernel('{ [i]: 0<=i<1e3 }', 'out[i] = 2*a[i]');
  const fromTemplate = kernel(domain`{ [i]: 0<=i<${1e3} }`, insn`out[i] = 2*a[i]`).kernel;
  for (const knl of [fromString, fromTemplate]) {
    assert.equal(knl.domains[0].params, [], 'no parameter');
    assert.is(knl.domains[0].toString(), '{ [i] : 0 <= i <= 999 }');
  }
  const a = Float32Array.from({ length: 1000 }, (_, k) => k);
  for (const device of devices) {
    const { out } = await run(fromString, device, { a });
    assert.is((out as Float32Array).length, 1000, device.name);
    assert.is((out as Float32Array)[999], 1998, device.name);
  }
});

test("ISL's own juxtaposition stays: '3e0' is 3 times a name e0 that is in scope", () => {
  const set = BasicSet.parse('{ [i] : exists e0: i = 3e0 and 0 <= i <= 9 }');
  assert.ok(set.contains({ i: 6 }));
  assert.not.ok(set.contains({ i: 7 }));
  assert.is(
    BasicSet.parse('{ [i] : 0 <= i < 3e0 }').toString(),
    '{ [i] : 0 <= i <= 2 }',
    'no e0 in scope: the integer 3',
  );
});

/** Refusals happen before the driver: each device is still usable afterwards. */
test('every device still runs kernels after refusing all of the above', async () => {
  const knl = makeKernel('{ [i]: 0<=i<n }', 'out[i] = 2*a[i]');
  for (const device of devices as Device[]) {
    const { out } = await run(knl, device, { a: new Float32Array([1, 2, 3]) });
    assert.equal([...(out as Float32Array)], [2, 4, 6], device.name);
  }
});

test.run();
