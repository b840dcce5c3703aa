/**
 * loopy's tutorial, written in Loom's DSL: templates, the fluent builder, and signatures
 * the compiler checks. The same kernels as examples/tutorial.ts, then the tutorial's
 * next steps (splitting, tagging, unrolling, a tiled matrix product).
 *
 * Run: npx tsx examples/tutorial-dsl.ts
 *
 * The template kernels here are typed by `loom typegen` (tutorial-dsl.loom.d.ts, next to
 * this file); kernels written as literal strings are typed by the compiler directly.
 * Every kernel runs on each device present and is checked against plain JavaScript.
 */
import type { Device } from '@loom/core';
import { cpuDevice } from '@loom/codegen-js';
import { openclDevice, openclTarget, openclUnavailableReason } from '@loom/codegen-opencl';
import { webgpuDevice, webgpuUnavailableReason } from '@loom/codegen-wgsl';
import { domain, f32, insn, kernel } from '@loom/dsl';

const devices: Device[] = [cpuDevice()];
const cl = openclDevice();
if (cl) devices.push(cl);
else console.log(`(OpenCL not available: ${openclUnavailableReason()})`);
const gpu = await webgpuDevice();
if (gpu) devices.push(gpu);
else console.log(`(WebGPU not available: ${webgpuUnavailableReason()})`);

const n = 16 * 16;
const random = (count: number) => Float32Array.from({ length: count }, () => Math.random());
const x = random(n);
const A = random(n * n);
const transposed = (k: number) => A[(k % n) * n + Math.floor(k / n)];

function check(what: string, ok: boolean): void {
  if (!ok) throw new Error(`${what}: wrong result`);
  console.log(`  ${what}: ok`);
}

function heading(title: string): void {
  console.log(`\n=== ${title} ===\n`);
}

// Getting started. A kernel from literal strings: the compiler reads them, so it knows
// that `a` is an input, `out` an output and `n` a size it may leave to `run`.
heading('Getting started');
const double = kernel('{ [i]: 0<=i<n }', 'out[i] = 2*a[i]');
console.log(double.toString());

heading('Running a kernel');
// Declaring the arguments types the data too: `a` must be a Float32Array, and `out` is one.
const doubleF32 = double.args({ a: f32('n'), out: f32.out('n') });
for (const device of devices) {
  const { out } = await doubleF32.run(device, { a: x });
  check(`${device.name}: out == 2*a`, out.length === n && x.every((v, k) => out[k] === Math.fround(2 * v)));
}

heading('Templates');
// Templates splice values in: numbers become literals, strings names, fragments text.
const factor = 2;
const scaled = kernel(domain`{ [i]: 0<=i<n }`, insn`out[i] = ${factor}*a[i]`, { name: 'scaled' });
for (const device of devices) {
  // no dtypes declared: `out` is whatever array the data makes (here a Float32Array)
  const { out } = await scaled.run(device, { a: x });
  check(
    `${device.name}: out == ${factor}*a`,
    out instanceof Float32Array && out.every((v, k) => v === Math.fround(factor * x[k])),
  );
}

heading('Generating code');
console.log(double.dtypes({ a: 'float32' }).code(openclTarget()));

// Ordering: the wrong transpose-and-double, then the corrected one.
heading('Ordering (incorrect: dependencies act within the shared loops)');
const wrong = kernel(
  domain`{ [i,j]: 0<=i,j<n }`,
  insn`
    out[j,i] = a[i,j] {id=transpose}
    out[i,j] = 2*out[i,j] {dep=transpose}
  `,
  { name: 'transpose_and_dbl' },
)
  .args({ a: f32('n', 'n'), out: f32.out('n', 'n') })
  .prioritize('i,j');
console.log(wrong.toString());
console.log(wrong.code(openclTarget()));
for (const device of devices) {
  const { out } = await wrong.run(device, { a: A });
  console.log(
    `  ${device.name}: result equals 2*a.T? ${out.every((v, k) => v === 2 * transposed(k))} (as the tutorial says: False)`,
  );
}

heading('Loops and dependencies (corrected: separate loops for the second instruction)');
const corrected = kernel(
  domain`{ [i,j,ii,jj]: 0<=i,j,ii,jj<n }`,
  insn`
    out[j,i] = a[i,j] {id=transpose}
    out[ii,jj] = 2*out[ii,jj] {dep=transpose}
  `,
  { name: 'transpose_and_dbl_fixed' },
)
  .args({ a: f32('n', 'n'), out: f32.out('n', 'n') })
  .prioritize('i,j')
  .prioritize('ii,jj');
console.log(corrected.code(openclTarget()));
for (const device of devices) {
  const { out } = await corrected.run(device, { a: A });
  check(
    `${device.name}: out == 2*a.T`,
    out.every((v, k) => v === 2 * transposed(k)),
  );
}

heading('Loop nesting');
const zeroFill = kernel(domain`{ [i,j]: 0<=i,j<n }`, insn`a[i,j] = 0`, { name: 'zero_fill' })
  .prioritize('j,i')
  .options({ writeCode: false });
console.log(zeroFill.dtypes({ a: 'float32' }).code(openclTarget()));
for (const device of devices) {
  const a = random(n * n);
  const { a: zeroed } = await zeroFill.run(device, { a, n });
  check(`${device.name}: a filled with zeros in place`, zeroed === a && a.every((v) => v === 0));
}

// Beyond the tutorial's first part: transformations as verbs.
heading('Splitting and tagging: one work-item per element, 128 per group');
const parallel = doubleF32.split('i', 128, { outer: 'g.0', inner: 'l.0' });
console.log(parallel.code(openclTarget()));
for (const device of devices) {
  const a = random(1000);
  const { out } = await parallel.run(device, { a });
  check(
    `${device.name}: split and tagged, n = 1000`,
    out.every((v, k) => v === Math.fround(2 * a[k])),
  );
}

heading('Unrolling');
const unrolled = doubleF32.assume('n mod 4 = 0').split('i', 4, { inner: 'unr' }).prioritize('i_outer,i_inner');
console.log(unrolled.code(openclTarget()));
for (const device of devices) {
  const { out } = await unrolled.run(device, { a: x });
  check(
    `${device.name}: unrolled by 4`,
    out.every((v, k) => v === Math.fround(2 * x[k])),
  );
}

heading('A tiled matrix product, with prefetching into local memory');
const matmul = kernel(domain`{ [i,j,k]: 0<=i<n and 0<=j<m and 0<=k<l }`, insn`c[i, j] = sum(k, a[i, k]*b[k, j])`, {
  name: 'matmul',
  assumptions: 'n >= 1 and m >= 1 and l >= 1',
})
  .args({ a: f32('n', 'l'), b: f32('l', 'm'), c: f32.out('n', 'm') })
  .tile('i', 'j', 16, 16, { outer: 'g', inner: 'l' })
  .split('k', 16)
  .prefetch('a', ['k_inner', 'i_inner'], { defaultTag: 'l.auto' })
  .prefetch('b', ['j_inner', 'k_inner'], { defaultTag: 'l.auto' })
  .prioritize('k_outer,k_inner');
console.log(matmul.code(openclTarget()));
const [rows, cols, inner] = [40, 24, 33];
const a = random(rows * inner);
const b = random(inner * cols);
for (const device of devices) {
  const { c } = await matmul.run(device, { a, b, n: rows, m: cols, l: inner });
  const close = Array.from({ length: rows * cols }, (_, p) => {
    const [i, j] = [Math.floor(p / cols), p % cols];
    let s = 0;
    for (let k = 0; k < inner; k++) s += a[i * inner + k] * b[k * cols + j];
    return Math.abs(c[p] - s) <= 1e-4 * Math.max(1, Math.abs(s));
  });
  check(`${device.name}: c == a @ b (${rows}x${inner} by ${inner}x${cols})`, close.every(Boolean));
}
