/**
 * `loom tune --auto FILE`: the command line's face of `autoSchedule`. It prints, for each kernel the
 * file exports, the script of builder calls that makes the scheduled kernel; pasted after the kernel
 * as written, the script runs and computes what the kernel computes. On the CPU device only (the
 * command loads a TypeScript file, which the GPU machine's bundles cannot: auto-schedule.test.ts
 * covers the search on every device).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cpuDevice } from '@loom/codegen-js';
import { scale } from './support/auto-schedule-fixture.ts';
import { loom } from './support/cli.ts';
import { randomFloat32 } from './support/devices.ts';

const cpu = cpuDevice();
const applyScript = <B>(b: B, script: string): B => new Function('k', `return k${script}`)(b) as B;

test('loom tune --auto prints the script of each kernel the file exports; pasted, it runs right', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'loom-auto-'));
  const before = process.env.LOOM_CACHE_DIR;
  process.env.LOOM_CACHE_DIR = dir;
  try {
    const fixture = path.join(path.dirname(fileURLToPath(import.meta.url)), 'support/auto-schedule-fixture.ts');
    const { code, stdout, stderr } = await loom(
      'tune',
      '--auto',
      fixture,
      '--device',
      'cpu',
      '--params',
      'n=300',
      '--budget',
      '1',
    );
    assert.is(code, 0, stderr);
    assert.match(stderr, /measure\s+\[/);
    assert.match(stderr, /scale on CPU/);
    const script = stdout
      .split('\n')
      .filter((line) => line.startsWith('.'))
      .join('\n');
    assert.match(stdout, /^\/\/ scale, auto-scheduled for CPU/);
    const input = randomFloat32(300, 9);
    const { out } = await applyScript(scale, script).run(cpu, { a: input, n: 300 } as never);
    input.forEach((v, k) => assert.is((out as Float32Array)[k], 2 * v));
    const usage = await loom('tune', fixture, '--params', 'n=3');
    assert.is(usage.code, 2);
    assert.match(usage.stderr, /--params goes with --auto/);
  } finally {
    if (before === undefined) delete process.env.LOOM_CACHE_DIR;
    else process.env.LOOM_CACHE_DIR = before;
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
