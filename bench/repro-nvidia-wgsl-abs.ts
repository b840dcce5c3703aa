/**
 * Differential seed 1070972369 on NVIDIA's Vulkan driver (580, through Dawn): the payload
 * `((y << 5) >= Math.abs(x) ? (y << 5) : Math.abs(x)) - Math.min(x, x) * Math.max(x, x)` over an int8 x
 * and an int32 y gave -16097 at x = -127, y = 1, where -16002 is right (lavapipe agrees). This
 * script runs the generated WGSL and variants of its pieces on every WebGPU device and prints
 * each value against the right one, to find which piece the driver gets wrong.
 *
 *   npx tsx bench/repro-nvidia-wgsl-abs.ts
 */
import type { WebGPUDevice } from '@loom/codegen-wgsl';
import { pointwise, tensor } from '@loom/elementwise';
import { testDevices } from '../test/support/devices.ts';

/** Ways to read the int8 x = -127 (the byte 0x81) from the lowest byte of word `w`, as an i32. */
const LOADS: Readonly<Record<string, string>> = {
  'load_buf0 (generated)': 'load_buf0(offset)',
  extractBits: 'extractBits(bitcast<i32>(xs[0]), 0u, 8u)',
  shifts: '(bitcast<i32>(xs[0]) << 24u) >> 24u',
  'xor 0x80': 'bitcast<i32>((xs[0] & 0xffu) ^ 0x80u) - 128i',
  'minus sign bit': 'i32(xs[0] & 0xffu) - i32((xs[0] & 0x80u) << 1u)',
};
/** Ways to spell |x|. */
const ABS: Readonly<Record<string, string>> = {
  abs: 'abs(x)',
  select: 'select(-x, x, x >= 0i)',
  'max(x, -x)': 'max(x, -x)',
};
const shl = 'shl_i32(y, 5i)';
/** [label, WGSL i32 expression over x, y, the right value at x = -127, y = 1]. */
const VARIANTS: readonly (readonly [string, string, number])[] = Object.entries(LOADS).flatMap(([load, l]) => [
  ...Object.entries(ABS).map(
    ([absName, a]) =>
      [
        `${load}, ${absName}: generated`,
        `{ let x = ${l}; out[K] = select(${a}, ${shl}, ${shl} >= ${a}) - min(x, x) * max(x, x); }`,
        -16002,
      ] as const,
  ),
  [`${load}: select only`, `{ let x = ${l}; out[K] = select(abs(x), ${shl}, ${shl} >= abs(x)); }`, 127] as const,
  [`${load}: compare only`, `{ let x = ${l}; out[K] = select(0i, 1i, ${shl} >= abs(x)); }`, 0] as const,
  [`${load}: abs only`, `{ let x = ${l}; out[K] = abs(x); }`, 127] as const,
]);

const shader = `@group(0) @binding(0) var<storage, read> xs: array<u32>;
@group(0) @binding(1) var<storage, read> ys: array<i32>;
@group(0) @binding(2) var<storage, read_write> out: array<i32>;
fn shl_i32(a: i32, b: i32) -> i32 {
  return select(0i, a << u32(b), b >= 0i && b < 32i);
}
fn load_buf0(index: i32) -> i32 {
  let word = xs[u32(index) / 4u];
  return extractBits(bitcast<i32>(word), u32(index) % 4u * 8u, 8u);
}
@compute @workgroup_size(1)
fn probe() {
  let offset = ys[1];
  let y = ys[0];
${VARIANTS.map(([, e], k) => `  ${e.replace('K', String(k))}`).join('\n')}
}`;

/** Runs `code`'s entry `entry` once with `bindings` (in binding order) and returns the i32 words of `out`. */
async function runShader(
  device: GPUDevice,
  code: string,
  entry: string,
  bindings: readonly ArrayBufferView[],
  out: number,
  uniform?: number,
): Promise<Int32Array> {
  const module = device.createShaderModule({ code });
  const pipeline = device.createComputePipeline({ layout: 'auto', compute: { module, entryPoint: entry } });
  const buffers = bindings.map((data, k) => {
    const usage =
      k === uniform ? 0x40 | 0x8 /* UNIFORM | COPY_DST */ : 0x80 | 0x4 | 0x8; /* STORAGE | COPY_SRC | COPY_DST */
    const b = device.createBuffer({ size: Math.max(16, Math.ceil(data.byteLength / 16) * 16), usage });
    device.queue.writeBuffer(b, 0, data.buffer, data.byteOffset, data.byteLength);
    return b;
  });
  const read = device.createBuffer({ size: buffers[out].size, usage: 0x1 | 0x8 /* MAP_READ | COPY_DST */ });
  const bindGroup = device.createBindGroup({
    layout: pipeline.getBindGroupLayout(0),
    entries: buffers.map((buffer, binding) => ({ binding, resource: { buffer } })),
  });
  const encoder = device.createCommandEncoder();
  const pass = encoder.beginComputePass();
  pass.setPipeline(pipeline);
  pass.setBindGroup(0, bindGroup);
  pass.dispatchWorkgroups(1);
  pass.end();
  encoder.copyBufferToBuffer(buffers[out], 0, read, 0, read.size);
  device.queue.submit([encoder.finish()]);
  await read.mapAsync(1 /* GPUMapMode.READ */);
  return new Int32Array(read.getMappedRange().slice(0));
}

/**
 * The payload of seed 1070972369, and edits of the WGSL Loom generated for it, each a guess at what
 * the driver mishandles. On the H200 only 'abs as select' was right: Loom now spells an i32's |x| so.
 */
const payload = pointwise(
  {},
  (x: number, y: number) =>
    (y << (5 & 7) >= Math.abs(x) ? y << (5 & 7) : Math.abs(x)) - Math.min(x, x) * Math.max(x, x),
);
const EDITS: readonly (readonly [string, (code: string) => string])[] = [
  ['built-in abs (the spelling before the workaround)', (c) => c],
  ['let in0', (c) => c.replace(/ *var in0: i32;\n/, '').replace('in0 = load_buf0', 'let in0 = load_buf0')],
  ['abs as select', (c) => c.replaceAll('abs(in0)', 'select(-in0, in0, in0 >= 0i)')],
  [
    'load by shifts',
    (c) =>
      c.replace(
        /return extractBits\(bitcast<i32>\(word\), (.*), 8u\);/,
        'return (bitcast<i32>(word) << (24u - $1)) >> 24u;',
      ),
  ],
  ['plain shift', (c) => c.replaceAll('shl_i32(in1, 5i)', '(in1 << 5u)')],
  ['square', (c) => c.replace('min(in0, in0) * max(in0, in0)', 'in0 * in0')],
  [
    'select as if',
    (c) =>
      c.replace(
        /buf2\[out0_offset\] = select\(abs\(in0\), shl_i32\(in1, 5i\), shl_i32\(in1, 5i\) >= abs\(in0\)\)/,
        'var m = abs(in0);\n  if (shl_i32(in1, 5i) >= m) { m = shl_i32(in1, 5i); }\n  buf2[out0_offset] = m',
      ),
  ],
];

let failed = false;
for (const d of testDevices()) {
  if (d.target.name !== 'wgsl') continue;
  const x = tensor([-127], undefined, { device: d, dtype: 'int8' });
  const y = tensor([1], undefined, { device: d, dtype: 'int32' });
  const viaLoom = (await (await payload(x, y)).toArray())[0];
  console.log(`${d.name}: the payload through Loom gives ${viaLoom} (want -16002)`);
  failed ||= viaLoom !== -16002;
  const plan = payload.plan(x, y);
  const generated = plan.code();
  // the edits start from the spelling the driver miscompiled: WGSL's own abs() of an i32
  const code = generated.replaceAll('abs_i32(in0)', 'abs(in0)');
  const entry = /fn (\w+)\(\)/.exec(code.slice(code.indexOf('@compute')))![1];
  // buf0: the int8 byte 0x81, buf1: y, buf2: out, params: n and sizes 1, offsets 0
  for (const [label, edit] of [['as generated now (abs_i32)', () => generated] as const, ...EDITS]) {
    const edited = edit(code);
    if (label !== EDITS[0][0] && edited === code)
      throw new Error(`the edit '${label}' changed nothing: the generated code has changed`);
    const got = await runShader(
      (d as WebGPUDevice).gpuDevice,
      edited,
      entry,
      [new Uint32Array([0x81]), new Int32Array([1]), new Int32Array([0]), new Int32Array([1, 1, 1, 1, 0, 0, 0, 0])],
      2,
      3,
    );
    console.log(`  ${got[0] === -16002 ? 'ok  ' : 'DIFF'} ${label}: ${got[0]}`);
  }
}

for (const d of testDevices()) {
  if (d.target.name !== 'wgsl') continue;
  const device = (d as WebGPUDevice).gpuDevice;
  const module = device.createShaderModule({ code: shader });
  const pipeline = device.createComputePipeline({ layout: 'auto', compute: { module, entryPoint: 'probe' } });
  const storage = (data: ArrayBufferView) => {
    const b = device.createBuffer({
      size: Math.max(16, data.byteLength),
      usage: 0x80 | 0x4 | 0x8 /* STORAGE | COPY_SRC | COPY_DST */,
    });
    device.queue.writeBuffer(b, 0, data.buffer, data.byteOffset, data.byteLength);
    return b;
  };
  // x = -127 as int8 is the byte 0x81, in the word's lowest byte
  const xs = storage(new Uint32Array([0x81]));
  const ys = storage(new Int32Array([1, 0]));
  const out = storage(new Int32Array(VARIANTS.length));
  const read = device.createBuffer({ size: out.size, usage: 0x1 | 0x8 /* MAP_READ | COPY_DST */ });
  const bindGroup = device.createBindGroup({
    layout: pipeline.getBindGroupLayout(0),
    entries: [xs, ys, out].map((buffer, binding) => ({ binding, resource: { buffer } })),
  });
  const encoder = device.createCommandEncoder();
  const pass = encoder.beginComputePass();
  pass.setPipeline(pipeline);
  pass.setBindGroup(0, bindGroup);
  pass.dispatchWorkgroups(1);
  pass.end();
  encoder.copyBufferToBuffer(out, 0, read, 0, out.size);
  device.queue.submit([encoder.finish()]);
  await read.mapAsync(1 /* GPUMapMode.READ */);
  const got = new Int32Array(read.getMappedRange().slice(0));
  console.log(d.name);
  VARIANTS.forEach(([label, , want], k) => {
    const ok = got[k] === want;
    failed ||= !ok;
    console.log(`  ${ok ? 'ok  ' : 'DIFF'} ${label}: ${got[k]} (want ${want})`);
  });
}
process.exit(failed ? 1 : 0);
