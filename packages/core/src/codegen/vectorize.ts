/**
 * Vector code for a loop over an iname tagged `vec` (loopy's vectorization,
 * `loopy/codegen/loop.py` and `VectorizabilityChecker` in `loopy/expression.py`).
 *
 * A `vec` loop of constant length 2, 3, 4, 8 or 16 starting at 0 becomes one vector
 * statement per instruction when every statement in it is vector code: it writes
 * an array whose `vec` axis is indexed by the iname alone, and the iname appears
 * nowhere else (not in a guard, not in a non-`vec` axis, not as a value). Anything
 * else (a scalar assignee, a function call on a vector, integer arithmetic, a cast)
 * makes the whole loop fall back to unrolled copies, as loopy's does; so does a
 * target without vector types (JavaScript) or without vectors of that length (WGSL's
 * are 2 and 4 lanes), where the unrolled copies are the same computation lane by lane.
 *
 * Checked on the statements after flattening: an access `a[lanes*X + iname]` to an
 * array of that many lanes is the vector `a[X]`.
 */
import type { DType } from '../dtypes.ts';
import type { Expr } from '../expr/nodes.ts';
import { isAtomicFunction } from '../expr/atomic-functions.ts';
import { fromLinear, mapExpr, someExpr } from '../expr/index.ts';
import { fromLinearOverAtoms, isDivisionByConstant, toLinearOverAtoms } from '../expr/linear-atoms.ts';
import { exprType, isHardwareId } from '../kernel/type-inference.ts';
import { Linear, floorDiv } from '../linear.ts';
import type { Stmt, VectorLoop } from './ast.ts';
import { mapStmts } from './stmt-visit.ts';
import { termsOfLanes } from './vector-lanes.ts';

/** The lane counts vector types have (OpenCL's; WGSL's are 2, 3 and 4, but WGSL unrolls). */
export const VECTOR_LANES: readonly number[] = [2, 3, 4, 8, 16];

/** Why a loop cannot be vector code (caught: the loop is unrolled instead). */
class Unvectorizable extends Error {}

/**
 * The statements of one `vec` loop as vector statements, or undefined when they cannot be
 * (then the caller unrolls). `widths`: the lanes of each array with a `vec` axis.
 */
export function vectorizeStatements(
  statements: readonly Stmt[],
  loop: VectorLoop,
  widths: ReadonlyMap<string, number>,
  types: ReadonlyMap<string, DType>,
): Stmt[] | undefined {
  const simplified = statements.map((s) => mapStmts(s, { expr: (e) => simplifyLaneDivisions(e, loop) }));
  const checker = new VectorChecker(loop, widths, types);
  try {
    return simplified.map((s) => checker.statement(s));
  } catch (e) {
    if (e instanceof Unvectorizable) return undefined;
    throw e;
  }
}

/**
 * `(4*i_outer + i_inner) // 4` → `i_outer` and `(4*i_outer + i_inner) % 4` → `i_inner`
 * when the lane iname runs from 0 to lanes - 1: what `splitArrayAxis` after `splitIname`
 * leaves in the indices (loopy's `simplify_using_aff`).
 */
function simplifyLaneDivisions(e: Expr, { iname, lanes }: VectorLoop): Expr {
  return mapExpr(e, (x) => {
    if (x.kind !== 'binary' || (x.op !== '//' && x.op !== '%') || x.right.kind !== 'int' || x.right.value <= 0)
      return x;
    const d = x.right.value;
    const form = toLinearOverAtoms(x.left, (y) => isDivisionByConstant(y) && !mentions(y, iname));
    const lin = form?.linear;
    if (!lin?.dependsOn(iname)) return x;
    // lin = d*Q + R, with R the lane term and the constant: R's range must lie in one multiple of d
    const rest = lin.without([iname]).sub(lin.constant);
    if (rest.variables.some((n) => rest.coeff(n) % d !== 0)) return x;
    const c = lin.coeff(iname);
    const ends = [lin.constant, lin.constant + c * (lanes - 1)];
    const q = floorDiv(Math.min(...ends), d);
    if (q !== floorDiv(Math.max(...ends), d)) return x;
    const quotient = Linear.of(
      rest.variables.map((n) => [n, rest.coeff(n) / d] as const),
      q,
    );
    if (x.op === '//') return fromLinearOverAtoms(quotient, form!.atoms);
    return fromLinear(Linear.of([[iname, c]], lin.constant - q * d));
  });
}

class VectorChecker {
  constructor(
    private readonly loop: VectorLoop,
    private readonly widths: ReadonlyMap<string, number>,
    private readonly types: ReadonlyMap<string, DType>,
  ) {}

  statement(s: Stmt): Stmt {
    switch (s.kind) {
      case 'comment':
        return s;
      case 'block':
        return { ...s, body: s.body.map((b) => this.statement(b)) };
      case 'if':
        if (this.mentionsLane(s.condition)) throw new Unvectorizable('a guard depends on the lane');
        return { ...s, then: this.statement(s.then) };
      case 'assign': {
        if (s.atomic) throw new Unvectorizable('an atomic update');
        // each lane's fetch returns its own old value: one fetch per lane
        if (s.value.kind === 'call' && isAtomicFunction(s.value.fn)) throw new Unvectorizable('an atomic fetch');
        // loopy's rule: a scalar assignee cannot take a vector; we also vectorize no scalar
        // statement inside the loop (it would run once instead of once per lane)
        if (!this.isVectorAccess(s.target)) throw new Unvectorizable('the assignee is not a vector');
        if (!VECTOR_ELEMENTS.includes(s.dtype)) throw new Unvectorizable(`no vectors of ${s.dtype}`);
        this.value(s.value, s.dtype);
        return { ...s, vector: this.loop };
      }
      default:
        throw new Unvectorizable(`a ${s.kind} inside the loop`);
    }
  }

  /** Whether `e` is a vector; throws when it cannot be vector code. `dtype`: the vector's element type. */
  private value(e: Expr, dtype: DType): boolean {
    switch (e.kind) {
      case 'int':
      case 'float':
      case 'bool':
        return false;
      case 'var':
        if (e.name === this.loop.iname) throw new Unvectorizable('the lane index used as a value');
        return false;
      case 'subscript':
        if (this.isVectorAccess(e)) {
          this.sameType(e, dtype);
          return true;
        }
        if (this.mentionsLane(e)) throw new Unvectorizable('the lane indexes a non-vec axis');
        return false;
      case 'neg':
        return this.vectorNode(e, [e.operand], dtype);
      case 'binary':
        if (!['+', '-', '*', '/'].includes(e.op)) return this.scalarOnly(e);
        return this.vectorNode(e, [e.left, e.right], dtype);
      case 'compare':
        // a vector comparison is a mask (-1 or 0 per lane), only meant for a conditional's select
        if (this.condition(e, dtype)) throw new Unvectorizable('a vector comparison used as a value');
        return false;
      case 'if': {
        const mask = this.condition(e.condition, dtype);
        const vector = [e.then, e.otherwise].map((x) => this.value(x, dtype)).some(Boolean) || mask;
        if (vector) this.sameType(e, dtype);
        return vector;
      }
      default:
        return this.scalarOnly(e);
    }
  }

  /** A conditional's condition: a vector when it is a comparison of vectors in the vector's type. */
  private condition(e: Expr, dtype: DType): boolean {
    if (e.kind !== 'compare') return this.value(e, dtype) && this.scalarOnly(e);
    const vector = [e.left, e.right].map((x) => this.value(x, dtype)).some(Boolean);
    if (vector && this.typeOf({ kind: 'binary', op: '+', left: e.left, right: e.right }) !== dtype)
      throw new Unvectorizable('a comparison in another type');
    return vector;
  }

  /** Arithmetic: a vector when an operand is, and then in the vector's own type (no conversion). */
  private vectorNode(e: Expr, operands: readonly Expr[], dtype: DType): boolean {
    const vector = operands.map((x) => this.value(x, dtype)).some(Boolean);
    // integer arithmetic wraps in Loom, and the printers' wrapping is scalar code
    if (vector && !isVectorFloat(dtype)) throw new Unvectorizable('integer vector arithmetic');
    if (vector) this.sameType(e, dtype);
    return vector;
  }

  /** Calls, casts, logic, integer division, ...: fine on scalars, never on a vector (loopy's rule for calls). */
  private scalarOnly(e: Expr): false {
    if (this.mentionsLane(e)) throw new Unvectorizable(`${e.kind} of a vector`);
    return false;
  }

  private sameType(e: Expr, dtype: DType): void {
    if (this.typeOf(e) !== dtype) throw new Unvectorizable('a vector would need a conversion');
  }

  private typeOf(e: Expr): DType {
    return exprType(e, (n) => this.types.get(n)).dtype;
  }

  private mentionsLane(e: Expr): boolean {
    return someExpr(e, (x) => x.kind === 'var' && x.name === this.loop.iname);
  }

  /** `a[lanes*X + iname]` on an array of `lanes` lanes, X free of the iname. */
  private isVectorAccess(e: Expr): boolean {
    return e.kind === 'subscript' && vectorIndex(e.indices[0], this.loop, this.widths.get(e.array)) !== undefined;
  }
}

const isVectorFloat = (t: DType) => t === 'float32' || t === 'float64';
/** Element types of vector statements: floats compute, integers are moved and selected only. */
const VECTOR_ELEMENTS: readonly DType[] = [
  'float32',
  'float64',
  'int8',
  'int16',
  'int32',
  'int64',
  'uint8',
  'uint16',
  'uint32',
  'uint64',
];

/**
 * The vector index X of a flat index `lanes*X + iname`, or undefined when the index is not
 * that (printers use it to spell the access `a[X]`).
 */
export function vectorIndex(index: Expr, { iname, lanes }: VectorLoop, width: number | undefined): Expr | undefined {
  if (width !== lanes) return undefined;
  return withAtoms(
    index,
    (lin) => {
      if (lin.coeff(iname) !== 1) return undefined;
      const rest = lin.without([iname]);
      if (rest.constant % lanes !== 0 || rest.variables.some((n) => rest.coeff(n) % lanes !== 0)) return undefined;
      return Linear.of(
        rest.variables.map((n) => [n, rest.coeff(n) / lanes] as const),
        rest.constant / lanes,
      );
    },
    iname,
  );
}

/**
 * The vector X and the lane L of a flat index `lanes*X + L` with L a constant, or undefined
 * when the lane is not known before the kernel runs (printers spell the access `a[X].s2`):
 * read as a linear form, else term by term (vector-lanes.ts).
 */
export function laneOf(index: Expr, lanes: number): { readonly vector: Expr; readonly lane: number } | undefined {
  let lane = 0;
  const vector = withAtoms(index, (lin) => {
    if (lin.variables.some((n) => lin.coeff(n) % lanes !== 0)) return undefined;
    lane = ((lin.constant % lanes) + lanes) % lanes;
    return Linear.of(
      lin.variables.map((n) => [n, lin.coeff(n) / lanes] as const),
      (lin.constant - lane) / lanes,
    );
  });
  return vector ? { vector, lane } : termsOfLanes(index, lanes);
}

/**
 * `f` applied to `index` as a linear expression, hardware ids (`lid(0)`, put for parallel
 * inames) and divisions by constants (a joined iname's parts, `lid(0) % 8`) taken as variables,
 * except those that hold the `lane` iname; its answer back as an expression, the atoms restored.
 */
function withAtoms(index: Expr, f: (lin: Linear) => Linear | undefined, lane?: string): Expr | undefined {
  const isAtom = (x: Expr) =>
    isHardwareId(x) || (isDivisionByConstant(x) && (lane === undefined || !mentions(x, lane)));
  const form = toLinearOverAtoms(index, isAtom);
  const answer = form && f(form.linear);
  return answer && fromLinearOverAtoms(answer, form.atoms);
}

const mentions = (e: Expr, name: string) => someExpr(e, (x) => x.kind === 'var' && x.name === name);
