/**
 * Host overhead of `run`: one launch of a tiny kernel (out = 2*a, 1024 floats, already on the
 * device), waited for, through
 *
 *   run                 run(knl, device, { a, out }) with DeviceArrays: binding, checks, cache look-up, launch
 *   prepareLaunch       a prepared launch's launch(): the device's launch and nothing else
 *   raw dispatch        the same work written by hand against the backend's API (the reference):
 *                       OpenCL: context.launch of hand-written OpenCL C; WebGPU: encoder, pass,
 *                       dispatch, submit of hand-written WGSL with its bind group made once
 *
 * then waiting for the device (clFinish / onSubmittedWorkDone) in every case. The figure is
 * microseconds per launch; ratio = raw / ours (the target: run within 1.5x of raw, ratio >= 0.67).
 *
 *   node --import tsx bench/launch.ts [--json] [--backends=opencl,webgpu,cpu]
 */
import { DeviceArray, makeKernel, prepareLaunch, run, splitIname } from '@loom/core';
import type { OpenCLBuffer } from '@loom/codegen-opencl';
import { parseOptions } from './lib/cli.ts';
import { openDevices, type BenchDevice } from './lib/devices.ts';
import { progress, Reporter } from './lib/records.ts';
import { median } from './lib/timing.ts';
import { gpuBufferOf, wgslKernel } from './lib/webgpu-timer.ts';

const options = parseOptions(process.argv.slice(2), ['opencl', 'webgpu', 'cpu']);
const reporter = new Reporter(options.json);
const N = 1024;

const knl = splitIname(makeKernel('{ [i]: 0<=i<n }', 'out[i] = 2*a[i]', undefined, { name: 'scale' }), 'i', 256, { outerTag: 'g.0', innerTag: 'l.0' });

const OPENCL_SCALE = `
__kernel void scale(__global const float *a, __global float *out, int n) {
  int i = get_global_id(0);
  if (i < n) out[i] = 2.0f * a[i];
}`;

const WGSL_SCALE = `
@group(0) @binding(0) var<storage, read> a: array<f32>;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
@compute @workgroup_size(256)
fn scale(@builtin(global_invocation_id) id: vec3<u32>) {
  if (id.x < arrayLength(&out)) { out[id.x] = 2.0 * a[id.x]; }
}`;

for (const d of await openDevices(options.backends)) {
  const device = d.device;
  const a = await DeviceArray.from(device, Float32Array.from({ length: N }, (_, i) => i), 'float32');
  const out = await DeviceArray.from(device, new Float32Array(N), 'float32');
  try {
    const wait = waiter(d);
    const prepared = await prepareLaunch(knl, device, { a, out });
    const raw = await rawLaunch(d, a, out, wait);
    const [viaRun, viaPrepared, viaRaw] = await perLaunch([
      async () => { await run(knl, device, { a, out }); await wait(); },
      async () => { await prepared.launch(); await wait(); },
      ...(raw ? [raw] : []),
    ]);
    const result = (await out.toHost()) as Float32Array;
    if (!result.every((v, i) => v === 2 * i)) throw new Error('wrong result');
    const reference = viaRaw === undefined ? {} : { reference: 'raw dispatch', referenceValue: viaRaw * 1e6 };
    for (const [name, seconds] of [['run', viaRun], ['prepareLaunch', viaPrepared]] as const) {
      reporter.add({ bench: 'launch', backend: d.backend, case: name, size: N, value: seconds * 1e6, unit: 'us', ...reference, device: device.name });
    }
    if (viaRaw !== undefined) reporter.add({ bench: 'launch', backend: d.backend, case: 'raw dispatch', size: N, value: viaRaw * 1e6, unit: 'us', device: device.name });
  } catch (e) {
    progress(`  ${d.backend}: FAILED: ${(e as Error).message.split('\n')[0]}`);
    process.exitCode = 1;
  } finally {
    a.release();
    out.release();
  }
}
reporter.printTable(`launch overhead: out = 2*a over ${N} floats on the device, launched and waited for (us per launch)`);

/** How to wait until the device has done everything queued. */
function waiter(d: BenchDevice): () => Promise<unknown> {
  if (d.backend === 'opencl') return async () => d.device.context.finish();
  if (d.backend === 'webgpu') return () => d.device.gpuDevice.queue.onSubmittedWorkDone();
  return async () => {};
}

/** The hand-written launch through the backend's own API (none for the CPU device). */
async function rawLaunch(d: BenchDevice, a: DeviceArray, out: DeviceArray, wait: () => Promise<unknown>): Promise<(() => Promise<void>) | undefined> {
  if (d.backend === 'opencl') {
    const context = d.device.context;
    const program = context.buildProgram(OPENCL_SCALE);
    const args = [
      { kind: 'buffer' as const, buffer: a.buffer as OpenCLBuffer },
      { kind: 'buffer' as const, buffer: out.buffer as OpenCLBuffer },
      { kind: 'scalar' as const, dtype: 'int32' as const, value: N },
    ];
    return async () => {
      context.launch(program, 'scale', args, [N], [256]);
      context.finish();
    };
  }
  if (d.backend === 'webgpu') {
    const gpu = d.device.gpuDevice;
    const kernel = await wgslKernel(d.device, WGSL_SCALE, 'scale', [
      { buffer: gpuBufferOf(a.buffer), readOnly: true },
      { buffer: gpuBufferOf(out.buffer), readOnly: false },
    ], [N / 256, 1, 1]);
    return async () => {
      const encoder = gpu.createCommandEncoder();
      const pass = encoder.beginComputePass();
      pass.setPipeline(kernel.pipeline);
      pass.setBindGroup(0, kernel.bindGroup);
      pass.dispatchWorkgroups(...kernel.dispatch);
      pass.end();
      gpu.queue.submit([encoder.finish()]);
      await wait();
    };
  }
  return undefined;
}

/**
 * Median seconds per call of each way, over batches of 50 calls (after 50 to warm up), the ways
 * taking turns batch by batch so that a busy moment of the machine does not favour one; about 3 s.
 */
async function perLaunch(ways: readonly (() => Promise<void>)[]): Promise<number[]> {
  for (const call of ways) for (let k = 0; k < 50; k++) await call();
  const batches: number[][] = ways.map(() => []);
  const deadline = performance.now() + 3000;
  for (let round = 0; round < 3 || (round < 20 && performance.now() < deadline); round++) {
    for (const [w, call] of ways.entries()) {
      const start = performance.now();
      for (let k = 0; k < 50; k++) await call();
      batches[w].push((performance.now() - start) / 1000 / 50);
    }
  }
  return batches.map(median);
}
