/**
 * `loom stats`: the counts of the kernels a file exports, the roofline's estimates with a
 * profile or a device (measured once, kept on disk), the SVG plot, and usage mistakes.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { formatBytes } from '../packages/dsl/src/stats/memory.ts';
import { loom } from './support/cli.ts';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const example = path.join(root, 'examples/statistics.ts');

function scratch(): string {
  return mkdtempSync(path.join(tmpdir(), 'loom-stats-'));
}

test('the three maps of every kernel the file exports', async () => {
  const { code, stdout } = await loom('stats', example);
  assert.is(code, 0);
  assert.match(stdout, "== statsKernel(): kernel 'stats_knl'");
  assert.match(
    stdout,
    'Op(float32, add, subgroup, "stats_knl"): [l, m, n] -> { l * m * n : l > 0 and m > 0 and n > 0 }',
  );
  assert.match(
    stdout,
    "MemAccess(global, float64, {}, {}, store, e, None, subgroup, 'stats_knl'): [l, m, n] -> { m * n : l > 0 and m > 0 and n > 0 }",
  );
  assert.match(stdout, 'Sync(barrier_local, loopy_kernel): { 1000 }');
});

test('with a profile and parameters: the estimate; with --plot, the roofline as SVG', async () => {
  const dir = scratch();
  try {
    const profile = path.join(dir, 'paper.json');
    writeFileSync(
      profile,
      JSON.stringify({ device: 'paper GPU', bandwidth: 1e12, flopRate: 1e13, launchOverhead: 1e-5 }),
    );
    const plot = path.join(dir, 'roofline.svg');
    const { code, stdout } = await loom(
      'stats',
      example,
      '--params',
      'n=256,m=256,l=8',
      '--profile',
      profile,
      '--plot',
      plot,
    );
    assert.is(code, 0);
    // stats_knl: 1572864 f32 + 131072 f64 flops; a, b, c: 3 x 524288 floats, g, h, e: 3 x 65536 doubles
    assert.match(stdout, 'estimate on paper GPU at n=256, m=256, l=8: 1.79e-5 s, memory bound');
    assert.match(stdout, '1.70e6 flops, 7.86e6 bytes (each element once), 0.217 flop/byte, 1 launch');
    const svg = readFileSync(plot, 'utf8');
    assert.match(svg, /^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    assert.match(svg, 'Roofline: paper GPU');
    assert.match(svg, '>statsKernel()</text>');
    assert.match(svg, 'no floating-point work: barrierKernel()');
    assert.match(svg, /<\/svg>\n$/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('with a device: its profile measured once and kept on disk, each kernel run and timed', async () => {
  const dir = scratch();
  const previous = process.env.LOOM_CACHE_DIR;
  process.env.LOOM_CACHE_DIR = dir;
  try {
    const first = await loom('stats', example, '--params', 'n=16,m=16,l=2', '--device', 'cpu');
    assert.is(first.code, 0, first.stderr);
    assert.match(first.stdout, /^CPU \(generated JavaScript\): measured: /);
    assert.match(first.stdout, /measured: \S+ s \(predicted\/measured \S+\)/);
    // Loom refuses the barrier kernel's code (it reads local memory nobody writes): counted, not run
    assert.match(first.stdout, "not measured: in kernel 'loopy_kernel'");
    const cache = JSON.parse(readFileSync(path.join(dir, 'device-profiles.json'), 'utf8')) as Record<
      string,
      { flopRate: number }
    >;
    assert.ok(cache['CPU (generated JavaScript)']!.flopRate > 0);
    const second = await loom('stats', example, '--device', 'cpu');
    assert.match(second.stdout, /^CPU \(generated JavaScript\): profile from the cache: /);
  } finally {
    if (previous === undefined) delete process.env.LOOM_CACHE_DIR;
    else process.env.LOOM_CACHE_DIR = previous;
    rmSync(dir, { recursive: true, force: true });
  }
});

/** stats_knl's arrays at n, m, l, as its accesses shape them: a, b, c float32 [n, l, m]; e, g float64 [n, m]; h float64 [n, m + 1] (it reads h[i, k+1]). */
const statsKernelBytes = (n: number, m: number, l: number) => 3 * n * l * m * 4 + 2 * n * m * 8 + n * (m + 1) * 8;

test('with a device: each measurement is said on stderr as it starts, with the memory its arrays take; --verbose lists them', async () => {
  const dir = scratch();
  const previous = process.env.LOOM_CACHE_DIR;
  process.env.LOOM_CACHE_DIR = dir;
  try {
    const run = await loom('stats', example, '--params', 'n=16,m=16,l=2', '--device', 'cpu', '--verbose');
    assert.is(run.code, 0, run.stderr);
    const lines = run.stderr.split('\n').filter((line) => line.startsWith('loom stats: '));
    assert.equal(lines, [
      `loom stats: measuring the profile of CPU (generated JavaScript) (bandwidth, flop rate, launch overhead; once, kept in ${path.join(dir, 'device-profiles.json')})`,
      lines[1]!,
      `loom stats: measuring statsKernel() at n=16, m=16, l=2 on CPU (generated JavaScript), arrays of ${formatBytes(statsKernelBytes(16, 16, 2))}`,
    ]);
    assert.match(
      lines[1]!,
      /^loom stats: measuring barrierKernel\(\) at n=16, m=16, l=2 on CPU \(generated JavaScript\), arrays of \d/,
    );
    assert.match(
      run.stdout,
      `arrays at n=16, m=16, l=2, ${formatBytes(statsKernelBytes(16, 16, 2))} in all:\n  a: float32 [16, 2, 16], ${formatBytes(16 * 2 * 16 * 4)}\n`,
    );
    assert.match(run.stdout, `  h: float64 [16, 17], ${formatBytes(16 * 17 * 8)}\n`);
    // the cached profile is not measured again, and says nothing
    const again = await loom('stats', example, '--params', 'n=4,m=4,l=1', '--device', 'cpu');
    assert.is(again.code, 0, again.stderr);
    assert.not.match(again.stderr, 'measuring the profile');
    assert.match(
      again.stderr,
      `loom stats: measuring statsKernel() at n=4, m=4, l=1 on CPU (generated JavaScript), arrays of ${formatBytes(statsKernelBytes(4, 4, 1))}\n`,
    );
  } finally {
    if (previous === undefined) delete process.env.LOOM_CACHE_DIR;
    else process.env.LOOM_CACHE_DIR = previous;
    rmSync(dir, { recursive: true, force: true });
  }
});

test('with a device: --params whose arrays exceed --max-memory (1 GiB unless raised) are refused before anything runs, saying how much and how to raise it', async () => {
  const dir = scratch();
  const previous = process.env.LOOM_CACHE_DIR;
  process.env.LOOM_CACHE_DIR = dir;
  try {
    const big = await loom('stats', example, '--params', 'n=65536,m=65536,l=8', '--device', 'cpu');
    assert.is(big.code, 2, big.stderr);
    assert.is(big.stdout, '', 'no device opened, no profile measured');
    const needed = statsKernelBytes(65536, 65536, 8);
    assert.match(
      big.stderr,
      `loom stats: at n=65536, m=65536, l=8, statsKernel() needs ${formatBytes(needed)} of device memory (a: float32 [65536, 8, 65536], 128 GiB;`,
    );
    assert.match(
      big.stderr,
      `more than --max-memory 1.00 GiB, so nothing runs; give smaller --params, or raise the limit with --max-memory ${Math.ceil(needed / 2 ** 30)}GiB\n`,
    );
    assert.equal(readdirSync(dir), [], 'nothing measured');
    // the limit is the user's: a small one refuses small sizes (every kernel over it named), a raised one lets them run
    const bytes = statsKernelBytes(16, 16, 2);
    const tight = await loom(
      'stats',
      example,
      '--params',
      'n=16,m=16,l=2',
      '--device',
      'cpu',
      '--max-memory',
      `${bytes - 1}`,
    );
    assert.is(tight.code, 2);
    assert.match(tight.stderr, `statsKernel() needs ${formatBytes(bytes)} of device memory`);
    assert.match(tight.stderr, `raise the limit with --max-memory ${Math.ceil(bytes / 2 ** 20)}MiB`);
    assert.match(tight.stderr, /barrierKernel\(\) needs \S+ KiB of device memory/);
    // (barrierKernel's arrays, fixed in size, take a few hundred KiB)
    const enough = await loom('stats', example, '--params', 'n=16,m=16,l=2', '--device', 'cpu', '--max-memory', '1MiB');
    assert.is(enough.code, 0, enough.stderr);
    assert.match(enough.stdout, /measured: \S+ s \(predicted\/measured/);
  } finally {
    if (previous === undefined) delete process.env.LOOM_CACHE_DIR;
    else process.env.LOOM_CACHE_DIR = previous;
    rmSync(dir, { recursive: true, force: true });
  }
});

test('with a device: a cached profile file that is null, not JSON, or has a bad entry is not trusted: a warning, measured again, rewritten whole', async () => {
  const dir = scratch();
  const previous = process.env.LOOM_CACHE_DIR;
  process.env.LOOM_CACHE_DIR = dir;
  const file = path.join(dir, 'device-profiles.json');
  const cpu = 'CPU (generated JavaScript)';
  const other = { device: 'another GPU', bandwidth: 1e12, flopRate: 1e13, launchOverhead: 1e-5 };
  try {
    const cases: [string, RegExp][] = [
      ['null', /device-profiles\.json: is not a JSON object of entries by name \(it is null\)/],
      ['{ "CPU (generated', /device-profiles\.json: is not JSON/],
      [
        `{ ${JSON.stringify(cpu)}: { "device": ${JSON.stringify(cpu)}, "bandwidth": "fast" }, "__proto__": ${JSON.stringify(other)} }`,
        /its entry 'CPU \(generated JavaScript\)' is not a device profile: .*; it is measured again/,
      ],
    ];
    for (const [text, warning] of cases) {
      writeFileSync(file, text);
      const run = await loom('stats', example, '--params', 'n=16,m=16,l=2', '--device', 'cpu');
      assert.is(run.code, 0, run.stderr);
      assert.match(run.stdout, /^CPU \(generated JavaScript\): measured: /);
      assert.ok(
        run.warnings.some((w) => warning.test(w)),
        `${text}: ${run.warnings.join('\n')}`,
      );
      const cache = JSON.parse(readFileSync(file, 'utf8')) as Record<string, { flopRate: number }>;
      assert.ok(cache[cpu]!.flopRate > 0);
      assert.equal(readdirSync(dir), ['device-profiles.json'], 'no temporary file left');
    }
    // the other entries, `__proto__` among them, are kept as they were
    assert.equal(Object.getOwnPropertyDescriptor(JSON.parse(readFileSync(file, 'utf8')), '__proto__')?.value, other);
  } finally {
    if (previous === undefined) delete process.env.LOOM_CACHE_DIR;
    else process.env.LOOM_CACHE_DIR = previous;
    rmSync(dir, { recursive: true, force: true });
  }
});

test('--plot into a folder that does not exist: said before anything runs, exit code 2', async () => {
  const dir = scratch();
  try {
    const profile = path.join(dir, 'paper.json');
    writeFileSync(
      profile,
      JSON.stringify({ device: 'paper GPU', bandwidth: 1e12, flopRate: 1e13, launchOverhead: 1e-5 }),
    );
    const plot = path.join(dir, 'missing', 'roofline.svg');
    const { code, stdout, stderr } = await loom('stats', example, '--profile', profile, '--plot', plot);
    assert.is(code, 2);
    assert.match(stderr, `loom stats: --plot ${plot}: the folder ${path.join(dir, 'missing')} does not exist`);
    assert.is(stdout, '');
    assert.not.ok(existsSync(plot));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('usage mistakes: exit code 2 and one line saying what', async () => {
  const cases: [string[], RegExp][] = [
    [['stats'], /^loom stats: which file\?/],
    [
      ['stats', example, '--params', 'n'],
      /^loom stats: --params takes name=integer pairs separated by commas, not 'n'/,
    ],
    [['stats', example, '--device', 'tpu'], /^loom stats: --device is one of cpu, c, opencl, cuda, webgpu, not 'tpu'/],
    [['stats', example, '--plot', 'r.svg'], /^loom stats: --plot needs a roofline: give --device or --profile/],
    [['stats', example, '--profile', 'nowhere.json'], /^loom stats: cannot read the profile nowhere.json/],
    [['stats', example, '--watch'], /^loom stats: unknown option '--watch'/],
    [['stats', example, '--device'], /^loom stats: --device needs a device: cpu, opencl or webgpu\n/],
    [
      ['stats', example, '--device', 'cpu', '--max-memory', 'lots'],
      /^loom stats: --max-memory takes a size \(2GiB, 512MiB, 100MB, or bytes\), not 'lots'/,
    ],
    [
      ['stats', example, '--max-memory', '2GiB'],
      /^loom stats: --max-memory limits what runs on a device: give --device/,
    ],
    [['stats', example, 'other.ts'], /^loom stats: one file at a time/],
  ];
  for (const [argv, message] of cases) {
    const { code, stderr } = await loom(...argv);
    assert.is(code, 2, argv.join(' '));
    assert.match(stderr, message);
  }
  const help = await loom('stats', '--help');
  assert.is(help.code, 0);
  assert.match(help.stdout, /^usage: loom stats <file.ts\|.js>/);
});

test('a file that exports no kernel', async () => {
  const dir = scratch();
  try {
    const file = path.join(dir, 'nothing.mjs');
    writeFileSync(file, 'export const answer = 42;\n');
    const { code, stderr } = await loom('stats', file);
    assert.is(code, 1);
    assert.match(stderr, 'exports no kernel');
    assert.not.ok(existsSync(path.join(dir, 'roofline.svg')));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
