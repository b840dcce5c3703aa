/**
 * Loom's cache files written by several processes at once: each process adds its entry to what
 * the others wrote (the file is read, changed and written under a lock beside it), where reading
 * and writing unlocked lost entries (FlagGems' test_libcache_concurrent_write_on_signal found it
 * in its own cache). A lock a dead process left behind is taken over.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { fileTuningCache } from '@loom/dsl/tune';

const root = fileURLToPath(new URL('..', import.meta.url));
const module = new URL('../packages/dsl/src/tune/file-cache.ts', import.meta.url).href;

/** An entry as the tuner writes it. */
const entry = (k: number) => ({ config: { k }, seconds: 1e-3 * (k + 1), tried: 1, measuredAt: '2026-12-05T00:00:00Z' });

/** A process that adds problem `key_<k>` to `file` at time `at` (ms since the epoch), all of them at once. */
function writer(file: string, k: number, at: number): Promise<unknown> {
  const code = `
    import { fileTuningCache } from ${JSON.stringify(module)};
    await new Promise((r) => setTimeout(r, ${at} - Date.now()));
    fileTuningCache(${JSON.stringify(file)}).set('key_${k}', 'device', ${JSON.stringify(entry(k))});`;
  return promisify(execFile)(
    process.execPath,
    ['--conditions=loom-source', '--import', 'tsx', '--input-type=module', '-e', code],
    { cwd: root },
  );
}

test('six processes adding their tuning results to one file at the same moment keep all six', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'loom-cache-race-'));
  try {
    const file = path.join(dir, 'autotune.json');
    // a first entry, written before: the writers must keep it too
    fileTuningCache(file).set('before', 'device', entry(99));
    const at = Date.now() + 3000; // every process started and loaded by then
    await Promise.all(Array.from({ length: 6 }, (_, k) => writer(file, k, at)));
    const written = JSON.parse(readFileSync(file, 'utf8')) as Record<string, Record<string, { config: { k: number } }>>;
    assert.equal(Object.keys(written).sort(), ['before', 'key_0', 'key_1', 'key_2', 'key_3', 'key_4', 'key_5']);
    for (let k = 0; k < 6; k++) assert.equal(written[`key_${k}`]!.device!.config, { k });
    assert.not.ok(existsSync(`${file}.lock`), 'no lock is left behind');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a lock left by a process that died while holding it is taken over, and the entry written', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'loom-cache-lock-'));
  try {
    const file = path.join(dir, 'autotune.json');
    writeFileSync(`${file}.lock`, '');
    // older than the two seconds a lock may be held
    const old = new Date(Date.now() - 60_000);
    utimesSync(`${file}.lock`, old, old);
    fileTuningCache(file).set('after', 'device', entry(1));
    assert.equal((await fileTuningCache(file).get('after', 'device'))?.config, { k: 1 });
    assert.not.ok(existsSync(`${file}.lock`));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
