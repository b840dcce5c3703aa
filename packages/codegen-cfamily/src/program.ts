/**
 * The C printer's program: every kernel of a program AST printed in a dialect, after the
 * lines the dialect puts first (pragmas, includes), the helper functions the kernels call
 * and the user functions' own code, each once. Names the language reserves are renamed
 * first (`int` → `int_`), with core's `TargetNames`.
 */
import {
  byteSize,
  expr,
  structLayout,
  InternalError,
  LoomError,
  programNames,
  renameProgram,
  statementsOf,
  statementsOfKind,
  TargetNames,
  type DType,
  type DeviceFunction,
  type FunctionParam,
  type KernelFunction,
  type KernelParam,
  type NarrowFloat,
  type ProgramAst,
  type Stmt,
  indexFacts,
} from '@loom/core';
import type { CDialect, HalfStorageSpelling, LocalArraySpelling } from './dialect.ts';
import { CExpressionPrinter } from './expressions.ts';
import { declaredElement, printStatements } from './statements.ts';
import { asyncCopyTargets, asyncPlan, WAIT_FOR_ALL } from './async-copies.ts';
import { bulkCommit, bulkFrame, bulkParameters, bulkPlan, hasBulkCopies, type TensorMapSpec } from './bulk-copies.ts';
import type { ProducerPlan } from './bulk-producer.ts';
import { productsInFlight } from './products-in-flight.ts';
import { structDeclarations } from './structs.ts';

/** How a program is printed, beyond its dialect. */
export interface CProgramOptions {
  /** float16 stored as half and computed in float (`HalfStorageSpelling`), rather than in the language's own half type. */
  readonly halfStorage: boolean;
}

/** A program printed: its code and each kernel's name as the code spells it. */
export interface CProgram {
  /** The program's source. */
  readonly code: string;
  /** Each kernel's name in the code, in program order. */
  readonly entryPoints: readonly string[];
  /** Each kernel's declaration, as a header would hold it (`__kernel void k(__global float *a);`), in program order. */
  readonly declarations: readonly string[];
  /**
   * Each kernel's local arrays of constant size carved out of the launch's memory, their bytes in
   * carving order, in program order (empty for a kernel within `CDialect.staticLocalBytes`): what
   * the device adds to the launch's memory, before the arrays sized at launch.
   */
  readonly carvedLocalBytes: readonly (readonly number[])[];
  /**
   * Each kernel's least alignment of its carved arrays, in bytes (8 spans where one is swizzled:
   * swizzled tiles start where the hardware's swizzle repeats; 0: the dialect's own), in program order.
   */
  readonly carvedAlignments: readonly number[];
  /**
   * Each kernel's tensor maps (bulk-copies.ts), in program order: parameters after the kernel's
   * own, which the device makes at launch from the arrays they view.
   */
  readonly tensorMaps: readonly (readonly TensorMapSpec[])[];
  /**
   * Each kernel's work-group as launched, in program order, where it is larger than its local size
   * says (a producer's row: bulk-producer.ts); undefined elsewhere.
   */
  readonly launchSizes: readonly (readonly number[] | undefined)[];
}

/** How `program`'s names are spelled in `dialect` (kernel names included). */
export function dialectNames(program: ProgramAst, dialect: CDialect): TargetNames {
  return new TargetNames((name) => dialect.isReserved(name), programNames(program));
}

/** `program` printed in `dialect`. */
export function printCProgram(program: ProgramAst, dialect: CDialect, options: CProgramOptions): CProgram {
  // from here on the names are the language's spellings (`int` → `int_`)
  const names = dialectNames(program, dialect);
  // most programs use no reserved word: then there is nothing to rename
  const renamed = names.renamesAny ? renameProgram(program, (n) => names.of(n)) : program;
  const { code, declarations, carvedLocalBytes, carvedAlignments, tensorMaps, launchSizes } = printProgram(
    renamed,
    dialect,
    options,
  );
  return {
    code,
    entryPoints: program.kernels.map((k) => names.of(k.name)),
    declarations,
    carvedLocalBytes,
    carvedAlignments,
    tensorMaps,
    launchSizes,
  };
}

function printProgram(
  program: ProgramAst,
  dialect: CDialect,
  { halfStorage }: CProgramOptions,
): {
  code: string;
  declarations: string[];
  carvedLocalBytes: number[][];
  carvedAlignments: number[];
  tensorMaps: (readonly TensorMapSpec[])[];
  launchSizes: (readonly number[] | undefined)[];
} {
  const helpers = new Map<string, string>();
  const preambles = new Set<string>();
  const extensions = new Set<string>();
  let usesDouble = false;
  let prints = false;
  let matrix = false;
  let contractible = false;
  const functionOwners = new Map<string, string>();
  const declarations: string[] = [];
  const carvedLocalBytes: number[][] = [];
  const tensorMaps: (readonly TensorMapSpec[])[] = [];
  const launchSizes: (readonly number[] | undefined)[] = [];
  const carvedAlignments: number[] = [];
  const calleesCopy = (program.deviceFunctions ?? []).some((f) => asyncCopyTargets(f.body).size > 0);
  for (const f of program.deviceFunctions ?? [])
    if (hasBulkCopies(f.body))
      throw new LoomError(
        `'${f.name}' is called by another kernel and has bulk copies, whose barrier objects and tensor maps belong to the kernel that runs: fill the tile in the caller, or with asyncCopies`,
      );
  // What a function's barriers wait for is what it and the device functions issue (a callee's barrier
  // may be the one that a caller's copies wait at); a kernel of its own, with no copies or products
  // (the other side of a global barrier), waits for none.
  const callees = program.deviceFunctions ?? [];
  const withCallees = (k: KernelFunction | DeviceFunction) => [k, ...callees.filter((f) => f !== k)];
  // element copies beside bulk ones are waited for and committed as the language does
  const elementCopiesIn = (k: KernelFunction | DeviceFunction) =>
    statementsOfKind(k.body, 'assign').some((s) => s.async && !s.bulk);
  // products that read core matrices read local memory past the ordinary stores' path: fenced at barriers
  const coreFactorsIn = (k: KernelFunction | DeviceFunction) =>
    statementsOfKind(k.body, 'matrix').some(
      (s) => s.op.kind === 'multiply' && (s.op.a.cores !== undefined || s.op.a.swizzle !== undefined),
    );
  const printerOf = (k: KernelFunction | DeviceFunction) => {
    const printer = new CExpressionPrinter(dialect, (name) => k.types.get(name));
    printer.functions = program.functions ?? new Map();
    printer.fusedMultiplyAdd = !!program.fusedMultiplyAdd;
    printer.halfStorage = halfStorage;
    printer.narrowFloatBuffers = new Set(
      k.params.filter((p) => p.kind !== 'value' && printer.inFloat(p.dtype as DType)).map((p) => p.name),
    );
    printer.kernelNames = new Set([...k.types.keys(), k.name]);
    // a device allocation starts aligned; a device function's array parameters may point anywhere
    if ('localSize' in k)
      printer.alignedArrays = new Set(k.params.filter((p) => p.kind === 'global').map((p) => p.name));
    printer.functionOwners = functionOwners;
    printer.asyncTargets = new Set(withCallees(k).flatMap((f) => [...asyncCopyTargets(f.body)]));
    printer.elementCopies = withCallees(k).some(elementCopiesIn);
    printer.coreFactors = withCallees(k).some(coreFactorsIn);
    return printer;
  };
  const gather = (printer: CExpressionPrinter, k: KernelFunction | DeviceFunction) => {
    for (const [n, h] of printer.helpers) helpers.set(n, h);
    for (const p of printer.preambles) preambles.add(p);
    for (const x of printer.extensions) extensions.add(x);
    contractible ||= printer.contractible;
    prints ||= printer.prints;
    matrix ||= printer.usesMatrix;
    usesDouble ||= printer.usesDouble || k.params.some((p) => p.dtype === 'float64');
  };
  // the callees' functions first, each before its callers
  const functions = (program.deviceFunctions ?? []).map((f) => {
    const printer = printerOf(f);
    const text = printFunction(f, printer);
    gather(printer, f);
    return text;
  });
  const kernels = program.kernels.map((k) => {
    const printer = printerOf(k);
    // copies a callee issues would join the kernel's groups uncounted: then every barrier waits for all
    printer.asyncPlan = calleesCopy ? WAIT_FOR_ALL : asyncPlan(k.body, dialect.asyncCopy);
    printer.productsPlan = printer.coreFactors && dialect.matrix?.factorsFence ? productsInFlight(k.body) : undefined;
    printer.bulkPlan = bulkPlan(k, dialect.bulkCopy, printer.asyncPlan);
    const { text, declaration, carvedBytes, carvedAlignment } = printKernel(k, printer);
    declarations.push(`${declaration};`);
    carvedLocalBytes.push(carvedBytes);
    carvedAlignments.push(carvedAlignment);
    tensorMaps.push(printer.bulkPlan?.maps ?? []);
    launchSizes.push(printer.bulkPlan?.producer?.localSize);
    gather(printer, k);
    return text;
  });
  // a 16-bit float is printed where a value is rounded to it, or a name or parameter has its dtype
  const printsType = (t: NarrowFloat, storage: HalfStorageSpelling) =>
    [false, true].some((fromDouble) => helpers.has(storage.round(fromDouble).name)) ||
    [...program.kernels, ...(program.deviceFunctions ?? [])].some(
      (k) => [...k.types.values()].includes(t) || k.params.some((p) => p.dtype === t),
    );
  const float16 = printsType('float16', dialect.halfStorage);
  const bfloat16 = printsType('bfloat16', dialect.bfloat16Storage);
  const facts = {
    usesDouble,
    contractible,
    fusedMultiplyAdd: !!program.fusedMultiplyAdd,
    extensions: [...extensions].sort(),
    float16,
    bfloat16,
    prints,
    matrix,
  };
  const parts = dialect.prelude(facts);
  // the kernels' own preambles (makeKernel's preambles), in the order of their keys
  if (program.preambles?.length) parts.push('', ...program.preambles);
  const structs = structDeclarations(program, dialect, halfStorage);
  if (structs.length) parts.push('', ...structs);
  if (helpers.size) parts.push('', ...helpers.values());
  // the user functions' own code, each once
  if (preambles.size) parts.push('', ...preambles);
  parts.push('', ...[...functions, ...kernels].join('\n\n').split('\n'));
  return {
    code: `${parts.join('\n')}\n`,
    declarations,
    carvedLocalBytes,
    carvedAlignments,
    tensorMaps,
    launchSizes,
  };
}

/** A device function: a callee kernel's code, its parameters declared as a kernel's are. */
function printFunction(f: DeviceFunction, printer: CExpressionPrinter): string {
  const params = printParameters(f.params, printer, sharesGlobalMemory(f.body));
  printer.indexFacts = indexFacts(f);
  return [
    printer.dialect.functionDeclaration(f.name, params),
    '{',
    ...printStatements(statementsOf(f.body), printer, 1),
    '}',
  ].join('\n');
}

/** The parameters declared, the printer told what each is (address space, vectors, images, atomics). */
/**
 * Whether work-items of the code share global memory through barriers that fence it (a row's
 * maximum written by one work-item and read by its group). Its written arrays are then no
 * `restrict` pointers: a compiler may move loads through a restrict pointer across a barrier,
 * which does not take the pointer (NVIDIA's compilers did, and the other work-items read stale values).
 */
function sharesGlobalMemory(body: Stmt): boolean {
  return statementsOfKind(body, 'barrier').some((b) => b.scope === 'global');
}

function printParameters(list: readonly FunctionParam[], printer: CExpressionPrinter, shared: boolean): string[] {
  const { dialect } = printer;
  const own = list.filter((p): p is KernelParam => p.kind !== 'private');
  for (const p of list) if (p.kind === 'private') printer.addressSpaces.set(p.name, 'private');
  for (const p of own) {
    if (p.kind !== 'value') printer.addressSpaces.set(p.name, p.kind === 'constant' ? 'constant' : 'global');
    if (p.forAtomic) printer.atomicVariables.add(p.name);
    if (p.vectorWidth) {
      const packed = dialect.vectors.packed.includes(p.vectorWidth);
      printer.vectorWidths.set(p.name, {
        lanes: p.vectorWidth,
        space: p.kind === 'constant' ? 'constant' : 'global',
        packed,
      });
    }
  }
  printer.images = new Set(own.filter((p) => p.image).map((p) => p.name));
  printer.structSizes = new Map(own.flatMap((p) => (p.struct ? [[p.name, structLayout(p.struct).size]] : [])));
  return list.map((p) => {
    // a private array of the caller's, by pointer (in its address space where the language has them)
    if (p.kind === 'private')
      return `${dialect.addressSpace('private')}${dialect.type(printer.inFloat(p.dtype as DType) ? 'float32' : p.dtype)}${p.written ? '' : ' const'} *${p.name}`;
    // a 16-bit float computed in float travels as a float (`HalfStorageSpelling`)
    if (p.kind === 'value')
      return `${dialect.type(printer.inFloat(p.dtype as DType) ? 'float32' : p.dtype)} const ${p.name}`;
    if (p.image) {
      if (!dialect.images) throw new InternalError(`'${p.name}' is an image, which ${dialect.language} cannot declare`);
      return dialect.images.parameter(p);
    }
    const restrict = !(shared && p.written);
    if (p.struct) return dialect.arrayParameter(p, p.struct.name, restrict);
    const vector = p.vectorWidth !== undefined && !dialect.vectors.packed.includes(p.vectorWidth);
    return dialect.arrayParameter(
      p,
      vector ? dialect.vectors.type(p.dtype as DType, p.vectorWidth!) : dialect.type(p.dtype),
      restrict,
    );
  });
}

function printKernel(
  k: KernelFunction,
  printer: CExpressionPrinter,
): { text: string; declaration: string; carvedBytes: number[]; carvedAlignment: number } {
  const { dialect } = printer;
  const params = printParameters(k.params, printer, sharesGlobalMemory(k.body));
  printer.indexFacts = indexFacts(k);
  // local arrays of constant size beyond what the language declares statically: carved first
  const constant = constantLocalArrays(k, printer);
  const overLimit =
    dialect.staticLocalBytes !== undefined &&
    dialect.localArrayPrologue !== undefined &&
    constant.reduce((sum, a) => sum + a.bytes, 0) > dialect.staticLocalBytes;
  const carvedConstant = overLimit ? constant : [];
  printer.carvedLocals = new Set(carvedConstant.map((a) => a.name));
  // local arrays sized at launch: parameters after the others (OpenCL's __local T *, set by
  // clSetKernelArg), or carved out of the launch's memory (CUDA's dynamic shared memory)
  const carved: LocalArraySpelling[] = carvedConstant.map((a) => ({
    name: a.name,
    type: a.type,
    bytes: String(a.bytes),
  }));
  for (const l of k.localArguments ?? []) {
    printer.addressSpaces.set(l.name, 'local');
    const element: DType = printer.inFloat(l.dtype) ? 'float32' : l.dtype;
    if (dialect.localArrayParameter) params.push(dialect.localArrayParameter(l.name, dialect.type(element)));
    else if (dialect.localArrayPrologue) {
      const bytes = printer.print(
        expr.simplify(expr.mul(l.length, expr.int(byteSize(element))), { integer: true }),
        'int32',
      );
      carved.push({ name: l.name, type: dialect.type(element), bytes });
    } else
      throw new InternalError(`local array '${l.name}' is sized at launch, which ${dialect.language} cannot declare`);
  }
  params.push(...bulkParameters(printer));
  // a producer's row makes the work-group larger than its local axes (bulk-producer.ts)
  const producer = printer.bulkPlan?.producer;
  const declaration = dialect.kernelDeclaration(
    producer ? { ...k, localSize: producer.localSize.map((n) => expr.int(n)) } : k,
    params,
  );
  // a swizzled array carved out starts where the hardware's swizzle repeats (8 spans): every carved array does
  const carvedAlignment = Math.max(
    0,
    ...statementsOfKind(k.body, 'declare').map((s) =>
      carvedConstant.some((c) => c.name === s.name) ? 8 * (s.swizzle ?? 0) : 0,
    ),
  );
  const frame = bulkFrame(printer);
  const body = producer
    ? printSpecialised(statementsOf(k.body), printer, producer)
    : printStatements(statementsOf(k.body), printer, 1);
  const text = [
    declaration,
    '{',
    ...(carved.length ? dialect.localArrayPrologue!(carved, carvedAlignment).map((line) => `  ${line}`) : []),
    ...(printer.images.size ? dialect.images!.prologue.map((line) => `  ${line}`) : []),
    ...frame.first.map((line) => `  ${line}`),
    ...body,
    ...frame.last.map((line) => `  ${line}`),
    '}',
  ].join('\n');
  return { text, declaration, carvedBytes: carvedConstant.map((a) => a.bytes), carvedAlignment };
}

/**
 * The statements of a kernel whose bulk copies a producer makes (bulk-producer.ts): its local arrays
 * (both sides use them), the producer's branch, then the consumers' code.
 */
function printSpecialised(statements: readonly Stmt[], printer: CExpressionPrinter, producer: ProducerPlan): string[] {
  const local = statements.filter((s) => s.kind === 'declare' && s.addressSpace === 'local');
  const rest = statements.filter((s) => !local.includes(s));
  const id = (axis: number) => printer.dialect.hardwareId('lid', axis);
  const others = [0, 1, 2].filter((axis) => axis !== producer.axis).map((axis) => `${id(axis)} == 0`);
  printer.bulkRole = 'producer';
  // where barriers close the groups, the consumers' last wait is for a group the producer closes as it leaves
  const last = printer.bulkPlan!.commitsAtBarriers ? [`      ${bulkCommit(printer)!}`] : [];
  const produced = [...printStatements(rest, printer, 3), ...last];
  printer.bulkRole = 'consumer';
  const consumed = printStatements(rest, printer, 1);
  printer.bulkRole = 'all';
  return [
    ...printStatements(local, printer, 1),
    '  /* the producer: one more row of the work-group, whose first work-item makes the bulk copies */',
    `  if (${id(producer.axis)} == ${producer.index})`,
    '  {',
    `    if (${others.join(' && ')})`,
    '    {',
    ...produced,
    '    }',
    '    return;',
    '  }',
    ...consumed,
  ];
}

/** The kernel's local arrays of constant size (not constant tables): their names, element types and bytes, in order. */
function constantLocalArrays(
  k: KernelFunction,
  printer: CExpressionPrinter,
): { name: string; type: string; bytes: number }[] {
  const { dialect } = printer;
  return statementsOfKind(k.body, 'declare')
    .filter((s) => s.addressSpace === 'local' && typeof s.length === 'number' && !s.initializer && !s.matrix)
    .map((s) => {
      const { element } = declaredElement(s, printer);
      // an array of vectors, as the declaration would be (packed lanes, float3, are elements)
      const lanes = s.vectorWidth !== undefined && !dialect.vectors.packed.includes(s.vectorWidth) ? s.vectorWidth : 1;
      const type = lanes > 1 ? dialect.vectors.type(element, lanes) : dialect.type(element);
      return { name: s.name, type, bytes: (s.length as number) * byteSize(element) };
    });
}
