/**
 * FlagGems' pointwise_dynamic examples in Loom: abs, add with a scalar alpha and a
 * broadcast operand, polar with two outputs, an in-place add_, and flip through
 * instantiate() and negative strides.
 * Run: npx tsx examples/pointwise.ts
 *
 * Each runs on every device present (the CPU device always, OpenCL and WebGPU when
 * a driver is installed) and is checked against plain JavaScript.
 */
import type { Device } from '@loom/core';
import { cpuDevice } from '@loom/codegen-js';
import { openclDevice, openclUnavailableReason } from '@loom/codegen-opencl';
import { webgpuDevice, webgpuUnavailableReason } from '@loom/codegen-wgsl';
import { empty, pointwise, tensor, type Tensor } from '@loom/elementwise';

const devices: Device[] = [cpuDevice()];
const cl = openclDevice();
if (cl) devices.push(cl);
else console.log(`(OpenCL not available: ${openclUnavailableReason()})`);
const gpu = await webgpuDevice();
if (gpu) devices.push(gpu);
else console.log(`(WebGPU not available: ${webgpuUnavailableReason()})`);

function check(what: string, actual: ArrayLike<number>, expected: ArrayLike<number>, tolerance = 1e-6): void {
  const ok =
    actual.length === expected.length &&
    Array.from(expected).every((e, k) => Math.abs(actual[k] - e) <= tolerance * Math.max(1, Math.abs(e)));
  if (!ok)
    throw new Error(
      `${what}: got [${Array.from(actual).slice(0, 8)}...], expected [${Array.from(expected).slice(0, 8)}...]`,
    );
  console.log(`  ${what}: ok`);
}

const values = async (t: Tensor) => Array.from((await t.toArray()) as Float32Array);

// The payloads, and what decides each output's dtype (the seed's decorator arguments).
const abs = pointwise({ promotionMethods: [[0, 'COMPLEX_TO_FLOAT']] }, (x: number) => Math.abs(x));

const add = pointwise(
  { isTensor: [true, true, false], dtypes: [null, null, 'float'], promotionMethods: [[0, 1, 'DEFAULT']], name: 'add' },
  (x: number, y: number, alpha: number) => x + y * alpha,
);

const polar = pointwise(
  {
    promotionMethods: [
      [[0, 1], 'DEFAULT'],
      [[0, 1], 'DEFAULT'],
    ],
    numOutputs: 2,
    name: 'polar',
  },
  (magnitude: number, angle: number) => [magnitude * Math.cos(angle), magnitude * Math.sin(angle)],
);

const copy = pointwise({ promotionMethods: [[0, 'DEFAULT']], name: 'copy' }, (x: number) => x);

/** add_(A, B, alpha): A += alpha * B, in place. */
const add_ = (A: Tensor, B: Tensor, alpha = 1) => add(A, B, alpha, { out0: A });

/** flip(A, dims): a view of A with negative strides, copied by the rank-specialized kernel, no metadata. */
function flip(A: Tensor, dims: number[]): Promise<Tensor> {
  const out = empty(A.shape, { dtype: A.dtype, device: A.device });
  return copy.instantiate(A.ndim)(A.flip(...dims), { out0: out });
}

const rows = 128;
const cols = 256;
const aData = Float32Array.from({ length: rows * cols }, () => Math.random());
const bData = Float32Array.from({ length: cols }, () => Math.random());
const f32 = Math.fround;

for (const device of devices) {
  console.log(`\n=== ${device.name} ===`);
  const a = tensor(aData, [rows, cols], { device });
  const b = tensor(bData, [cols], { device });

  const z = tensor(
    [
      { re: 3, im: 4 },
      { re: 0, im: -1 },
      { re: -5, im: 12 },
    ],
    undefined,
    { device },
  );
  const magnitude = await abs(z);
  console.log(`  abs(complex64) is ${magnitude.dtype}`);
  check('abs', await values(magnitude), [5, 1, 13]);

  const c = await add(a, b, 0.2);
  check(
    'add(a, b, 0.2), b broadcast over rows',
    await values(c),
    Array.from(aData, (x, k) => f32(x + f32(bData[k % cols] * f32(0.2)))),
  );

  const [re, im] = await polar(a, b);
  check(
    'polar: real part',
    await values(re),
    Array.from(aData, (m, k) => m * Math.cos(bData[k % cols])),
    1e-5,
  );
  check(
    'polar: imaginary part',
    await values(im),
    Array.from(aData, (m, k) => m * Math.sin(bData[k % cols])),
    1e-5,
  );

  await add_(c, b, -0.2);
  check('add_(c, b, -0.2) undoes the add', await values(c), aData, 1e-5);

  const flipped = await flip(a, [0, 1]);
  check('flip(a, [0, 1])', await values(flipped), Array.from(aData).reverse());
}

// What ran: one kernel per task rank and dtypes, cached; this is the rank-2 add.
const plan = add.plan(tensor(aData, [rows, cols]), tensor(bData, [cols]), 0.2);
console.log(`\nadd over [${plan.shape}] runs a rank-${plan.rank} task space [${plan.taskShape}]:`);
console.log(plan.kernel.toString());
console.log(plan.code());
