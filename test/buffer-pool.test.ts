// Released device memory is pooled and handed out again (issue 18): a buffer is never reused
// while still referenced, work queued with a released buffer still sees its old contents, and
// disposal (or unreachability) gives the memory back. Checked on every device with a pool.
import v8 from 'node:v8';
import vm from 'node:vm';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  BufferPool,
  DeviceArray,
  LoomError,
  makeKernel,
  prepareLaunch,
  run,
  sizeClass,
  splitIname,
  type Device,
} from '@loom/core';
import { openclDevice } from '@loom/codegen-opencl';
import { webgpuDevice } from '@loom/codegen-wgsl';
import { empty, pointwise, tensor } from '@loom/elementwise';
import { testDevices } from './support/devices.ts';

test('size classes: at least the request, at most 25% more (12.5% from 1 MiB), in multiples of 64', () => {
  for (const bytes of [
    1,
    4,
    255,
    256,
    257,
    1000,
    4096,
    4097,
    65537,
    (1 << 20) - 3,
    1 << 20,
    (1 << 20) + 1,
    3_000_001,
    2 ** 28 + 4,
  ]) {
    const c = sizeClass(bytes);
    assert.ok(c >= bytes, `${bytes} -> ${c}`);
    assert.ok(c % 64 === 0, `${bytes} -> ${c} is a multiple of 64`);
    if (bytes > 256)
      assert.ok(c <= bytes * (bytes > 1 << 20 ? 1.125 : 1.25), `${bytes} -> ${c} stays within its bound`);
  }
  assert.is(sizeClass(4096), 4096, 'a power of two is its own class');
  assert.is(sizeClass(4000), sizeClass(4090), 'nearby sizes share a class');
});

test('BufferPool: hands back what it was given, by class; drops the oldest past its bound; frees all when closed', () => {
  const freed: string[] = [];
  const pool = new BufferPool<string>(1000, (b) => freed.push(b));
  assert.is(pool.take(256), undefined, 'empty at first');
  pool.give('a', 256);
  pool.give('b', 512);
  assert.equal(pool.stats(), { pooledBuffers: 2, pooledBytes: 768, reused: 0, created: 1 });
  assert.is(pool.take(512), 'b');
  assert.is(pool.take(512), undefined, 'b was taken');
  pool.give('c', 512);
  pool.give('d', 256); // 1024 > 1000: the oldest ('a') goes
  assert.equal(freed, ['a']);
  assert.is(pool.take(256), 'd');
  pool.give('huge', 2000); // larger than the whole pool: freed at once
  assert.equal(freed, ['a', 'huge']);
  pool.clear(true);
  assert.equal(freed, ['a', 'huge', 'c']);
  pool.give('late', 256); // closed: freed at once
  assert.equal(freed, ['a', 'huge', 'c', 'late']);
  assert.is(pool.stats().pooledBuffers, 0);
  assert.throws(
    () => new BufferPool(-1, () => {}),
    (e: unknown) => e instanceof LoomError,
  );
});

/** Waits until the device has done everything queued (a read of a small array waits behind it). */
async function settle(device: Device): Promise<void> {
  const probe = await DeviceArray.from(device, new Float32Array(1), 'float32');
  await probe.toHost();
  probe.release();
}

const double = splitIname(makeKernel('{ [i]: 0<=i<n }', 'out[i] = 2*a[i]'), 'i', 64, {
  outerTag: 'g.0',
  innerTag: 'l.0',
});
const N = 4096;
const ramp = (n: number, scale = 1) => Float32Array.from({ length: n }, (_, k) => k * scale);

const pooled = testDevices().filter((d) => d.poolStats !== undefined);

for (const device of pooled) {
  const stats = () => device.poolStats!();

  test(`${device.name}: a released buffer's memory serves the next allocation of its size; the released array stays unusable`, async () => {
    const a = await DeviceArray.from(device, ramp(N), 'float32');
    a.release();
    const before = stats();
    const b = await DeviceArray.from(device, ramp(N, 3), 'float32');
    assert.is(stats().reused, before.reused + 1, 'taken from the pool');
    assert.is(stats().pooledBuffers, before.pooledBuffers - 1);
    try {
      await a.toHost();
      assert.unreachable('a released array was read');
    } catch (e) {
      assert.instance(e, LoomError);
    }
    assert.equal(Array.from((await b.toHost()) as Float32Array), Array.from(ramp(N, 3)));
    b.release();
  });

  test(`${device.name}: a buffer still referenced is never handed out again`, async () => {
    const a = await DeviceArray.from(device, ramp(N), 'float32');
    // (the pool may hold free buffers of this size left by other tests: b may take one of those)
    const b = await DeviceArray.from(device, ramp(N, 5), 'float32');
    assert.ok(b.buffer !== a.buffer, 'a is still referenced: its memory is not handed out');
    assert.equal(Array.from((await a.toHost()) as Float32Array), Array.from(ramp(N)), 'a kept its data');
    assert.equal(Array.from((await b.toHost()) as Float32Array), Array.from(ramp(N, 5)));
    a.release();
    b.release();
  });

  test(`${device.name}: work queued with a released buffer sees its old contents, though the memory is reused at once`, async () => {
    const out = await DeviceArray.from(device, new Float32Array(N), 'float32');
    const prepared = await prepareLaunch(
      double,
      device,
      { a: await DeviceArray.from(device, ramp(N), 'float32'), out },
      { checkBounds: false },
    );
    for (let round = 0; round < 3; round++) {
      const a = await DeviceArray.from(device, ramp(N, round + 1), 'float32');
      await prepared.launch({ a });
      // released while its launch may still be queued; the next owner writes other data into it
      a.release();
      const reused = stats().reused;
      const next = await DeviceArray.from(device, new Float32Array(N).fill(-7), 'float32');
      assert.is(stats().reused, reused + 1, 'the memory was reused at once');
      assert.equal(
        Array.from((await out.toHost()) as Float32Array),
        Array.from(ramp(N, 2 * (round + 1))),
        `round ${round}: computed from the old contents`,
      );
      assert.ok(
        ((await next.toHost()) as Float32Array).every((v) => v === -7),
        'the next owner has its own data',
      );
      next.release();
    }
    prepared.release();
    out.release();
  });

  test(`${device.name}: run's buffers for host arrays are pooled, and successive outputs are distinct arrays with their own values`, async () => {
    await settle(device);
    const first = (await run(double, device, { a: ramp(N) })).out as Float32Array;
    const second = (await run(double, device, { a: ramp(N, 10) })).out as Float32Array;
    assert.is.not(first, second);
    assert.equal(Array.from(first), Array.from(ramp(N, 2)));
    assert.equal(Array.from(second), Array.from(ramp(N, 20)));
    const before = stats();
    await run(double, device, { a: ramp(N) });
    assert.is(stats().created, before.created, 'the third call allocated nothing new');
  });

  test(`${device.name}: pointwise() outputs of successive calls are distinct tensors; releasing one returns its memory`, async () => {
    const add = pointwise(
      { isTensor: [true, true], promotionMethods: [[0, 1, 'DEFAULT']], name: 'add', params: ['a', 'b'] },
      'a + b',
    );
    const x = tensor(ramp(N), [64, 64], { device });
    const y = tensor(ramp(N, 2), [64, 64], { device });
    const z = tensor(ramp(N, 4), [64, 64], { device });
    const t1 = await add(x, y);
    const t2 = await add(x, z);
    assert.is.not(t1.storage, t2.storage);
    assert.equal(
      Array.from((await t1.toArray()) as Float32Array),
      Array.from(ramp(N, 3)),
      'the first output kept its values',
    );
    assert.equal(Array.from((await t2.toArray()) as Float32Array), Array.from(ramp(N, 5)));
    const pooledBefore = stats().pooledBuffers;
    t1.release();
    await settle(device);
    assert.ok(stats().pooledBuffers > pooledBefore, 'the released output went back to the pool');
    const reused = stats().reused;
    const t3 = await add(y, z);
    assert.ok(stats().reused > reused, "the next output took the pool's memory");
    assert.equal(Array.from((await t3.toArray()) as Float32Array), Array.from(ramp(N, 6)));
    assert.equal(Array.from((await t2.toArray()) as Float32Array), Array.from(ramp(N, 5)), 't2 untouched');
    for (const t of [x, y, z, t2, t3]) t.release();
    // an output given to the call is written in place, every time
    const out = empty([64, 64], { device });
    for (const k of [3, 5]) {
      const u = tensor(ramp(N), [64, 64], { device });
      const v = tensor(ramp(N, k - 1), [64, 64], { device });
      assert.is(await add(u, v, { out0: out }), out);
      assert.equal(Array.from((await out.toArray()) as Float32Array), Array.from(ramp(N, k)), `out = u + ${k - 1}u`);
      u.release();
      v.release();
    }
    out.release();
  });

  test(`${device.name}: a released array passed again is a LoomError, even where the call was planned and recorded`, async () => {
    const a = await DeviceArray.from(device, ramp(N), 'float32');
    const out = await DeviceArray.from(device, new Float32Array(N), 'float32');
    await run(double, device, { a, out });
    await run(double, device, { a, out });
    a.release();
    const squatter = await DeviceArray.from(device, new Float32Array(N).fill(9), 'float32');
    try {
      await run(double, device, { a, out });
      assert.unreachable('ran with a released array');
    } catch (e) {
      assert.instance(e, LoomError);
    }
    assert.equal(
      Array.from((await out.toHost()) as Float32Array),
      Array.from(ramp(N, 2)),
      'out untouched by the refused call',
    );
    squatter.release();
    out.release();
  });

  test(`${device.name}: an array nobody can reach any more gives its memory back`, async () => {
    const gc = exposedGc();
    await settle(device);
    const before = stats().pooledBuffers;
    await (async () => {
      const dropped = await DeviceArray.from(device, ramp(3 * N), 'float32');
      assert.is(((await dropped.toHost()) as Float32Array)[5], 5);
    })();
    let rounds = 0;
    for (; rounds < 20 && stats().pooledBuffers <= before; rounds++) {
      gc();
      await new Promise((resolve) => setTimeout(resolve, 0));
    }
    assert.ok(stats().pooledBuffers > before, `the dropped array's memory came back (after ${rounds} collections)`);
  });
}

/** The devices of each pooled kind again, fresh, with the given pool size (and disposable). */
async function freshDevices(bufferPoolBytes?: number): Promise<Device[]> {
  const fresh: Device[] = [];
  for (const shared of pooled) {
    if (shared.name.startsWith('OpenCL')) fresh.push(openclDevice({ bufferPoolBytes })!);
    else if (shared.name.startsWith('WebGPU')) fresh.push((await webgpuDevice({ bufferPoolBytes }))!);
  }
  return fresh;
}

test('a device without a pool frees every released buffer; disposing a device empties its pool', async () => {
  for (const device of await freshDevices(0)) {
    const a = await DeviceArray.from(device, ramp(N), 'float32');
    a.release();
    const b = await DeviceArray.from(device, ramp(N), 'float32');
    b.release();
    assert.equal(
      { ...device.poolStats!(), created: 0 },
      { pooledBuffers: 0, pooledBytes: 0, reused: 0, created: 0 },
      device.name,
    );
    device.dispose();
  }
  for (const device of await freshDevices()) {
    (await DeviceArray.from(device, ramp(N), 'float32')).release();
    assert.is(device.poolStats!().pooledBuffers, 1, device.name);
    device.dispose();
    assert.is(device.poolStats!().pooledBuffers, 0, `${device.name}: disposed`);
  }
});

/** `gc()`, as `--expose-gc` gives it, without the flag on the command line. */
function exposedGc(): () => void {
  v8.setFlagsFromString('--expose-gc');
  return vm.runInNewContext('gc') as () => void;
}

test.run();
