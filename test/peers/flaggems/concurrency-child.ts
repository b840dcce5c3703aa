/**
 * The other processes of the port of FlagGems' test_dynamic_function_with_multiprocess
 * (test_pointwise_dynamic.py.concurrency.test.ts): `axpyInThisProcess()` runs FlagGems' f_for_concurrency_test
 * — a new `alpha * x + y` function per input, y zeros, alpha 2 — on the test device named by
 * FLAGGEMS_PORT_DEVICE, over the inputs of the seeds in FLAGGEMS_PORT_SEEDS, and prints the outputs
 * as one line of JSON for the parent to check.
 */
import { pointwise, tensor } from '@loom/elementwise';
import { sample } from '../../support/elementwise-reference.ts';

/** FlagGems' inputs are of shape [128]. */
export const AXPY_INPUT_SIZE = 128;

/** One input per seed: float32 values in [-2, 2) (FlagGems' torch.randn). */
export function axpyInputs(seeds: readonly number[]): number[][] {
  return seeds.map((seed) => sample('float32', AXPY_INPUT_SIZE, seed));
}

export async function axpyInThisProcess(): Promise<void> {
  // the devices are made here, not when the parent imports this module for axpyInputs
  const { testDevices } = await import('../../support/devices.ts');
  const name = process.env.FLAGGEMS_PORT_DEVICE;
  const device = testDevices().find((d) => d.name === name);
  if (!device) throw new Error(`no test device named ${name} in this process`);
  const seeds = (process.env.FLAGGEMS_PORT_SEEDS ?? '').split(',').map(Number);
  const outs = axpyInputs(seeds).map((v) => {
    const axpy = pointwise(
      { isTensor: [true, true, false], promotionMethods: [[0, 1, 'DEFAULT']] },
      (x: number, y: number, alpha: number) => alpha * x + y,
    );
    const x = tensor(Float32Array.from(v), undefined, { device });
    return axpy(x, tensor(new Float32Array(AXPY_INPUT_SIZE), undefined, { device }), 2.0);
  });
  const results = await Promise.all(outs.map(async (out) => Array.from(await (await out).toArray(), Number)));
  process.stdout.write(`${JSON.stringify(results)}\n`);
}
