/**
 * The other processes of the ports of FlagGems' test_libcache_vllm_signal_scenario and
 * test_libcache_concurrent_write_on_signal (test_libentry.py.test.ts): `compileAndWait()` runs the
 * pointwise function named FLAGGEMS_PORT_OPERATOR (`x * 2`) on the test device named by
 * FLAGGEMS_PORT_DEVICE, once per shape of FLAGGEMS_PORT_SHAPES (JSON), so that its kernels are
 * compiled into the device's cache ($LOOM_CACHE_DIR); prints one line of JSON — how many variants
 * it compiled and how many elements differed from plain JavaScript — and then waits, as FlagGems'
 * child sleeps, until a signal ends it.
 */
import { pointwise, tensor } from '@loom/elementwise';
import { sample } from '../../support/elementwise-reference.ts';

export interface ChildReport {
  readonly variants: number;
  readonly mismatches: number;
}

export async function compileAndWait(): Promise<void> {
  // the devices are made here, not when the parent imports this module for its types
  const { testDevices } = await import('../../support/devices.ts');
  const name = process.env.FLAGGEMS_PORT_DEVICE;
  const device = testDevices().find((d) => d.name === name);
  if (!device) throw new Error(`no test device named ${name} in this process`);
  const shapes = JSON.parse(process.env.FLAGGEMS_PORT_SHAPES ?? '[]') as number[][];
  const fn = pointwise(
    { name: process.env.FLAGGEMS_PORT_OPERATOR, promotionMethods: [[0, 'DEFAULT']] },
    (x: number) => x * 2,
  );
  let mismatches = 0;
  for (const [k, shape] of shapes.entries()) {
    const v = sample(
      'float32',
      shape.reduce((a, b) => a * b, 1),
      k + 1,
    );
    const out = await (await fn(tensor(Float32Array.from(v), shape, { device }))).toArray();
    v.forEach((x, i) => {
      if (out[i] !== x * 2) mismatches++;
    });
  }
  const report: ChildReport = { variants: fn.variants.size, mismatches };
  process.stdout.write(`${JSON.stringify(report)}\n`);
  // until a signal: the cache must already hold what this process compiled
  setInterval(() => {}, 100);
}
