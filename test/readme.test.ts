/**
 * The READMEs' code is true: README.md's, and each package's (packages/NAME/README.md, which
 * ships in its npm tarball). Each ```ts block is written to a file inside the repository (so
 * its `@loom/*` imports are the packages' sources) and
 *
 *   - type-checked, all blocks in one run of tsc: each `@ts-expect-error` must meet its error;
 *   - run with tsx, all in one process one after another (support/run-modules.ts), on whatever
 *     devices are present — unless a `<!-- typecheck-only -->` line
 *     stands before the block (blocks that show compile errors);
 *   - what it prints is checked: the comment lines right below a `console.log(...)` line are
 *     what that call prints.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type ModulesRun, runModules } from './support/run-modules.ts';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));

interface Block {
  /** The README, relative to the repository's root. */
  readonly readme: string;
  /** The line of the opening ```ts in it. */
  readonly line: number;
  readonly code: string;
  readonly typecheckOnly: boolean;
}

const READMES = [
  'README.md',
  ...readdirSync(path.join(root, 'packages'))
    .map((p) => `packages/${p}/README.md`)
    .filter((f) => existsSync(path.join(root, f)))
    .sort(),
];

function readmeBlocks(readme: string): Block[] {
  const text = readFileSync(path.join(root, readme), 'utf8');
  const blocks: Block[] = [];
  for (const match of text.matchAll(/(<!-- typecheck-only -->\n)?```ts\n([\s\S]*?)\n```/g)) {
    const line = text.slice(0, match.index + (match[1]?.length ?? 0)).split('\n').length;
    blocks.push({ readme, line, code: match[2], typecheckOnly: match[1] !== undefined });
  }
  return blocks;
}

/** What the block says it prints: for each `console.log` followed by comment lines, those lines. */
function expectedOutputs(code: string): string[] {
  const lines = code.split('\n');
  const outputs: string[] = [];
  lines.forEach((line, k) => {
    if (!line.includes('console.log(')) return;
    const printed: string[] = [];
    for (let next = k + 1; next < lines.length && /^\/\/( |$)/.test(lines[next]); next++)
      printed.push(lines[next].replace(/^\/\/ ?/, ''));
    if (printed.length > 0) outputs.push(printed.join('\n'));
  });
  return outputs;
}

const blocks = READMES.flatMap(readmeBlocks);
const directory = mkdtempSync(path.join(root, '.readme-'));
/** `README.md` line 12 → readme-line-12.ts; `packages/dsl/README.md` line 5 → packages-dsl-README.md-line-5.ts */
const stemOf = (block: Block) =>
  `${block.readme === 'README.md' ? 'readme' : block.readme.replaceAll('/', '-')}-line-${block.line}`;
const fileOf = (block: Block) => path.join(directory, `${stemOf(block)}.ts`);
const where = (block: Block) => `${block.readme} line ${block.line}`;

test.before(() => {
  for (const block of blocks) writeFileSync(fileOf(block), `${block.code}\n`);
  const config = { extends: '../tsconfig.json', include: ['*.ts'], exclude: [] };
  writeFileSync(path.join(directory, 'tsconfig.json'), JSON.stringify(config));
});

test.after(() => rmSync(directory, { recursive: true, force: true }));

test('the README has runnable blocks, and blocks that only type-check', () => {
  const top = blocks.filter((b) => b.readme === 'README.md');
  assert.ok(top.filter((b) => !b.typecheckOnly).length >= 5, `${top.length} blocks found`);
  assert.ok(top.some((b) => b.typecheckOnly));
});

test('every package has a README with a runnable example', () => {
  for (const name of readdirSync(path.join(root, 'packages'))) {
    const readme = `packages/${name}/README.md`;
    assert.ok(existsSync(path.join(root, readme)), `${readme} is missing`);
    assert.ok(
      blocks.some((b) => b.readme === readme && !b.typecheckOnly),
      `${readme} has no runnable ts block`,
    );
  }
});

test('every block type-checks (and each @ts-expect-error meets its error)', () => {
  const result = spawnSync(path.join(root, 'node_modules/.bin/tsc'), ['--noEmit', '-p', directory], {
    cwd: root,
    encoding: 'utf8',
  });
  let report = `${result.stdout}${result.stderr}`;
  for (const block of blocks)
    report = report.replaceAll(`${path.relative(root, fileOf(block))}`, `${where(block)} (its block)`);
  assert.is(result.status, 0, report);
});

const runnable = blocks.filter((b) => !b.typecheckOnly);
let ran: ModulesRun | undefined;
/** All runnable blocks, run once, one after another in one process (see run-modules.ts: why not one each). */
const runs = (): ModulesRun => {
  ran ??= runModules(runnable.map(fileOf), { FORCE_COLOR: '0' }); // printed as to a file, without colours
  return ran;
};

for (const block of runnable) {
  test(`the block at ${where(block)} runs and prints what it says`, () => {
    const { runs: byFile, status, stderr } = runs();
    const result = byFile.get(fileOf(block));
    assert.ok(result, `the blocks' process (status ${status}) ended before this block:\n${stderr.slice(-3000)}`);
    assert.is(result.error, null, `it threw:\n${result.error}\n${result.stderr.slice(-3000)}`);
    assert.is(result.exitCode, 0, `it set process.exitCode to ${result.exitCode}:\n${result.stderr.slice(-3000)}`);
    let from = 0;
    for (const expected of expectedOutputs(block.code)) {
      const at = result.stdout.indexOf(expected, from);
      assert.ok(
        at >= 0,
        `the block should print\n${expected}\nafter what it printed before; it printed:\n${result.stdout}`,
      );
      from = at + expected.length;
    }
  });
}

test('the process that ran the blocks ended on its own, with status 0 (no handle left open, no late rejection)', () => {
  const { status, stderr } = runs();
  assert.is(status, 0, `status ${status}:\n${stderr.slice(-3000)}`);
});

test.run();
