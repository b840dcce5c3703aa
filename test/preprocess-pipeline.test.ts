/**
 * Preprocessing as one named list of passes (packages/core/src/preprocess/pipeline.ts), and
 * the verifier that runs between them in debug mode (LOOM_DEBUG, verify.ts): it accepts
 * every example and tutorial kernel after every pass, and it catches kernels broken by hand
 * and passes that break one, naming the culprit.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  addDtypes,
  BasicSet,
  debugMode,
  InternalError,
  LoopKernel,
  makeKernel,
  printExpr,
  setDebugMode,
  stringifyKernel,
  tagArrayAxes,
  type Expr,
  type Instruction,
} from '@loom/core';
import { call, int, reduce, subscript, variable } from '../packages/core/src/expr/index.ts';
import { DEFAULT_OPTIONS } from '../packages/core/src/kernel/model.ts';
import {
  PREPROCESS_PASSES,
  preprocess,
  runPasses,
  type PreprocessPass,
} from '../packages/core/src/preprocess/pipeline.ts';
import { kernelProblems, verifyKernel } from '../packages/core/src/preprocess/verify.ts';
import { goldenKernels } from './support/golden-kernels.ts';

/** Runs `fn` with LOOM_DEBUG set to `value` (or unset) and read again (`setDebugMode()`), restoring it after. */
function withDebug<T>(value: string | undefined, fn: () => T): T {
  const before = process.env.LOOM_DEBUG;
  setEnvironmentDebug(value);
  try {
    return fn();
  } finally {
    setEnvironmentDebug(before);
  }
}

function setEnvironmentDebug(value: string | undefined): void {
  if (value === undefined) delete process.env.LOOM_DEBUG;
  else process.env.LOOM_DEBUG = value;
  setDebugMode();
}

/** The InternalError `fn` throws (failing the test if it throws anything else, or nothing). */
function internalError(fn: () => unknown): InternalError {
  try {
    fn();
  } catch (e) {
    assert.instance(e, InternalError, `expected an InternalError, got ${e}`);
    return e as InternalError;
  }
  assert.unreachable('expected an InternalError');
  throw new Error('unreachable');
}

test('the passes run from one named list, in this order', () => {
  assert.equal(
    PREPROCESS_PASSES.map((p) => p.name),
    [
      'lowerIndexof',
      'defaultValueTypes',
      'inferTypes',
      'resolveUserCalls',
      'checkTypedKernel',
      'checkComplexTypes',
      'checkCInstructions',
      'checkGlobalFences',
      'lowerComplex',
      'realizeReductions',
      'separateArrays',
      'placeTemporaries',
      'privatizeIlpTemporaries',
      'keepWritersWithReaders',
      'checkDtypes',
    ],
  );
  // what the verifier may rely on from each pass on
  assert.equal(
    PREPROCESS_PASSES.filter((p) => p.establishes).map((p) => `${p.name}: ${p.establishes!.join(',')}`),
    ['inferTypes: typed', 'realizeReductions: reductionsRealized', 'placeTemporaries: temporariesPlaced'],
  );
});

test("preprocessing types, realizes reductions and places temporaries, keeping the caller's arguments", () => {
  const knl = makeKernel('{ [i,j,k]: 0<=i<n and 0<=j<2 and 0<=k<m }', 'out[j,i] = sum(k, a[j,i,k])');
  const sep = addDtypes(tagArrayAxes(knl, 'a', 'sep,c,c'), { a: 'float32' });
  const { kernel, callerArgs } = runPasses(sep);
  // the caller passes `a` whole (with its sep axis), the device kernel takes its slices
  assert.equal(
    callerArgs.map((a) => `${a.name}:${a.dtype}`),
    ['a:float32', 'm:int32', 'n:int32', 'out:float32'],
  );
  assert.equal(
    kernel.args.map((a) => a.name),
    ['a_s0', 'a_s1', 'm', 'n', 'out'],
  );
  // the reduction became an accumulator in private memory
  const acc = [...kernel.temporaries.values()];
  assert.equal(
    acc.map((t) => `${t.name}:${t.dtype}:${t.addressSpace}`),
    ['acc_k:float32:private'],
  );
  assert.not.ok(kernel.instructions.some((i) => i.expression && printExpr(i.expression).includes('sum(')));
});

test('every example and tutorial kernel passes verification after every pass', () => {
  const kernels = goldenKernels();
  assert.ok(kernels.length > 30, `only ${kernels.length} kernels`);
  for (const { id, kernel } of kernels) {
    const verified = runPasses(kernel, PREPROCESS_PASSES, {}, { verify: true });
    assert.equal(
      kernelProblems(verified.kernel, new Set(['typed', 'reductionsRealized', 'temporariesPlaced'])),
      [],
      id,
    );
    // verification only looks: the kernel is the one preprocessing makes without it
    assert.is(
      stringifyKernel(verified.kernel),
      stringifyKernel(runPasses(kernel, PREPROCESS_PASSES, {}, { verify: false }).kernel),
      id,
    );
  }
});

/** A kernel built field by field, without makeKernel: `out[i] = 2*a[i]`, and a second instruction after it. */
function handMade(second: Partial<Instruction>): LoopKernel {
  const insn = (fields: Partial<Instruction> & Pick<Instruction, 'id'>): Instruction => ({
    kind: 'assign',
    assignees: [],
    withinInames: ['i'],
    dependsOn: [],
    noSyncWith: [],
    priority: 0,
    predicates: [],
    tags: [],
    groups: [],
    conflictsWithGroups: [],
    atomic: false,
    ...fields,
  });
  const array = (name: string) => ({
    name,
    kind: 'global' as const,
    dtype: 'float32' as const,
    shape: [variable('n')],
    isInput: name === 'a',
    isOutput: name === 'out',
    forAtomic: false,
  });
  return new LoopKernel({
    name: 'hand_made',
    domains: [BasicSet.parse('[n] -> { [i]: 0 <= i < n }')],
    instructions: [
      insn({
        id: 'double',
        assignees: [subscript('out', [variable('i')])],
        expression: call('max', [subscript('a', [variable('i')]), int(0)]),
      }),
      insn({
        id: 'second',
        assignees: [subscript('out', [variable('i')])],
        expression: subscript('out', [variable('i')]),
        dependsOn: ['double'],
        ...second,
      }),
    ],
    args: [
      array('a'),
      array('out'),
      { name: 'n', kind: 'value', dtype: 'int32', shape: undefined, isInput: true, isOutput: false, forAtomic: false },
    ],
    temporaries: new Map(),
    substitutions: new Map(),
    inameTags: new Map(),
    assumptions: BasicSet.parseConditions('n >= 1', ['n']),
    loopPriorities: [],
    loopSlabs: new Map(),
    options: DEFAULT_OPTIONS,
    silencedWarnings: [],
  });
}

test('the verifier finds what is broken in a kernel made by hand', () => {
  assert.equal(kernelProblems(handMade({})), []);
  assert.equal(kernelProblems(handMade({ dependsOn: ['dubble'] })), [
    "instruction 'second' depends on 'dubble', which does not exist",
  ]);
  assert.equal(kernelProblems(handMade({ withinInames: ['i', 'j'] })), [
    "instruction 'second' runs in the loop 'j', which no domain has",
  ]);
  assert.equal(kernelProblems(handMade({ withinInames: [] })), [
    "instruction 'second' reads the iname 'i' outside its loop",
  ]);
  assert.equal(kernelProblems(handMade({ id: 'double', dependsOn: [] })), ["two instructions have the id 'double'"]);
  assert.equal(kernelProblems(handMade({ expression: subscript('b', [variable('i')]) })), [
    "instruction 'second' reads 'b', which is no iname, argument or temporary",
  ]);
  assert.equal(kernelProblems(handMade({ assignees: [variable('i')] })), [
    "instruction 'second' writes 'i', which is no argument or temporary",
  ]);
  assert.equal(kernelProblems(handMade({ kind: 'barrier' })), ["instruction 'second' is a barrier but assigns"]);
  const reduction = reduce('sum', ['k'], subscript('a', [variable('k')]));
  assert.equal(kernelProblems(handMade({ expression: reduction })), [
    "instruction 'second' reduces over 'k', which no domain has",
  ]);
  // what holds only from a pass on is checked only from then
  const kept = makeKernel('{ [i,k]: 0<=i<n and 0<=k<m }', 'out[i] = sum(k, a[i,k])');
  assert.equal(kernelProblems(kept), []);
  assert.equal(kernelProblems(kept, new Set(['reductionsRealized'])), [
    "instruction 'insn' still holds a reduction after reductions were realized",
  ]);
  const untyped = makeKernel('{ [i]: 0<=i<n }', '<> t = a[i]\nout[i] = t');
  assert.equal(kernelProblems(untyped), []);
  assert.equal(kernelProblems(untyped, new Set(['typed', 'temporariesPlaced'])), [
    "temporary 't' has no dtype after type inference",
    "temporary 't' was not placed",
  ]);
  // a local shape in the domain's parameter n is sized at launch; one in an iname no launch knows
  const local = (shape: Expr) =>
    handMade({}).with({
      temporaries: new Map([['t', { name: 't', dtype: 'float32', shape: [shape], addressSpace: 'local' }]]),
    });
  assert.equal(kernelProblems(local(variable('n'))), []);
  assert.equal(kernelProblems(local(variable('i'))), [
    "temporary 't' in local memory has a shape in names no launch knows (i): [i]",
  ]);
  const e = internalError(() => verifyKernel(handMade({ dependsOn: ['dubble'] }), new Set(), 'by the test'));
  assert.is(
    e.detail,
    "kernel 'hand_made' is broken by the test: instruction 'second' depends on 'dubble', which does not exist",
  );
});

test('LOOM_DEBUG verifies the kernel before preprocessing: a broken one is an InternalError, not a puzzle later', () => {
  const broken = handMade({ dependsOn: ['dubble'] });
  // without debug mode nothing looks, and the passes go through
  const kernel = withDebug(undefined, () => preprocess(broken));
  assert.equal(
    kernel.instructions.map((i) => i.dependsOn),
    [[], ['dubble']],
  );
  for (const on of ['1', 'yes']) {
    const e = internalError(() => withDebug(on, () => preprocess(broken)));
    assert.match(
      e.detail,
      /^kernel 'hand_made' is broken before preprocessing \(by the front end or a transformation\): instruction 'second' depends on 'dubble'/,
    );
  }
  withDebug('0', () => preprocess(broken));
});

test('LOOM_DEBUG is read once; setDebugMode overrides it, and setDebugMode() reads it again', () => {
  const broken = handMade({ dependsOn: ['dubble'] });
  withDebug(undefined, () => {
    // the environment changed behind Loom's back: the decision made stands
    process.env.LOOM_DEBUG = '1';
    assert.is(debugMode(), false);
    preprocess(broken);
    setDebugMode();
    assert.is(debugMode(), true);
    internalError(() => preprocess(broken));
    setDebugMode(false);
    assert.is(debugMode(), false, 'off, whatever LOOM_DEBUG says');
    preprocess(broken);
    delete process.env.LOOM_DEBUG;
    setDebugMode(true);
    assert.is(debugMode(), true, 'on, whatever LOOM_DEBUG says');
    internalError(() => preprocess(broken));
  });
  assert.is(
    debugMode(),
    process.env.LOOM_DEBUG !== undefined && !['', '0'].includes(process.env.LOOM_DEBUG),
    "back to the environment's",
  );
});

test('LOOM_DEBUG names the pass that broke the kernel', () => {
  const knl = makeKernel(
    '{ [i,k]: 0<=i<n and 0<=k<m }',
    `
    <> t = a[i] {id=load}
    out[i] = t + sum(k, b[i,k]) {id=store, dep=load}
  `,
  );
  const typed = addDtypes(knl, { a: 'float32', b: 'float32' });
  const after = (name: string, broken: PreprocessPass): PreprocessPass[] => {
    const k = PREPROCESS_PASSES.findIndex((p) => p.name === name);
    return [...PREPROCESS_PASSES.slice(0, k + 1), broken, ...PREPROCESS_PASSES.slice(k + 1)];
  };
  const cases: [PreprocessPass[], RegExp][] = [
    // a pass that drops an instruction others depend on
    [
      after('inferTypes', {
        name: 'dropsTheLoad',
        run: (k) => k.with({ instructions: k.instructions.filter((i) => i.id !== 'load') }),
      }),
      /is broken after preprocessing pass 'dropsTheLoad': .*'store' depends on 'load', which does not exist/,
    ],
    // a pass that adds a temporary without a dtype once everything is typed
    [
      after('realizeReductions', {
        name: 'addsUntyped',
        run: (k) =>
          k.with({
            temporaries: new Map([
              ...k.temporaries,
              ['u', { name: 'u', dtype: undefined, shape: [], addressSpace: 'private' }],
            ]),
          }),
      }),
      /is broken after preprocessing pass 'addsUntyped': .*temporary 'u' has no dtype after type inference/,
    ],
    // a pass that puts the reduction back
    [
      after('placeTemporaries', { name: 'undoesReductions', run: (k) => k.with({ instructions: typed.instructions }) }),
      /is broken after preprocessing pass 'undoesReductions': .*'store' still holds a reduction/,
    ],
  ];
  for (const [passes, message] of cases) {
    const e = withDebug('1', () => internalError(() => runPasses(typed, passes)));
    assert.match(e.detail, message);
    // the same list without debug mode does not look
    withDebug(undefined, () => runPasses(typed, passes));
  }
});

test.run();
