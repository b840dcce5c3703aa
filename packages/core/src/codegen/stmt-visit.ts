/**
 * Generic traversal of the program AST's statements (ast.ts), the statement-level
 * counterpart of ../expr/visit.ts. Statements are small immutable nodes; a pass is one
 * visitor (Halide's IRVisitor / IRMutator): it says what it does with the kinds, names
 * or expressions it cares about, and these functions walk everything else. So adding
 * a statement kind means updating this file (and the printers, which spell each kind
 * themselves), not every pass that only looks for declarations or barriers.
 *
 * What a statement holds, besides the statements inside it:
 *  - expressions: a loop's bounds, a guard's condition, an assignment's target and value, the
 *    values C code's bindings take, the call of a call statement, the values a trace prints;
 *  - names it introduces: a loop's index, a declared temporary. Names inside
 *    expressions are the expressions' business (`walk`, `mapExpr`).
 */
import type { Expr } from '../expr/nodes.ts';
import type { MatrixOp, Stmt } from './ast.ts';
import { InternalError, unreachable } from '../errors.ts';

/** The statements directly inside `s`, in order. */
export function subStatements(s: Stmt): readonly Stmt[] {
  switch (s.kind) {
    case 'block':
      return s.body;
    case 'for':
      return [s.body];
    case 'if':
      return [s.then];
    default:
      return [];
  }
}

/** The one statement `body` holds, through blocks of one statement; `undefined` when it holds several or none. */
export function soleStatement(body: Stmt): Stmt | undefined {
  if (body.kind !== 'block') return body;
  return body.body.length === 1 ? soleStatement(body.body[0]) : undefined;
}

/** A body as the list of its statements: a block's, or the one statement. */
export function statementsOf(body: Stmt): readonly Stmt[] {
  return body.kind === 'block' ? body.body : [body];
}

/** The expressions `s` itself evaluates (not those of the statements inside it), in source order. */
export function ownExpressions(s: Stmt): readonly Expr[] {
  switch (s.kind) {
    case 'for':
      return [s.lower, s.upper];
    case 'if':
      return [s.condition];
    case 'assign':
      return [s.target, s.value];
    case 'code':
      return s.bindings.map((b) => b.value);
    case 'call':
      return [s.call];
    case 'trace':
      return s.values.map((v) => v.value);
    case 'device-call':
      return s.args;
    case 'matrix':
      return matrixExpressions(s.op);
    default:
      return [];
  }
}

/** The name `s` introduces: a loop's index, a declared temporary. */
function ownName(s: Stmt): string | undefined {
  return s.kind === 'for' ? s.iname : s.kind === 'declare' ? s.name : undefined;
}

/** Callbacks for walking program AST statements, their names and expressions (for targets and analyses). */
export interface StmtVisitor {
  /** Each statement, before anything in it; returning `false` skips its names, expressions and statements. */
  readonly stmt?: (s: Stmt) => void | boolean;
  /** Each name a statement introduces (loop index, declared temporary). */
  readonly name?: (name: string) => void;
  /** Each expression a statement evaluates, whole (not its sub-expressions). */
  readonly expr?: (e: Expr) => void;
}

/**
 * Visits the tree in source order: a statement, then its name, its own expressions,
 * and the statements inside it (so a loop's index is met before its bounds and body).
 */
export function walkStmts(s: Stmt, visitor: StmtVisitor): void {
  if (visitor.stmt?.(s) === false) return;
  const name = ownName(s);
  if (name !== undefined) visitor.name?.(name);
  if (visitor.expr) for (const e of ownExpressions(s)) visitor.expr(e);
  for (const inner of subStatements(s)) walkStmts(inner, visitor);
}

/** Whether some statement of the tree (`s` included) satisfies `pred`. */
export function someStmt(s: Stmt, pred: (s: Stmt) => boolean): boolean {
  return pred(s) || subStatements(s).some((inner) => someStmt(inner, pred));
}

/** Every statement of the tree of kind `kind`, in source order. */
export function statementsOfKind<K extends Stmt['kind']>(s: Stmt, kind: K): Extract<Stmt, { kind: K }>[] {
  const out: Extract<Stmt, { kind: K }>[] = [];
  walkStmts(s, { stmt: (x) => void (x.kind === kind && out.push(x as Extract<Stmt, { kind: K }>)) });
  return out;
}

/** Callbacks for rebuilding program AST statements with names or expressions replaced. */
export interface StmtMapper {
  /** Each name a statement introduces; default: kept. */
  readonly name?: (name: string) => string;
  /** Each expression a statement evaluates, whole; default: kept. */
  readonly expr?: (e: Expr) => Expr;
  /** Each statement once its names, expressions and the statements inside it are mapped; default: kept. */
  readonly stmt?: (s: Stmt) => Stmt;
}

/**
 * The tree rebuilt bottom-up through `mapper`, calling its hooks in the order
 * `walkStmts` visits (a renaming that numbers names as it meets them sees them in
 * source order). A statement whose parts all come back unchanged is kept (by
 * identity), as `mapChildren` does for expressions.
 */
export function mapStmts(s: Stmt, mapper: StmtMapper): Stmt {
  // (no closures made per statement: this runs for every statement of every pass)
  const name = mapper.name ?? keepName;
  const expr = mapper.expr ?? keepExpr;
  let mapped: Stmt;
  switch (s.kind) {
    case 'block': {
      const body: Stmt[] = [];
      for (const x of s.body) body.push(mapStmts(x, mapper));
      mapped = body.every((x, k) => x === s.body[k]) ? s : { ...s, body };
      break;
    }
    case 'for': {
      const [iname, lower, upper] = [name(s.iname), expr(s.lower), expr(s.upper)];
      const body = mapStmts(s.body, mapper);
      mapped =
        iname === s.iname && lower === s.lower && upper === s.upper && body === s.body
          ? s
          : { ...s, iname, lower, upper, body };
      break;
    }
    case 'if': {
      const condition = expr(s.condition);
      const then = mapStmts(s.then, mapper);
      mapped = condition === s.condition && then === s.then ? s : { ...s, condition, then };
      break;
    }
    case 'assign': {
      const [target, value] = [expr(s.target), expr(s.value)];
      // a vector statement names its lane iname (no loop introduces it)
      const lane = s.vector && name(s.vector.iname);
      const vector = s.vector && lane !== s.vector.iname ? { ...s.vector, iname: lane! } : s.vector;
      mapped =
        target === s.target && value === s.value && vector === s.vector
          ? s
          : { ...s, target, value, ...(vector ? { vector } : {}) };
      break;
    }
    case 'declare': {
      const declared = name(s.name);
      mapped = declared === s.name ? s : { ...s, name: declared };
      break;
    }
    case 'code': {
      // the bound names are the code's own spelling: only their values are mapped
      const values = s.bindings.map((b) => expr(b.value));
      mapped = values.every((v, k) => v === s.bindings[k].value)
        ? s
        : { ...s, bindings: s.bindings.map((b, k) => ({ name: b.name, value: values[k] })) };
      break;
    }
    case 'call': {
      const made = expr(s.call);
      if (made.kind !== 'call')
        throw new InternalError(`a call statement's call (${s.call.fn}) was mapped to a ${made.kind} expression`);
      mapped = made === s.call ? s : { ...s, call: made };
      break;
    }
    case 'trace': {
      const values = s.values.map((v) => expr(v.value));
      mapped = values.every((v, k) => v === s.values[k].value)
        ? s
        : { ...s, values: s.values.map((v, k) => ({ value: values[k], dtype: v.dtype })) };
      break;
    }
    case 'device-call': {
      const args = s.args.map(expr);
      mapped = args.every((a, k) => a === s.args[k]) ? s : { ...s, args };
      break;
    }
    case 'matrix':
      mapped = { ...s, op: mapMatrixOp(s.op, expr) };
      break;
    default:
      mapped = s; // barriers and comments hold no names, expressions or statements
  }
  return mapper.stmt ? mapper.stmt(mapped) : mapped;
}

function keepName(n: string): string {
  return n;
}

function keepExpr(e: Expr): Expr {
  return e;
}

/** The expressions a matrix instruction evaluates: the fragment's index, the value or the tiles' offsets. */
function matrixExpressions(op: MatrixOp): readonly Expr[] {
  switch (op.kind) {
    case 'fill':
      return [op.accumulator.index, op.value];
    case 'multiply':
      return [op.accumulator.index, op.a.offset, op.b.offset];
    case 'store':
      return [op.accumulator.index, op.c.offset];
    default:
      return unreachable(op, 'matrix instruction');
  }
}

/** A matrix instruction with each of its expressions mapped. */
function mapMatrixOp(op: MatrixOp, expr: (e: Expr) => Expr): MatrixOp {
  const accumulator = { ...op.accumulator, index: expr(op.accumulator.index) };
  switch (op.kind) {
    case 'fill':
      return { ...op, accumulator, value: expr(op.value) };
    case 'multiply':
      return {
        ...op,
        accumulator,
        a: { ...op.a, offset: expr(op.a.offset) },
        b: { ...op.b, offset: expr(op.b.offset) },
      };
    case 'store':
      return { ...op, accumulator, c: { ...op.c, offset: expr(op.c.offset) } };
    default:
      return unreachable(op, 'matrix instruction');
  }
}
