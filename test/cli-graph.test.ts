/**
 * `loom graph`: the dependency graph of a kernel a file exports, as SVG (Graphviz in
 * WebAssembly, from the optional @hpcc-js/wasm-graphviz) or as DOT text; choosing the kernel;
 * usage mistakes; and the bin without @hpcc-js/wasm-graphviz, which says what to install.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { getDotDependencyGraph } from '@loom/core';
import { loom } from './support/cli.ts';
import { matvecKernel, transposeAndDbl } from './support/graph-kernels.ts';
import { elements, parseXml } from './support/xml.ts';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const kernels = path.join(root, 'test/support/graph-kernels.ts');
const bin = path.join(root, 'packages/dsl/bin/loom.mjs');
const hidePackages = path.join(root, 'test/support/hide-packages.mjs');

function scratch(): string {
  return mkdtempSync(path.join(tmpdir(), 'loom-graph-'));
}

/** The titles of the SVG's `<g class="node">` (instruction ids) and `<g class="edge">` (`a->b`). */
function drawn(svg: string): { nodes: string[]; edges: string[] } {
  const all = elements(parseXml(svg));
  const titles = (kind: string) =>
    all
      .filter((e) => e.name === 'g' && e.attributes.class === kind)
      .map((g) => g.children.find((c) => c.name === 'title')!.text.replace('&#45;&gt;', '->'));
  return { nodes: titles('node').sort(), edges: titles('edge').sort() };
}

test('writes the SVG of the kernel --kernel names: a node per instruction, an edge per dependency, a cluster per loop', async () => {
  const dir = scratch();
  try {
    const out = path.join(dir, 'tutorial.svg');
    const { code, stdout, stderr } = await loom('graph', kernels, '--kernel', 'transposeAndDbl', '--out', out);
    assert.is(code, 0, stderr);
    assert.is(stdout, `wrote ${out}\n`);
    const svg = readFileSync(out, 'utf8');
    assert.equal(drawn(svg), { nodes: ['insn', 'transpose'], edges: ['transpose->insn'] });
    assert.match(svg, '<title>cluster_i</title>');
    assert.match(svg, '<title>cluster_j</title>');
    // the kernel's own name picks it too, and a function ...Kernel is called to build one
    const byName = await loom('graph', kernels, '-k', 'transpose_and_dbl', '-o', out);
    assert.is(byName.code, 0, byName.stderr);
    const matvec = await loom('graph', kernels, '--kernel', 'matvecKernel', '--out', out);
    assert.is(matvec.code, 0, matvec.stderr);
    assert.equal(drawn(readFileSync(out, 'utf8')), {
      nodes: ['insn', 'insn_acc_k_init', 'insn_acc_k_update'],
      edges: ['insn_acc_k_init->insn_acc_k_update', 'insn_acc_k_update->insn'],
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('--dot: the DOT text getDotDependencyGraph gives, on stdout or into --out', async () => {
  const printed = await loom('graph', kernels, '--kernel', 'transposeAndDbl', '--dot');
  assert.is(printed.code, 0, printed.stderr);
  assert.is(printed.stdout, getDotDependencyGraph(transposeAndDbl));
  const dir = scratch();
  try {
    const out = path.join(dir, 'matvec.dot');
    const written = await loom('graph', kernels, '--kernel', 'matvecKernel()', '--dot', '--out', out);
    assert.is(written.code, 0, written.stderr);
    assert.is(readFileSync(out, 'utf8'), getDotDependencyGraph(matvecKernel()));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('without --out, the SVG goes to graph.svg, never onto the terminal', async () => {
  const dir = scratch();
  const cwd = process.cwd();
  try {
    process.chdir(dir);
    const { code, stdout, stderr } = await loom('graph', kernels, '--kernel', 'transposeAndDbl');
    assert.is(code, 0, stderr);
    assert.is(stdout, 'wrote graph.svg\n');
    assert.match(readFileSync(path.join(dir, 'graph.svg'), 'utf8'), /<svg /);
  } finally {
    process.chdir(cwd);
    rmSync(dir, { recursive: true, force: true });
  }
});

test('which kernel: several exported and none named, or a name none has, is said with the names there are', async () => {
  const several = await loom('graph', kernels, '--dot');
  assert.is(several.code, 2);
  assert.is(
    several.stderr,
    `loom graph: ${kernels} exports 2 kernels (matvecKernel(), transposeAndDbl): say which with --kernel <name>\n`,
  );
  const unknown = await loom('graph', kernels, '--kernel', 'matmul', '--dot');
  assert.is(unknown.code, 2);
  assert.is(
    unknown.stderr,
    `loom graph: ${kernels} exports no kernel named 'matmul' (it exports matvecKernel(), transposeAndDbl)\n`,
  );
});

test('usage mistakes: exit code 2, one line saying what, then the usage', async () => {
  const cases: [string[], string][] = [
    [['graph'], 'loom graph: which file? (loom graph <file.ts>)\n'],
    [['graph', 'a.ts', 'b.ts'], "loom graph: one file at a time ('a.ts', 'b.ts')\n"],
    [
      ['graph', kernels, '--out', '/no/such/folder/g.svg'],
      'loom graph: --out /no/such/folder/g.svg: the folder /no/such/folder does not exist\n',
    ],
    [['graph', kernels, '--kernal', 'x'], "loom graph: unknown option '--kernal' (did you mean '--kernel'?)\n"],
    [['graph', kernels, '--dot=yes'], "loom graph: --dot takes no value ('yes')\n"],
  ];
  for (const [argv, first] of cases) {
    const { code, stdout, stderr } = await loom(...argv);
    assert.is(code, 2, argv.join(' '));
    assert.is(stdout, '');
    assert.is(stderr.slice(0, stderr.indexOf('\n') + 1), first.replace("'a.ts', 'b.ts'", "'a.ts', then 'b.ts'"));
    assert.match(stderr, '\n\nusage: loom ');
  }
  const missing = await loom('graph', path.join(root, 'no-such-file.ts'), '--dot');
  assert.is(missing.code, 2);
  assert.match(missing.stderr, 'no-such-file.ts: no such file');
});

test('help: loom help graph, and graph in the list of commands', async () => {
  const help = await loom('help', 'graph');
  assert.is(help.code, 0);
  assert.match(help.stdout, /^usage: loom graph <file.ts\|.js> \[--kernel <name>\] \[--out <graph.svg>\] \[--dot\]/);
  const list = await loom('--help');
  assert.match(list.stdout, '  graph <file.ts> [--kernel <name>] [--out <graph.svg>] [--dot]');
});

test('the bin without @hpcc-js/wasm-graphviz: an SVG says what to install (exit code 2, no stack trace); --dot and help still work', () => {
  const dir = scratch();
  const run = (...args: string[]) =>
    spawnSync(process.execPath, ['--import', hidePackages, bin, ...args], {
      cwd: dir,
      encoding: 'utf8',
      env: { ...process.env, LOOM_HIDE_PACKAGES: '@hpcc-js/wasm-graphviz' },
    });
  try {
    const svg = run('graph', kernels, '--kernel', 'transposeAndDbl');
    assert.is(svg.status, 2, svg.stderr);
    assert.is(
      svg.stderr,
      "loom graph: drawing a dependency graph needs Graphviz, from the '@hpcc-js/wasm-graphviz' package, which is not installed: npm install @hpcc-js/wasm-graphviz (or take the DOT text: getDotDependencyGraph, loom graph --dot)\n",
    );
    assert.not.ok(existsSync(path.join(dir, 'graph.svg')), 'nothing written');
    const dot = run('graph', kernels, '--kernel', 'transposeAndDbl', '--dot');
    assert.is(dot.status, 0, dot.stderr);
    assert.is(dot.stdout, getDotDependencyGraph(transposeAndDbl));
    const help = run('graph', '--help');
    assert.is(help.status, 0, help.stderr);
    assert.match(help.stdout, /^usage: loom graph /);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
