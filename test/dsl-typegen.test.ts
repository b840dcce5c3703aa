/**
 * `loom typegen` on a small project of its own in a temporary directory: it writes the
 * declarations of the template kernels, `--check` passes while they are fresh and fails
 * once a kernel changes (or the file goes missing, or outlives its kernels).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { typegen } from '@loom/dsl/typegen';
import { main } from '../packages/dsl/src/cli.ts';

const repository = path.dirname(path.dirname(new URL(import.meta.url).pathname));

const dir = mkdtempSync(path.join(tmpdir(), 'loom-typegen-'));
const project = path.join(dir, 'tsconfig.json');
const source = path.join(dir, 'src', 'kernels.ts');
const declarations = path.join(dir, 'src', 'kernels.loom.d.ts');

const FRAGMENTS = `
import { insn } from '@loom/dsl';
export const scale = 3;
export const twice = insn\`out[i] = 2*a[i]\`;
`;

const KERNELS = `
import { domain, insn, kernel as makeDslKernel, f32 } from '@loom/dsl';
import * as loom from '@loom/dsl';
import { scale, twice } from './fragments.ts';

const n = 'n';
const body = insn\`out[i] = \${scale}*a[i] + b[i + 1]\`;

// a named template kernel, with an interpolated name, a const fragment and an imported number
export const scaled = makeDslKernel(domain\`{ [i]: 0<=i<\${n} }\`, body, { name: 'scaled' });
// spliced fragments from another file, through a namespace import
export const doubled = loom.kernel([domain\`{ [i]: 0<=i<n }\`], loom.insn\`
  \${twice}
  total = 0
\`, { name: 'doubled' });
// declared arguments
export const declared = makeDslKernel(domain\`{ [i]: 0<=i<n }\`, insn\`y[i] = a[i]\`, { name: 'declared', args: { a: f32('n'), y: f32.out('n') } });
// typed by the compiler already: typegen leaves it alone
export const literal = makeDslKernel('{ [i]: 0<=i<n }', 'out[i] = a[i]', { name: 'literal' });
// unnamed: left loosely typed, with a note
export const unnamed = makeDslKernel(domain\`{ [i]: 0<=i<n }\`, insn\`out[i] = a[i]\`);
`;

/** The CLI's exit code, its output kept off the test report. */
async function cli(...argv: string[]): Promise<number> {
  const { log, error } = console;
  console.log = console.error = () => {};
  try {
    return await main(argv);
  } finally {
    Object.assign(console, { log, error });
  }
}

function write(file: string, text: string): void {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
}

write(project, JSON.stringify({ compilerOptions: { strict: true }, include: ['src'] }));
write(path.join(dir, 'src', 'fragments.ts'), FRAGMENTS);
write(source, KERNELS);

test('typegen writes the declarations of the named template kernels', async () => {
  const report = await typegen({ project });
  assert.ok(report.ok, report.errors.join('\n'));
  assert.equal(
    report.kernels.map((k) => k.name),
    ['scaled', 'doubled', 'declared'],
  );
  assert.equal(report.written, [declarations]);
  assert.equal(report.notes.length, 1);
  assert.match(report.notes[0], /src\/kernels\.ts:21: kernel left loosely typed: give it a name/);

  const text = readFileSync(declarations, 'utf8');
  assert.match(text, "declare module '@loom/dsl'");
  // `a` is read at i and `b` at i + 1: both inputs; `n` follows from a's size
  assert.match(
    text,
    `    scaled: {
      inames: 'i';
      args: {
        a: { kind: 'array'; dtype: 'auto'; required: true; output: false };
        b: { kind: 'array'; dtype: 'auto'; required: true; output: false };
        n: { kind: 'value'; dtype: 'int32'; required: false; output: false };
        out: { kind: 'array'; dtype: 'auto'; required: false; output: true };
      };
    };`,
  );
  // the spliced fragment's instruction is there, and so is the 0-d output `total`
  assert.match(
    text,
    "out: { kind: 'array'; dtype: 'auto'; required: false; output: true };\n        total: { kind: 'array'; dtype: 'auto'; required: false; output: true };",
  );
  assert.match(text, "a: { kind: 'array'; dtype: 'float32'; required: true; output: false };");
  assert.not.match(text, 'literal');
});

test('--check passes while the declarations are fresh', async () => {
  const report = await typegen({ project, check: true });
  assert.ok(report.ok);
  assert.equal(report.stale, []);
  assert.equal(report.written, []);
  assert.is(await cli('typegen', '--check', '--project', project), 0);
});

test('--check fails once a kernel changes, and typegen brings it up to date', async () => {
  write(source, KERNELS.replace('b[i + 1]', 'b[i + 1] + c[i]'));
  const report = await typegen({ project, check: true });
  assert.not.ok(report.ok);
  assert.equal(report.stale, [{ file: declarations, why: 'out of date' }]);
  assert.is(await cli('typegen', '--check', '--project', project), 1);
  // check mode writes nothing
  assert.not.match(readFileSync(declarations, 'utf8'), ' c: ');

  assert.ok((await typegen({ project })).ok);
  assert.match(
    readFileSync(declarations, 'utf8'),
    "c: { kind: 'array'; dtype: 'auto'; required: true; output: false };",
  );
  assert.ok((await typegen({ project, check: true })).ok);
});

test('--check fails when the declarations are missing or left over', async () => {
  rmSync(declarations);
  assert.equal((await typegen({ project, check: true })).stale, [{ file: declarations, why: 'missing' }]);
  assert.ok((await typegen({ project })).ok);
  assert.ok(existsSync(declarations));

  // the kernels go: their declarations must go too
  write(source, 'export const nothing = 1;\n');
  assert.equal((await typegen({ project, check: true })).stale, [{ file: declarations, why: 'left over' }]);
  assert.equal((await typegen({ project })).removed, [declarations]);
  assert.not.ok(existsSync(declarations));
  assert.ok((await typegen({ project, check: true })).ok);
});

test('a tsconfig.json that does not parse is an error naming it and why, never an empty project', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'loom-typegen-config-'));
  try {
    const config = path.join(dir, 'tsconfig.json');
    for (const [text, why] of [
      ['{ "include": ["src/**/*.ts"', "']' expected"],
      ['{ "extends": "./missing-base.json" }', 'missing-base.json'],
    ]) {
      writeFileSync(config, text!);
      const thrown = await typegen({ project: config, check: true }).then(
        () => undefined,
        (e: unknown) => e,
      );
      assert.ok(
        thrown instanceof Error &&
          thrown.message.startsWith(`cannot read ${config}: `) &&
          thrown.message.includes(why!),
        `${text}: ${String(thrown)}`,
      );
    }
    // a valid one that takes in no file is an empty project, not an error
    writeFileSync(config, '{ "include": ["src/**/*.ts"] }');
    assert.is((await typegen({ project: config, check: true })).ok, true);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a kernel that does not build is an error pointing into its template', async () => {
  write(
    source,
    "import { domain, insn, kernel } from '@loom/dsl';\nexport const broken = kernel(domain`{ [i]: 0<=i<n }`, insn`out[i] = a[i] + @`, { name: 'broken' });\n",
  );
  const report = await typegen({ project });
  assert.not.ok(report.ok);
  assert.equal(report.written, []);
  assert.is(report.errors.length, 1);
  assert.match(report.errors[0], "src/kernels.ts:2: kernel 'broken' does not build: unexpected character '@'");
  // line 2, column of the '@'
  const column = readFileSync(source, 'utf8').split('\n')[1].indexOf('@') + 1;
  assert.match(report.errors[0], `at ${source}:2:${column}`);
});

test('names are the registry keys: two template kernels may not share one', async () => {
  write(
    source,
    `import { domain, insn, kernel } from '@loom/dsl';
export const one = kernel(domain\`{ [i]: 0<=i<n }\`, insn\`out[i] = a[i]\`, { name: 'same' });
export const two = kernel(domain\`{ [i]: 0<=i<n }\`, insn\`out[i] = b[i]\`, { name: 'same' });
`,
  );
  const report = await typegen({ project });
  assert.not.ok(report.ok);
  assert.match(
    report.errors[0],
    "kernel name 'same' is used by 2 template kernels (src/kernels.ts:2, src/kernels.ts:3)",
  );
});

test('values typegen cannot know leave the kernel loose, with a note saying where', async () => {
  write(
    source,
    `import { domain, insn, kernel } from '@loom/dsl';
export function make(k: number) {
  return kernel(domain\`{ [i]: 0<=i<n }\`, insn\`out[i] = \${k}*a[i]\`, { name: 'dynamic' });
}
`,
  );
  const report = await typegen({ project });
  assert.ok(report.ok);
  assert.equal(report.kernels, []);
  assert.match(
    report.notes[0],
    "src/kernels.ts:3: kernel left loosely typed: 'k' is not a const with a static value (src/kernels.ts:3:",
  );
});

// --- computations whose parameter lists the compiler cannot see ------------------------------------

const computationsSource = path.join(dir, 'src', 'computations.ts');
const computationsDeclarations = path.join(dir, 'src', 'computations.loom.d.ts');

const COMPUTATIONS = `
import { computation, pureParallel, type ComputationParam } from '@loom/computation';
import * as loomc from '@loom/computation';
import { SIZE } from './sizes.ts';

const PARAMS: ComputationParam[] = [
  { name: 'output', dtype: 'float32', shape: [SIZE, 2], role: 'o' },
  { name: 'input', dtype: 'int32', shape: [SIZE * 2], role: 'i' },
  { name: 'k', dtype: 'float32', role: 's' },
];
// a shared list, by name: registered
export const first = computation({ name: 'first', params: PARAMS, buildPlan() {} });
export const second = loomc.pureParallel({ name: 'second', params: PARAMS, body: 'output[idx0, idx1] = k' });
// written in place: the compiler types it, typegen leaves it alone
export const inPlace = computation({ name: 'inPlace', params: [{ name: 'x', dtype: 'float32', shape: [4], role: 'o' }], buildPlan() {} });
// unnamed: left loose, with a note
export const unnamed = pureParallel({ params: PARAMS, body: 'output[idx0, idx1] = k' });
`;

test('typegen registers the parameter lists of named computations the compiler cannot see', async () => {
  write(source, KERNELS);
  write(path.join(dir, 'src', 'sizes.ts'), 'export const SIZE = 8;\n');
  write(computationsSource, COMPUTATIONS);
  const report = await typegen({ project });
  assert.ok(report.ok, report.errors.join('\n'));
  assert.equal(
    report.computations.map((c) => c.name),
    ['first', 'second'],
  );
  assert.ok(report.written.includes(computationsDeclarations));
  assert.ok(
    report.notes.some((n) => /src\/computations\.ts:17: computation left loosely typed: give it a name/.test(n)),
  );
  const text = readFileSync(computationsDeclarations, 'utf8');
  assert.match(text, "import type {} from '@loom/computation';");
  assert.not.match(text, "'@loom/dsl'");
  assert.not.match(text, 'inPlace');
  assert.match(
    text,
    `    first: {
      params: readonly [
        { readonly name: 'output'; readonly dtype: 'float32'; readonly shape: readonly [8, 2]; readonly role: 'o' },
        { readonly name: 'input'; readonly dtype: 'int32'; readonly shape: readonly [16]; readonly role: 'i' },
        { readonly name: 'k'; readonly dtype: 'float32'; readonly role: 's' },
      ];
    };`,
  );
  assert.match(text, '    second: {');
  assert.ok((await typegen({ project, check: true })).ok);
});

test('--check fails once a registered parameter list changes', async () => {
  write(computationsSource, COMPUTATIONS.replace("dtype: 'int32'", "dtype: 'uint8'"));
  assert.equal((await typegen({ project, check: true })).stale, [
    { file: computationsDeclarations, why: 'out of date' },
  ]);
  assert.ok((await typegen({ project })).ok);
  assert.match(readFileSync(computationsDeclarations, 'utf8'), "readonly dtype: 'uint8'");
  assert.ok((await typegen({ project, check: true })).ok);
});

test('a parameter list the computation would refuse is an error; names are registry keys', async () => {
  write(computationsSource, COMPUTATIONS.replace("role: 's'", "role: 'x'"));
  let report = await typegen({ project });
  assert.not.ok(report.ok);
  assert.match(
    report.errors[0],
    "src/computations.ts:12: computation 'first': computation 'first': parameter 'k' has role 'x'",
  );
  write(computationsSource, COMPUTATIONS.replace("name: 'second'", "name: 'first'"));
  report = await typegen({ project });
  assert.not.ok(report.ok);
  assert.match(
    report.errors[0],
    "computation name 'first' is used by 2 computations (src/computations.ts:12, src/computations.ts:13)",
  );
  rmSync(computationsSource);
  assert.equal((await typegen({ project })).removed, [computationsDeclarations]);
});

test('without @loom/computation installed (an optional peer): a project without computations is typed; one with them is told what to install', () => {
  // the bin, with @loom/computation hidden as if not installed (test/support/hide-packages.mjs)
  const run = (...args: string[]) =>
    spawnSync(
      process.execPath,
      [
        '--import',
        path.join(repository, 'test/support/hide-packages.mjs'),
        path.join(repository, 'packages/dsl/bin/loom.mjs'),
        'typegen',
        ...args,
      ],
      {
        cwd: dir,
        encoding: 'utf8',
        env: { ...process.env, LOOM_HIDE_PACKAGES: '@loom/computation' },
      },
    );
  rmSync(declarations, { force: true });
  const written = run();
  assert.is(written.status, 0, written.stderr);
  assert.match(written.stdout, 'loom typegen: wrote src/kernels.loom.d.ts');
  const check = run('--check');
  assert.is(check.status, 0, check.stderr);
  assert.match(check.stdout, /^loom typegen --check: \d+ template kernels, declarations up to date\n$/, check.stdout);
  write(computationsSource, COMPUTATIONS);
  try {
    const missing = run();
    assert.is(missing.status, 1, missing.stderr);
    assert.match(
      missing.stderr,
      "error: src/computations.ts:12: computation 'first' is made with @loom/computation, which is not installed: npm install @loom/computation\n",
    );
    assert.not.ok(existsSync(computationsDeclarations), 'nothing written for it');
  } finally {
    rmSync(computationsSource);
  }
});

test.after(() => rmSync(dir, { recursive: true, force: true }));

test.run();
