/**
 * loopy's tutorial, from "Getting started" to "Loop nesting", in Loom.
 * Run: npm run tutorial   (or: npx tsx examples/tutorial.ts)
 *
 * Every kernel runs on each device present (the CPU device always, OpenCL when a
 * driver is installed) and is checked against plain JavaScript.
 */
import {
  addDtypes,
  generateCode,
  globalArg,
  makeKernel,
  prioritizeLoops,
  run,
  setOptions,
  type Device,
} from '@loom/core';
import { cpuDevice } from '@loom/codegen-js';
import { openclDevice, openclTarget, openclUnavailableReason } from '@loom/codegen-opencl';
import { webgpuDevice, webgpuUnavailableReason, wgslTarget } from '@loom/codegen-wgsl';

const devices: Device[] = [cpuDevice()];
const cl = openclDevice();
if (cl) devices.push(cl);
else console.log(`(OpenCL not available: ${openclUnavailableReason()})`);
const gpu = await webgpuDevice();
if (gpu) devices.push(gpu);
else console.log(`(WebGPU not available: ${webgpuUnavailableReason()})`);

const n = 16 * 16;
const random = (count: number) => Float32Array.from({ length: count }, () => Math.random());
const xVec = random(n);
const aMat = random(n * n);

function check(what: string, ok: boolean): void {
  if (!ok) throw new Error(`${what}: wrong result`);
  console.log(`  ${what}: ok`);
}

function heading(title: string): void {
  console.log(`\n=== ${title} ===\n`);
}

// Getting started: double a vector.
heading('Getting started');
let knl = makeKernel('{ [i]: 0<=i<n }', 'out[i] = 2*a[i]');
console.log(knl.toString());

heading('Running a kernel');
for (const device of devices) {
  const { out } = await run(knl, device, { a: xVec });
  const result = out as Float32Array;
  check(`${device.name}: out == 2*a`, result.length === n && xVec.every((x, k) => result[k] === Math.fround(2 * x)));
}

heading('Generating code');
const typed = addDtypes(knl, { a: 'float32' });
console.log(generateCode(typed, openclTarget()).code);
console.log(generateCode(typed, wgslTarget()).code);

// Ordering: the wrong transpose-and-double, then the corrected one.
heading('Ordering (incorrect: dependencies act within the shared loops)');
knl = makeKernel(
  '{ [i,j]: 0<=i,j<n }',
  `
  out[j,i] = a[i,j] {id=transpose}
  out[i,j] = 2*out[i,j] {dep=transpose}
  `,
  [globalArg('out', { shape: 'auto', isInput: false }), '...'],
  { name: 'transpose_and_dbl' },
);
knl = prioritizeLoops(knl, 'i,j');
console.log(knl.toString());
console.log(generateCode(addDtypes(knl, { a: 'float32' }), openclTarget()).code);
for (const device of devices) {
  const { out } = await run(knl, device, { a: aMat });
  const right = (out as Float32Array).every((v, k) => v === 2 * aMat[(k % n) * n + Math.floor(k / n)]);
  console.log(`  ${device.name}: result equals 2*a.T? ${right} (as the tutorial says: False)`);
}

heading('Loops and dependencies (corrected: separate loops for the second instruction)');
knl = makeKernel(
  '{ [i,j,ii,jj]: 0<=i,j,ii,jj<n }',
  `
  out[j,i] = a[i,j] {id=transpose}
  out[ii,jj] = 2*out[ii,jj] {dep=transpose}
  `,
  [globalArg('out', { shape: 'auto', isInput: false }), '...'],
);
knl = prioritizeLoops(knl, 'i,j');
knl = prioritizeLoops(knl, 'ii,jj');
console.log(generateCode(addDtypes(knl, { a: 'float32' }), openclTarget()).code);
for (const device of devices) {
  const { out } = await run(knl, device, { a: aMat });
  check(
    `${device.name}: out == 2*a.T`,
    (out as Float32Array).every((v, k) => v === 2 * aMat[(k % n) * n + Math.floor(k / n)]),
  );
}

heading('Loop nesting');
knl = makeKernel('{ [i,j]: 0<=i,j<n }', 'a[i,j] = 0');
knl = prioritizeLoops(knl, 'j,i');
knl = setOptions(knl, { writeCode: false });
console.log(generateCode(addDtypes(knl, { a: 'float32' }), openclTarget()).code);
for (const device of devices) {
  const a = random(n * n);
  const { a: zeroed } = await run(knl, device, { a, n });
  check(`${device.name}: a filled with zeros in place`, zeroed === a && a.every((v) => v === 0));
}
