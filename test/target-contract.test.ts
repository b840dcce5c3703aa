/**
 * The target contract: what differs between targets is a fact the target states
 * (`Target`, read through `targetFacts`), never a comparison of its name. Each of the three
 * targets states its facts; a fourth, made-up target that states facts of its own is handled
 * by every layer that reads them without any name: the elementwise layer picks its variant
 * from them, user functions find their code by its dialects, computations size by its
 * subgroup, and an atomic update of a dtype it has no atomics for is refused before it prints.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  defineFunction,
  generateCode,
  globalArg,
  valueArg,
  LoomError,
  makeKernel,
  registerFunction,
  statementsOfKind,
  targetFacts,
  type Device,
  type DType,
  type Expr,
  type FunctionSignature,
  type ProgramAst,
  type Target,
} from '@loom/core';
import { openclTarget } from '@loom/codegen-opencl';
import { wgslTarget } from '@loom/codegen-wgsl';
import { cpuDevice, jsTarget } from '@loom/codegen-js';
import { pointwise, tensor } from '@loom/elementwise';
import { deviceParameters } from '@loom/computation';

test('the three targets state their facts', () => {
  const opencl = targetFacts(openclTarget());
  assert.equal(
    [opencl.vectorTypes, opencl.sequentialWorkItems, opencl.wholeVectorStorage, opencl.preferVectorStatements],
    [true, false, false, false],
  );
  assert.equal([...opencl.vectorDTypes].sort(), [
    'float32',
    'float64',
    'int16',
    'int32',
    'int64',
    'int8',
    'uint16',
    'uint32',
    'uint64',
    'uint8',
  ]);
  assert.equal(opencl.functionDialects, ['opencl']);
  assert.equal([...opencl.atomicDTypes], ['int32', 'uint32', 'float32', 'float64']);
  assert.is(opencl.subgroupSize, 32);

  const wgsl = targetFacts(wgslTarget());
  assert.equal(
    [wgsl.vectorTypes, wgsl.sequentialWorkItems, wgsl.wholeVectorStorage, wgsl.preferVectorStatements],
    [true, false, true, true],
  );
  assert.equal(wgsl.vectorLanes, [2, 4]);
  assert.equal([...wgsl.vectorDTypes], ['float32', 'int32', 'uint32']);
  assert.equal(wgsl.functionDialects, ['wgsl']);
  assert.equal([...wgsl.atomicDTypes], ['int32', 'uint32', 'float32']);
  assert.match(wgsl.unsupportedDType('float64') ?? '', /float64/);
  assert.match(targetFacts(wgslTarget({ shaderF16: false })).unsupportedDType('float16') ?? '', /f16/);
  // what WGSL promises less than IEEE 754 about floats (the README's semantics)
  assert.equal(
    [wgsl.floatSpecials, wgsl.signedZeros, [...wgsl.flushesSubnormals], wgsl.relaxedFloatAccuracy],
    [false, false, ['float32', 'bfloat16'], true],
  );
  assert.equal(
    [opencl.floatSpecials, opencl.signedZeros, opencl.flushesSubnormals.size, opencl.relaxedFloatAccuracy],
    [true, true, 0, false],
  );

  const js = targetFacts(jsTarget());
  assert.equal([js.vectorTypes, js.sequentialWorkItems, js.subgroupSize], [false, true, 1]);
  assert.equal(js.functionDialects, ['js']);
  assert.ok(js.atomicDTypes.has('int64') && js.atomicDTypes.has('float16'));
});

test('a target that states nothing gets the documented defaults', () => {
  const bare = targetFacts({ name: 'bare', generate: () => ({ code: '', entryPoints: [], extra: undefined }) });
  assert.equal(
    [
      bare.vectorTypes,
      bare.sequentialWorkItems,
      bare.wholeVectorStorage,
      bare.preferVectorStatements,
      bare.subgroupSize,
    ],
    [false, false, false, false, 32],
  );
  assert.equal(bare.functionDialects, []);
  assert.is(bare.atomicDTypes.size, 0);
  assert.is(bare.unsupportedDType('float64'), undefined);
  // IEEE 754 floats: NaN, infinities, signed zeros and subnormals kept, division correctly rounded
  assert.equal(
    [bare.floatSpecials, bare.signedZeros, bare.flushesSubnormals.size, bare.relaxedFloatAccuracy],
    [true, true, 0, false],
  );
  // work-items one after another: nothing runs in lockstep
  assert.is(targetFacts({ ...jsTarget(), name: 'serial', sequentialWorkItems: true }).subgroupSize, 1);
});

/** The user functions a program calls, each as the made-up target finds it: `dialect-name`. */
function userCalls(program: ProgramAst, target: Target): string[] {
  const found: string[] = [];
  const visit = (e: Expr, typeOf: (name: string) => DType | undefined): void => {
    if (e.kind === 'call' && program.functions?.has(e.fn)) {
      const fn = program.functions.get(e.fn)!;
      const signature: FunctionSignature = fn.signature(e.args.map(() => 'float32'));
      const code = fn.implementation(targetFacts(target).functionDialects, signature);
      found.push(code ? code.name : `missing ${e.fn}`);
    }
    if (e.kind === 'call') for (const a of e.args) visit(a, typeOf);
    if (e.kind === 'binary') for (const a of [e.left, e.right]) visit(a, typeOf);
  };
  for (const k of program.kernels)
    for (const s of statementsOfKind(k.body, 'assign')) visit(s.value, (n) => k.types.get(n));
  return found;
}

/** A fourth target, named nothing Loom knows: it prints the user functions it finds, and states its facts. */
const madeUp: Target<undefined> = {
  name: 'made-up',
  vectorTypes: true,
  vectorLanes: [4],
  vectorDTypes: ['float32'],
  wholeVectorStorage: true,
  subgroupSize: 64,
  functionDialects: ['cuda', 'c'],
  atomicDTypes: ['int32'],
  generate(program) {
    return {
      code: userCalls(program, madeUp).join('\n'),
      entryPoints: program.kernels.map((k) => k.name),
      extra: undefined,
    };
  },
};

const square = defineFunction({
  name: 'square',
  signature: { args: ['float32'], result: 'float32' },
  opencl: { name: 'square_cl', preamble: 'inline float square_cl(float x) { return x * x; }' },
  c: { name: 'square_c', preamble: 'static inline float square_c(float x) { return x * x; }' },
  js: (x: number) => x * x,
});
const cube = defineFunction({
  name: 'cube',
  signature: { args: ['float32'], result: 'float32' },
  cuda: { name: 'cube_cuda', preamble: '__device__ float cube_cuda(float x) { return x * x * x; }' },
  c: { name: 'cube_c', preamble: 'static inline float cube_c(float x) { return x * x * x; }' },
});
const onlyWgsl = defineFunction({
  name: 'only_wgsl',
  signature: { args: ['float32'], result: 'float32' },
  wgsl: { name: 'w', preamble: 'fn w(x: f32) -> f32 { return x; }' },
});

const calling = (body: string) => {
  let knl = makeKernel('{ [i]: 0<=i<n }', body, [
    globalArg('a', { dtype: 'float32', shape: ['n'] }),
    globalArg('out', { dtype: 'float32', shape: ['n'], isOutput: true }),
    valueArg('n', 'int32'),
  ]);
  for (const fn of [square, cube, onlyWgsl]) knl = registerFunction(knl, fn);
  return knl;
};

test('user functions: a target finds their code by its dialects, most specific first', () => {
  // square has OpenCL's code and C's: the made-up target reads cuda, then c
  assert.is(generateCode(calling('out[i] = square(a[i])'), madeUp).code, 'square_c');
  // cube has CUDA's own code, which comes before the shared C code
  assert.is(generateCode(calling('out[i] = cube(a[i])'), madeUp).code, 'cube_cuda');
  assert.is(generateCode(calling('out[i] = only_wgsl(a[i])'), madeUp).code, 'missing only_wgsl');
  // OpenCL reads its own dialect only: square's OpenCL code, not its C code
  assert.match(generateCode(calling('out[i] = square(a[i])'), openclTarget()).code, /square_cl\(a\[i\]\)/);
  // what to give defineFunction, in the target's terms
  assert.throws(
    () => generateCode(calling('out[i] = square(a[i])'), wgslTarget()),
    (e: unknown) =>
      e instanceof LoomError &&
      /function 'square' has no WGSL implementation \(give defineFunction wgsl: \{ name, preamble \}\)/.test(e.message),
  );
});

test('atomics: an update of a dtype the target has no atomics for is refused before it prints', () => {
  const knl = (dtype: DType) =>
    makeKernel('{ [i]: 0<=i<n }', 'out[0] = out[0] + a[i] {atomic}', [
      globalArg('a', { dtype, shape: ['n'] }),
      globalArg('out', { dtype, shape: [1], isOutput: true, forAtomic: true }),
      valueArg('n', 'int32'),
    ]);
  assert.not.throws(() => generateCode(knl('int32'), madeUp));
  assert.throws(
    () => generateCode(knl('float32'), madeUp),
    (e: unknown) =>
      e instanceof LoomError &&
      /updates 'out' \(float32\) atomically, but the made-up target has atomics only of int32/.test(e.message),
  );
  assert.throws(() => generateCode(knl('float16'), wgslTarget()), /atomics only of int32, uint32, float32/);
  assert.throws(() => generateCode(knl('int64'), openclTarget()), /atomics only of int32, uint32, float32, float64/);
});

/** The CPU device, seen through the made-up target: what plans read of the device is its target's facts. */
const device: Device = Object.create(cpuDevice(), { target: { value: madeUp } });

test('elementwise: the variant comes from the facts (vectors of float32 only, storages bound whole)', () => {
  const add = pointwise({ name: 'add' }, (x: number, y: number) => x + y);
  const of = (n: number, dtype: DType = 'float32') =>
    tensor(
      Array.from({ length: n }, (_, i) => i),
      [n],
      { device, dtype },
    );
  assert.is(add.plan(of(64), of(64)).variant, 'vector4');
  const int = add.plan(of(64, 'int32'), of(64, 'int32'));
  assert.is(int.variant, 'flat');
  assert.match(int.reason, /operand 0 is int32/);
  // an aligned view of a storage that is not whole vectors
  const ragged = add.plan(of(10).slice(0, 0, 8), of(8));
  assert.is(ragged.variant, 'flat');
  assert.match(ragged.reason, /storage has 10 elements/);
  const square = () =>
    tensor(
      Array.from({ length: 64 * 64 }, (_, i) => i),
      [64, 64],
      { device, dtype: 'float32' },
    );
  assert.is(add.plan(square(), square().transpose(0, 1)).variant, 'tiled');
  // the same calls on a target whose work-items run one after another: nothing to coalesce
  const serial: Device = Object.create(cpuDevice(), { target: { value: { ...madeUp, sequentialWorkItems: true } } });
  const y = tensor(
    Array.from({ length: 64 }, (_, i) => i),
    [64],
    { device: serial, dtype: 'float32' },
  );
  assert.match(add.plan(y, y).reason, /one after another/);
});

test('computations size work-groups by the target subgroup', () => {
  assert.is(deviceParameters(device).subgroupSize, 64);
  assert.is(deviceParameters(cpuDevice()).subgroupSize, 1);
});

test.run();
