/**
 * `autotune`: the fastest configuration of a tuning problem whose results are right, found
 * within a budget, with progress reports and a cache; and `loom tune`, which runs the
 * problems a file exports and keeps the best on disk.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  autotune,
  defineTuning,
  DeviceArray,
  isTuningProblem,
  LoomError,
  makeKernel,
  memoryTuningCache,
  splitIname,
  type TuningProgress,
} from '@loom/core';
import { fileTuningCache } from '@loom/dsl/tune';
import { loom } from './support/cli.ts';
import { testDevices } from './support/devices.ts';
import { scaleTuning, type ScaleConfig } from './support/tuning-fixture.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const fixture = path.join(here, 'support/tuning-fixture.ts');
const protoFixture = path.join(here, 'support/tuning-fixture-proto.ts');
const bin = path.join(here, '../packages/dsl/bin/loom.mjs');

for (const device of testDevices()) {
  test(`${device.name}: the best is a configuration that ran and was right; the flawed ones failed with their reason`, async () => {
    const reports: TuningProgress<ScaleConfig>[] = [];
    const result = await autotune(scaleTuning, device, { onProgress: (p) => reports.push(p) });
    assert.is(result.fromCache, false);
    assert.is(result.trials.length, 4);
    assert.ok(result.best.flaw === undefined, JSON.stringify(result.best));
    assert.ok(result.seconds > 0);
    const byFlaw = (flaw?: string) => result.trials.find((t) => t.config.flaw === flaw)!;
    assert.match(byFlaw('wrong').failure ?? '', /^wrong result: out\[\d+\] is/);
    // without restoring the arrays, 'silent' would pass on the output of the configuration before it
    assert.match(byFlaw('silent').failure ?? '', /^wrong result/);
    const ran = result.trials.filter((t) => t.seconds !== undefined);
    assert.is(ran.length, 2);
    assert.is(result.seconds, Math.min(...ran.map((t) => t.seconds!)));
    assert.equal(
      reports.map((r) => [r.done, r.total]),
      [
        [1, 4],
        [2, 4],
        [3, 4],
        [4, 4],
      ],
    );
    assert.is(reports[3]!.best!.seconds, result.seconds);
  });

  test(`${device.name}: a configuration the device refuses is a failed trial, not an error`, async () => {
    // work-groups of twice the device's most, over a range long enough to fill them (over the
    // fixture's 4096 elements a group is only as large as the range, which the device takes)
    const tooLarge = device.limits.maxWorkGroupSize * 2;
    const length = 2 * tooLarge;
    const input = Float32Array.from({ length }, (_, k) => k % 7);
    const problem = defineTuning<ScaleConfig>({
      name: 'too large',
      space: [{ group: tooLarge }, { group: 32 }],
      work: { amount: length, unit: 'element' },
      build: ({ group }) =>
        splitIname(makeKernel(`{ [i]: 0<=i<${length} }`, 'out[i] = 2*a[i]', undefined, { name: 'scale' }), 'i', group, {
          outerTag: 'g.0',
          innerTag: 'l.0',
        }),
      arguments: async (d) => ({
        a: await DeviceArray.from(d, input, 'float32', [length]),
        out: await DeviceArray.from(d, new Float32Array(length), 'float32', [length]),
      }),
      check: async (args) => {
        const out = (await (args.out as DeviceArray).toHost()) as Float32Array;
        return out.every((v, k) => v === 2 * input[k]!) ? undefined : 'wrong';
      },
    });
    const result = await autotune(problem, device);
    assert.match(result.trials[0]!.failure ?? '', /work-group/, 'the oversized work-group failed');
    assert.equal(result.best, { group: 32 });
  });

  test(`${device.name}: a cache answers a second search; fresh measures again; a stale entry is ignored`, async () => {
    const cache = memoryTuningCache();
    const first = await autotune(scaleTuning, device, { cache });
    const second = await autotune(scaleTuning, device, { cache });
    assert.equal(
      [second.fromCache, second.trials.length, second.best, second.seconds],
      [true, 0, first.best, first.seconds],
    );
    const fresh = await autotune(scaleTuning, device, { cache, fresh: true });
    assert.equal([fresh.fromCache, fresh.trials.length], [false, 4]);
    cache.set(scaleTuning.name, device.name, {
      config: { group: 999 },
      seconds: 1e-9,
      tried: 1,
      measuredAt: '2026-01-01T00:00:00Z',
    });
    const afterStale = await autotune(scaleTuning, device, { cache });
    assert.is(afterStale.fromCache, false);
  });
}

test('the budget ends the search after the trial that crossed it; the first trial always runs', async () => {
  const [device] = testDevices();
  const result = await autotune(scaleTuning, device!, { budgetSeconds: 0 });
  assert.is(result.trials.length, 1);
});

test('when nothing runs, the error lists why; an empty space is refused when defined', async () => {
  const [device] = testDevices();
  const problem = defineTuning<ScaleConfig>({
    ...scaleTuning,
    name: 'all flawed',
    space: [{ group: 32, flaw: 'wrong' }],
  });
  try {
    await autotune(problem, device!);
    assert.unreachable('no configuration ran');
  } catch (e) {
    assert.instance(e, LoomError);
    assert.match((e as Error).message, "tuning 'all flawed'");
    assert.match((e as Error).message, 'wrong result');
  }
  assert.throws(() => defineTuning({ ...scaleTuning, space: [] }), /its space has no configuration/);
  assert.ok(isTuningProblem(scaleTuning));
  assert.not.ok(isTuningProblem({ name: 'x', space: [1] }), 'a look-alike is not a tuning problem');
});

test('loom tune: searches the problems a file exports, keeps the best on disk, answers from there next time', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'loom-tune-'));
  const before = process.env.LOOM_CACHE_DIR;
  process.env.LOOM_CACHE_DIR = dir;
  try {
    const first = await loom('tune', fixture, '--device', 'cpu', '--budget', '30');
    assert.is(first.code, 0, first.stderr);
    const line = JSON.parse(first.stdout.trim()) as { problem: string; config: ScaleConfig; seconds: number };
    assert.is(line.problem, 'scale by 2');
    assert.ok(line.config.flaw === undefined);
    assert.match(first.stderr, '2/4 {"group":32,"flaw":"wrong"}: failed: wrong result');
    const kept = JSON.parse(readFileSync(path.join(dir, 'autotune.json'), 'utf8')) as Record<
      string,
      Record<string, { config: unknown }>
    >;
    assert.equal(Object.values(kept['scale by 2']!)[0]!.config, line.config);
    assert.equal(
      (await fileTuningCache(path.join(dir, 'autotune.json')).get('scale by 2', Object.keys(kept['scale by 2']!)[0]!))
        ?.config,
      line.config,
    );

    const second = await loom('tune', fixture, '--device', 'cpu');
    assert.is(second.code, 0);
    assert.match(second.stderr, 'from the cache');
    assert.equal((JSON.parse(second.stdout.trim()) as { config: unknown }).config, line.config);
  } finally {
    if (before === undefined) delete process.env.LOOM_CACHE_DIR;
    else process.env.LOOM_CACHE_DIR = before;
    rmSync(dir, { recursive: true, force: true });
  }
});

/** Runs `body` with $LOOM_CACHE_DIR set to a fresh folder, removed afterwards. */
async function inCacheDir(body: (dir: string) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(path.join(tmpdir(), 'loom-tune-'));
  const before = process.env.LOOM_CACHE_DIR;
  process.env.LOOM_CACHE_DIR = dir;
  try {
    await body(dir);
  } finally {
    if (before === undefined) delete process.env.LOOM_CACHE_DIR;
    else process.env.LOOM_CACHE_DIR = before;
    rmSync(dir, { recursive: true, force: true });
  }
}

test('loom tune: a cached entry that is not one (seconds "evil", no config) is ignored with a warning and searched again', () =>
  inCacheDir(async (dir) => {
    const file = path.join(dir, 'autotune.json');
    const cpu = 'CPU (generated JavaScript)';
    const forged = {
      config: { group: 64, flaw: 'silent' },
      seconds: 'evil',
      tried: 1,
      measuredAt: '2026-01-01T00:00:00Z',
    };
    writeFileSync(file, JSON.stringify({ 'scale by 2': { [cpu]: forged, elsewhere: { seconds: 1 } }, other: 7 }));
    const run = await loom('tune', fixture, '--device', 'cpu', '--budget', '30');
    assert.is(run.code, 0, run.stderr);
    assert.ok(
      run.warnings.some((w) => w.includes(`the entry of 'scale by 2' on '${cpu}' is ignored: "seconds" is "evil"`)),
      run.warnings.join('\n'),
    );
    assert.ok(
      run.warnings.some((w) => w.includes(`the entry of 'scale by 2' on 'elsewhere' is ignored: it has no config`)),
      run.warnings.join('\n'),
    );
    assert.ok(
      run.warnings.some((w) => w.includes(`the problem 'other' is not an object`)),
      run.warnings.join('\n'),
    );
    assert.not.match(run.stderr, 'from the cache');
    const line = JSON.parse(run.stdout.trim()) as { config: ScaleConfig; seconds: number };
    assert.ok(line.config.flaw === undefined);
    const kept = JSON.parse(readFileSync(file, 'utf8')) as Record<string, Record<string, { seconds: unknown }>>;
    assert.is(typeof kept['scale by 2']![cpu]!.seconds, 'number');
    assert.equal(readdirSync(dir), ['autotune.json'], 'no temporary file left');
  }));

test('loom tune: a problem named __proto__ is saved, and found there next time', () =>
  inCacheDir(async (dir) => {
    const first = await loom('tune', protoFixture, '--device', 'cpu', '--budget', '30');
    assert.is(first.code, 0, first.stderr);
    const kept = JSON.parse(readFileSync(path.join(dir, 'autotune.json'), 'utf8')) as Record<string, unknown>;
    assert.ok(Object.hasOwn(kept, '__proto__'), JSON.stringify(kept));
    const second = await loom('tune', protoFixture, '--device', 'cpu');
    assert.is(second.code, 0, second.stderr);
    assert.match(second.stderr, '__proto__ on CPU (generated JavaScript)');
    assert.match(second.stderr, 'from the cache');
  }));

test('loom tune (the bin): an autotune.json that is a folder is one line, exit 1, no stack trace, no temporary file', () =>
  inCacheDir(async (dir) => {
    mkdirSync(path.join(dir, 'autotune.json'));
    const run = spawnSync(process.execPath, [bin, 'tune', fixture, '--device', 'cpu', '--budget', '30'], {
      encoding: 'utf8',
      env: { ...process.env, LOOM_CACHE_DIR: dir },
    });
    assert.is(run.status, 1, run.stderr);
    assert.match(run.stderr, `loom tune: cannot write the cache ${path.join(dir, 'autotune.json')}:`);
    assert.match(run.stderr, /the cache .*autotune\.json: cannot be read \(EISDIR/);
    assert.not.match(run.stderr, /^\s+at /m);
    assert.equal(readdirSync(dir), ['autotune.json']);
  }));

test('loom tune: usage mistakes exit with 2, a file without problems with 1', async () => {
  assert.is((await loom('tune')).code, 2);
  assert.is((await loom('tune', fixture, '--budget', '-1')).code, 2);
  assert.is((await loom('tune', fixture, '--device', 'tpu')).code, 2);
  const none = await loom('tune', path.join(path.dirname(fixture), 'ndarray.ts'), '--device', 'cpu');
  assert.is(none.code, 1);
  assert.match(none.stderr, 'exports no tuning problem');
  const help = await loom('tune', '--help');
  assert.is(help.code, 0);
  assert.match(help.stdout, 'usage: loom tune');
});

test('a configuration whose one launch outlasts the budget left is timed by that launch, not timed again', async () => {
  const { cpuDevice } = await import('@loom/codegen-js');
  const device = cpuDevice();
  const n = 150_000_000;
  let timings = 0;
  const problem = defineTuning<{ readonly n: number }>({
    name: 'one slow launch',
    space: [{ n }],
    build: () => makeKernel('{ [k]: 0<=k<n }', 'out[0] = sum(k, a[k % 7] * 0.5)', undefined, { name: 'slow' }),
    arguments: async (d) => ({
      a: await DeviceArray.from(
        d,
        Float32Array.from({ length: 7 }, (_, k) => k),
        'float32',
        [7],
      ),
      out: await DeviceArray.from(d, new Float32Array(1), 'float32', [1]),
      n,
    }),
  });
  const result = await autotune(problem, device, {
    budgetSeconds: 0.1,
    time: async () => {
      timings++;
      return 1;
    },
  });
  const [trial] = result.trials;
  assert.ok(trial!.seconds! > 0.5, `one launch of ${n} steps took ${trial!.seconds} s`);
  assert.is(trial!.timedOnce, true);
  assert.is(timings, 0, 'the timing function was not called');
});

test('configurations are built and checked a group at a time, then timed back to back (a GPU idle while one compiles slows its timing)', async () => {
  const [device] = testDevices();
  const events: string[] = [];
  const space = Array.from({ length: 18 }, (_, k) => ({ group: 2 ** (k % 5) }));
  const result = await autotune(
    {
      ...scaleTuning,
      name: 'grouped timing',
      space,
      build: (config) => {
        events.push('build');
        return scaleTuning.build(config);
      },
      check: undefined,
    },
    device!,
    {
      time: async () => {
        events.push('time');
        return 1e-3;
      },
    },
  );
  assert.is(result.trials.length, 18);
  // sixteen built, sixteen timed, then the last two
  assert.is(
    events.join(' '),
    [...Array(16).fill('build'), ...Array(16).fill('time'), 'build', 'build', 'time', 'time'].join(' '),
  );
  assert.equal(
    result.trials.map((t) => t.config),
    space,
  );
});

test('a search stops building where the next configuration, built and timed as the others were, would run past the budget', async () => {
  const [device] = testDevices();
  const events: string[] = [];
  const started = performance.now();
  const busy = (ms: number) => {
    const until = performance.now() + ms;
    while (performance.now() < until);
  };
  const result = await autotune(
    {
      ...scaleTuning,
      name: 'slow builds',
      space: Array.from({ length: 12 }, (_, k) => ({ group: 2 ** (k % 5) })),
      // each build takes 300 ms (a compiler that takes long on a kernel specialised to its sizes)
      build: (config) => {
        events.push('build');
        busy(300);
        return scaleTuning.build(config);
      },
      check: undefined,
    },
    device!,
    {
      budgetSeconds: 1,
      time: async () => {
        events.push('time');
        return 1e-3;
      },
    },
  );
  const seconds = (performance.now() - started) / 1000;
  // three builds fit (a fourth would end past 1 s, where building until the budget was crossed
  // ran four, 1.2 s); all that were built are timed
  assert.ok(result.trials.length >= 2 && result.trials.length <= 3, `${result.trials.length} trials`);
  assert.is(events.filter((e) => e === 'time').length, result.trials.length);
  assert.ok(seconds < 1.1, `the search took ${seconds.toFixed(2)} s of a 1 s budget`);
});

test.run();
