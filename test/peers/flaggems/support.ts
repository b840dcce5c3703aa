/**
 * What the ports of FlagGems' tests share: FlagGems' `torch.randn` inputs as float32 tensors with
 * their values, the values of a view as PyTorch reads it, and a tensor's values as numbers; and
 * for test_pointwise_dynamic.py, its functions as payloads and the kernel shapes a call may get.
 */
import * as assert from 'uvu/assert';
import { targetFacts, type Device } from '@loom/core';
import { pointwise, type Tensor, tensor } from '@loom/elementwise';
import { indices, numbers, sample } from '../../support/elementwise-reference.ts';

const f32 = Math.fround;

/**
 * FlagGems' torch.randn: `n` deterministic float32 values in [-2, 2). `exact`: multiples of 1/64, so
 * that a payload's sums are exact in whatever order a device adds them (WebGPU may reassociate).
 */
export function randnValues(n: number, seed: number, exact = false): number[] {
  const v = sample('float32', n, seed);
  return exact ? v.map((x) => Math.round(x * 64) / 64) : v;
}

/** A float32 tensor of `shape`, row-major, with `randnValues`, and those values. */
export function randn(
  device: Device,
  shape: readonly number[],
  seed: number,
  exact = false,
): { t: Tensor; v: number[] } {
  const v = randnValues(
    shape.reduce((a, b) => a * b, 1),
    seed,
    exact,
  );
  return { t: tensor(Float32Array.from(v), [...shape], { device }), v };
}

/** The elements of the view `t`, in row-major order, of a storage holding `storage` (as PyTorch reads a view). */
export function viewed(storage: readonly number[], t: Tensor): number[] {
  return Array.from(indices(t.shape), (index) => storage[index.reduce((at, i, d) => at + i * t.strides[d], t.offset)]);
}

/** A tensor's elements as numbers, row-major. */
export async function valuesOf(t: Tensor): Promise<number[]> {
  return numbers(await t.toArray(), t.dtype);
}

/** Whether the device's work-items run side by side (OpenCL, WebGPU): only there are calls given vector4 or tiled kernels. */
export const sideBySide = (device: Device) => !targetFacts(device.target).sequentialWorkItems;

/** Asserts the kernel shapes a test's calls got: `expected` where work-items run side by side, else flat only. */
export function assertVariants(device: Device, seen: Iterable<string>, expected: string[]): void {
  assert.equal([...new Set(seen)].sort(), sideBySide(device) ? [...expected].sort() : ['flat'], 'kernel shapes');
}

// FlagGems' functions of test_pointwise_dynamic.py, as payloads

/** alpha * x + y in float32, as the devices compute it (2 * x is exact, so a fused multiply-add agrees). */
export const axpyRef = (alpha: number) => (x: number, y: number) => f32(f32(alpha * x) + y);
/** alpha * x - y in float32. */
export const axmyRef = (alpha: number) => (x: number, y: number) => f32(f32(alpha * x) - y);

/** x + y. */
export const makeAdd = (options: { blockSize?: number } = {}) =>
  pointwise({ promotionMethods: [[0, 1, 'DEFAULT']], ...options }, (x: number, y: number) => x + y);

/** alpha * x + y, alpha a scalar. */
export const makeAxpy = () =>
  pointwise(
    { isTensor: [true, true, false], promotionMethods: [[0, 1, 'DEFAULT']] },
    (x: number, y: number, alpha: number) => alpha * x + y,
  );

/** alpha * x + y and alpha * x - y, two outputs. */
export const makeAxpyAxmy = () =>
  pointwise(
    {
      isTensor: [true, true, false],
      numOutputs: 2,
      promotionMethods: [
        [0, 1, 'DEFAULT'],
        [0, 1, 'DEFAULT'],
      ],
    },
    (x: number, y: number, alpha: number) => [alpha * x + y, alpha * x - y],
  );
