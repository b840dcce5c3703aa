/**
 * Elementwise bandwidth: `out = x + y` on float32 matrices (8192 x 8192 = 2^26 elements with
 * --full), y contiguous, broadcast along the rows, or transposed; GB/s on each backend for
 *
 *   <layout>                  pointwise() from @loom/elementwise, called back to back (what users write;
 *                             batches of at least 50 calls between two waits for the device)
 *   <layout> (loom kernel)    a Loom kernel transformed by hand (elementwise-kernels.ts), GPU time
 *   <layout> (hand-written)   hand-written OpenCL C / CUDA C / WGSL through the same runtime, GPU time
 *
 * The reference here is the hand-written kernel; on the GPU machine `bench/report.ts` pairs each
 * line with torch.add on the same shapes (bench/torch_side.py). Every result is checked.
 *
 *   node --import tsx bench/elementwise.ts [--full] [--json] [--backends=opencl,webgpu,cuda,cpu]
 */
import {
  DeviceArray,
  prepareLaunch,
  type Device,
  type GeneratedCode,
  type PreparedKernel,
  type PreparedLaunch,
} from '@loom/core';
import type { CudaBuffer } from '@loom/codegen-cuda';
import type { OpenCLBuffer } from '@loom/codegen-opencl';
import { listFlag, parseOptions } from './lib/cli.ts';
import { openDevices, type BenchDevice } from './lib/devices.ts';
import { progress, Reporter } from './lib/records.ts';
import { batchedSeconds, kernelSeconds, sampled, wallSeconds, warmedUp } from './lib/timing.ts';
import { gpuBufferOf, timeDispatches, wgslKernel } from './lib/webgpu-timer.ts';
import {
  bytesMoved,
  CUDA_SOURCE,
  LAYOUTS,
  loomKernel,
  OPENCL_SOURCE,
  paddingIsSafe,
  shapes,
  usesVectors,
  WGSL_SOURCE,
  WGSL_TRANSPOSED_SOURCE,
  type Layout,
} from './elementwise-kernels.ts';

const options = parseOptions();
const [rows, cols] = listFlag(options, 'shape', options.full ? [8192, 8192] : [1024, 2048]);
const n = rows * cols;
const reporter = new Reporter(options.json);
/** The language each backend's hand-written kernels are written in (the CPU devices have none). */
const HAND_WRITTEN_LANGUAGE: Record<BenchDevice['backend'], string | undefined> = {
  opencl: 'OpenCL C',
  cuda: 'CUDA C',
  webgpu: 'WGSL',
  cpu: undefined,
  c: undefined,
};

/** The host data: x[p] and y[p] small integers, so every sum is exact and checkable. */
const host = {
  x: new Float32Array(n),
  y: new Float32Array(n),
  row: new Float32Array(cols),
  zeros: new Float32Array(n),
};
for (let p = 0; p < n; p++) {
  host.x[p] = p % 1021;
  host.y[p] = (p * 7) % 1031;
}
for (let j = 0; j < cols; j++) host.row[j] = 5000 + j;

function expected(layout: Layout, p: number): number {
  const i = Math.floor(p / cols);
  const j = p % cols;
  const y = layout === 'contiguous' ? host.y[p] : layout === 'rows' ? host.row[j] : host.y[j * rows + i];
  return host.x[p] + y;
}

/** The device's copies of x, y, the broadcast row and out, shared by every implementation. */
interface DeviceData {
  readonly x: DeviceArray;
  readonly y: DeviceArray;
  readonly row: DeviceArray;
  readonly out: DeviceArray;
}

for (const d of await openDevices(options.backends)) {
  const device = d.device;
  reporter.info('device', { bench: 'elementwise', backend: d.backend, device: device.name, rows, cols });
  const data: DeviceData = {
    x: await DeviceArray.from(device, host.x, 'float32', [rows, cols]),
    y: await DeviceArray.from(device, host.y, 'float32', [rows, cols]),
    row: await DeviceArray.from(device, host.row, 'float32', [cols]),
    out: await DeviceArray.from(device, host.zeros, 'float32', [rows, cols]),
  };
  const intoOut = async (time: () => Promise<number>) => {
    await device.write(data.out.buffer, host.zeros);
    const seconds = await time();
    return { seconds, result: (await data.out.toHost()) as Float32Array };
  };
  for (const layout of LAYOUTS) {
    const handWritten =
      HAND_WRITTEN_LANGUAGE[d.backend] === undefined
        ? undefined
        : await measure(d, layout, 'hand-written', () => intoOut(() => handWrittenSeconds(d, layout, data)));
    const reference =
      handWritten === undefined
        ? {}
        : { reference: `hand-written ${HAND_WRITTEN_LANGUAGE[d.backend]}`, referenceValue: gbps(layout, handWritten) };
    let note: string | undefined;
    const kernel = await measure(d, layout, 'loom kernel', () =>
      intoOut(async () => {
        const { prepared, padded } = await prepareLoomKernel(d, layout, data);
        if (!padded) note = 'unpadded local tile (the code generator does not size padded temporaries yet)';
        try {
          return await kernelSeconds(d, prepared, { maxSeconds: 3 });
        } finally {
          prepared.release();
        }
      }),
    );
    if (kernel !== undefined) report(d, layout, 'loom kernel', kernel, reference, note);
    if (handWritten !== undefined) report(d, layout, 'hand-written', handWritten, {});
    const traced: PointwiseTrace = {};
    const viaPointwise = await measure(d, layout, 'pointwise', () => pointwiseRun(d, layout, traced));
    const host =
      traced.hostSeconds === undefined ? '' : `; host ${(traced.hostSeconds * 1e6).toPrecision(3)} us per call`;
    const variant = traced.variant === undefined ? '' : `${traced.variant} variant; `;
    if (viaPointwise !== undefined)
      report(d, layout, 'pointwise', viaPointwise, reference, `${variant}calls back to back, wall time${host}`);
    // the same calls, none awaited but the last: what is left of the gap to the kernel's time is not in the awaits
    if (traced.queuedSeconds !== undefined)
      report(
        d,
        layout,
        'pointwise, queued',
        traced.queuedSeconds,
        reference,
        `${variant}calls not awaited (the last only), wall time`,
      );
    // the kernel pointwise() launched, timed as the Loom kernels are: the gap to the line above is the host's
    if (traced.kernelSeconds !== undefined)
      report(d, layout, 'pointwise kernel', traced.kernelSeconds, reference, `${variant}the same launch, GPU time`);
    if (d.backend === 'webgpu' && layout !== 'transposed' && traced.variant === 'vector4') {
      // the flat variant's kernel in the same run: x held in a storage one number longer, which
      // WGSL cannot bind as vec4s, so pointwise() picks flat; the elements and their order are the same
      const flat: PointwiseTrace = {};
      await measure(d, layout, 'pointwise, flat', () => pointwiseRun(d, layout, flat, true));
      if (flat.kernelSeconds !== undefined)
        report(
          d,
          layout,
          'pointwise kernel, flat',
          flat.kernelSeconds,
          reference,
          `${flat.variant} variant (x's storage not whole vec4s); GPU time`,
        );
    }
  }
  for (const a of Object.values(data)) a.release();
}
reporter.printTable(`elementwise add, ${rows} x ${cols} float32 (GB/s: x, y and out each moved once)`);

function gbps(layout: Layout, seconds: number): number {
  return bytesMoved(layout, rows, cols) / seconds / 1e9;
}

function report(
  d: BenchDevice,
  layout: Layout,
  impl: string,
  seconds: number,
  reference: { reference?: string; referenceValue?: number },
  note?: string,
): void {
  reporter.add({
    bench: 'elementwise',
    backend: d.backend,
    case: impl === 'pointwise' ? layout : `${layout} (${impl})`,
    size: n,
    value: gbps(layout, seconds),
    unit: 'GB/s',
    ...reference,
    device: d.device.name,
    ...(note ? { note } : {}),
  });
}

/**
 * Runs one implementation (which times itself and hands back out), and checks a sample of
 * out. A failure is a notice and no figure, so one broken variant does not cost the others.
 */
async function measure(
  d: BenchDevice,
  layout: Layout,
  impl: string,
  run: () => Promise<{ seconds: number; result: Float32Array }>,
): Promise<number | undefined> {
  try {
    const { seconds, result } = await run();
    for (let s = 0; s < 4096; s++) {
      const p = s === 0 ? n - 1 : (s * 2654435761) % n;
      if (result[p] !== expected(layout, p))
        throw new Error(`wrong result at ${p}: ${result[p]} instead of ${expected(layout, p)}`);
    }
    return seconds;
  } catch (e) {
    progress(`  ${d.backend} ${layout} (${impl}): FAILED: ${(e as Error).message.split('\n')[0]}`);
    process.exitCode = 1;
    return undefined;
  }
}

/** The hand-transformed Loom kernel over the shared arrays, viewed in the shapes it wants. */
async function prepareLoomKernel(
  d: BenchDevice,
  layout: Layout,
  data: DeviceData,
): Promise<{ prepared: PreparedLaunch; padded: boolean }> {
  const vector = usesVectors(layout, d.backend);
  const shape = shapes(layout, rows, cols, vector);
  const view = (a: DeviceArray, s: number[]) => new DeviceArray(d.device, a.buffer, 'float32', s);
  const args = {
    x: view(data.x, shape.x),
    y: view(layout === 'rows' ? data.row : data.y, shape.y),
    out: view(data.out, shape.x),
  };
  const padded = await prepareLaunch(loomKernel(layout, rows, cols, vector, true), d.device, args);
  if (layout !== 'transposed' || paddingIsSafe(padded)) return { prepared: padded, padded: true };
  padded.release();
  return {
    prepared: await prepareLaunch(loomKernel(layout, rows, cols, vector, false), d.device, args),
    padded: false,
  };
}

async function handWrittenSeconds(d: BenchDevice, layout: Layout, data: DeviceData): Promise<number> {
  const y = layout === 'rows' ? data.row : data.y;
  if (d.backend === 'opencl') {
    const context = d.device.context;
    const program = context.buildProgram(OPENCL_SOURCE);
    const buffers = [data.x, y, data.out].map((a) => ({ kind: 'buffer' as const, buffer: a.buffer as OpenCLBuffer }));
    const int = (value: number) => ({ kind: 'scalar' as const, dtype: 'int32' as const, value });
    const launch =
      layout === 'transposed'
        ? () =>
            context.launchTimed(
              program,
              'add_transposed',
              [...buffers, int(rows), int(cols)],
              [cols, rows / 4],
              [32, 8],
            )
        : () =>
            context.launchTimed(
              program,
              `add_${layout}`,
              layout === 'rows' ? [...buffers, int(cols / 4)] : buffers,
              [n / 4],
              [256],
            );
    return sampled(() => launch() / 1e9, { maxSeconds: 3 });
  }
  if (d.backend === 'cuda') {
    const context = d.device.context;
    const module = context.buildModule(CUDA_SOURCE);
    const buffers = [data.x, y, data.out].map((a) => ({ kind: 'buffer' as const, buffer: a.buffer as CudaBuffer }));
    const int = (value: number) => ({ kind: 'scalar' as const, dtype: 'int32' as const, value });
    const launch =
      layout === 'transposed'
        ? () =>
            context.launch(
              module,
              'add_transposed',
              [...buffers, int(rows), int(cols)],
              [cols / 32, rows / 32],
              [32, 8],
            )
        : () =>
            context.launch(
              module,
              `add_${layout}`,
              layout === 'rows' ? [...buffers, int(cols / 4)] : buffers,
              [n / 4 / 256],
              [256],
            );
    // behind a lead launch, as lib/timing.ts times CUDA: the host's launch time is not counted
    return sampled(
      () => {
        launch();
        return context.timeQueued(launch) / 1e3;
      },
      { maxSeconds: 3 },
    );
  }
  if (d.backend === 'webgpu') {
    const bind = [data.x, y, data.out].map((a, k) => ({ buffer: gpuBufferOf(a.buffer), readOnly: k < 2 }));
    const groups = n / 4 / 256;
    const across = Math.min(groups, 32768);
    const kernel =
      layout === 'transposed'
        ? await wgslKernel(
            d.device,
            WGSL_TRANSPOSED_SOURCE,
            'add_transposed',
            bind,
            [cols / 32, rows / 32, 1],
            new Uint32Array([rows, cols, 0, 0]).buffer,
          )
        : await wgslKernel(d.device, WGSL_SOURCE, `add_${layout}`, bind, [across, Math.ceil(groups / across), 1]);
    return warmedUp(d, () => batchedSeconds((count) => timeDispatches(d.device, [kernel], count), { maxSeconds: 3 }));
  }
  throw new Error(`no hand-written kernel for the ${d.backend} device`);
}

/** What a pointwise() run found out besides its wall time: host time per call, and its kernel's own time. */
interface PointwiseTrace {
  /** The kernel variant pointwise() chose (plan(...).variant). */
  variant?: string;
  hostSeconds?: number;
  /** Wall time per call when the calls are not awaited one by one. */
  queuedSeconds?: number;
  kernelSeconds?: number;
}

/**
 * pointwise(): x + y on @loom/elementwise tensors of their own (the transposed y a view with
 * swapped strides, the broadcast row a 1-D tensor), out given; calls back to back, wall time
 * to the device's finishing them. Also, into `trace`: the host's time per call (until each
 * call's promise settles, calls back to back), and the GPU time of the launch a call makes.
 * `raggedX`: x in a storage of n + 1 numbers (on WebGPU: the flat variant instead of vector4).
 */
async function pointwiseRun(
  d: BenchDevice,
  layout: Layout,
  trace: PointwiseTrace,
  raggedX = false,
): Promise<{ seconds: number; result: Float32Array }> {
  const { pointwise, tensor, empty } = await import('@loom/elementwise');
  const device = d.device;
  // an expression-string payload: the same kernel as `(a, b) => a + b`, without loading TypeScript's parser
  const add = pointwise(
    { isTensor: [true, true], promotionMethods: [[0, 1, 'DEFAULT']], name: 'add', params: ['a', 'b'] },
    'a + b',
  );
  const x = raggedX
    ? tensor(padded(host.x), [n + 1], { device }).view([rows, cols], [cols, 1], 0)
    : tensor(host.x, [rows, cols], { device });
  const y =
    layout === 'contiguous'
      ? tensor(host.y, [rows, cols], { device })
      : layout === 'rows'
        ? tensor(host.row, [cols], { device })
        : tensor(host.y, [cols, rows], { device }).transpose(0, 1);
  const out = empty([rows, cols], { device });
  trace.variant = add.plan(x, y, { out0: out }).variant;
  try {
    const settle = settleOf(d);
    // uploads are queued behind the tensors: finish them (and compile) before timing, or the
    // first batch includes them and the timer sizes every later batch at a single call
    await add(x, y, { out0: out });
    await out.toArray();
    await settle();
    const seconds = await wallSeconds(
      async () => {
        await add(x, y, { out0: out });
      },
      settle,
      // at least 50 calls between waits, as PyTorch's figure is many launches between two events
      { maxSeconds: 3, minCalls: 50 },
    );
    let last: Promise<unknown> = Promise.resolve();
    trace.queuedSeconds = await wallSeconds(
      async () => {
        last = add(x, y, { out0: out });
      },
      async () => {
        await last;
        await settle();
      },
      { maxSeconds: 1.5, minCalls: 50 },
    );
    const result = (await out.toArray()) as Float32Array;
    let host = 0;
    for (let k = 0; k < 20; k++) {
      const start = performance.now();
      await add(x, y, { out0: out });
      host += performance.now() - start;
    }
    trace.hostSeconds = host / 1000 / 20;
    await settle();
    if (d.backend !== 'cpu' && d.backend !== 'c') {
      const launched = await launchesOf(d, () => add(x, y, { out0: out }));
      await settle();
      trace.kernelSeconds = await kernelSeconds(d, launched, { maxSeconds: 2 });
    }
    return { seconds, result };
  } finally {
    for (const t of [x, y, out]) t.release();
  }
}

/** Waits until the device has finished what was queued on it. */
function settleOf(d: BenchDevice): () => Promise<unknown> {
  switch (d.backend) {
    case 'opencl':
      return async () => d.device.context.finish();
    case 'cuda':
      return async () => d.device.context.synchronize();
    case 'webgpu':
      return () => d.device.gpuDevice.queue.onSubmittedWorkDone();
    case 'cpu':
    case 'c':
      return async () => {};
  }
}

/** `a` and one more number (0). */
function padded(a: Float32Array): Float32Array {
  const out = new Float32Array(a.length + 1);
  out.set(a);
  return out;
}

/**
 * The launches `call` makes on `d`'s device, as a prepared launch that the GPU timers take
 * (`kernelSeconds`): the device's `launch` is watched while the call runs.
 */
async function launchesOf(d: BenchDevice, call: () => Promise<unknown>): Promise<PreparedLaunch> {
  const device = d.device as Device;
  const kernels: PreparedKernel[] = [];
  let compiled: unknown;
  const launch = device.launch;
  device.launch = (program, kernel, args, groupCount, localSize) => {
    compiled = program;
    kernels.push({ kernel, args, groupCount, localSize });
    return launch.call(device, program, kernel, args, groupCount, localSize);
  };
  try {
    await call();
  } finally {
    delete (device as Partial<Device>).launch; // the class's own again
  }
  if (kernels.length === 0) throw new Error('the call launched nothing');
  const code = (compiled as { code?: GeneratedCode }).code ?? ({} as GeneratedCode);
  const timingOnly = () => Promise.reject(new Error('timing only'));
  return { device, code, compiled, kernels, launch: timingOnly, launchRounds: timingOnly, release() {} };
}
