/**
 * The `loom` command: help (`loom help [command]`, `--help` anywhere, without loading ts-morph),
 * version, global options before or after the command, and usage mistakes answered in one line
 * with exit code 2 (no stack trace), with a did-you-mean for a command or an option. Most cases call `main` directly; the bin itself runs where the exit code and
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
const hidePackages = path.join(root, 'test/support/hide-packages.mjs');
const { version } = JSON.parse(readFileSync(path.join(root, 'packages/dsl/package.json'), 'utf8')) as {
  version: string;
};

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

test('an unknown command or option close to one: did you mean it?', async () => {
  const cases: [string[], string][] = [
    [['stat', 'kernels.ts'], "loom: unknown command 'stat' (did you mean 'stats'?)\n"],
    [['typgen'], "loom: unknown command 'typgen' (did you mean 'typegen'?)\n"],
    [['help', 'tunes'], "loom help: unknown command 'tunes' (did you mean 'tune'?)\n"],
    [['typegen', '--chek'], "loom typegen: unknown option '--chek' (did you mean '--check'?)\n"],
    [['stats', 'k.ts', '--param', 'n=4'], "loom stats: unknown option '--param' (did you mean '--params'?)\n"],
    [['tune', 'k.ts', '--budjet', '5'], "loom tune: unknown option '--budjet' (did you mean '--budget'?)\n"],
    [['--verbos'], "loom: unknown option '--verbos' (did you mean '--verbose'?)\n"],
  ];
  for (const [argv, first] of cases) {
    const { code, stdout, stderr } = await loom(...argv);
    assert.is(code, 2, argv.join(' '));
    assert.is(stdout, '');
    assert.is(stderr.slice(0, stderr.indexOf('\n') + 1), first);
    assert.match(stderr, '\n\nusage: loom ');
  }
  // nothing close: no guess
  assert.match((await loom('frobnicate')).stderr, /^loom: unknown command 'frobnicate'\n/);
});

test('loom help, loom help <command> and --help before or after the command print the same help, on stdout', async () => {
  const usage = await loom('help');
  assert.is(usage.code, 0);
  assert.is(usage.stdout, (await loom('--help')).stdout);
  for (const command of ['typegen', 'stats', 'tune']) {
    const help = await loom('help', command);
    assert.is(help.code, 0, command);
    assert.match(help.stdout, new RegExp(`^usage: loom ${command} `));
    assert.match(usage.stdout, `\n  ${command} `, 'the usage lists it');
    for (const argv of [
      [command, '--help'],
      [command, '-h'],
      ['--help', command],
      [command, 'file.ts', '--device', 'tpu', '--help'],
    ]) {
      const other = await loom(...argv);
      assert.is(other.code, 0, argv.join(' '));
      assert.is(other.stdout, help.stdout, argv.join(' '));
    }
  }
  assert.match((await loom('help', 'stats')).stdout, '--max-memory <size>');
  assert.is((await loom('help', 'stats', '--verbose')).stdout, (await loom('help', 'stats')).stdout);
  const two = await loom('help', 'stats', 'tune');
  assert.is(two.code, 2);
  assert.match(two.stderr, /^loom help: one command at a time \('stats', 'tune'\)\n/);
});

test('global options anywhere they make sense: --version after a command, --verbose before one, --verbose alone is the usage', async () => {
  assert.is((await loom('typegen', '--version')).stdout, `${version}\n`);
  const alone = await loom('--verbose');
  assert.is(alone.code, 2);
  assert.match(alone.stderr, /^usage: loom <command>/);
  assert.not.match(alone.stderr, 'unknown');
  // before the command, --verbose is the command's: typegen gets it (and the --project it has)
  const before = await loom('--verbose', 'typegen', '-p', 'nowhere/tsconfig.json');
  assert.is(before.code, 2);
  assert.match(before.stderr, /^loom typegen: no nowhere\/tsconfig.json/);
  const check = await loom('typegen', '--check=yes');
  assert.is(check.code, 2);
  assert.match(check.stderr, /^loom typegen: --check takes no value \('yes'\)\n/);
});

test('help and usage mistakes never load ts-morph: the bin, with ts-morph not installed', () => {
  const project = mkdtempSync(path.join(tmpdir(), 'loom-cli-'));
  writeFileSync(path.join(project, 'tsconfig.json'), '{}');
  const run = (...args: string[]) =>
    spawnSync(process.execPath, ['--import', hidePackages, bin, ...args], {
      cwd: project,
      encoding: 'utf8',
      env: { ...process.env, LOOM_HIDE_PACKAGES: 'ts-morph' },
    });
  try {
    // ts-morph is hidden indeed: typegen itself cannot run
    const typegen = run('typegen');
    assert.is(typegen.status, 2, typegen.stderr);
    assert.is(
      typegen.stderr,
      "loom typegen: it needs the 'ts-morph' package, which is not installed: npm install --save-dev ts-morph\n",
    );
    for (const args of [
      ['typegen', '--help'],
      ['help', 'typegen'],
      ['--help', 'typegen'],
    ]) {
      const help = run(...args);
      assert.is(help.status, 0, `${args.join(' ')}: ${help.stderr}`);
      assert.match(help.stdout, /^usage: loom typegen /);
    }
    const mistake = run('typegen', '--chek');
    assert.is(mistake.status, 2);
    assert.match(mistake.stderr, /^loom typegen: unknown option '--chek' \(did you mean '--check'\?\)\n/);
  } finally {
    rmSync(project, { recursive: true, force: true });
  }
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
    assert.is(
      run.stderr,
      'loom typegen: no tsconfig.json: run it in a TypeScript project, or name its tsconfig with --project <tsconfig.json>\n',
    );
  } finally {
    rmSync(empty, { recursive: true, force: true });
  }
});

test('the bin names a --project that does not exist', () => {
  const run = spawnSync(process.execPath, [bin, 'typegen', '--check', '--project', 'nowhere/tsconfig.json'], {
    cwd: root,
    encoding: 'utf8',
  });
  assert.is(run.status, 2, run.stderr);
  assert.is(
    run.stderr,
    'loom typegen: no nowhere/tsconfig.json: run it in a TypeScript project, or name its tsconfig with --project <tsconfig.json>\n',
  );
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
