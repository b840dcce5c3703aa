/**
 * The benchmarks' batched timer (bench/lib/timing.ts): a batch of launches ends with one wait
 * for the device, which on WebGPU costs a poll of Dawn's events (0.1 to a few ms). The batch
 * must grow until that wait is a small part of it, whatever one launch's time says; core's
 * timeLaunchStream (autotune, device profiles) likewise.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { batchedSeconds } from '../bench/lib/timing.ts';
import { testDevices } from './support/devices.ts';

/** A device whose batches take `wait` seconds more than their launches of `each` seconds. */
const device = (each: number, wait: number) => {
  const counts: number[] = [];
  const batch = async (count: number) => {
    counts.push(count);
    return wait + count * each;
  };
  return { batch, counts };
};

test('a short kernel behind a long wait: timed within 2% of its own time', async () => {
  const { batch, counts } = device(25e-6, 3e-3);
  const seconds = await batchedSeconds(batch, { samples: 3 });
  assert.ok(Math.abs(seconds - 25e-6) / 25e-6 < 0.02, `${seconds * 1e6} us per launch`);
  assert.ok(Math.max(...counts) * 25e-6 >= 0.1 - 3e-3, `batches of ${Math.max(...counts)}`);
});

test('a long kernel is not batched: one launch a sample, after one to warm up and one to confirm it', async () => {
  const { batch, counts } = device(0.2, 1e-3);
  const seconds = await batchedSeconds(batch, { samples: 2, maxSeconds: 10 });
  assert.ok(Math.abs(seconds - 0.201) < 1e-9);
  assert.equal(counts, [1, 1, 1, 1]);
});

test('a first launch slowed by one-off costs does not settle the count: the batch grows from its second timing', async () => {
  const counts: number[] = [];
  // 0.13 ms a launch behind a 1 ms wait, the first launch 300 ms (its compilation, say)
  const batch = async (count: number) => {
    counts.push(count);
    return counts.length === 1 ? 0.3 : 1e-3 + count * 0.13e-3;
  };
  const seconds = await batchedSeconds(batch, { samples: 3 });
  assert.ok(Math.abs(seconds - 0.13e-3) / 0.13e-3 < 0.02, `${seconds * 1e3} ms per launch`);
  assert.ok(Math.max(...counts) > 100, `batches of ${Math.max(...counts)}`);
});

test('a very long first launch is not timed again', async () => {
  const { batch, counts } = device(2, 0);
  await batchedSeconds(batch, { samples: 1, maxSeconds: 0 });
  assert.equal(counts, [1, 1]);
});

test('the batch stops growing at its cap', async () => {
  const { batch, counts } = device(1e-9, 0);
  await batchedSeconds(batch, { samples: 2 });
  assert.is(Math.max(...counts), 10_000);
});

/** Core's timeLaunchStream over launches that cost nothing, each wait for the device `waitMs(read number)` long. */
async function streamBehindWaits(waitMs: (read: number) => number): Promise<{ seconds: number; launches: number }> {
  const { timeLaunchStream } = await import('../packages/core/src/runtime/time-launches.ts');
  let reads = 0;
  let launches = 0;
  const device = { read: () => new Promise<void>((done) => setTimeout(done, waitMs(++reads))) };
  const prepared = { device, launchRounds: async (rounds: number) => void (launches += rounds) } as never;
  const probe = { buffer: { byteLength: 4 } } as never;
  const seconds = await timeLaunchStream(prepared, probe, { samples: 3 });
  return { seconds, launches };
}

test("core's timeLaunchStream: launches behind a slow wait are queued until the wait is amortized", async () => {
  // a read-back that waits 2 ms (a WebGPU buffer mapping)
  const { seconds, launches } = await streamBehindWaits(() => 2);
  // sized from one launch (2 ms) the samples held 10 launches: 200 µs each
  assert.ok(seconds < 20e-6, `${seconds * 1e6} µs per launch`);
  assert.ok(launches > 1000, `${launches} launches`);
});

test("core's timeLaunchStream: a first timed launch slowed by one-off costs does not make every sample one launch", async () => {
  // a 1 ms wait; the read after the first timed launch waits 68 ms (the H200's Dawn after the
  // autotuner's check had read 64 MB back)
  const { seconds, launches } = await streamBehindWaits((read) => (read === 2 ? 68 : 1));
  assert.ok(seconds < 50e-6, `${seconds * 1e6} µs per launch`);
  assert.ok(launches > 100, `${launches} launches`);
});

test("core's timeLaunchStream: a device whose clocks rise under load is kept busy its warm-up before it is timed, once while timings follow each other", async () => {
  const { timeLaunchStream } = await import('../packages/core/src/runtime/time-launches.ts');
  // launches of 40 µs that run 4x slower until the device has worked 0.3 s; the wait for it is the launches' time
  let busy = 0;
  let queued = 0;
  let launches = 0;
  const device = {
    warmUpSeconds: 0.3,
    read: async () => {
      const seconds = queued * (busy < 0.3 ? 160e-6 : 40e-6);
      busy += seconds;
      queued = 0;
      await new Promise((done) => setTimeout(done, seconds * 1000));
    },
  };
  const prepared = {
    device,
    launchRounds: async (rounds: number) => {
      queued += rounds;
      launches += rounds;
    },
  } as never;
  const probe = { buffer: { byteLength: 4 } } as never;
  const seconds = await timeLaunchStream(prepared, probe, { samples: 3 });
  assert.ok(Math.abs(seconds - 40e-6) / 40e-6 < 0.1, `${seconds * 1e6} µs per launch`);
  // timed again at once: no second warm-up (0.3 s of launches would be 7500 more)
  const before = launches;
  await timeLaunchStream(prepared, probe, { samples: 3 });
  assert.ok(launches - before < 5000, `${launches - before} launches`);
});

test('software and CPU devices are timed without a warm-up; GPUs with one', () => {
  for (const device of testDevices()) {
    const software = /Portable Computing Language|llvmpipe|SwiftShader|JavaScript|^C:/.test(device.name);
    if (software) assert.is(device.warmUpSeconds, undefined, device.name);
    else assert.ok((device.warmUpSeconds ?? 0) > 0, device.name);
  }
});

test("the benchmarks' timings: a device whose clocks rise under load is timed over and over for its warm-up first, unless it was just timed", async () => {
  const { warmedUp } = await import('../bench/lib/timing.ts');
  const d = { backend: 'cpu', device: { warmUpSeconds: 0.05 } } as never;
  let calls = 0;
  const time = async () => {
    calls++;
    await new Promise((done) => setTimeout(done, 5));
    return calls;
  };
  // timed over and over for 0.05 s (how many times depends on the timer under load: at least twice)
  const started = performance.now();
  const first = await warmedUp(d, time);
  const took = performance.now() - started;
  assert.ok(took >= 50 && first >= 2, `${first} timings in ${took} ms, the warm-up's included`);
  const before = calls;
  await warmedUp(d, time);
  assert.is(calls - before, 1);
  // a device without a warm-up is timed once
  let plain = 0;
  await warmedUp({ backend: 'cpu', device: {} } as never, async () => plain++);
  assert.is(plain, 1);
});

test.run();
