/**
 * The dependency graph loopy's tutorial draws (`getDotDependencyGraph`, loopy's
 * `get_dot_dependency_graph`): the DOT text of tutorial kernels, exactly as test/golden-graph/
 * holds it; what each part of it means (boxes, reduced arrows, nosync lines, loop clusters,
 * barriers); escaping; and the SVG Graphviz draws from it (`@loom/dsl/graph`): well-formed
 * XML with one node per instruction and one edge per arrow.
 *
 *   LOOM_UPDATE_GOLDEN=1 node scripts/run-tests.mjs '^dependency-graph'   rewrites the files (then read the git diff)
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  addDtypes,
  addDependency,
  cInstruction,
  collectWarnings,
  getDotDependencyGraph,
  LoomError,
  globalArg,
  makeKernel,
  tagInames,
  temporaryVariable,
  type LoopKernel,
} from '@loom/core';
import { dependencyGraphSvg, renderDotAsSvg } from '@loom/dsl/graph';
import { dotString } from '../packages/core/src/kernel/dot-dependency-graph.ts';
import { tutorialKernels } from './support/golden-kernels.ts';
import { elements, parseXml, type XmlElement } from './support/xml.ts';

const directory = path.join(path.dirname(fileURLToPath(import.meta.url)), 'golden-graph');
const update = !!process.env.LOOM_UPDATE_GOLDEN && process.env.LOOM_UPDATE_GOLDEN !== '0';

/** A work-group per 16 elements of a sequential loop: a barrier inserted between writer and readers, and a nosync. */
const localExchange = (): LoopKernel =>
  addDtypes(
    tagInames(
      makeKernel(
        '{ [k,j]: 0<=k<m and 0<=j<16 }',
        `
        <float32> t[j] = a[16*k + j] {id=w}
        out[16*k + j] = t[15 - j] {id=r, dep=w}
        out2[16*k + j] = t[j] {id=s, dep=w, nosync=w@local}
        `,
      ),
      'j:l.0',
    ),
    { a: 'float32' },
  );

/** The tutorial's kernels (its pictures), typed so that they linearize and their loops are drawn. */
const kernels: Record<string, () => LoopKernel> = {
  // the tutorial's dep-graph-incorrect.svg: both instructions in the loops i and j
  'wrong-transpose-and-double': () => addDtypes(tutorialKernels.wrongTransposeAndDouble(), { a: 'float32' }),
  'transpose-and-double': () => addDtypes(tutorialKernels.transposeAndDouble(), { a: 'float32' }),
  // a reduction: drawn as linearized, its accumulator's initialization and update
  matvec: () => addDtypes(tutorialKernels.matvec(), { A: 'float32', x: 'float32' }),
  'local-exchange': localExchange,
};

for (const [name, build] of Object.entries(kernels)) {
  test(`golden: ${name}.dot`, () => {
    const dot = getDotDependencyGraph(build());
    const where = path.join(directory, `${name}.dot`);
    if (update) {
      mkdirSync(directory, { recursive: true });
      writeFileSync(where, dot);
      return;
    }
    assert.ok(existsSync(where), `${where} is missing: LOOM_UPDATE_GOLDEN=1 writes it`);
    assert.fixture(dot, readFileSync(where, 'utf8'));
    // the same kernel, built again, gives the same text
    assert.is(getDotDependencyGraph(build()), dot);
  });
}

test('the tutorial kernel: a box per instruction with its code, the arrow transpose -> insn, the loops as clusters', () => {
  const dot = getDotDependencyGraph(kernels['transpose-and-double']!());
  assert.match(dot, /^digraph "loopy_kernel" \{\n/);
  assert.match(dot, '"transpose" [label="out[j, i] <- a[i, j]",shape="box",tooltip="transpose"];');
  assert.match(dot, '"transpose" -> "insn"\n');
  assert.match(
    dot,
    'subgraph "cluster_i" { label="i"\nsubgraph "cluster_j" { label="j"\n"transpose"\n}\n}\nsubgraph "cluster_ii" { label="ii"\nsubgraph "cluster_jj" { label="jj"\n"insn"\n}\n}\n',
  );
  // useInsnId: the id in the box, the code as the tooltip
  assert.match(
    getDotDependencyGraph(kernels['transpose-and-double']!(), { useInsnId: true }),
    '"transpose" [label="transpose",shape="box",tooltip="out[j, i] <- a[i, j]"];',
  );
});

test('arrows are transitively reduced, as loopy draws them: a -> c is left out beside a -> b -> c', () => {
  const knl = addDependency(
    makeKernel('{ [i]: 0<=i<n }', ['<float32> x = a[i] {id=a}', '<float32> y = 2*x {id=b}', 'out[i] = x + y {id=c}']),
    'id:c',
    'id:a',
  );
  assert.ok(knl.instruction('c').dependsOn.includes('a'), 'c depends on a directly');
  const dot = getDotDependencyGraph(knl, { inameCluster: false });
  const arrows = dot.split('\n').filter((l) => l.includes(' -> '));
  assert.equal(arrows, ['"a" -> "b"', '"b" -> "c"']);
});

test('nosync entries are dashed lines that do not shape the layout; an inserted barrier sits in its loop', () => {
  const dot = getDotDependencyGraph(localExchange());
  assert.match(
    dot,
    '"s" -> "w" [style="dashed",dir="none",constraint="false",label="@local",tooltip="s: no_sync_with=w@local"];',
  );
  const cluster = dot.slice(dot.indexOf('subgraph "cluster_k"'));
  assert.match(cluster, /"w"\n"barrier_1" \[label="\.\.\. lbarrier",shape="plaintext",tooltip="[^"]+"\];\n"r"/);
});

test("a barrier the user wrote is its instruction's box, in the loop it runs in", () => {
  const knl = addDtypes(
    tagInames(
      makeKernel(
        '{ [k,j]: 0<=k<m and 0<=j<16 }',
        `
        <float32> t[j] = a[16*k + j] {id=w}
        ... lbarrier {id=fence, dep=w, inames=k}
        out[16*k + j] = t[15 - j] {id=r, dep=fence}
        `,
      ),
      'j:l.0',
    ),
    { a: 'float32' },
  );
  const dot = getDotDependencyGraph(knl);
  assert.match(dot, '"fence" [label="... lbarrier",shape="box",tooltip="fence"];');
  assert.match(dot, 'subgraph "cluster_k" { label="k"\n"w"\n"fence"\n"r"\n');
  // (no barrier of the linearization's own between w and r: the user's is the one there)
  assert.is(dot.split('\n').filter((l) => l === '"fence"').length, 1, 'in one place');
});

test('arrays without dtypes yet: the loops are drawn all the same, as loopy draws them', () => {
  const { result, warnings } = collectWarnings(() => getDotDependencyGraph(tutorialKernels.transposeAndDouble()));
  assert.is(warnings.length, 0);
  assert.is(result, getDotDependencyGraph(kernels['transpose-and-double']!()), 'as typed');
  // the builder's kernel of the DSL, untyped, with a temporary typed from them
  assert.match(
    getDotDependencyGraph(makeKernel('{ [i]: 0<=i<n }', '<> t = 2*a[i] {id=scale}\nout[i] = t {id=store}')),
    'subgraph "cluster_i" { label="i"\n"scale"\n"store"\n}',
  );
});

test('a kernel that does not linearize: no clusters and a warning saying why by default, an error when asked for', () => {
  // the barrier is outside loop k, between two instructions inside it: no order of the loops has it
  const knl = tagInames(
    makeKernel(
      '{ [k,j]: 0<=k<m and 0<=j<16 }',
      `
      <float32> t[j] = a[16*k + j] {id=w}
      ... lbarrier {id=fence, dep=w}
      out[16*k + j] = t[15 - j] {id=r, dep=fence}
      `,
    ),
    'j:l.0',
  );
  const { result, warnings } = collectWarnings(() => getDotDependencyGraph(knl));
  assert.not.match(result, 'subgraph');
  assert.match(result, '"w" -> "fence"\n"fence" -> "r"');
  assert.is(warnings.length, 1);
  assert.match(
    warnings[0]!.message,
    "kernel 'loopy_kernel': the dependency graph has no loop clusters, since the kernel does not linearize: the dtype of argument 'a' is not known: pass data for it when running, or use addDtypes(knl, { a: 'float32' }) (and with its untyped arrays taken as float32: no valid order: instruction 'r' (inside loop 'k') depends on 'fence' (outside loop 'k')",
  );
  assert.throws(
    () => getDotDependencyGraph(knl, { inameCluster: true }),
    (e: unknown) =>
      e instanceof LoomError &&
      /cannot draw the loops of kernel 'loopy_kernel' \(inameCluster: true\), since it does not linearize: .*: no valid order/.test(
        e.message,
      ),
  );
  // typed, nothing is guessed: its own reason alone
  const typedWarnings = collectWarnings(() => getDotDependencyGraph(addDtypes(knl, { a: 'float32' }))).warnings;
  assert.match(typedWarnings[0]!.message, /does not linearize: no valid order: /);
  // not asked for: no linearization, no warning
  const plain = collectWarnings(() => getDotDependencyGraph(knl, { inameCluster: false }));
  assert.is(plain.warnings.length, 0);
  assert.is(plain.result, result);
});

test("C code is a box of what it writes and loopy's <C code> placeholder, with its arrow to the reader", () => {
  const knl = makeKernel(
    '{[i]: 0<=i<n }',
    [cInstruction('i', 'x = sin((float) i);', { assignees: 'x', id: 'compute' }), 'a[i] = x {id=store}'],
    [globalArg('a', { shape: 'auto', dtype: 'float32' }), temporaryVariable('x', { dtype: 'float32' }), '...'],
  );
  const dot = getDotDependencyGraph(knl);
  assert.match(dot, '"compute" [label="x <- <C code>",shape="box",tooltip="compute"];');
  assert.match(dot, '"compute" -> "store"');
});

test('an unknown option is an error', () => {
  assert.throws(
    () => getDotDependencyGraph(tutorialKernels.double(), { inameClusters: false } as never),
    (e: unknown) =>
      e instanceof LoomError && /unknown option 'inameClusters'.*did you mean 'inameCluster'/.test(e.message),
  );
});

test('DOT strings escape quotes, backslashes and line breaks; Graphviz reads them back as written', async () => {
  const label = 'say "hi" \\ twice\nthen "bye"';
  assert.is(dotString(label), '"say \\"hi\\" \\\\ twice\\nthen \\"bye\\""');
  assert.is(dotString('a\r\nb\rc'), '"a\\nb\\nc"');
  const svg = await renderDotAsSvg(`digraph "g" {\n"x" [label=${dotString(label)},shape="box"];\n}\n`);
  const node = elements(parseXml(svg)).find((e) => e.attributes.class === 'node')!;
  const lines = node.children.filter((c) => c.name === 'text').map((t) => decode(t.text));
  assert.equal(lines, ['say "hi" \\ twice', 'then "bye"']);
});

/** The `<g class="...">` groups of an SVG Graphviz drew, by their titles (node ids; edges as `a->b`). */
function titled(svg: XmlElement, kind: 'node' | 'edge'): string[] {
  return elements(svg)
    .filter((e) => e.name === 'g' && e.attributes.class === kind)
    .map((g) => decode(g.children.find((c) => c.name === 'title')!.text));
}

function decode(text: string): string {
  return text
    .replace(/&#(\d+);/g, (_, n: string) => String.fromCharCode(Number(n)))
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}

test('the SVG: well-formed XML, one node per instruction, one edge per arrow, a cluster per loop', async () => {
  for (const build of Object.values(kernels)) {
    const knl = build();
    const dot = getDotDependencyGraph(knl);
    const svg = parseXml(await dependencyGraphSvg(knl));
    assert.is(svg.name, 'svg');
    // the kernel drawn is the linearized one (a reduction realized): its instructions are the DOT's boxes
    const boxes = [...dot.matchAll(/^"([^"]+)" \[label=.*shape="box"/gm)].map((m) => m[1]!);
    const barriers = [...dot.matchAll(/^"(barrier_\d+)" \[/gm)].map((m) => m[1]!);
    assert.equal(titled(svg, 'node').sort(), [...boxes, ...barriers].sort());
    const arrows = [...dot.matchAll(/^"([^"]+)" -> "([^"]+)"/gm)].map((m) => `${m[1]}->${m[2]}`);
    assert.equal(titled(svg, 'edge').sort(), arrows.sort());
    const loops = [...dot.matchAll(/^subgraph "(cluster_[^"]+)"/gm)].map((m) => m[1]!);
    const clusters = elements(svg)
      .filter((e) => e.attributes.class === 'cluster')
      .map((g) => g.children.find((c) => c.name === 'title')!.text);
    assert.equal(clusters.sort(), loops.sort());
  }
  // the tutorial kernel in numbers: two instructions, one dependency, four loops
  const tutorial = parseXml(await dependencyGraphSvg(kernels['transpose-and-double']!()));
  assert.equal(titled(tutorial, 'node').sort(), ['insn', 'transpose']);
  assert.equal(titled(tutorial, 'edge'), ['transpose->insn']);
});

test.run();
