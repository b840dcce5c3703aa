/**
 * Device profiles kept as files (`@loom/dsl/profiles`): written and read back, found by a
 * device's name or a part of it, used by `estimateTime`, by `loom stats --profile <name>` and
 * by `loom stats --device` on a device of that very name (instead of measuring it).
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { addDtypes, estimateTime, LoomError, makeKernel, splitIname, type DeviceProfile } from '@loom/core';
import {
  committedProfiles,
  deviceProfile,
  profileFileName,
  profilesDir,
  readProfile,
  writeProfile,
} from '@loom/dsl/profiles';
import { loom } from './support/cli.ts';

const h100: DeviceProfile = {
  device: 'OpenCL: paper H100 (paper CUDA)',
  bandwidth: 3.0e12,
  flopRate: 5.0e13,
  launchOverhead: 8e-6,
};
const other: DeviceProfile = {
  device: 'WebGPU: paper-h100 (paper driver 1.2)',
  bandwidth: 2.5e12,
  flopRate: 4.0e13,
  launchOverhead: 2e-5,
};

/** A scratch directory, removed afterwards. */
function inScratch(f: (dir: string) => void | Promise<void>): () => Promise<void> {
  return async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'loom-profiles-'));
    try {
      await f(dir);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
}

/** With an environment variable set for the duration of `f`. */
async function withEnv(name: string, value: string, f: () => Promise<void>): Promise<void> {
  const previous = process.env[name];
  process.env[name] = value;
  try {
    await f();
  } finally {
    if (previous === undefined) delete process.env[name];
    else process.env[name] = previous;
  }
}

test(
  'a written profile reads back as it was, its notes aside, in a file named after the device',
  inScratch((dir) => {
    const file = writeProfile(h100, { backend: 'opencl', measured: '2026-11-24' }, dir);
    assert.is(path.basename(file), 'opencl-paper-h100-paper-cuda.json');
    assert.is(
      profileFileName('WebGPU: nvidia-h100-80gb-hbm3 (NVIDIA: 580.159.04)'),
      'webgpu-nvidia-h100-80gb-hbm3-nvidia-580-159-04.json',
    );
    assert.equal(readProfile(file), h100);
    writeProfile(other, {}, dir);
    assert.equal(
      committedProfiles(dir).map((p) => p.profile),
      [h100, other],
    );
  }),
);

test(
  'deviceProfile: a file, a device name, or the only name that contains the words given',
  inScratch((dir) => {
    writeProfile(h100, {}, dir);
    writeProfile(other, {}, dir);
    assert.equal(deviceProfile(h100.device, dir), h100);
    assert.equal(deviceProfile('opencl: PAPER h100', dir), h100);
    assert.equal(deviceProfile('paper-h100', dir), other);
    const file = path.join(dir, 'mine.json');
    writeFileSync(file, JSON.stringify({ ...other, device: 'mine' }));
    assert.equal(deviceProfile(file, dir), { ...other, device: 'mine' });
    const refused = (name: string, message: RegExp) =>
      assert.throws(
        () => deviceProfile(name, dir),
        (e: unknown) => e instanceof LoomError && message.test((e as Error).message),
        name,
      );
    refused(
      'paper',
      /the profile 'paper' is ambiguous: 'OpenCL: paper H100 \(paper CUDA\)', 'WebGPU: paper-h100 \(paper driver 1.2\)' match it/,
    );
    refused(
      'A100',
      /cannot read the profile A100: it is no file, and no committed profile's device is called so \(committed in .*'OpenCL: paper H100 \(paper CUDA\)'/,
    );
  }),
);

test(
  'a profile that could not be read back is not written',
  inScratch((dir) => {
    assert.throws(
      () => writeProfile({ ...h100, bandwidth: 0 }, {}, dir),
      (e: unknown) => e instanceof LoomError && /is not a device profile/.test((e as Error).message),
    );
    assert.equal(readdirSync(dir), []);
  }),
);

test(
  'estimateTime with a profile found by name is estimateTime with that profile',
  inScratch((dir) => {
    writeProfile(h100, {}, dir);
    const add = addDtypes(
      splitIname(makeKernel('{ [i]: 0<=i<n }', 'out[i] = x[i] + y[i]'), 'i', 256, { outerTag: 'g.0', innerTag: 'l.0' }),
      { x: 'float32', y: 'float32' },
    );
    const n = 1 << 26;
    const e = estimateTime(add, deviceProfile('paper H100', dir), { n });
    assert.equal(e, estimateTime(add, h100, { n }));
    assert.is(e.seconds, 8e-6 + (12 * n) / 3.0e12);
  }),
);

test(
  'loom stats --profile <device name>: the committed profile of that device',
  inScratch(async (dir) => {
    writeProfile(h100, {}, dir);
    await withEnv('LOOM_PROFILES_DIR', dir, async () => {
      const { code, stdout } = await loom(
        'stats',
        path.join(import.meta.dirname, '../examples/statistics.ts'),
        '--params',
        'n=256,m=256,l=8',
        '--profile',
        'paper H100',
      );
      assert.is(code, 0);
      assert.match(stdout, 'estimate on OpenCL: paper H100 (paper CUDA) at n=256, m=256, l=8:');
    });
  }),
);

test(
  'loom stats --device: a committed profile of a device of that name is used, not measured',
  inScratch(async (dir) => {
    const cache = path.join(dir, 'cache');
    writeProfile({ ...h100, device: 'CPU (generated JavaScript)' }, {}, path.join(dir, 'profiles'));
    await withEnv('LOOM_PROFILES_DIR', path.join(dir, 'profiles'), () =>
      withEnv('LOOM_CACHE_DIR', cache, async () => {
        const { code, stdout } = await loom(
          'stats',
          path.join(import.meta.dirname, '../examples/statistics.ts'),
          '--params',
          'n=16,m=16,l=2',
          '--device',
          'cpu',
        );
        assert.is(code, 0);
        assert.match(
          stdout,
          /^CPU \(generated JavaScript\): profile committed with Loom: 3\.00e12 B\/s, 5\.00e13 flop\/s, launch 8\.00e-6 s/,
        );
        assert.not.ok(existsSync(path.join(cache, 'device-profiles.json')), 'nothing measured, nothing cached');
      }),
    );
  }),
);

test(
  "loom stats --measured: a roofline run's kernels on the profile's device, printed and plotted",
  inScratch(async (dir) => {
    const line = (device: string, kernel: string, predictedMs: number, measuredMs: number) =>
      JSON.stringify({
        bench: 'roofline',
        backend: 'opencl',
        case: kernel,
        size: 4096,
        value: measuredMs,
        unit: 'ms',
        device,
        details: {
          predictedMs,
          measuredMs,
          intensity: 341.3,
          bound: 'compute',
          flops: 2 * 4096 ** 3,
          bytes: 12 * 4096 ** 2,
          computeMs: predictedMs,
          memoryMs: 0.07,
          launchMs: 0.008,
        },
      });
    const run = path.join(dir, 'run.jsonl');
    writeFileSync(
      run,
      [
        JSON.stringify({ info: 'device-profile', device: h100.device }),
        line(h100.device, 'sgemm (tuned)', 2.75, 4.5),
        line(other.device, 'sgemm (tuned)', 3.4, 5.3),
        '{"bench": "roofl',
      ].join('\n'),
    );
    const profile = path.join(dir, 'h100.json');
    writeFileSync(profile, JSON.stringify(h100));
    const plot = path.join(dir, 'roofline.svg');
    const { code, stdout } = await loom('stats', '--profile', profile, '--measured', run, '--plot', plot);
    assert.is(code, 0);
    assert.match(
      stdout,
      `sgemm (tuned) (4096), from ${run}: predicted 0.00275 s, measured 0.00450 s (predicted/measured 0.611), compute bound`,
    );
    assert.not.match(stdout, '0.00530');
    const svg = readFileSync(plot, 'utf8');
    assert.match(svg, '>sgemm (tuned) (4096)</text>');
    assert.match(svg, /<circle [^>]*fill="#36c"><title>sgemm \(tuned\) \(4096\): measured 3\.05e13 flop\/s<\/title>/);

    const elsewhere = await loom('stats', '--profile', profile, '--measured', path.join(dir, 'nothing.jsonl'));
    assert.is(elsewhere.code, 2);
    assert.match(elsewhere.stderr, /^loom stats: cannot read the run .*nothing\.jsonl/);
    writeFileSync(profile, JSON.stringify({ ...h100, device: 'A100' }));
    const wrong = await loom('stats', '--profile', profile, '--measured', run);
    assert.is(wrong.code, 2);
    assert.match(
      wrong.stderr,
      `has no roofline measurement on 'A100' (it has: 'OpenCL: paper H100 (paper CUDA)', 'WebGPU: paper-h100 (paper driver 1.2)')`,
    );
    const usage = await loom('stats', '--measured', run);
    assert.is(usage.code, 2);
    assert.match(usage.stderr, "--measured needs the profile of the run's device");
  }),
);

test('the committed profiles directory is where the package says, and what it holds reads back', () => {
  const dir = profilesDir();
  assert.ok(existsSync(path.join(dir, 'README.md')), dir);
  for (const { file, profile } of committedProfiles()) {
    assert.ok(profile.bandwidth > 0 && profile.flopRate > 0 && profile.launchOverhead >= 0, file);
    assert.is(path.basename(file), profileFileName(profile.device));
  }
});

test.run();
