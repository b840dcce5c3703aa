import { makeKernel } from '@loom/core';
import { cpuDevice } from '@loom/codegen-js';
import { openclDevice } from '@loom/codegen-opencl';
import { webgpuDevice } from '@loom/codegen-wgsl';
import { computation, transformation } from '@loom/computation';

const n = 100;
const comp = computation({
  name: 'testcomp',
  params: [
    { name: 'output', dtype: 'float32', shape: [n], role: 'o' },
    { name: 'input1', dtype: 'float32', shape: [n], role: 'i' },
    { name: 'input2', dtype: 'float32', shape: [n], role: 'i' },
    { name: 'param', dtype: 'float32', role: 's' },
  ],
  buildPlan(plan, device, output, input1, input2, param) {
    const k = makeKernel('{ [i]: 0<=i<n }', 'out[i] = a[i] + b[i]*k');
    plan.kernelCall(k, { out: output, a: input1, b: input2, k: param });
  },
});
const tr = transformation({
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
const attached = comp.attach('output', tr, 'in1', { out1: 'out1', out2: 'out2', in2: 'rev', param: 'trParam' });
console.log(attached.signature.map((p) => `${p.name}:${p.role}`).join(' '));
const devices = [cpuDevice(), openclDevice(), await webgpuDevice()].filter((d) => d !== undefined);
const a = Float32Array.from({ length: n }, (_, i) => i);
const b = Float32Array.from({ length: n }, (_, i) => 2 * i);
const r = Float32Array.from({ length: n }, (_, i) => 1000 + i);
for (const device of devices) {
  const c = await comp.compile(device);
  const { output } = await c(undefined, a, b, 0.5);
  const t = await attached.compile(device);
  console.log(t.kernels[0].toString().split('INSTRUCTIONS:')[1]);
  const res = await t(undefined, undefined, r, 3, a, b, 0.5);
  console.log(device.name, output.slice(0, 4), res.out1.slice(0, 4), res.out2.slice(0, 4), res.out2.length);
}
