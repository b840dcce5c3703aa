/**
 * How long the first `pointwise()` with a function payload takes in a fresh process (issue 13):
 * reading the payload parses the function's source, and the first parse pays for loading and
 * warming up the parser. Each sample is a new Node process, which times importing
 * @loom/elementwise and then its first `pointwise()` call (building the kernel's description,
 * not running it). Prints the median and range of each over the samples.
 *
 *     node --import tsx bench/first-pointwise.ts [samples]      (default 9)
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const SAMPLE = `
const t0 = performance.now();
const { pointwise } = await import('@loom/elementwise');
const t1 = performance.now();
pointwise({}, (x, y, alpha) => x + y * alpha);
const t2 = performance.now();
pointwise({}, (x) => { const zero = 0; return x > zero ? x : zero; });
const t3 = performance.now();
console.log(JSON.stringify({ importMs: t1 - t0, firstMs: t2 - t1, secondMs: t3 - t2 }));
`;

const samples = Number(process.argv[2] ?? 9);
const root = fileURLToPath(new URL('..', import.meta.url));
const runs: Record<string, number>[] = [];
for (let k = 0; k < samples; k++) {
  const child = spawnSync(
    process.execPath,
    ['--conditions=loom-source', '--import', 'tsx', '--input-type=module', '-e', SAMPLE],
    { cwd: root, encoding: 'utf8' },
  );
  if (child.status !== 0) throw new Error(child.stderr);
  runs.push(JSON.parse(child.stdout.trim().split('\n').pop()!));
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
for (const key of ['importMs', 'firstMs', 'secondMs']) {
  const xs = runs.map((r) => r[key]);
  console.log(
    `${key.padEnd(9)} median ${median(xs).toFixed(1)} ms   (min ${Math.min(...xs).toFixed(1)}, max ${Math.max(...xs).toFixed(1)}; ${samples} processes)`,
  );
}
