// An app as a user writes it, in plain JavaScript run by plain Node, with Loom installed from a
// registry: a kernel computed on the CPU, the devices whose native drivers were not installed
// (undefined, with the reason), and anyDevice() falling through to the CPU. It prints what it found
// as one JSON line.
import { cpuDevice } from '@loom/codegen-js';
import { openclDevice, openclUnavailableReason } from '@loom/codegen-opencl';
import { webgpuDevice, webgpuUnavailableReason } from '@loom/codegen-wgsl';
import { anyDevice, f32, kernel } from '@loom/dsl';
import { mulConst } from '@loom/computation';

const affine = kernel('{ [i]: 0<=i<n }', 'out[i] = 2*a[i] + 1').args({ a: f32('n'), out: f32.out('n') });
const { out } = await affine.run(cpuDevice(), { a: new Float32Array([1, 2, 3, 4.5]) });
// @loom/computation: a transformation fused into the kernel's store (out = 10 * (2a + 1))
const scaled = affine.attach('out', mulConst({ dtype: 'float32' }, 10), 'input', { output: 'scaled' });
const { scaled: tenfold } = await scaled.run(cpuDevice(), { a: new Float32Array([1, 2, 3, 4.5]) });


console.log(JSON.stringify({
  out: Array.from(out),
  scaled: Array.from(tenfold),
  opencl: { device: openclDevice(), reason: openclUnavailableReason() },
  webgpu: { device: await webgpuDevice(), reason: webgpuUnavailableReason() },
  any: (await anyDevice()).name,
}));
