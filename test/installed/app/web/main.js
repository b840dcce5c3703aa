// A kernel from @loom/dsl and a pointwise function from @loom/elementwise, run on the browser's
// WebGPU (navigator.gpu) through @loom/codegen-wgsl. test/installed.test.ts bundles this page
// with Vite, unconfigured: the packages' `browser` exports keep Dawn and Node's modules out.
import { webgpuDevice, webgpuUnavailableReason } from '@loom/codegen-wgsl';
import { f32, kernel } from '@loom/dsl';
import { pointwise, tensor } from '@loom/elementwise';

const affine = kernel('{ [i]: 0<=i<n }', 'out[i] = 2*a[i] + 1').args({ a: f32('n'), out: f32.out('n') });
const axpy = pointwise({}, (x, y, alpha) => x + y * alpha);

async function main() {
  const output = document.getElementById('output');
  const device = await webgpuDevice();
  if (!device) {
    output.textContent = `no WebGPU here: ${webgpuUnavailableReason()}`;
    return;
  }
  const { out } = await affine.run(device, { a: new Float32Array([1, 2, 3, 4.5]) });
  const z = await axpy(tensor([1, 2, 3], undefined, { device }), tensor([4, 5, 6], undefined, { device }), 2);
  output.textContent = JSON.stringify({ out: Array.from(out), z: Array.from(await z.toArray()) });
}

main();
