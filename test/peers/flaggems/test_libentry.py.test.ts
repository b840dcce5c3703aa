/**
 * Ports of FlagGems' tests/test_libentry.py. FlagGems' LibEntry caches a Triton kernel per
 * argument signature (compiling it once, under a lock, whatever the threads), and LibTuner keys its
 * tuned configurations by `kernel_hash`, a hash of the kernel's source (its dependencies' included),
 * kept in an on-disk database (LibCache) that must survive the signals that stop vLLM's workers.
 * Loom's counterparts are the caches of a pointwise function: its variants (one kernel per kind of
 * call, compiled once per device however many calls are in flight), and below them the devices'
 * caches, keyed by the generated code — in memory on every device, and on disk on the C device
 * (`$LOOM_CACHE_DIR/c`, one library per code). So:
 *
 * - test_threadsafety: a hundred rounds of two calls in flight together (FlagGems' two threads) on
 *   every device, one compilation in all (a device that counts them: countingCompiles).
 * - test_hash_generation, test_hash_changes_when_dependency_modified: the generated code, which keys
 *   the caches, differs wherever FlagGems' hashes do (the name, the body, the inlined helper: a payload
 *   calls no function of its own), the same source gives the same code and the same compiled program,
 *   and each function is compiled once; every function runs on every device.
 * - test_libcache_vllm_signal_scenario, test_libcache_concurrent_write_on_signal: child processes
 *   compile into a fresh `$LOOM_CACHE_DIR` on the C device, the only one whose cache is on disk, and are
 *   stopped by SIGINT or SIGTERM once their kernels ran; the libraries they compiled are all there,
 *   whole, and a later process uses them.
 *
 * test_decorator_cascade, test_pass_kernel_arg_via_kw and test_kernel_arg_apply_default test how
 * LibEntry binds a Triton kernel's arguments (keywords, defaults, the constexprs of autotune and
 * heuristics decorators for the grid function): test/peers/NOT-PORTED.md says why they have no
 * counterpart.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { generateCode, type Device } from '@loom/core';
import { pointwise, type PointwiseFunction, type Tensor } from '@loom/elementwise';
import { countingCompiles, testDevices } from '../../support/devices.ts';
import { assertNumbers } from '../../support/elementwise-reference.ts';
import type { ChildReport } from './libcache-child.ts';
import { refusedNow } from '../../support/refusals.ts';
import { randn as exactRandn, valuesOf } from './support.ts';

const f32 = Math.fround;

/** FlagGems' torch.randn, in multiples of 1/64: the payloads' sums exact in any order (WebGPU may reassociate). */
const randn = (device: Device, shape: readonly number[], seed: number) => exactRandn(device, shape, seed, true);

// FlagGems' kernels of test_hash_generation: kernel_a and kernel_a_copy differ in their names only
function kernel_a(x: number, y: number) {
  return x + y + 1;
}
function kernel_b(x: number, y: number) {
  return x + y;
}
function kernel_a_copy(x: number, y: number) {
  return x + y + 1;
}

for (const device of testDevices()) {
  test(`${device.name}: test_libentry.py::test_threadsafety`, async () => {
    const { device: counted, compiles } = countingCompiles(device);
    // FlagGems' kernel is defined once and shared by the threads: one pointwise function
    const kernel = pointwise({ promotionMethods: [[0, 'DEFAULT']] }, (x: number) => x * 2 - 1);
    for (let round = 0; round < 100; round++) {
      // run_two_threads: two calls on one device, the second issued before the first is awaited
      const inputs = [0, 1].map((thread) => randn(counted, [4, 8, 16], 1000 + 2 * round + thread));
      const outs = await Promise.all(inputs.map((x) => kernel(x.t)));
      for (const [thread, out] of outs.entries())
        assertNumbers(
          await valuesOf(out),
          inputs[thread].v.map((x) => f32(x * 2 - 1)),
          `round ${round}, thread ${thread}`,
        );
    }
    assert.is(kernel.variants.size, 1, 'one variant');
    assert.is(compiles(), 1, 'compiled once, by the first of the calls in flight');
  });

  test(`${device.name}: test_libentry.py::test_hash_generation`, async () => {
    const { device: counted, compiles } = countingCompiles(device);
    const a = pointwise({}, kernel_a);
    const b = pointwise({}, kernel_b);
    const aCopy = pointwise({}, kernel_a_copy);
    const x = randn(counted, [64], 1);
    const y = randn(counted, [64], 2);
    const code = (f: PointwiseFunction<Tensor>) => f.plan(x.t, y.t).code();
    // the caches' key, the generated code, names the kernel after its function, and holds its body
    assert.is.not(code(a), code(aCopy), 'kernel_a and kernel_a_copy');
    assert.is.not(code(a), code(b), 'kernel_a and kernel_b');
    assert.ok(code(aCopy).includes('kernel_a_copy'));
    const references = [
      [a, (p: number, q: number) => f32(f32(p + q) + 1)],
      [b, (p: number, q: number) => f32(p + q)],
      [aCopy, (p: number, q: number) => f32(f32(p + q) + 1)],
    ] as const;
    for (const [f, reference] of references) {
      assertNumbers(
        await valuesOf(await f(x.t, y.t)),
        x.v.map((p, k) => reference(p, y.v[k])),
        f.payload.name,
      );
    }
    assert.is(compiles(), 3, 'each compiled once');
    await a(y.t, x.t);
    assert.is(compiles(), 3, 'kernel_a again: no compilation');
    // kernel_a's source again, in a function of its own: the same code, which the device compiled already
    const again = pointwise({}, kernel_a);
    assert.is(code(again), code(a));
    const [compiledA, compiledAgain, compiledCopy] = await Promise.all(
      [a, again, aCopy].map((f) => device.compile(generateCode(f.plan(x.t, y.t).kernel, device.target))),
    );
    assert.is(compiledAgain, compiledA, 'the same program');
    assert.is.not(compiledCopy, compiledA, "kernel_a_copy's own program");
  });

  test(`${device.name}: test_libentry.py::test_hash_changes_when_dependency_modified`, async () => {
    const { device: counted, compiles } = countingCompiles(device);
    // FlagGems' main_kernel calls sub_func; a payload calls no function of its own, so a change to one
    // could not go unseen: the call is refused, and the helper is written into the payload
    const sub_func = (x: number, y: number) => x + y;
    refusedNow(
      () => pointwise({ name: 'main_kernel' }, (x: number, y: number) => sub_func(x, y) * 2),
      /cannot call 'sub_func' in a payload/,
    );
    const versions = [
      {
        main: pointwise({ name: 'main_kernel' }, (x: number, y: number) => {
          const sub = x + y;
          return sub * 2;
        }),
        reference: (x: number, y: number) => f32(f32(x + y) * 2),
      },
      {
        // sub_func modified: x + y + 1
        main: pointwise({ name: 'main_kernel' }, (x: number, y: number) => {
          const sub = x + y + 1;
          return sub * 2;
        }),
        reference: (x: number, y: number) => f32(f32(f32(x + y) + 1) * 2),
      },
      {
        // sub_func(x, y, z=0): x + y + z
        main: pointwise({ name: 'main_kernel' }, (x: number, y: number) => {
          const z = 0;
          const sub = x + y + z;
          return sub * 2;
        }),
        reference: (x: number, y: number) => f32(f32(f32(x + y) + 0) * 2),
      },
    ];
    const x = randn(counted, [64], 3);
    const y = randn(counted, [64], 4);
    const codes = versions.map((v) => v.main.plan(x.t, y.t).code());
    assert.is.not(codes[1], codes[0], 'sub_func modified');
    assert.is.not(codes[2], codes[1], 'sub_func with a third argument');
    for (const [k, { main, reference }] of versions.entries()) {
      assertNumbers(
        await valuesOf(await main(x.t, y.t)),
        x.v.map((p, i) => reference(p, y.v[i])),
        `version ${k + 1}`,
      );
    }
    assert.is(compiles(), versions.length, 'each version compiled, none taken for another');
  });
}

// -- the on-disk cache and the signals that stop its processes ------------------------------------

/** The C device: the one whose compiled kernels are kept on disk, by their code. */
const cDevice = testDevices().find((d) => d.target.name === 'c');

/** A child process running libcache-child.ts's compileAndWait on `device`, into the cache folder `cache`. */
interface Child {
  /** Its report, once its kernels ran (rejected if it ends first, or takes more than a minute). */
  readonly ready: Promise<ChildReport>;
  /** Sends `signal` and resolves with the signal that ended it. */
  stop(signal: NodeJS.Signals): Promise<NodeJS.Signals | null>;
  /** Kills it if it still runs (cleanup). */
  kill(): void;
}

function startChild(device: Device, cache: string, operator: string, shapes: readonly number[][]): Child {
  const module = new URL('./libcache-child.ts', import.meta.url).href;
  const code = `import { compileAndWait } from ${JSON.stringify(module)}; await compileAndWait();`;
  // the child makes the C device only, and requires it (CI=true would require all the others too)
  const { CI: _, ...env } = process.env;
  const child = spawn(
    process.execPath,
    ['--conditions=loom-source', '--import', 'tsx', '--input-type=module', '-e', code],
    {
      cwd: fileURLToPath(new URL('../../..', import.meta.url)),
      env: {
        ...env,
        LOOM_BACKENDS: 'c',
        LOOM_REQUIRE: 'c',
        LOOM_CACHE_DIR: cache,
        FLAGGEMS_PORT_DEVICE: device.name,
        FLAGGEMS_PORT_OPERATOR: operator,
        FLAGGEMS_PORT_SHAPES: JSON.stringify(shapes),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
  const ready = new Promise<ChildReport>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${operator}: no report after 60 s\n${stderr}`)), 60_000);
    let stdout = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
      const end = stdout.indexOf('\n');
      if (end < 0) return;
      clearTimeout(timer);
      resolve(JSON.parse(stdout.slice(0, end)) as ChildReport);
    });
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`${operator}: the process ended (${code ?? signal}) before its report\n${stderr}`));
    });
  });
  return {
    ready,
    stop: (signal) => {
      child.kill(signal);
      return exited;
    },
    kill: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    },
  };
}

/** The files of the C device's cache folder in `cache`, with when each was last written. */
function cacheFiles(cache: string): Map<string, number> {
  const folder = path.join(cache, 'c');
  return new Map(readdirSync(folder).map((name) => [name, statSync(path.join(folder, name)).mtimeMs]));
}

if (cDevice) {
  test(`${cDevice.name}: test_libentry.py::test_libcache_vllm_signal_scenario`, async () => {
    const cache = mkdtempSync(path.join(tmpdir(), 'loom-flaggems-libcache-'));
    const children: Child[] = [];
    try {
      // FlagGems' child stores configurations for two keys, (128, 256) and (256, 512) in float32
      const shapes = [
        [128, 256],
        [256, 512],
      ];
      const child = startChild(cDevice, cache, 'test_vllm_operator', shapes);
      children.push(child);
      const report = await child.ready;
      assert.is(report.mismatches, 0, 'x * 2 in the child');
      assert.is(report.variants, 1, 'both shapes are one variant: new shapes generate no code');
      assert.is(await child.stop('SIGINT'), 'SIGINT', 'stopped by the signal');
      // what it compiled is on disk, each library whole (a partial one would sit under a temporary name)
      const saved = cacheFiles(cache);
      assert.is(saved.size, report.variants, `the cache holds ${[...saved.keys()].join(', ')}`);
      assert.ok([...saved.keys()].every((name) => name.endsWith('.so')));
      // and a later process runs from it, compiling and writing nothing
      const later = startChild(cDevice, cache, 'test_vllm_operator', shapes);
      children.push(later);
      assert.is((await later.ready).mismatches, 0, 'x * 2 in the later process');
      assert.is(await later.stop('SIGINT'), 'SIGINT');
      assert.equal(cacheFiles(cache), saved, 'the cache is unchanged');
    } finally {
      for (const child of children) child.kill();
      rmSync(cache, { recursive: true, force: true });
    }
  });

  test(`${cDevice.name}: test_libentry.py::test_libcache_concurrent_write_on_signal`, async () => {
    // FlagGems' 10 processes are 4 here: each Node process takes about a second of CPU to start (CI has 2 cores)
    const NUM_PROCESSES = 4;
    const cache = mkdtempSync(path.join(tmpdir(), 'loom-flaggems-libcache-'));
    const children: Child[] = [];
    try {
      // every process its own operator (FlagGems: its own key), compiled into the one cache at once
      for (let k = 0; k < NUM_PROCESSES; k++) children.push(startChild(cDevice, cache, `key_from_proc_${k}`, [[128]]));
      const reports = await Promise.all(children.map((c) => c.ready));
      assert.ok(
        reports.every((r) => r.mismatches === 0),
        'x * 2 in every process',
      );
      const signals = await Promise.all(children.map((c) => c.stop('SIGTERM')));
      assert.ok(
        signals.every((s) => s === 'SIGTERM'),
        `stopped by the signal: ${signals.join(', ')}`,
      );
      const saved = cacheFiles(cache);
      const compiled = reports.reduce((n, r) => n + r.variants, 0);
      assert.is(compiled, NUM_PROCESSES);
      assert.is(saved.size, compiled, `the cache holds ${[...saved.keys()].join(', ')}`);
      assert.ok([...saved.keys()].every((name) => name.endsWith('.so')));
    } finally {
      for (const child of children) child.kill();
      rmSync(cache, { recursive: true, force: true });
    }
  });
}

test.run();
