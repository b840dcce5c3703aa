/**
 * Ports of FlagGems' tests/test_pointwise_dynamic.py, its concurrent calls: many calls in flight
 * together in one process, and calls in several processes at once sharing a cache folder, on every
 * test device, each element checked against plain JavaScript.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { test } from 'uvu';
import type { Device } from '@loom/core';
import { tensor } from '@loom/elementwise';
import { testDevices } from '../../support/devices.ts';
import { assertNumbers } from '../../support/elementwise-reference.ts';
import { AXPY_INPUT_SIZE, axpyInputs } from './concurrency-child.ts';
import { makeAxpy, valuesOf } from './support.ts';

const f32 = Math.fround;

for (const device of testDevices()) {
  const on = { device };

  // -- concurrency ------------------------------------------------------------------------------

  test(`${device.name}: test_pointwise_dynamic.py::test_dynamic_function_with_multithread`, async () => {
    // FlagGems' f_for_concurrency_test: a new function per call, y zeros, alpha 2. JavaScript's calls run in one
    // thread; all 32 are issued before any is awaited, so they are in flight on the device's queues together
    const inputs = axpyInputs(Array.from({ length: 32 }, (_, k) => 500 + k));
    const outs = inputs.map((v) => {
      const x = tensor(Float32Array.from(v), undefined, on);
      return makeAxpy()(x, tensor(new Float32Array(AXPY_INPUT_SIZE), undefined, on), 2.0);
    });
    const results = await Promise.all(outs);
    for (const [k, out] of results.entries())
      assertNumbers(
        await valuesOf(out),
        inputs[k].map((x) => f32(2 * x)),
        `input ${k}`,
      );
  });

  test(`${device.name}: test_pointwise_dynamic.py::test_dynamic_function_with_multiprocess`, async () => {
    // four processes at once, each with its own device of this kind, eight inputs each (FlagGems: 32 over 8
    // workers); they share a fresh cache folder, so that the C device's processes compile the same kernel at once
    const cache = mkdtempSync(path.join(tmpdir(), 'loom-flaggems-'));
    try {
      const seeds = Array.from({ length: 4 }, (_, p) => Array.from({ length: 8 }, (_, k) => 600 + 8 * p + k));
      const results = await Promise.all(seeds.map((s) => axpyInChild(device, s, cache)));
      for (const [p, outs] of results.entries()) {
        const inputs = axpyInputs(seeds[p]);
        outs.forEach((out, k) => {
          assertNumbers(
            out,
            inputs[k].map((x) => f32(2 * x)),
            `process ${p}, input ${k}`,
          );
        });
      }
    } finally {
      rmSync(cache, { recursive: true, force: true });
    }
  });
}

/** The test backends by their targets' names (test/support/backends.ts). */
const BACKENDS: Record<string, string> = { js: 'cpu', opencl: 'opencl', wgsl: 'webgpu', c: 'c', cuda: 'cuda' };

/** The child process of the multiprocess test: `axpyInThisProcess` of concurrency-child.ts on a device like `device`. */
async function axpyInChild(device: Device, seeds: readonly number[], cache: string): Promise<number[][]> {
  const module = new URL('./concurrency-child.ts', import.meta.url).href;
  const code = `import { axpyInThisProcess } from ${JSON.stringify(module)}; await axpyInThisProcess(); process.exit(0);`;
  // the child makes this device's backend only, and requires it (CI=true would require all the others too)
  const backend = BACKENDS[device.target.name];
  const { CI: _, ...env } = process.env;
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--conditions=loom-source', '--import', 'tsx', '--input-type=module', '-e', code],
    {
      cwd: fileURLToPath(new URL('../../..', import.meta.url)),
      env: {
        ...env,
        LOOM_BACKENDS: backend,
        LOOM_REQUIRE: backend,
        LOOM_CACHE_DIR: cache,
        FLAGGEMS_PORT_DEVICE: device.name,
        FLAGGEMS_PORT_SEEDS: seeds.join(','),
      },
      maxBuffer: 1 << 24,
    },
  );
  const lines = stdout.trim().split('\n');
  return JSON.parse(lines[lines.length - 1]) as number[][];
}

test.run();
