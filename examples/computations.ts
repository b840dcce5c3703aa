/**
 * Reikna's advanced tutorial (seed 004) in Loom: a transformation that changes shapes and
 * a computation `output = input1 + input2 * param`, each run on every device present and
 * checked against plain JavaScript; then the transformation attached to the computation's
 * output, fused into its one kernel.
 * Run: npx tsx examples/computations.ts
 */
import { makeKernel, splitIname, type Device } from '@loom/core';
import { cpuDevice } from '@loom/codegen-js';
import { openclDevice, openclUnavailableReason } from '@loom/codegen-opencl';
import { webgpuDevice, webgpuUnavailableReason } from '@loom/codegen-wgsl';
import { computation, transformation } from '@loom/computation';

const devices: Device[] = [cpuDevice()];
const cl = openclDevice();
if (cl) devices.push(cl);
else console.log(`(OpenCL not available: ${openclUnavailableReason()})`);
const gpu = await webgpuDevice();
if (gpu) devices.push(gpu);
else console.log(`(WebGPU not available: ${webgpuUnavailableReason()})`);

function check(what: string, actual: ArrayLike<number>, expected: ArrayLike<number>): void {
  const ok =
    actual.length === expected.length &&
    Array.from(expected).every((e, k) => Math.abs(actual[k] - e) <= 1e-6 * Math.max(1, Math.abs(e)));
  if (!ok) {
    console.log(
      `  ${what}: WRONG: got [${Array.from(actual).slice(0, 6)}...], expected [${Array.from(expected).slice(0, 6)}...]`,
    );
    process.exitCode = 1;
  } else console.log(`  ${what}: ok`);
}

// --- Writing a transformation ----------------------------------------------------------------
// out1 (100 elements) gets in1; out2 (80 elements) gets in2 reversed times param, so the
// index is checked before storing to it. (The tutorial reads in2 at 100 - idx, one past the
// end at idx = 0: Loom refuses that access before running anything; 99 - idx is meant.)
const tr = transformation({
  name: 'tutorial',
  params: [
    { name: 'out1', dtype: 'float32', shape: [100], role: 'o' },
    { name: 'out2', dtype: 'float32', shape: [80], role: 'o' },
    { name: 'in1', dtype: 'float32', shape: [100], role: 'i' },
    { name: 'in2', dtype: 'float32', shape: [100], role: 'i' },
    { name: 'param', dtype: 'float32', role: 's' },
  ],
  body: `
    i1 = loadSame(in1)
    i2 = loadIdx(in2, 99 - idx0) * param
    storeSame(out1, i1)
    if idx0 < 80
      storeIdx(out2, idx0, i2)
    end
  `,
  connectors: ['in1', 'out1'],
});

// --- Writing a computation -------------------------------------------------------------------
// output = input1 + input2 * param, one work-item per element, 64 to a work-group
const n = 100;
const elementwise = splitIname(
  makeKernel('{ [i]: 0<=i<n }', 'out[i] = a[i] + b[i]*k', undefined, { name: 'testcomp' }),
  'i',
  64,
  { outerTag: 'g.0', innerTag: 'l.0' },
);
const testComputation = computation({
  name: 'TestComputation',
  params: [
    { name: 'output', dtype: 'float32', shape: [n], role: 'o' },
    { name: 'input1', dtype: 'float32', shape: [n], role: 'i' },
    { name: 'input2', dtype: 'float32', shape: [n], role: 'i' },
    { name: 'param', dtype: 'float32', role: 's' },
  ],
  buildPlan(plan, _device, output, input1, input2, param) {
    plan.kernelCall(elementwise, { out: output, a: input1, b: input2, k: param });
  },
});

// The transformation on its own: a computation whose one kernel copies its input to its
// output, with the transformation attached to the output (Reikna's PureParallel.from_trf).
const copy = computation({
  name: 'copy',
  params: [
    { name: 'output', dtype: 'float32', shape: [n], role: 'o' },
    { name: 'input', dtype: 'float32', shape: [n], role: 'i' },
  ],
  buildPlan(plan, _device, output, input) {
    plan.kernelCall(
      splitIname(makeKernel('{ [i]: 0<=i<n }', 'out[i] = a[i]', undefined, { name: 'copy' }), 'i', 64, {
        outerTag: 'g.0',
        innerTag: 'l.0',
      }),
      {
        out: output,
        a: input,
      },
    );
  },
}).attach('output', tr, 'in1', { out1: 'out1', out2: 'out2', in2: 'in2', param: 'param' });

const input1 = Float32Array.from({ length: n }, (_, i) => Math.sin(i));
const input2 = Float32Array.from({ length: n }, (_, i) => Math.cos(i));
const param = 0.5;
const f = Math.fround;

for (const device of devices) {
  console.log(device.name);
  const { out1, out2 } = await (await copy.compile(device))(undefined, undefined, input2, param, input1);
  check('transformation: out1 = in1', out1 as Float32Array, input1);
  check(
    'transformation: out2 = in2 reversed * param (80 elements)',
    out2 as Float32Array,
    Array.from({ length: 80 }, (_, i) => f(input2[99 - i] * f(param))),
  );

  const compiled = await testComputation.compile(device);
  const { output } = await compiled(undefined, input1, input2, param);
  check(
    'computation: output = input1 + input2 * param',
    output as Float32Array,
    Array.from(input1, (x, i) => f(x + f(input2[i] * param))),
  );

  // both together: the transformation runs where the computation's kernel stores `output`
  const fused = await testComputation
    .attach('output', tr, 'in1', { out1: 'sum', out2: 'reversed', in2: 'in2', param: 'trParam' })
    .compile(device);
  const results = await fused.byName({ input1, input2, param, in2: input2, trParam: 2 });
  check('fused: sum = input1 + input2 * param', results.sum as Float32Array, output as Float32Array);
  check(
    'fused: reversed = in2 reversed * trParam',
    results.reversed as Float32Array,
    Array.from({ length: 80 }, (_, i) => f(input2[99 - i] * 2)),
  );
  if (fused.kernels.length !== 1) {
    console.log('  fused: WRONG: more than one kernel');
    process.exitCode = 1;
  }
}
console.log(
  '\nThe fused kernel:\n' +
    (
      await testComputation
        .attach('output', tr, 'in1', { out1: 'sum', out2: 'reversed', in2: 'in2', param: 'trParam' })
        .compile(devices[devices.length - 1])
    ).code()[0],
);
gpu?.destroy();
