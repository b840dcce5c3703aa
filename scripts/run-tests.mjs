// Runs the test files under test/ with uvu, TypeScript through tsx, the packages from their sources
// (the "loom-source" condition of their exports: no build needed), in parallel worker processes.
//
//   node scripts/run-tests.mjs [pattern]     (pattern: a regex on file names, as uvu takes it)
//
// Workers: LOOM_TEST_WORKERS, else one per core up to 4. Each worker is one uvu process over its share of
// the files; shares are balanced by how long each file took last time (node_modules/.cache, written after
// every run), else by scripts/test-durations.json (committed: what a fresh clone, CI, starts from), else
// by file size. A worker's output is printed whole when it ends, so the files' reports do not interleave;
// the last line is the plain summary "N passed, N failed".
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { stripVTControlCharacters } from 'node:util';
import { parse } from 'uvu/parse';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const pattern = process.argv[2] ?? '\\.test\\.ts$';
const COMMITTED = path.join(root, 'scripts/test-durations.json');
const MEASURED = path.join(root, 'node_modules/.cache/loom-test-durations.json');

const { suites } = await parse('test', pattern, { cwd: root });
if (suites.length === 0) {
  console.error(`run-tests: no test file matches ${pattern}`);
  process.exit(1);
}
const workers = Math.max(
  1,
  Math.min(suites.length, Number(process.env.LOOM_TEST_WORKERS) || Math.min(4, os.availableParallelism())),
);
const shares = balance(
  suites.map((s) => s.name),
  workers,
  expectedSeconds(),
);
const started = Date.now();
const results = await Promise.all(shares.map((files, k) => runWorker(files, k)));

const durations = { ...readJson(MEASURED), ...Object.assign({}, ...results.map((r) => r.durations)) };
mkdirSync(path.dirname(MEASURED), { recursive: true });
writeFileSync(MEASURED, `${JSON.stringify(sortedKeys(durations), null, 1)}\n`);
if (process.env.LOOM_RECORD_DURATIONS)
  writeFileSync(COMMITTED, `${JSON.stringify(sortedKeys(roundedValues(durations)), null, 1)}\n`);

const total = results.reduce((n, r) => n + r.total, 0);
const passed = results.reduce((n, r) => n + r.passed, 0);
const skipped = results.reduce((n, r) => n + r.skipped, 0);
const crashed = results.filter((r) => r.code !== 0 && r.passed === r.total);
console.log(`\n${suites.length} files in ${workers} workers, ${((Date.now() - started) / 1000).toFixed(1)} s`);
for (const r of crashed)
  console.log(`worker ${r.index} exited with ${r.code} outside any test (its output above says why)`);
console.log(`${passed} passed, ${total - passed + crashed.length} failed${skipped ? `, ${skipped} skipped` : ''}`);
process.exit(results.every((r) => r.code === 0) ? 0 : 1);

/** Seconds per file: last run's here, else the committed table's, else a guess from the file's size. */
function expectedSeconds() {
  const known = { ...readJson(COMMITTED), ...readJson(MEASURED) };
  return (name) => known[name] ?? statSync(path.join(root, 'test', name)).size / 2000;
}

/** The files split into `n` shares of about equal time: longest first, each to the least loaded share. */
function balance(files, n, seconds) {
  const shares = Array.from({ length: n }, () => ({ files: [], load: 0 }));
  for (const file of [...files].sort((a, b) => seconds(b) - seconds(a))) {
    const least = shares.reduce((a, b) => (b.load < a.load ? b : a));
    least.files.push(file);
    least.load += seconds(file);
  }
  return shares.map((s) => s.files.sort()).filter((f) => f.length > 0);
}

/** One uvu process over `files`; resolves with its counts and the seconds each file's tests took. */
function runWorker(files, index) {
  const exact = `^(?:${files.map(escapeRegExp).join('|')})$`;
  const args = [
    '--conditions=loom-source',
    '--import',
    'tsx',
    path.join(root, 'node_modules/uvu/bin.js'),
    'test',
    exact,
  ];
  const child = spawn(process.execPath, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const durations = {};
  // uvu prints a file's name as it starts that file's tests: the time between two names is the first file's
  let current;
  let since = Date.now();
  let partial = '';
  child.stdout.on('data', (chunk) => {
    const text = chunk.toString();
    output += text;
    const lines = (partial + text).split('\n');
    partial = lines.pop();
    for (const line of lines) {
      const name = stripVTControlCharacters(line).trim();
      if (!files.includes(name)) continue;
      if (current) durations[current] = (Date.now() - since) / 1000;
      current = name;
      since = Date.now();
    }
  });
  child.stderr.on('data', (chunk) => {
    output += chunk.toString();
  });
  return new Promise((resolve) => {
    child.on('close', (code) => {
      if (current) durations[current] = (Date.now() - since) / 1000;
      process.stdout.write(output);
      const plain = stripVTControlCharacters(output);
      const count = (label) => Number(new RegExp(`${label}:\\s+(\\d+)`).exec(plain)?.[1] ?? 0);
      resolve({
        index,
        code: code ?? 1,
        total: count('Total'),
        passed: count('Passed'),
        skipped: count('Skipped'),
        durations,
      });
    });
  });
}

function readJson(file) {
  try {
    return existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : {};
  } catch {
    return {};
  }
}

function sortedKeys(o) {
  return Object.fromEntries(Object.entries(o).sort(([a], [b]) => a.localeCompare(b)));
}
function roundedValues(o) {
  return Object.fromEntries(Object.entries(o).map(([k, v]) => [k, Math.round(v * 10) / 10]));
}
function escapeRegExp(s) {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
