/**
 * The host's part of a `pointwise()` call (issue 18): microseconds per call of x + y on small
 * float32 tensors (64 x 64 unless --shape), y contiguous, a broadcast row or transposed, into
 * a given output or a new one each call (released after it), from calling to the call's
 * promise settling, calls one after another. The device finishes nothing in between: what is
 * timed is the host's work (metadata, plan look-up, storage ordering, the launch's encoding and
 * submission), not the kernel.
 *
 * `(JavaScript alone)`: the same calls with the device's launch answered at once, doing nothing,
 * in CPU time of this process per call (what pointwise() itself costs, less disturbed by other
 * processes than wall time; no reference, the stub's own time is in the note).
 *
 * Each figure is the fastest of several batches of calls (the least disturbed on a shared machine).
 * reference: the device's own `launch` of the very kernel, arguments and grid the call makes
 * (captured from a call): what a call would cost if pointwise() added nothing.
 *
 *   node --import tsx bench/pointwise-host.ts [--json] [--backends=opencl,webgpu,cpu] [--shape=64,64] [--calls=200]
 */
import type { Device, LaunchArgument } from '@loom/core';
import { listFlag, numberFlag, parseOptions } from './lib/cli.ts';
import { openDevices, type BenchDevice } from './lib/devices.ts';
import { progress, Reporter } from './lib/records.ts';

const options = parseOptions(process.argv.slice(2), ['opencl', 'webgpu', 'cpu']);
const reporter = new Reporter(options.json);
const [ROWS, COLS] = listFlag(options, 'shape', [64, 64]);
const CALLS = numberFlag(options, 'calls', 200);
const BATCHES = 7;

const { pointwise, tensor, empty } = await import('@loom/elementwise');
const add = pointwise(
  { isTensor: [true, true], promotionMethods: [[0, 1, 'DEFAULT']], name: 'add', params: ['a', 'b'] },
  'a + b',
);
const xs = Float32Array.from({ length: ROWS * COLS }, (_, p) => p % 1021);
const ys = Float32Array.from({ length: ROWS * COLS }, (_, p) => (p * 7) % 1031);
const row = Float32Array.from({ length: COLS }, (_, j) => 5000 + j);

for (const d of await openDevices(options.backends)) {
  const device = d.device as Device;
  reporter.info('device', {
    bench: 'pointwise-host',
    backend: d.backend,
    device: device.name,
    rows: ROWS,
    cols: COLS,
    calls: CALLS,
  });
  const x = tensor(xs, [ROWS, COLS], { device });
  for (const layout of ['contiguous', 'rows', 'transposed'] as const) {
    const y =
      layout === 'contiguous'
        ? tensor(ys, [ROWS, COLS], { device })
        : layout === 'rows'
          ? tensor(row, [COLS], { device })
          : tensor(ys, [COLS, ROWS], { device }).transpose(0, 1);
    const expected = (i: number, j: number) =>
      xs[i * COLS + j] + (layout === 'contiguous' ? ys[i * COLS + j] : layout === 'rows' ? row[j] : ys[j * ROWS + i]);
    const out = empty([ROWS, COLS], { device });
    try {
      const variant = add.plan(x, y, { out0: out }).variant;
      const raw = await rawLaunch(device, () => add(x, y, { out0: out }));
      const reference = { reference: 'device.launch of the same kernel (host)', referenceValue: await perCall(raw) };
      const given = await perCall(() => add(x, y, { out0: out }));
      await check(out, expected, layout);
      const fresh = await perCall(async () => {
        const t = await add(x, y);
        t.release();
      });
      const last = await add(x, y);
      await check(last, expected, `${layout}, new output`);
      last.release();
      // the JavaScript alone: the device's launch a stub that does nothing
      await settle(d);
      const launch = device.launch;
      device.launch = () => Promise.resolve();
      let js: { given: number; fresh: number; stub: number };
      try {
        js = {
          stub: await perCall(() => device.launch(undefined, undefined as never, [], [], []), cpuMicroseconds),
          given: await perCall(() => add(x, y, { out0: out }), cpuMicroseconds),
          fresh: await perCall(async () => (await add(x, y)).release(), cpuMicroseconds),
        };
      } finally {
        delete (device as Partial<Device>).launch; // the class's own again
      }
      if (device.launch !== launch) throw new Error('the device launch could not be restored');
      for (const [suffix, value] of [
        [' (JavaScript alone)', js.given],
        [', new output (JavaScript alone)', js.fresh],
      ] as const) {
        reporter.add({
          bench: 'launch',
          backend: d.backend,
          case: `pointwise host, ${layout}${suffix}`,
          size: ROWS * COLS,
          value,
          unit: 'us',
          device: device.name,
          note: `${variant} variant; CPU time of this process per call, the device's launch a stub (the stub alone: ${js.stub.toFixed(2)} us; fastest of ${BATCHES} batches of ${CALLS})`,
        });
      }
      for (const [suffix, value] of [
        ['', given],
        [', new output', fresh],
      ] as const) {
        reporter.add({
          bench: 'launch',
          backend: d.backend,
          case: `pointwise host, ${layout}${suffix}`,
          size: ROWS * COLS,
          value,
          unit: 'us',
          ...reference,
          device: device.name,
          note: `${variant} variant; the call alone, until its promise settles (fastest of ${BATCHES} batches of ${CALLS})`,
        });
      }
    } catch (e) {
      progress(`  ${d.backend} ${layout}: FAILED: ${(e as Error).message.split('\n')[0]}`);
      process.exitCode = 1;
    } finally {
      y.release();
      out.release();
    }
  }
  await settle(d);
  x.release();
}
reporter.printTable(
  `pointwise() host time per call, x + y over ${ROWS} x ${COLS} float32 (us; reference: the device's launch alone)`,
);

/**
 * Microseconds per call of `call`, awaited one after another: the fastest of several batches,
 * after a warm-up batch (on a shared machine the fastest batch is the one least disturbed).
 */
async function perCall(call: () => Promise<unknown>, clock: () => number = wallMicroseconds): Promise<number> {
  const batch = async () => {
    const start = clock();
    for (let k = 0; k < CALLS; k++) await call();
    return (clock() - start) / CALLS;
  };
  await batch();
  const times: number[] = [];
  for (let b = 0; b < BATCHES; b++) times.push(await batch());
  return Math.min(...times);
}

function wallMicroseconds(): number {
  return performance.now() * 1000;
}

/** This process's CPU time (user and system), in microseconds. */
function cpuMicroseconds(): number {
  const { user, system } = process.cpuUsage();
  return user + system;
}

/**
 * The device's `launch` of what `call` launches (its one kernel, arguments and grid),
 * captured while `call` runs: the launch with nothing of pointwise() around it.
 */
async function rawLaunch(device: Device, call: () => Promise<unknown>): Promise<() => Promise<void>> {
  let captured:
    | {
        compiled: unknown;
        kernel: Parameters<Device['launch']>[1];
        args: readonly LaunchArgument[];
        groupCount: readonly number[];
        localSize: readonly number[];
      }
    | undefined;
  const launch = device.launch;
  device.launch = (compiled, kernel, args, groupCount, localSize) => {
    captured = { compiled, kernel, args, groupCount, localSize };
    return launch.call(device, compiled, kernel, args, groupCount, localSize);
  };
  try {
    await call();
  } finally {
    delete (device as Partial<Device>).launch; // the class's own again
  }
  if (!captured) throw new Error('the call launched nothing');
  const c = captured;
  return () => device.launch(c.compiled, c.kernel, c.args, c.groupCount, c.localSize);
}

async function check(
  t: { toArray(): Promise<unknown> },
  expected: (i: number, j: number) => number,
  what: string,
): Promise<void> {
  const got = (await t.toArray()) as Float32Array;
  for (let i = 0; i < ROWS; i++)
    for (let j = 0; j < COLS; j++)
      if (got[i * COLS + j] !== expected(i, j)) throw new Error(`${what}: wrong result at (${i}, ${j})`);
}

/** Waits for the device to finish what the calls queued. */
async function settle(d: BenchDevice): Promise<void> {
  if (d.backend === 'opencl') d.device.context.finish();
  else if (d.backend === 'webgpu') await d.device.gpuDevice.queue.onSubmittedWorkDone();
}
