/**
 * `openclTarget()`: the program AST as OpenCL C that reads like loopy's output:
 *
 *   __kernel void __attribute__ ((reqd_work_group_size(1, 1, 1))) loopy_kernel(__global float const *__restrict__ a, int const n, __global float *__restrict__ out)
 *   {
 *     for (int i = 0; i <= -1 + n; ++i)
 *       out[i] = 2.0f * a[i];
 *   }
 */
import {
  initializerLiteral,
  commentText,
  expr as E,
  InternalError,
  unreachable,
  renameProgram,
  statementsOf,
  type DType,
  type Expr,
  type KernelFunction,
  type ProgramAst,
  type Stmt,
  type Target,
  type TargetOutput,
  checkOptionKeys,
  optionKeys,
} from '@loom/core';
import { clType } from './c-types.ts';
import { ClExpressionPrinter, PRECEDENCE, paren } from './expressions.ts';
import { printAtomic } from './atomics.ts';
import { openclNames } from './names.ts';
import { indexNames } from './index-names.ts';
import { accumulatesMinMax, KEEP_ROLLED } from './unroll-guard.ts';

/** The options openclTarget reads; any other key is an error. */
const OPENCL_TARGET_OPTIONS = optionKeys<OpenCLTargetOptions>()(['float16']);

const INDENT = '  ';

/** OpenCL C needs nothing but the code and its kernels' names: the driver finds the rest in it. */
export type OpenCLExtra = undefined;

/** Options of `openclTarget`. */
export interface OpenCLTargetOptions {
  /**
   * How float16 is computed: `'native'` in `half` (the device has cl_khr_fp16, the default),
   * `'storage'` stored as half but computed in float, each result rounded to float16
   * (half-storage.ts), for devices without it.
   */
  readonly float16?: 'native' | 'storage';
}

/**
 * The OpenCL target: spells the program AST as OpenCL C.
 * ```ts
 * console.log(generateCode(knl, openclTarget()).code);
 * ```
 */
export function openclTarget(options: OpenCLTargetOptions = {}): Target<OpenCLExtra> {
  checkOptionKeys('openclTarget', options, OPENCL_TARGET_OPTIONS);
  const halfStorage = options.float16 === 'storage';
  return {
    name: 'opencl',
    vectorTypes: true,
    // OpenCL's own code only: its printer looks for no other (expressions.ts, userCall)
    functionDialects: ['opencl'],
    // int32/uint32 with OpenCL's atomics, floats by a compare-and-swap loop (atomics.ts)
    atomicDTypes: ['int32', 'uint32', 'float32', 'float64'],
    generate: (program) => spellOpenCL(program, halfStorage),
  };
}

/** The OpenCL C source of a program AST. */
export function generateOpenCL(program: ProgramAst): string {
  return spellOpenCL(program, false).code;
}

function spellOpenCL(program: ProgramAst, halfStorage: boolean): TargetOutput<OpenCLExtra> {
  // from here on the names are OpenCL's spellings (`int` → `int_`): see names.ts
  const names = openclNames(program);
  // most programs use no reserved word: then there is nothing to rename
  const code = printProgram(names.renamesAny ? renameProgram(program, (n) => names.of(n)) : program, halfStorage);
  return { code, entryPoints: program.kernels.map((k) => names.of(k.name)), extra: undefined };
}

function printProgram(program: ProgramAst, halfStorage: boolean): string {
  const parts: string[] = [];
  const helpers = new Map<string, string>();
  const preambles = new Set<string>();
  const extensions = new Set<string>();
  let usesDouble = false;
  let contractible = false;
  const functionOwners = new Map<string, string>();
  const kernels = program.kernels.map((k) => {
    const printer = new ClExpressionPrinter((name) => k.types.get(name));
    printer.functions = program.functions ?? new Map();
    printer.halfStorage = halfStorage;
    printer.halfBuffers = new Set(halfStorage ? k.params.filter((p) => p.kind !== 'value' && p.dtype === 'float16').map((p) => p.name) : []);
    printer.kernelNames = new Set([...k.types.keys(), k.name]);
    printer.functionOwners = functionOwners;
    const text = printKernel(k, printer);
    for (const [n, h] of printer.helpers) helpers.set(n, h);
    for (const p of printer.preambles) preambles.add(p);
    for (const x of printer.extensions) extensions.add(x);
    contractible ||= printer.contractible;
    usesDouble ||= printer.usesDouble || k.params.some((p) => p.dtype === 'float64');
    return text;
  });
  if (usesDouble) extensions.add('cl_khr_fp64');
  // a * b + c rounds twice, as on every other device: OpenCL compilers may otherwise fuse it
  // into an fma, which rounds once (and disagrees where the product is a tie), unless the
  // kernel asked for the speed (setOptions(knl, { fusedMultiplyAdd: true }))
  if (contractible && !program.fusedMultiplyAdd) parts.push('#pragma OPENCL FP_CONTRACT OFF');
  for (const x of [...extensions].sort()) parts.push(`#pragma OPENCL EXTENSION ${x}: enable`);
  parts.push('#define lid(N) ((int) get_local_id(N))', '#define gid(N) ((int) get_group_id(N))');
  if (helpers.size) parts.push('', ...helpers.values());
  // the user functions' own code, each once
  if (preambles.size) parts.push('', ...preambles);
  parts.push('', ...kernels.join('\n\n').split('\n'));
  return `${parts.join('\n')}\n`;
}

function printKernel(k: KernelFunction, printer: ClExpressionPrinter): string {
  const size = [...k.localSize, 1, 1, 1].slice(0, 3).join(', ');
  for (const p of k.params) {
    if (p.vectorWidth) printer.vectorWidths.set(p.name, { lanes: p.vectorWidth, space: p.kind === 'constant' ? '__constant' : '__global', packed: p.vectorWidth === 3 });
  }
  printer.indexNames = indexNames(k);
  const params = k.params.map((p) => {
    const t = clType(p.dtype) + (p.vectorWidth && p.vectorWidth !== 3 ? p.vectorWidth : '');
    // without half arithmetic a float16 value travels as a float (half-storage.ts)
    if (p.kind === 'value') return `${printer.halfStorage && p.dtype === 'float16' ? 'float' : t} const ${p.name}`;
    const space = p.kind === 'constant' ? '__constant' : '__global';
    return `${space} ${t}${p.written ? '' : ' const'} *__restrict__ ${p.name}`;
  });
  const header = `__kernel void __attribute__ ((reqd_work_group_size(${size}))) ${k.name}(${params.join(', ')})`;
  return [header, '{', ...statementsOf(k.body).flatMap((s) => printStmt(s, printer, 1)), '}'].join('\n');
}

/** A vector statement: every lane of its `vec` loop at once (`out[i] = 2.0f * a[i];` on float4s). */
function printVectorAssign(s: Extract<Stmt, { kind: 'assign' }>, printer: ClExpressionPrinter): string {
  printer.vectorLoop = s.vector;
  try {
    const value = printer.print(s.value, s.dtype);
    const whole = printer.wholeVector(s.target);
    if (!whole) throw new InternalError(`the vector statement '${s.insnId}' does not write a whole vector`);
    const array = (s.target as Extract<Expr, { kind: 'subscript' }>).array;
    const index = printer.print(whole.index, 'int32');
    return whole.packed ? `vstore3(${value}, ${index}, ${array});` : `${array}[${index}] = ${value};`;
  } finally {
    printer.vectorLoop = undefined;
  }
}

function printStmt(s: Stmt, printer: ClExpressionPrinter, depth: number): string[] {
  const pad = INDENT.repeat(depth);
  switch (s.kind) {
    case 'block':
      return [`${pad}{`, ...s.body.flatMap((x) => printStmt(x, printer, depth + 1)), `${pad}}`];
    case 'for': {
      const lower = printBound(s.lower, printer);
      const upper = printBound(s.upper, printer);
      const rolled = accumulatesMinMax(s.body) ? [`${pad}${KEEP_ROLLED}`] : [];
      return [...rolled, `${pad}for (int ${s.iname} = ${lower}; ${s.iname} <= ${upper}; ++${s.iname})`, ...printBody(s.body, printer, depth)];
    }
    case 'if':
      return [`${pad}if (${printer.print(s.condition)})`, ...printBody(s.then, printer, depth)];
    case 'assign': {
      if (s.atomic) return [`${pad}${printAtomic(s.target, s.value, s.dtype, s.insnId, printer)}`];
      const target = s.target;
      if (target.kind === 'subscript' && printer.halfBuffers.has(target.array)) {
        // a half buffer without half arithmetic: the float value (a float16 already) stored as half
        return [`${pad}vstore_half_rte(${printer.print(s.value, 'float16')}, ${printer.print(target.indices[0], 'int32')}, ${target.array});`];
      }
      if (s.vector) return [`${pad}${printVectorAssign(s, printer)}`];
      return [`${pad}${printer.print(target)} = ${printer.print(s.value, s.dtype)};`];
    }
    case 'declare': {
      const space = s.addressSpace === 'local' ? '__local ' : '';
      // a vector temporary is an array of vectors (but for 3 lanes: packed elements, see VectorArray)
      const lanes = s.vectorWidth && s.vectorWidth !== 3 ? s.vectorWidth : 1;
      if (s.vectorWidth) printer.vectorWidths.set(s.name, { lanes: s.vectorWidth, space: s.addressSpace === 'local' ? '__local' : '__private', packed: s.vectorWidth === 3 });
      const dims = s.length !== undefined ? `[${s.length / lanes}]` : '';
      const t = printer.halfStorage && s.dtype === 'float16' ? 'float' : clType(s.dtype as DType);
      if (s.initializer) {
        // a constant table: initialized where it is declared, never written
        const values = s.initializer.map((v) => printer.print(initializerLiteral(v, s.dtype), s.dtype));
        return [`${pad}${t} const ${s.name}${dims} = ${s.length !== undefined ? `{ ${values.join(', ')} }` : values[0]};`];
      }
      return [`${pad}${space}${t}${lanes > 1 ? lanes : ''} ${s.name}${dims};`];
    }
    case 'barrier': {
      const fence = s.scope === 'local' ? 'CLK_LOCAL_MEM_FENCE' : 'CLK_GLOBAL_MEM_FENCE';
      return [`${pad}barrier(${fence})${s.comment ? ` /* ${commentText(s.comment)} */` : ''};`];
    }
    case 'comment':
      return [`${pad}/* ${commentText(s.text)} */`];
    default:
      return unreachable(s, 'statement');
  }
}

/** The counters of the loops in `s`: with the value arguments, what index arithmetic is made of. */
/** A loop's or guard's body: a block's braces line up with the statement that owns it. */
function printBody(body: Stmt, printer: ClExpressionPrinter, depth: number): string[] {
  return printStmt(body, printer, body.kind === 'block' ? depth : depth + 1);
}

/**
 * Loop bounds read like loopy's: affine ones with the constant first (`-1 + n`). Either
 * is at least an additive expression, as the `i <= bound` it goes into needs (a bare
 * `c ? a : b` there would read as `(i <= c) ? a : b`).
 */
function printBound(e: Expr, printer: ClExpressionPrinter): string {
  const lin = E.toLinear(e);
  if (!lin || lin.isConstant) return paren(printer.expr(e, 'int32'), PRECEDENCE.additive);
  const terms: string[] = [];
  if (lin.constant !== 0) terms.push(String(lin.constant));
  for (const [name, c] of lin.coeffs) terms.push(c === 1 ? name : c === -1 ? `-1 * ${name}` : `${c} * ${name}`);
  return terms.join(' + ');
}
