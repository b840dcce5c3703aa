/**
 * An option Loom cannot honour is an error, never ignored: every public function taking an
 * options object refuses a key it does not know, naming itself and the key, and suggests
 * the key meant when one is close. Options built in a variable (no excess-property check)
 * reach the functions as JavaScript users' do.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  addAndInferDtypes,
  addBarrier,
  addDtypes,
  addNosync,
  addPaddingToAvoidBankConflicts,
  addPrefetch,
  aliasTemporaries,
  assignmentToSubst,
  autotune,
  bufferArray,
  chunkIname,
  defineFunction,
  defineTuning,
  didYouMean,
  duplicateInames,
  fuseKernels,
  gatherAccessFootprintBytes,
  gatherAccessFootprints,
  generateCode,
  getDotDependencyGraph,
  getMemAccessMap,
  getOpMap,
  getStatistics,
  globalArg,
  inferUnknownTypes,
  joinInames,
  LoomError,
  LoopKernel,
  makeKernel,
  makeReductionInamesUnique,
  parseExpression,
  pipelinePrefetch,
  precompute,
  prepareLaunch,
  realizeReduction,
  reductionArgToSubstRule,
  renameIname,
  renameInames,
  run,
  setOptions,
  splitIname,
  stringifyKernel,
  tagInames,
  temporaryVariable,
  toBatched,
} from '@loom/core';
import { cpuDevice, jsTarget } from '@loom/codegen-js';
import { openclDevice, openclTarget } from '@loom/codegen-opencl';
import { webgpuDevice, wgslTarget } from '@loom/codegen-wgsl';
import { kernel } from '@loom/dsl';
import { empty, pointwise, tensor } from '@loom/elementwise';
import { computation, matrixMul, predicateSum, pureParallel, scan, transformation } from '@loom/computation';

/** Options with one key too many, in a variable: what TypeScript lets through. */
type Extra = Record<string, unknown>;
const BOGUS: Extra = { bogusKey: 1 };

function loomError(fn: () => unknown): LoomError {
  try {
    fn();
  } catch (e) {
    assert.instance(e, LoomError, `expected a LoomError, got ${e}`);
    return e as LoomError;
  }
  assert.unreachable('expected a LoomError');
  throw new Error('unreachable');
}

async function loomRejection(p: Promise<unknown>): Promise<LoomError> {
  try {
    await p;
  } catch (e) {
    assert.instance(e, LoomError, `expected a LoomError, got ${e}`);
    return e as LoomError;
  }
  assert.unreachable('expected a LoomError');
  throw new Error('unreachable');
}

// ---- kernels the valid calls work on ----

const typed = (text: string, dtypes: Record<string, 'float32'> = { a: 'float32' }) =>
  addDtypes(makeKernel('{ [i, j]: 0<=i,j<16 }', text), dtypes);
const plain = () => typed('out[i, j] = 2*a[i, j]');
const reduction = () => typed('out[i] = sum(j, a[i, j])');
const twoInsns = () => typed('t[i, j] = a[i, j] {id=first}\nout[i, j] = t[i, j] {id=second}');
const withRule = () => typed('f(x, y) := 2*a[x, y]\nout[i, j] = f(i, j)');
const localTemps = () =>
  makeKernel(
    '{ [i]: 0<=i<16 }',
    '<float32> s[i] = i {id=w1}\nout1[i] = s[i] {id=r1, dep=w1}\n<float32> t[i] = 2*i {id=w2, dep=r1}\nout2[i] = t[i] {id=r2, dep=w2}',
  );

/**
 * Every transformation with options: its name, and a valid call given some extra options.
 * The valid call must work as it is; with a key it does not know, it must fail naming both.
 */
const TRANSFORMATIONS: readonly (readonly [string, (extra: Extra) => unknown])[] = [
  ['splitIname', (x) => splitIname(plain(), 'i', 4, { outerTag: 'g.0', ...x })],
  ['chunkIname', (x) => chunkIname(plain(), 'i', 4, { innerTag: 'l.0', ...x })],
  ['tagInames', (x) => tagInames(plain(), { i: 'l.0', q: 'g.0' }, { ignoreNonexistent: true, ...x })],
  ['duplicateInames', (x) => duplicateInames(plain(), 'j', { suffix: '_copy', ...x })],
  ['renameIname', (x) => renameIname(plain(), 'i', 'ii', { existingOk: false, ...x })],
  [
    'renameInames',
    (x) =>
      renameInames(makeKernel(['{ [i]: 0<=i<16 }', '{ [j]: 0<=j<16 }'], 'a[i] = 1\nb[j] = 2'), ['i', 'j'], 'k', {
        existingOk: false,
        ...x,
      }),
  ],
  ['joinInames', (x) => joinInames(plain(), ['i', 'j'], 'ij', { tag: 'g.0', ...x })],
  ['makeReductionInamesUnique', (x) => makeReductionInamesUnique(reduction(), { inames: ['j'], ...x })],
  ['reductionArgToSubstRule', (x) => reductionArgToSubstRule(reduction(), 'j', { ruleName: 'summand', ...x })],
  ['realizeReduction', (x) => realizeReduction(reduction(), { forceScan: false, ...x })],
  [
    'addPrefetch',
    (x) => addPrefetch(splitIname(plain(), 'i', 4), 'a', ['i_inner', 'j'], { defaultTag: 'l.auto', ...x }),
  ],
  ['precompute', (x) => precompute(withRule(), 'f', ['j'], { temporaryName: 'f_tmp', ...x })],
  ['assignmentToSubst', (x) => assignmentToSubst(twoInsns(), 't', { within: 'id:second', ...x })],
  ['bufferArray', (x) => bufferArray(plain(), 'out', { bufferInames: ['j'], initExpression: '0', ...x })],
  ['aliasTemporaries', (x) => aliasTemporaries(localTemps(), ['s', 't'], { synchronizeForExclusiveUse: false, ...x })],
  ['addBarrier', (x) => addBarrier(twoInsns(), 'id:first', 'id:second', { synchronizationKind: 'global', ...x })],
  ['addNosync', (x) => addNosync(twoInsns(), 'any', 'id:first', 'id:second', { bidirectional: true, ...x })],
  ['toBatched', (x) => toBatched(plain(), 'nb', ['a', 'out'], { batchInamePrefix: 'b', ...x })],
  ['fuseKernels', (x) => fuseKernels([plain(), typed('out2[i, j] = a[i, j] + 1')], { suffixes: ['_x', '_y'], ...x })],
  ['addPaddingToAvoidBankConflicts', (x) => addPaddingToAvoidBankConflicts(plain(), { banks: 32, ...x })],
  ['inferUnknownTypes', (x) => inferUnknownTypes(plain(), { expectCompletion: true, ...x })],
  [
    'addAndInferDtypes',
    (x) =>
      addAndInferDtypes(
        makeKernel('{ [i]: 0<=i<4 }', 'out[i] = a[i]'),
        { a: 'float32' },
        { expectCompletion: true, ...x },
      ),
  ],
  ['setOptions', (x) => setOptions(plain(), { writeCode: false, ...x })],
  ['pipelinePrefetch', (x) => pipelinePrefetch(plain(), 'id:nothing', 'i', { temporaryName: 'p', ...x })],
];

for (const [name, call] of TRANSFORMATIONS) {
  test(`${name}: an unknown option is a LoomError naming the function and the key; the valid options work`, () => {
    const error = loomError(() => call(BOGUS));
    assert.match(error.message, new RegExp(`^${name}: unknown option 'bogusKey' \\(known: [^)]+\\)$`));
    // pipelinePrefetch's valid call picks no fetch on purpose (its own tests build pipelines): the option check comes first
    if (name === 'pipelinePrefetch') assert.not.match(loomError(() => call({})).message, /unknown option/);
    else assert.instance(call({}), LoopKernel);
  });
}

test('a misspelt option gets a did-you-mean: close in spelling, or equal but for case', () => {
  assert.match(
    loomError(() => splitIname(plain(), 'i', 4, { outerTg: 'g.0' } as Extra)).message,
    /^splitIname: unknown option 'outerTg' \(known: .*outerTag.*\); did you mean 'outerTag'\?$/,
  );
  assert.match(
    loomError(() => tagInames(plain(), { i: 'l.0' }, { ignorenonexistent: true } as Extra)).message,
    /did you mean 'ignoreNonexistent'\?/,
  );
  // nothing close: no guess
  assert.not.match(loomError(() => splitIname(plain(), 'i', 4, BOGUS)).message, /did you mean/);
  assert.is(didYouMean('innerTg', ['outerTag', 'innerTag']), 'innerTag');
  assert.is(didYouMean('xTag', ['aTag', 'bTag']), undefined, 'two equally close: no guess');
  assert.is(didYouMean('x', ['id']), undefined, 'two edits are too many for a name of one letter');
});

test('options that are not an object are an error too', () => {
  assert.match(
    loomError(() => splitIname(plain(), 'i', 4, 'g.0' as unknown as Extra)).message,
    /^splitIname: the options must be an object, got string$/,
  );
  assert.match(
    loomError(() => getOpMap(plain(), [] as unknown as Extra)).message,
    /^getOpMap: the options must be an object, got an array$/,
  );
});

test('the kernel frontends: makeKernel, globalArg, temporaryVariable, parseExpression, stringifyKernel', () => {
  assert.match(
    loomError(() => makeKernel('{ [i]: 0<=i<4 }', 'out[i] = 1', undefined, { nme: 'k' } as Extra)).message,
    /^makeKernel: unknown option 'nme' .*did you mean 'name'\?$/,
  );
  assert.match(
    loomError(() => globalArg('a', { dtyp: 'float32' } as Extra)).message,
    /^globalArg: unknown option 'dtyp' .*did you mean 'dtype'\?$/,
  );
  assert.match(
    loomError(() => temporaryVariable('t', { adressSpace: 'local' } as Extra)).message,
    /^temporaryVariable 't': unknown option 'adressSpace' .*did you mean 'addressSpace'\?$/,
  );
  assert.match(loomError(() => parseExpression('a + 1', BOGUS)).message, /^parseExpression: unknown option 'bogusKey'/);
  assert.match(loomError(() => stringifyKernel(plain(), BOGUS)).message, /^stringifyKernel: unknown option 'bogusKey'/);
  assert.is(globalArg('a', { dtype: 'float32' }).dtype, 'float32');
});

test('the analyses: getOpMap, getMemAccessMap, getStatistics, footprints, getDotDependencyGraph', () => {
  const knl = plain();
  const analyses: readonly (readonly [string, (extra: Extra) => unknown])[] = [
    ['getOpMap', (x) => getOpMap(knl, { subgroupSize: 32, ...x })],
    ['getMemAccessMap', (x) => getMemAccessMap(knl, { subgroupSize: 32, ...x })],
    ['getStatistics', (x) => getStatistics(knl, { subgroupSize: 32, ...x })],
    ['gatherAccessFootprints', (x) => gatherAccessFootprints(knl, { ignoreUncountable: false, ...x })],
    ['gatherAccessFootprintBytes', (x) => gatherAccessFootprintBytes(knl, { ignoreUncountable: false, ...x })],
    ['getDotDependencyGraph', (x) => getDotDependencyGraph(knl, { useInsnId: true, ...x })],
  ];
  for (const [name, call] of analyses) {
    assert.match(loomError(() => call(BOGUS)).message, new RegExp(`^${name}: unknown option 'bogusKey'`));
    call({});
  }
  assert.match(loomError(() => getOpMap(knl, { subGroupSize: 32 } as Extra)).message, /did you mean 'subgroupSize'\?/);
});

test('generateCode, run and prepareLaunch: a misspelt checkBounds is an error, not bounds left unchecked', async () => {
  const knl = makeKernel('{ [i]: 0<=i<n }', 'out[i] = 2*a[i]');
  const typedKnl = addDtypes(knl, { a: 'float32' });
  for (const target of [jsTarget(), openclTarget(), wgslTarget()]) {
    assert.match(
      loomError(() => generateCode(typedKnl, target, { checkbounds: true } as Extra)).message,
      /^generateCode: unknown option 'checkbounds' \(known: checkBounds\); did you mean 'checkBounds'\?$/,
    );
    assert.ok(generateCode(typedKnl, target, { checkBounds: true }).code.length > 0);
  }
  const device = cpuDevice();
  const a = new Float32Array([1, 2, 3]);
  assert.match(
    (await loomRejection(run(knl, device, { a }, { checkbounds: false } as Extra))).message,
    /^run: unknown option 'checkbounds'.*did you mean 'checkBounds'\?$/,
  );
  assert.equal([...((await run(knl, device, { a }, { checkBounds: false })).out as Float32Array)], [2, 4, 6]);
  // a call that finds its plan cached is checked all the same
  assert.match(
    (await loomRejection(run(knl, device, { a }, { checkbounds: false } as Extra))).message,
    /^run: unknown option 'checkbounds'/,
  );
  assert.match(
    (await loomRejection(prepareLaunch(knl, device, {}, BOGUS))).message,
    /^prepareLaunch: unknown option 'bogusKey'/,
  );
});

test('the target and device factories (checked before any driver is looked for)', async () => {
  assert.match(
    loomError(() => cpuDevice({ cachesize: 4 } as Extra)).message,
    /^cpuDevice: unknown option 'cachesize' .*did you mean 'cacheSize'\?$/,
  );
  assert.match(
    loomError(() => openclDevice({ platfrom: 'pocl' } as Extra)).message,
    /^openclDevice: unknown option 'platfrom' .*did you mean 'platform'\?$/,
  );
  assert.match(
    (await loomRejection(webgpuDevice({ powerPreferense: 'low-power' } as Extra))).message,
    /^webgpuDevice: unknown option 'powerPreferense' .*did you mean 'powerPreference'\?$/,
  );
  assert.match(
    loomError(() => openclTarget({ fp16: 'storage' } as Extra)).message,
    /^openclTarget: unknown option 'fp16' \(known: float16, subgroups, registersPerComputeUnit\)$/,
  );
  assert.match(
    loomError(() => wgslTarget({ shaderf16: false } as Extra)).message,
    /^wgslTarget: unknown option 'shaderf16' .*did you mean 'shaderF16'\?$/,
  );
  assert.ok(cpuDevice({ cacheSize: 4 }));
});

test('the builder verbs check their own spellings, and point a core spelling to theirs', () => {
  const k = () => kernel('{ [i, j]: 0<=i,j<16 }', 'out[i, j] = 2*a[i, j]').dtypes({ a: 'float32' });
  // the colleague's finding: splitIname's spelling given to split left the inames untagged
  assert.match(
    loomError(() => k().split('i', 4, { outerTag: 'g.0' } as Extra)).message,
    /^split: unknown option 'outerTag' \(known: outer, inner, outerIname, innerIname, slabs, within\); did you mean 'outer'\?$/,
  );
  assert.match(
    loomError(() => k().chunk('i', 4, { innerTag: 'l.0' } as Extra)).message,
    /^chunk: unknown option 'innerTag' .*did you mean 'inner'\?$/,
  );
  assert.match(
    loomError(() => k().tile('i', 'j', 4, 4, { outerTag: 'g' } as Extra)).message,
    /^tile: unknown option 'outerTag' \(known: outer, inner\); did you mean 'outer'\?$/,
  );
  assert.match(
    loomError(() => k().prefetch('a', ['j'], { temporaryAddressSpace: 'local' } as Extra)).message,
    /^prefetch: unknown option 'temporaryAddressSpace' .*did you mean 'space'\?$/,
  );
  const verbs: readonly (readonly [string, (extra: Extra) => unknown])[] = [
    ['split', (x) => k().split('i', 4, { outer: 'g.0', ...x })],
    ['chunk', (x) => k().chunk('i', 4, { inner: 'l.0', ...x })],
    ['tile', (x) => k().tile('i', 'j', 4, 4, { outer: 'g', ...x })],
    ['dup', (x) => k().dup('j', { suffix: '_c', ...x })],
    ['rename', (x) => k().rename('i', 'ii', { existingOk: false, ...x })],
    ['join', (x) => k().join(['i', 'j'], 'ij', { tag: 'g.0', ...x })],
    [
      'prefetch',
      (x) =>
        k()
          .split('i', 4)
          .prefetch('a', ['i_inner', 'j'], { space: 'local', ...x }),
    ],
    [
      'nosync',
      (x) =>
        kernel('{ [i]: 0<=i<4 }', 't[i] = 1 {id=w}\nout[i] = t[i] {id=r}').nosync('any', 'id:w', 'id:r', {
          bidirectional: true,
          ...x,
        }),
    ],
    ['options', (x) => k().options({ writeCode: false, ...x })],
    [
      'reductionRule',
      (x) =>
        kernel('{ [i, j]: 0<=i,j<4 }', 'out[i] = sum(j, a[i, j])').reductionRule('j', { ruleName: 'summand', ...x }),
    ],
    ['stats', (x) => k().stats({ subgroupSize: 32, ...x })],
    ['kernel', (x) => kernel('{ [i]: 0<=i<4 }', 'out[i] = 1', { name: 'ones', ...x })],
  ];
  for (const [name, call] of verbs) {
    assert.match(
      loomError(() => call(BOGUS)).message,
      new RegExp(`^${name}: unknown option 'bogusKey' \\(known: [^)]+\\)$`),
      name,
    );
    call({});
  }
});

test('pointwise, tensor and the computations', () => {
  assert.match(
    loomError(() => pointwise({ numOutput: 1 } as Extra, 'x + 1')).message,
    /^pointwise: unknown option 'numOutput' .*did you mean 'numOutputs'\?$/,
  );
  assert.ok(pointwise({ numOutputs: 1 }, 'x + 1'));
  assert.match(
    loomError(() => tensor(new Float32Array(2), [2], { dtpye: 'float64' } as Extra)).message,
    /^tensor: unknown option 'dtpye' .*did you mean 'dtype'\?$/,
  );
  const operand = { dtype: 'float32', shape: [4, 4] } as const;
  assert.match(
    loomError(() => matrixMul(operand, operand, { transposeA: true } as Extra)).message,
    /^matrixMul: unknown option 'transposeA' .*did you mean 'transposedA'\?$/,
  );
  assert.ok(matrixMul(operand, operand, { transposedA: true }));
  assert.match(
    loomError(() => scan(operand, predicateSum('float32'), { inclusive: true } as Extra)).message,
    /^scan: unknown option 'inclusive' \(known: axes, exclusive, perItem, workGroupSize\)/,
  );
  assert.ok(scan(operand, predicateSum('float32'), { exclusive: true }));
  assert.match(
    loomError(() => empty([2], { stride: [1] } as Extra)).message,
    /^empty: unknown option 'stride' .*did you mean 'strides'\?$/,
  );
  const params = [{ name: 'out', role: 'o', dtype: 'float32', shape: [4] }] as const;
  assert.match(
    loomError(() => computation({ params, buildPlan: () => {}, buildplan: () => {} } as Extra as never)).message,
    /^computation: unknown option 'buildplan'/,
  );
  assert.match(
    loomError(() => pureParallel({ params, body: 'out[idx0] = 1', guidingArrays: 'out' } as Extra as never)).message,
    /^pureParallel: unknown option 'guidingArrays' .*did you mean 'guidingArray'\?$/,
  );
  assert.match(
    loomError(() => transformation({ params: [], body: '', connector: [] } as Extra as never)).message,
    /^transformation: unknown option 'connector' .*did you mean 'connectors'\?$/,
  );
});

test('spec objects: defineFunction, defineTuning; and autotune', async () => {
  const spec = {
    name: 'twice',
    signature: { args: ['float32'], result: 'float32' },
    js: (x: number) => 2 * x,
  } as const;
  assert.match(
    loomError(() => defineFunction({ ...spec, javascript: spec.js } as Extra as never)).message,
    /^defineFunction: unknown option 'javascript'/,
  );
  assert.is(defineFunction(spec).name, 'twice');
  const problem = { name: 'p', space: [1], build: () => plain(), arguments: async () => ({}) };
  assert.match(
    loomError(() => defineTuning({ ...problem, budget: 1 } as Extra as never)).message,
    /^defineTuning: unknown option 'budget'/,
  );
  assert.match(
    (await loomRejection(autotune(defineTuning(problem), cpuDevice(), { budgetSecond: 1 } as Extra))).message,
    /^autotune: unknown option 'budgetSecond' .*did you mean 'budgetSeconds'\?$/,
  );
});

test.run();
