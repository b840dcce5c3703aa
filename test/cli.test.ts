/**
 * The `loom` command: help, version, and usage mistakes answered in one line with exit code 2
 * (no stack trace). Most cases call `main` directly; the bin itself runs where the exit code and
 * what reaches the terminal matter. `loom typegen`'s work is tested in dsl-typegen.test.ts.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { main } from '../packages/dsl/src/cli.ts';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const bin = path.join(root, 'packages/dsl/bin/loom.mjs');
const { version } = JSON.parse(readFileSync(path.join(root, 'packages/dsl/package.json'), 'utf8')) as { version: string };

/** `main`'s exit code and what it printed. */
async function loom(...argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const printed = { stdout: '', stderr: '' };
  const { log, error } = console;
  console.log = (...parts: unknown[]) => void (printed.stdout += `${parts.join(' ')}\n`);
  console.error = (...parts: unknown[]) => void (printed.stderr += `${parts.join(' ')}\n`);
  try {
    return { code: await main(argv), ...printed };
  } finally {
    Object.assign(console, { log, error });
  }
}

test('--help lists the commands and options, on stdout', async () => {
  for (const flag of ['--help', '-h']) {
    const { code, stdout } = await loom(flag);
    assert.is(code, 0);
    assert.match(stdout, /^usage: loom <command>/);
    assert.match(stdout, 'typegen [--check] [--verbose] [--project <tsconfig.json>]');
    assert.match(stdout, '--version');
  }
});

test("--version prints @loom/dsl's version from its package.json", async () => {
  for (const flag of ['--version', '-v']) {
    const { code, stdout } = await loom(flag);
    assert.is(code, 0);
    assert.is(stdout, `${version}\n`);
  }
});

test('no command, or an unknown one, is a usage mistake: exit code 2 and the usage', async () => {
  const none = await loom();
  assert.is(none.code, 2);
  assert.match(none.stderr, 'usage: loom <command>');
  const unknown = await loom('build');
  assert.is(unknown.code, 2);
  assert.match(unknown.stderr, /^loom: unknown command 'build'\n/);
});

test('typegen: --help, and its own usage mistakes', async () => {
  const help = await loom('typegen', '--help');
  assert.is(help.code, 0);
  assert.match(help.stdout, /^usage: loom typegen/);
  const unknown = await loom('typegen', '--watch');
  assert.is(unknown.code, 2);
  assert.match(unknown.stderr, /^loom typegen: unknown option '--watch'\n/);
  const noProject = await loom('typegen', '--project');
  assert.is(noProject.code, 2);
  assert.match(noProject.stderr, /^loom typegen: --project needs a tsconfig.json\n/);
});

test('the bin, where there is no tsconfig.json: one line saying so, exit code 2, no stack trace', () => {
  const empty = mkdtempSync(path.join(tmpdir(), 'loom-cli-'));
  try {
    const run = spawnSync(process.execPath, [bin, 'typegen'], { cwd: empty, encoding: 'utf8' });
    assert.is(run.status, 2, run.stderr);
    assert.is(run.stdout, '');
    assert.is(run.stderr, 'loom typegen: no tsconfig.json: run it in a TypeScript project, or name its tsconfig with --project <tsconfig.json>\n');
  } finally {
    rmSync(empty, { recursive: true, force: true });
  }
});

test('the bin names a --project that does not exist', () => {
  const run = spawnSync(process.execPath, [bin, 'typegen', '--check', '--project', 'nowhere/tsconfig.json'], { cwd: root, encoding: 'utf8' });
  assert.is(run.status, 2, run.stderr);
  assert.is(run.stderr, 'loom typegen: no nowhere/tsconfig.json: run it in a TypeScript project, or name its tsconfig with --project <tsconfig.json>\n');
});

test('typegen (the bin) with a broken tsconfig.json: what is wrong with it, exit code 2, never "up to date"', () => {
  const project = mkdtempSync(path.join(tmpdir(), 'loom-cli-'));
  try {
    const broken: [string, string][] = [
      ['{ "compilerOptions": { "strict": true }, "include": ["src/**/*.ts"', "']' expected"],
      ['{ "extends": "./nowhere.json" }', 'nowhere.json'],
      ['{ "compilerOptions": { "strictt": true } }', "Unknown compiler option 'strictt'"],
    ];
    for (const [text, why] of broken) {
      writeFileSync(path.join(project, 'tsconfig.json'), text);
      const run = spawnSync(process.execPath, [bin, 'typegen'], { cwd: project, encoding: 'utf8' });
      assert.is(run.status, 2, text);
      assert.match(run.stderr, `loom typegen: cannot read ${path.join(project, 'tsconfig.json')}: `);
      assert.match(run.stderr, why);
      assert.not.match(run.stdout + run.stderr, 'up to date');
    }
  } finally {
    rmSync(project, { recursive: true, force: true });
  }
});

test.run();
