/**
 * The C printer's statements: loops, guards, assignments, declarations, barriers, in any
 * C-family dialect. Loops and bounds read like loopy's (`for (int i = 0; i <= -1 + n; ++i)`).
 */
import {
  commentText,
  expr as E,
  initializerLiteral,
  InternalError,
  unreachable,
  type DType,
  type Expr,
  type Stmt,
} from '@loom/core';
import { printAtomic } from './atomics.ts';
import type { CExpressionPrinter } from './expressions.ts';
import { PRECEDENCE, paren } from './precedence.ts';
import { printTraceLine } from './trace.ts';
import { accumulatesMinMax } from './unroll-guard.ts';
import { printMatrixOp } from './matrix.ts';
import { printWideCopy, wideCopyAt } from './wide-copies.ts';
import { asyncCommitAfter, asyncWait, printAsyncCopy } from './async-copies.ts';
import { bulkAcquire, bulkRelease, printBulkIssue, producerBarrier } from './bulk-copies.ts';
import { runsIn } from './bulk-producer.ts';

const INDENT = '  ';

/**
 * The lines of a sequence of statements at indentation `depth`. A run of products of tiles (the
 * ILP copies of one tensor tile) is printed as one, so that each tile they read is loaded once,
 * and a run of 8 copies of consecutive halves as one 16-byte move where the language has one.
 */
export function printStatements(statements: readonly Stmt[], printer: CExpressionPrinter, depth: number): string[] {
  const out: string[] = [];
  for (let k = 0; k < statements.length; ) {
    // a nest of bulk copies: one request (bulk-copies.ts)
    const bulk = printer.bulkPlan?.issues.get(statements[k]);
    // where a producer makes the requests, what the producer or the consumers do not run (bulk-producer.ts)
    const role = printer.bulkRole;
    if (
      role !== 'all' &&
      !runsIn(statements[k], role, { issues: printer.bulkPlan!.issues, commitAfter: printer.asyncPlan.commitAfter })
    ) {
      const skipped = statements.slice(k, k + (bulk?.length ?? 1));
      const commit = asyncCommitAfter(skipped, printer);
      if (commit) out.push(`${INDENT.repeat(depth)}${commit}`);
      k += skipped.length;
      continue;
    }
    if (bulk) {
      // where barriers are releases by arrival, a run of requests first waits for the others' reads to end
      const acquire = k > 0 && printer.bulkPlan!.issues.has(statements[k - 1]) ? undefined : bulkAcquire(printer);
      if (acquire) out.push(`${INDENT.repeat(depth)}${acquire}`);
      out.push(`${INDENT.repeat(depth)}${printBulkIssue(bulk, printer)}`);
      const commit = asyncCommitAfter(statements.slice(k, k + bulk.length), printer, { acquired: true });
      if (commit) out.push(`${INDENT.repeat(depth)}${commit}`);
      k += bulk.length;
      continue;
    }
    const wide = wideCopyAt(statements, k, printer);
    if (wide) {
      out.push(`${INDENT.repeat(depth)}${printWideCopy(statements, k, printer)}`);
      const commit = asyncCommitAfter(statements.slice(k, k + wide), printer);
      if (commit) out.push(`${INDENT.repeat(depth)}${commit}`);
      k += wide;
      continue;
    }
    if (!isProduct(statements[k])) {
      out.push(...printStmt(statements[k], printer, depth));
      // a pipeline's step of copies closes its group (async-copies.ts)
      const commit = asyncCommitAfter([statements[k]], printer);
      if (commit) out.push(`${INDENT.repeat(depth)}${commit}`);
      k++;
      continue;
    }
    let end = k + 1;
    while (end < statements.length && sameProduct(statements[end], statements[k])) end++;
    const run = statements.slice(k, end) as Extract<Stmt, { kind: 'matrix' }>[];
    out.push(...printMatrixOps(run, printer).map((line) => `${INDENT.repeat(depth)}${line}`));
    k = end;
  }
  return out;
}

const isProduct = (s: Stmt) => s.kind === 'matrix' && s.op.kind === 'multiply';

/** Whether product `s` joins the run product `first` starts: one tile shape and precision load one kind of fragment. */
function sameProduct(s: Stmt, first: Stmt): boolean {
  if (s.kind !== 'matrix' || s.op.kind !== 'multiply' || first.kind !== 'matrix' || first.op.kind !== 'multiply')
    return false;
  const [x, y] = [s.op.accumulator.shape, first.op.accumulator.shape];
  return x.m === y.m && x.n === y.n && x.k === y.k && s.op.precision === first.op.precision;
}

/** Matrix instructions, in the dialect's spelling (refused before code generation where the target has none). */
function printMatrixOps(run: readonly Extract<Stmt, { kind: 'matrix' }>[], printer: CExpressionPrinter): string[] {
  const spelling = printer.dialect.matrix;
  if (!spelling)
    throw new InternalError(`${printer.dialect.language} has no matrix instructions (instruction '${run[0].insnId}')`);
  return printMatrixOp(
    run.map((s) => s.op),
    printer,
    spelling,
  );
}

/** The lines of statement `s` at indentation `depth`. */
export function printStmt(s: Stmt, printer: CExpressionPrinter, depth: number): string[] {
  const pad = INDENT.repeat(depth);
  const { dialect } = printer;
  // a loop's or guard's body that is a nest of bulk copies
  if (printer.bulkPlan?.issues.has(s)) return printStatements([s], printer, depth);
  switch (s.kind) {
    case 'block':
      return [`${pad}{`, ...printStatements(s.body, printer, depth + 1), `${pad}}`];
    case 'for': {
      const lower = printBound(s.lower, printer);
      const upper = printBound(s.upper, printer);
      const rolled =
        dialect.keepRolled !== undefined && accumulatesMinMax(s.body) ? [`${pad}${dialect.keepRolled}`] : [];
      // the barriers of a pipeline's step loop may leave its latest products in flight
      const inFlight = printer.productsPlan?.loop === s ? printer.productsPlan.groups : undefined;
      const outside = printer.productsInFlightHere;
      if (inFlight !== undefined) printer.productsInFlightHere = inFlight;
      const body = printBody(s.body, printer, depth);
      printer.productsInFlightHere = outside;
      return [...rolled, `${pad}for (int ${s.iname} = ${lower}; ${s.iname} <= ${upper}; ++${s.iname})`, ...body];
    }
    case 'if':
      return [`${pad}if (${printer.print(s.condition)})`, ...printBody(s.then, printer, depth)];
    case 'assign': {
      // (a compare-and-swap loop is a block of several lines)
      if (s.atomic)
        return printAtomic(s.target, s.value, s.dtype, s.insnId, printer)
          .split('\n')
          .map((line) => `${pad}${line}`);
      const issued = printAsyncCopy(s, printer);
      if (issued) return [`${pad}${issued}`];
      const target = s.target;
      const source = s.value;
      const narrow =
        target.kind === 'subscript' && printer.narrowFloatBuffers.has(target.array)
          ? printer.typeOfExpr(target)
          : undefined;
      if (target.kind === 'subscript' && narrow !== undefined && printer.inFloat(narrow)) {
        const storage = printer.storageOf(narrow);
        const to = printer.print(target.indices[0], 'int32');
        if (
          storage.copy &&
          source.kind === 'subscript' &&
          printer.narrowFloatBuffers.has(source.array) &&
          printer.typeOfExpr(source) === narrow
        ) {
          // copied from one buffer of the 16-bit float into another (a tile staged in local memory): moved as it is
          return [`${pad}${storage.copy(target.array, to, source.array, printer.print(source.indices[0], 'int32'))}`];
        }
        // the float value (of the 16-bit float's values already) stored as the 16-bit float
        return [`${pad}${storage.store(target.array, to, printer.print(s.value, narrow))}`];
      }
      if (s.vector) return [`${pad}${printVectorAssign(s, printer)}`];
      return [`${pad}${printer.place(target)} = ${printer.print(s.value, s.dtype)};`];
    }
    case 'declare': {
      printer.addressSpaces.set(s.name, s.addressSpace === 'local' ? 'local' : 'private');
      if (s.matrix) return [`${pad}${printFragments(s, printer)}`];
      if (s.forAtomic) printer.atomicVariables.add(s.name);
      const space = `${s.addressSpace === 'local' ? dialect.localQualifier : ''}${s.forAtomic ? dialect.atomicQualifier : ''}`;
      // a vector temporary is an array of vectors (but for packed lanes: elements, see VectorArray)
      const packed = s.vectorWidth !== undefined && dialect.vectors.packed.includes(s.vectorWidth);
      const lanes = s.vectorWidth && !packed ? s.vectorWidth : 1;
      if (s.vectorWidth)
        printer.vectorWidths.set(s.name, {
          lanes: s.vectorWidth,
          space: s.addressSpace === 'local' ? 'local' : 'private',
          packed,
        });
      // a size known only at launch is a C99 variable-length array (targets with runtimeSizedArrays)
      const dims =
        s.length === undefined
          ? ''
          : typeof s.length === 'number'
            ? `[${s.length / lanes}]`
            : `[${printer.print(s.length, 'int32')}]`;
      const { element, narrowTile } = declaredElement(s, printer);
      if (narrowTile) printer.narrowFloatBuffers = new Set([...printer.narrowFloatBuffers, s.name]);
      const t = dialect.type(element);
      if (s.initializer) {
        // a constant table: initialized where it is declared, never written
        const values = s.initializer.map((v) => printer.print(initializerLiteral(v, s.dtype), s.dtype));
        return [
          `${pad}${t} const ${s.name}${dims} = ${s.length !== undefined ? `{ ${values.join(', ')} }` : values[0]};`,
        ];
      }
      const type = lanes > 1 ? dialect.vectors.type(element, lanes) : t;
      // a tile matrix instructions load, or one asynchronous copies fill 16 bytes at a time, starts aligned
      const bulk = printer.bulkPlan?.tiles.has(s.name) ?? false;
      // a swizzled tile starts where the hardware's swizzle repeats (8 spans), a bulk copy's box at 128 bytes
      const aligned =
        (s.swizzle || bulk) && dialect.bulkCopy
          ? dialect.bulkCopy.alignedLocal(Math.max(bulk ? dialect.bulkCopy.localAlignment : 0, 8 * (s.swizzle ?? 0)))
          : s.matrixOperand && dialect.matrix
            ? dialect.matrix.alignedLocal
            : printer.asyncTargets.has(s.name) && dialect.asyncCopy && s.addressSpace === 'local'
              ? dialect.asyncCopy.alignedLocal
              : '';
      // carved out of the launch's memory (program.ts), at an offset aligned for any element and tile
      if (printer.carvedLocals.has(s.name)) {
        printer.alignedArrays.add(s.name);
        return [];
      }
      if (aligned) printer.alignedArrays.add(s.name);
      return [`${pad}${space}${aligned}${type} ${s.name}${dims};`];
    }
    case 'code': {
      // loopy's CInstruction: the code as given, in a block of its own after the names it uses
      // (a name bound to itself, a loop's own index, needs no declaration)
      const inner = pad + INDENT;
      const bindings = s.bindings
        .filter((b) => !(b.value.kind === 'var' && b.value.name === b.name))
        .map((b) => `${inner}int const ${b.name} = ${printer.print(b.value, 'int32')};`);
      const code = s.code.split('\n').map((line) => (line.trim() === '' ? '' : `${inner}${line}`));
      return [`${pad}{`, ...bindings, ...(bindings.length ? [''] : []), ...code, `${pad}}`];
    }
    case 'call':
      return [`${pad}${printer.statementCall(s.call)};`];
    case 'trace':
      return [`${pad}${printTraceLine(printer, s.pieces, s.values)};`];
    case 'barrier': {
      if (printer.bulkRole === 'producer')
        return producerBarrier(printer, s.comment ? commentText(s.comment) : undefined).map((line) => `${pad}${line}`);
      // what the work-item copied asynchronously lands before the barrier lets others read it
      const wait = asyncWait(printer);
      // and what it stored (or copied) reaches the matrix instructions that read it as core matrices
      // but for the products a pipeline leaves in flight (products-in-flight.ts)
      const fence =
        (printer.coreFactors ? dialect.matrix?.factorsFence?.(printer.productsInFlightHere) : undefined) ?? [];
      const comment = s.comment ? commentText(s.comment) : undefined;
      // where nothing but the refills of bulk tiles needs it, an arrival (bulk-copies.ts)
      const release = s.scope === 'local' ? bulkRelease(printer, comment) : undefined;
      return [
        ...wait.map((line) => `${pad}${line}`),
        ...fence.map((line) => `${pad}${line}`),
        `${pad}${release ?? dialect.barrier(s.scope, comment)}`,
      ];
    }
    case 'fence': {
      // refused before code generation where the target states no globalFences; kept as a last guard
      if (dialect.globalFence === undefined)
        throw new InternalError(`instruction '${s.insnId}' fences global memory, which ${dialect.language} cannot`);
      return [`${pad}${dialect.globalFence}`];
    }
    case 'comment':
      return [`${pad}/* ${commentText(s.text)} */`];
    case 'device-call':
      return [`${pad}${s.function}(${s.args.map((a) => printer.print(a)).join(', ')});`];
    case 'matrix':
      return printMatrixOps([s], printer).map((line) => `${pad}${line}`);
    default:
      return unreachable(s, 'statement');
  }
}

/**
 * A vector statement: every lane of its `vec` loop at once. With vector arithmetic
 * (OpenCL) the value is printed once, on vectors (`out[i] = 2.0f * a[i];` on float4s);
 * without (CUDA), once per lane, with the loop's iname replaced by the lane, and the lanes
 * assembled into the vector written (`out[i] = make_float4(2.0f * a[i].x, ...);`).
 */
function printVectorAssign(s: Extract<Stmt, { kind: 'assign' }>, printer: CExpressionPrinter): string {
  const loop = s.vector!;
  const { vectors } = printer.dialect;
  const array = (s.target as Extract<Expr, { kind: 'subscript' }>).array;
  printer.vectorLoop = loop;
  let value: string | undefined;
  let whole: ReturnType<CExpressionPrinter['wholeVector']>;
  let index: string;
  try {
    if (vectors.arithmetic) value = printer.print(s.value, s.dtype);
    whole = printer.wholeVector(s.target);
    if (!whole) throw new InternalError(`the vector statement '${s.insnId}' does not write a whole vector`);
    index = printer.print(whole.index, 'int32');
  } finally {
    printer.vectorLoop = undefined;
  }
  if (value === undefined) {
    const lanes = Array.from({ length: loop.lanes }, (_, lane) =>
      printer.print(E.substitute(s.value, { [loop.iname]: E.int(lane) }), s.dtype),
    );
    value = vectors.construct!(s.dtype, lanes);
  }
  return whole.packed ? vectors.storePacked!(value, index, array) : `${array}[${index}] = ${value};`;
}

/**
 * A loop's or guard's body: a block's braces line up with the statement that owns it. A lone
 * comment is no statement in C, so it gets braces: unbraced, the statement after the loop would
 * become its body (serialized work-items put a loop around a region that holds only a comment).
 */
function printBody(body: Stmt, printer: CExpressionPrinter, depth: number): string[] {
  // a comment, or a step of copies followed by its commit, in braces
  if (body.kind === 'comment' || printer.asyncPlan.commitAfter.has(body))
    return printStmt({ kind: 'block', body: [body] }, printer, depth);
  // a product of tiles is a block of its own (its fragments are declared in it)
  const compound = body.kind === 'block' || (body.kind === 'matrix' && body.op.kind === 'multiply');
  return printStmt(body, printer, compound ? depth : depth + 1);
}

/**
 * Loop bounds read like loopy's: affine ones with the constant first (`-1 + n`). Either
 * is at least an additive expression, as the `i <= bound` it goes into needs (a bare
 * `c ? a : b` there would read as `(i <= c) ? a : b`).
 */
function printBound(e: Expr, printer: CExpressionPrinter): string {
  const lin = E.toLinear(e);
  if (!lin || lin.isConstant) return paren(printer.expr(e, 'int32'), PRECEDENCE.additive);
  const terms: string[] = [];
  if (lin.constant !== 0) terms.push(String(lin.constant));
  for (const [name, c] of lin.coeffs) terms.push(c === 1 ? name : c === -1 ? `-1 * ${name}` : `${c} * ${name}`);
  return terms.join(' + ');
}

/** A tensor tile's accumulator: an array of the language's fragments, one per tile it holds. */
function printFragments(s: Extract<Stmt, { kind: 'declare' }>, printer: CExpressionPrinter): string {
  const spelling = printer.dialect.matrix;
  const shape = s.matrix!;
  if (!spelling) throw new InternalError(`${printer.dialect.language} has no matrix fragments ('${s.name}')`);
  if (typeof s.length !== 'number') throw new InternalError(`the accumulator '${s.name}' has no constant size`);
  const count = s.length / (shape.m * shape.n);
  return spelling.fragments(s.name, shape, printer.dialect.type(s.dtype), count);
}

/**
 * The element a declared array holds: a temporary of a 16-bit float computed in float holds floats
 * (`HalfStorageSpelling`), but for a tile that matrix instructions load (`narrowTile`), which holds
 * the 16-bit floats as the instructions read them.
 */
export function declaredElement(
  s: Extract<Stmt, { kind: 'declare' }>,
  printer: CExpressionPrinter,
): { element: DType; narrowTile: boolean } {
  const inFloat = printer.inFloat(s.dtype as DType);
  const narrowTile = inFloat && s.matrixOperand === true;
  return { element: inFloat && !narrowTile ? 'float32' : (s.dtype as DType), narrowTile };
}
