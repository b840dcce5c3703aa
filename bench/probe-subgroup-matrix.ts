/**
 * What Dawn's experimental subgroup matrices offer on this machine's GPU: the adapter's features
 * and matrix configurations, and which spellings of the WGSL builtins its Tint accepts (the load
 * and store took `col_major` as a bool argument first, then as a template argument). Prints JSON
 * after a line `--- probe ---` (Dawn's compilation warnings come before it, on stdout).
 *
 *   node --import tsx bench/probe-subgroup-matrix.ts
 */
import { create } from 'webgpu';

const gpu = create(['enable-dawn-features=allow_unsafe_apis']);
const adapter = await gpu.requestAdapter();
if (!adapter) throw new Error('no WebGPU adapter');
const info = adapter.info as unknown as Record<string, unknown>;
const features = [...adapter.features].sort();
const out: Record<string, unknown> = {
  adapter: { vendor: info.vendor, architecture: info.architecture, device: info.device, description: info.description },
  infoKeys: Object.keys(Object.getPrototypeOf(info) ?? {}).concat(Object.keys(info)),
  features,
  // each configuration's fields are getters, which JSON.stringify does not see
  subgroupMatrixConfigs: ((info.subgroupMatrixConfigs ?? []) as Record<string, unknown>[]).map((c) =>
    Object.fromEntries(['M', 'N', 'K', 'componentType', 'resultComponentType'].map((k) => [k, c[k]])),
  ),
};
const wanted = ['chromium-experimental-subgroup-matrix', 'subgroups', 'shader-f16'].filter((f) =>
  features.includes(f),
) as GPUFeatureName[];
const device = await adapter.requestDevice({ requiredFeatures: wanted });
const shaders: Record<string, string> = {};
const types = ['f32', 'f16', 'i8', 'u8', 'i32'];
for (const t of types)
  for (const [m, n, k] of [
    [8, 8, 8],
    [16, 16, 16],
    [16, 8, 16],
    [16, 16, 8],
  ]) {
    const storage = t === 'f16' ? 'f16' : t === 'i8' || t === 'i32' ? 'i32' : t === 'u8' ? 'u32' : 'f32';
    const result = t === 'f16' || t === 'f32' ? 'f32' : 'i32';
    const enable = `enable chromium_experimental_subgroup_matrix;${t === 'f16' ? ' enable f16;' : ''}`;
    const body = (load: (kind: string, c: number, r: number, ptr: string) => string, store: string) =>
      `${enable}
@group(0) @binding(0) var<storage, read_write> a : array<${storage}>;
@group(0) @binding(1) var<storage, read_write> c : array<${result}>;
@compute @workgroup_size(32)
fn main() {
  let l = ${load('left', k, m, 'a')};
  let r = ${load('right', n, k, 'a')};
  var acc = subgroup_matrix_result<${result}, ${n}, ${m}>();
  acc = subgroupMatrixMultiplyAccumulate(l, r, acc);
  ${store}
}`;
    shaders[`${t} ${m}x${n}x${k} bool`] = body(
      (kind, cols, rows, ptr) =>
        `subgroupMatrixLoad<subgroup_matrix_${kind}<${t}, ${cols}, ${rows}>>(&${ptr}, 0, false, 64)`,
      'subgroupMatrixStore(&c, 0, acc, false, 64);',
    );
    shaders[`${t} ${m}x${n}x${k} template`] = body(
      (kind, cols, rows, ptr) =>
        `subgroupMatrixLoad<subgroup_matrix_${kind}<${t}, ${cols}, ${rows}>, row_major>(&${ptr}, 0, 64)`,
      'subgroupMatrixStore<row_major>(&c, 0, acc, 64);',
    );
  }
const accepted: Record<string, string> = {};
for (const [name, code] of Object.entries(shaders)) {
  device.pushErrorScope('validation');
  const module = device.createShaderModule({ code });
  const messages = (await module.getCompilationInfo()).messages.filter((m) => m.type === 'error');
  let pipelineError = '';
  if (messages.length === 0) {
    device.pushErrorScope('validation');
    device.createComputePipeline({ layout: 'auto', compute: { module, entryPoint: 'main' } });
    pipelineError = (await device.popErrorScope())?.message ?? '';
  }
  await device.popErrorScope();
  accepted[name] = messages.length
    ? `error: ${messages[0].message.split('\n')[0]}`
    : pipelineError
      ? `pipeline: ${pipelineError.split('\n')[0]}`
      : 'ok';
}
out.shaders = accepted;
// Dawn prints its compilation warnings on stdout: the result follows a marker line
console.log(`--- probe ---\n${JSON.stringify(out, (_k, v) => (typeof v === 'bigint' ? Number(v) : v), 2)}`);
device.destroy();
