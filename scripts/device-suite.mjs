#!/usr/bin/env node
/**
 * Writes the entries that carry the device-independent test suite to another machine: every test
 * file that runs on `testDevices()` (or asks for CUDA), but those that start TypeScript children
 * (the bundle has no tsx; they are named when left out), in `slices` bundles of about equal duration
 * (scripts/test-durations.json), as `.device-src/suite-<k>.ts` (ignored). Bundle them with
 * `../shared/device/pack.sh .device-src/suite-*.ts` and run each with `bash .device/run.sh`. As uvu's
 * own CLI does, the entry defers the files' `test.run()` (UVU_DEFER) and runs them all once every
 * file is loaded: a file's top-level await (the WebGPU device) would otherwise let uvu start early.
 *
 *   node scripts/device-suite.mjs [slices=6] [regex]
 *
 * With a regex, only the test files whose paths (relative to test/) match it: a run of what changed.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync, appendFileSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const slices = Number(process.argv[2] ?? 6);
const durations = JSON.parse(readFileSync(path.join(root, 'scripts/test-durations.json'), 'utf8'));

/** Test files (relative to test/) that run on the devices. */
function deviceTests(dir = 'test') {
  return readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((e) => {
    const rel = path.join(dir, e.name);
    if (e.isDirectory()) return e.name === 'support' || e.name === 'golden' ? [] : deviceTests(rel);
    if (!e.name.endsWith('.test.ts')) return [];
    const text = readFileSync(path.join(root, rel), 'utf8');
    return /testDevices\(\)|cudaDeviceOrSkip|cudaDevice\(/.test(text) ? [rel.slice('test/'.length)] : [];
  });
}

/**
 * Files that start Node children running TypeScript (`--import tsx`: printf read back from a child,
 * FlagGems' concurrent processes): the bundle carries no tsx, so they cannot run there.
 */
const startsTypeScriptChildren = (f) =>
  /child-stdout\.ts|'--import',\s*'tsx'/.test(readFileSync(path.join(root, 'test', f), 'utf8'));

const only = process.argv[3] ? new RegExp(process.argv[3]) : undefined;
const candidates = deviceTests().filter((f) => !only || only.test(f));
const leftOut = candidates.filter(startsTypeScriptChildren);
if (leftOut.length)
  console.log(`left out (they start TypeScript children, and the bundle has no tsx): ${leftOut.join(', ')}`);
const files = candidates
  .filter((f) => !startsTypeScriptChildren(f))
  .sort((a, b) => (durations[b] ?? 1) - (durations[a] ?? 1));
const buckets = Array.from({ length: slices }, () => ({ total: 0, files: [] }));
for (const f of files) {
  const lightest = buckets.reduce((a, b) => (b.total < a.total ? b : a));
  lightest.files.push(f);
  lightest.total += durations[f] ?? 1;
}
const out = path.join(root, '.device-src');
rmSync(out, { recursive: true, force: true });
mkdirSync(out);
const exclude = path.join(root, '.git/info/exclude');
try {
  if (!readFileSync(exclude, 'utf8').split('\n').includes('/.device-src/')) appendFileSync(exclude, '/.device-src/\n');
} catch {
  // a worktree: .git is a file; the folder then shows as untracked
}
writeFileSync(
  path.join(out, 'defer-uvu.ts'),
  'const g = globalThis as { UVU_DEFER?: number; UVU_QUEUE?: unknown[][] };\ng.UVU_DEFER = 1;\ng.UVU_QUEUE = [[null]];\n',
);
buckets.forEach((b, k) => {
  const imports = b.files.map((f) => `import '../test/${f}';`).join('\n');
  const text = [
    `// ${b.files.length} test files, about ${Math.round(b.total)} s on the 2-core machine`,
    `import './defer-uvu.ts';`,
    imports,
    `import { exec } from 'uvu';`,
    '',
    'await exec();',
    '',
  ].join('\n');
  writeFileSync(path.join(out, `suite-${k}.ts`), text);
});
console.log(`${files.length} test files in ${slices} slices: ${buckets.map((b) => Math.round(b.total)).join(', ')} s`);
