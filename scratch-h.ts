import { cpuDevice } from '@loom/codegen-js';
import { openclDevice } from '@loom/codegen-opencl';
import { webgpuDevice } from '@loom/codegen-wgsl';
import { reduce, transpose, predicateSum, predicateMax } from '@loom/computation';
const devices = [cpuDevice(), openclDevice(), await webgpuDevice()].filter((d) => d !== undefined);
for (const [shape, axes] of [[[1000], undefined], [[37, 45], [1]], [[37, 45], [0]], [[3, 4, 5], [0, 2]], [[100000], undefined], [[5, 3000], [1]], [[2, 3, 4, 5], [1, 2]]] as const) {
  const n = shape.reduce((a, b) => a * b, 1);
  const a = Float32Array.from({ length: n }, (_, i) => ((i * 7) % 13) - 6);
  const comp = reduce({ dtype: 'float32', shape }, predicateSum('float32'), axes as never);
  for (const d of devices) {
    const c = await comp.compile(d);
    const { output } = await c(undefined, a);
    // reference
    const red = axes ?? shape.map((_, k) => k);
    const outShape = shape.map((s, k) => (red.includes(k) ? 1 : s));
    const ref = new Float64Array(outShape.reduce((x, y) => x * y, 1));
    for (let f = 0; f < n; f++) {
      let rem = f; const idx = [] as number[];
      for (let k = shape.length - 1; k >= 0; k--) { idx[k] = rem % shape[k]; rem = Math.floor(rem / shape[k]); }
      const o = idx.reduce((acc, v, k) => acc * outShape[k] + (red.includes(k) ? 0 : v), 0);
      ref[o] += a[f];
    }
    const ok = ref.every((v, i) => Math.abs(v - (output as Float32Array)[i]) < 1e-3);
    console.log(d.name.slice(0, 10), shape, axes, ok, c.kernels.length);
  }
}
const t = transpose({ dtype: 'float32', shape: [3, 37, 45] }, [0, 2, 1]);
for (const d of devices) {
  const a = Float32Array.from({ length: 3 * 37 * 45 }, (_, i) => i);
  const { output } = await (await t.compile(d))(undefined, a);
  let ok = true;
  for (let b = 0; b < 3; b++) for (let i = 0; i < 37; i++) for (let j = 0; j < 45; j++) if ((output as Float32Array)[(b * 45 + j) * 37 + i] !== a[(b * 37 + i) * 45 + j]) ok = false;
  console.log('transpose', d.name.slice(0, 10), ok);
}
