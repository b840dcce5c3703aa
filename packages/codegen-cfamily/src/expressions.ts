/**
 * The C printer's expressions, in any C-family dialect (dialect.ts). Every operand is converted to the type numpy's promotion
 * gives the operation (`exprType`), so C's own conversion rules never decide a
 * result; literals are spelled in the type they take (`2*a[i]` → `2.0f * a[i]`).
 * Where C leaves a result undefined or means something else than Loom (integer
 * division by zero, `//`, `%`, integer `**`, float min/max with NaN, float to integer
 * conversions), small helper functions give Loom's meaning (`arithmetic-helpers.ts`);
 * the printer records the ones it uses. What the language spells its own way (types,
 * literals, function names, vector members, half loads) it asks of its dialect. Calls of
 * user functions (user-calls.ts), elements of vector arrays (vector-elements.ts) and `trace`
 * lines (trace.ts) are printed by modules of their own.
 */
import type { BulkPlan } from './bulk-copies.ts';
import type { BulkRole } from './bulk-producer.ts';
import { type AsyncPlan, WAIT_FOR_ALL } from './async-copies.ts';
import type { ProductsInFlight } from './products-in-flight.ts';
import {
  isAtomicFunction,
  isSubgroupFunction,
  InternalError,
  unreachable,
  expr as E,
  exprType,
  exprTypes,
  type ExprType,
  isHardwareId,
  LoomError,
  isFloat,
  isInteger,
  roundToFloat16,
  roundToBfloat16,
  type DType,
  type NarrowFloat,
  type Expr,
  type NameTypes,
  type UserFunction,
  type VectorLoop,
  vectorIndex,
  structElementIndex,
  divisionTruncates,
  isIndexExpression,
  isNonNegative,
  type IndexFacts,
} from '@loom/core';
import { helperDefinition, helperName, type HelperKind } from './arithmetic-helpers.ts';
import type { CAddressSpace, CDialect } from './dialect.ts';
import { printSubgroupCall } from './subgroups.ts';
import { printAtomicFetch } from './atomics.ts';
import { PRECEDENCE, atom, call, infix, literal, paren, prefix, type Printed } from './precedence.ts';
import { printUserCall } from './user-calls.ts';
import { elementThroughPointer, vectorElement, type VectorArray } from './vector-elements.ts';

export type { VectorArray } from './vector-elements.ts';

/**
 * Prints expressions of one kernel as C, in `dialect`, and records what they need: helper
 * functions, user functions' preambles, extensions, double precision.
 */
export class CExpressionPrinter {
  /** Helper functions the printed code needs, by name → definition. */
  readonly helpers = new Map<string, string>();
  /** What the printed code needs the language to enable (OpenCL extensions). */
  readonly extensions = new Set<string>();
  /**
   * Arrays with a `vec` axis: held as vectors (`float4 *`), or, with OpenCL's 3 lanes, as packed
   * elements (`float3` has the size of `float4`, so a `float3 *` would not step over the
   * caller's three-element groups), read and written whole with vload3/vstore3.
   */
  readonly vectorWidths = new Map<string, VectorArray>();
  /** The `vec` loop whose vector statement is being printed. */
  vectorLoop: VectorLoop | undefined;
  /** Whether a float64 value or operation was printed. */
  usesDouble = false;
  /** Whether a line is printed (`printf`, a `trace` statement). */
  prints = false;
  /** Some matrix instruction was printed (matrix.ts). */
  usesMatrix = false;
  /** Arrays that start 16-byte aligned: global parameters (device allocations) and local tiles declared aligned. */
  alignedArrays = new Set<string>();
  /** The local arrays asynchronous copies fill (async-copies.ts): declared aligned, and waited for at barriers. */
  asyncTargets = new Set<string>();
  /** How the kernel's copies are grouped and waited for (async-copies.ts): by default, all at every barrier. */
  asyncPlan: AsyncPlan = WAIT_FOR_ALL;
  /** Whether the program issues asynchronous copies that are not bulk ones (the language's element copies). */
  elementCopies = false;
  /** The kernel's bulk copies as requests (bulk-copies.ts); undefined where it has none. */
  bulkPlan: BulkPlan | undefined = undefined;
  /** Whom the statements being printed are for, where a producer makes the bulk copies (bulk-producer.ts). */
  bulkRole: BulkRole = 'all';
  /** The loop whose barriers may leave products in flight, and how many groups (products-in-flight.ts). */
  productsPlan: ProductsInFlight | undefined = undefined;
  /** The groups of products the barriers being printed may leave in flight (0: none). */
  productsInFlightHere = 0;
  /** Some product of the program reads its factors as core matrices (`MatrixSpelling.factorsFence` at barriers). */
  coreFactors = false;
  /** The program allows `a * b + c` fused into an fma (`ProgramAst.fusedMultiplyAdd`): for `CDialect.product`. */
  fusedMultiplyAdd = false;
  /** Whether a float product and a float sum or difference were printed: fma material. */
  get contractible(): boolean {
    return this.floatOps.has('*') && (this.floatOps.has('+') || this.floatOps.has('-'));
  }
  private readonly floatOps = new Set<string>();
  /**
   * What the kernel being printed knows of its integer names (core's `indexFacts`), set per
   * kernel. Index arithmetic (loop counters, value arguments and temporaries computed from them
   * alone) stays in range (the device limits check the 32-bit index range), so it prints as
   * plain C; every other signed sum, difference, product and negation is computed in the
   * unsigned type, where C defines the wrapping Loom means: signed overflow is undefined in C,
   * and clang uses that to fold `2 + a <= 0` into `a <= -2` and `(b * 7) / b` into 7. Loop
   * counters that are never negative make `i // 4` C's `/`.
   */
  indexFacts: IndexFacts = { index: new Set(), nonNegative: new Set() };
  /** The program's user functions, and the names of the kernel being printed (a function's name must not be one). */
  functions: ReadonlyMap<string, UserFunction> = new Map();
  kernelNames: ReadonlySet<string> = new Set();
  /** The preambles of the user functions called, each once (by text). */
  readonly preambles = new Set<string>();
  /** Which user function each C name called belongs to: shared by the printers of a program's kernels (C has no overloads). */
  functionOwners = new Map<string, string>();
  /**
   * float16 stored as half but computed in float (a device without cl_khr_fp16, half-storage.ts).
   * bfloat16 always is (`inFloat`).
   */
  halfStorage = false;
  /**
   * The buffers of a 16-bit float computed in float (`inFloat`) of the kernel being printed, read
   * and written through its storage spelling (`vload_half`; a bfloat16's bits shifted).
   */
  narrowFloatBuffers: ReadonlySet<string> = new Set();
  /**
   * The local arrays of constant size carved out of the launch's memory rather than declared
   * (`CDialect.staticLocalBytes`): the kernel's prologue points them into it.
   */
  carvedLocals: ReadonlySet<string> = new Set();
  /** The kernel's image parameters (`KernelParam.image`): read at their coordinates through `dialect.images`. */
  images: ReadonlySet<string> = new Set();
  /** The struct arrays (ast.ts `KernelParam.struct`), by name: their struct's size in bytes. */
  structSizes: ReadonlyMap<string, number> = new Map();
  /** Where each array and declared variable of the kernel lives, set from its parameters and declarations. */
  readonly addressSpaces = new Map<string, CAddressSpace>();
  /** Variables accessed atomically (`forAtomic`): every read of one is an atomic load (loopy's AtomicLoad). */
  readonly atomicVariables = new Set<string>();

  /** Types per expression node, remembered: printing asks for an operand's type at every level. */
  private readonly types: (e: Expr) => ExprType;

  /** Variables a statement declares for itself (an atomic update's old value), by name: their dtypes. */
  readonly localTypes = new Map<string, DType>();

  constructor(
    readonly dialect: CDialect,
    private readonly typeOf: NameTypes,
  ) {
    this.types = exprTypes((name) => this.localTypes.get(name) ?? typeOf(name));
  }

  /** Prints `e` converted to `want` (when given). */
  print(e: Expr, want?: DType): string {
    return this.expr(e, want).text;
  }

  /**
   * An array index: an int32 expression, or, where the dialect sums indices wider
   * (`wideIndexSums`) and this one has two terms or more that are not numbers, its terms summed
   * in that type from the first on.
   */
  private index(e: Expr): string {
    const wide = this.dialect.wideIndexSums;
    const terms = wide === undefined ? [] : E.additiveTerms(e, '+');
    if (terms.filter((t) => t.term.kind !== 'int').length < 2) return this.print(e, 'int32');
    const [first, ...rest] = terms.map((t) => ({ ...t, printed: this.expr(t.term, 'int32') }));
    let text = `(${wide}) ${paren(first.printed, PRECEDENCE.unary)}`;
    if (first.sign === '-') text = `-${text}`;
    for (const t of rest) text += ` ${t.sign} ${paren(t.printed, PRECEDENCE.additive + 1)}`;
    return text;
  }

  /** Where variable `name` lives: an undeclared name is a private scalar. */
  addressSpaceOf(name: string): CAddressSpace {
    return this.addressSpaces.get(name) ?? 'private';
  }

  /**
   * `target` as the place an assignment writes (`out[i]`, `t`): an atomic variable's element
   * is printed as itself, not as an atomic load of it. Its indices are values, read as usual.
   */
  place(target: Expr): string {
    const name = target.kind === 'subscript' ? target.array : target.kind === 'var' ? target.name : undefined;
    if (target.kind === 'subscript' && this.dialect.vectors.laneWritesWholeVector) {
      const vector = this.vectorWidths.get(target.array);
      // a private vector stays in registers, where a lane is no memory access of its own
      if (vector && !vector.packed && vector.space !== 'private' && !this.wholeVector(target))
        return elementThroughPointer(this, target.array, target.indices[0], vector, this.typeOfExpr(target)).text;
    }
    if (name === undefined || !this.atomicVariables.has(name)) return this.print(target);
    return this.element(target as Extract<Expr, { kind: 'var' | 'subscript' }>);
  }

  /** `a[element].path`: a field of an element of a struct array, whose flattened index counts bytes. */
  private structField(e: Extract<Expr, { kind: 'subscript' }>): string {
    const size = this.structSizes.get(e.array);
    if (size === undefined || e.indices.length !== 1)
      throw new InternalError(`'${e.array}${E.printField(e.field)}' reached the printer without its struct array`);
    return `${e.array}[${this.index(structElementIndex(e.indices[0], size))}]${E.printField(e.field)}`;
  }

  /** A variable or one element of a flattened array, as its plain C lvalue. */
  private element(e: Extract<Expr, { kind: 'var' | 'subscript' }>): string {
    if (e.kind === 'var') return e.name;
    if (e.indices.length !== 1) throw new InternalError(`'${e.array}' reached the printer unflattened`);
    return `${e.array}[${this.print(e.indices[0], 'int32')}]`;
  }

  /** A read of an atomic variable as the dialect's atomic load; undefined for any other read. */
  private atomicRead(e: Extract<Expr, { kind: 'var' | 'subscript' }>, t: DType): Printed | undefined {
    const name = e.kind === 'var' ? e.name : e.array;
    const load = this.dialect.atomicLoad;
    if (!load || !this.atomicVariables.has(name)) return undefined;
    return applied(load(t, `&${this.element(e)}`, this, this.addressSpaceOf(name)));
  }

  /** The dtype of `e`. */
  typeOfExpr(e: Expr): DType {
    return this.types(e).dtype;
  }

  /** `e` converted to `want` (when given), with its precedence. */
  expr(e: Expr, want?: DType): Printed {
    const t = this.typeOfExpr(e);
    if (e.kind === 'int' || e.kind === 'float') {
      // a literal is spelled in the type it takes: float64 only when it really is double
      if ((want ?? t) === 'float64') this.usesDouble = true;
      const spelled = want ?? t;
      if (this.inFloat(spelled)) return literal(this.dialect.literal(roundedTo(spelled, e.value), 'float32'));
      return literal(this.dialect.literal(e.value, want ?? t));
    }
    if (t === 'float64' || want === 'float64') this.usesDouble = true;
    if (e.kind === 'bool') return atom(e.value ? '1' : '0');
    const printed = this.raw(e, t);
    if (want === undefined || want === t || (isBoolish(want) && isBoolish(t))) return printed;
    return this.converted(printed, t, want);
  }

  /** A read of image `name` at `indices` (one per axis, row-major): its coordinates are the indices reversed (x fastest). */
  private imageRead(name: string, indices: readonly Expr[], t: DType): string {
    if (!this.dialect.images)
      throw new InternalError(`'${name}' is an image, which ${this.dialect.language} cannot read`);
    const coordinates = [...indices].reverse().map((i) => this.print(i, 'int32'));
    return this.dialect.images.read(name, coordinates, t);
  }

  /** `e` without its conversion: the literals are spelled by `expr` (in the type they take), so `raw` never sees them. */
  private raw(e: Exclude<Expr, { kind: 'int' | 'float' | 'bool' }>, t: DType): Printed {
    switch (e.kind) {
      case 'var':
        return this.atomicRead(e, t) ?? atom(e.name);
      case 'subscript': {
        if (this.images.has(e.array)) return applied(this.imageRead(e.array, e.indices, t));
        if (e.field) return { text: this.structField(e), precedence: PRECEDENCE.postfix };
        if (e.indices.length !== 1) throw new InternalError(`'${e.array}' reached the printer unflattened`);
        const atomic = this.atomicRead(e, t);
        if (atomic) return atomic;
        if (this.narrowFloatBuffers.has(e.array) && this.inFloat(t))
          return applied(this.storageOf(t).load(e.array, this.print(e.indices[0], 'int32')));
        const vector = this.vectorWidths.get(e.array);
        const whole = this.wholeVector(e);
        if (whole)
          return whole.packed
            ? applied(this.dialect.vectors.loadPacked!(this.print(whole.index, 'int32'), e.array))
            : { text: `${e.array}[${this.print(whole.index, 'int32')}]`, precedence: PRECEDENCE.postfix };
        if (vector && !vector.packed) return vectorElement(this, e.array, e.indices[0], vector, t);
        return { text: `${e.array}[${this.index(e.indices[0])}]`, precedence: PRECEDENCE.postfix };
      }
      case 'neg': {
        const operand = this.expr(e.operand, t);
        if (!this.mayOverflow(e, t)) return prefix('-', operand);
        // negated in the unsigned type, where -INT_MIN wraps to INT_MIN
        return this.wrapped(prefix('-', this.inUnsigned(operand, t)), t);
      }
      case 'not':
        return this.unorderedComplement(e.operand) ?? prefix('!', this.expr(e.operand));
      case 'bitnot':
        return prefix('~', this.expr(e.operand, t));
      case 'imag':
        throw new InternalError(`the complex literal ${E.printExpr(e)} reached the C printer unlowered`);
      case 'cast': {
        // `float16(0.1)`: the literal spelled in that type, rounded once from its exact value
        // (through a double it would need fp64, and through float it would round twice)
        if (e.operand.kind === 'float' && isFloat(e.dtype as DType)) return this.expr(e.operand, e.dtype as DType);
        const from = this.typeOfExpr(e.operand);
        const operand = this.expr(e.operand);
        return from === e.dtype ? operand : this.converted(operand, from, e.dtype as DType);
      }
      case 'binary':
        return this.binary(e, t);
      case 'compare': {
        const divisibility = this.divisibilityTest(e);
        if (divisibility) return divisibility;
        const common = exprType({ kind: 'binary', op: '+', left: e.left, right: e.right }, this.typeOf).dtype;
        const p = e.op === '==' || e.op === '!=' ? PRECEDENCE.equality : PRECEDENCE.relational;
        return infix(this.expr(e.left, common), e.op, this.expr(e.right, common), p);
      }
      case 'logical': {
        const p = e.op === 'and' ? PRECEDENCE.and : PRECEDENCE.or;
        return infix(this.expr(e.left), e.op === 'and' ? '&&' : '||', this.expr(e.right), p);
      }
      case 'if': {
        if (this.vectorLoop && E.someExpr(e.condition, (x) => x.kind === 'var' && x.name === this.vectorLoop!.iname))
          return this.select(e, t);
        // OpenCL C refuses a float as the condition of ?: (C takes it as != 0): the test spelled out
        const condition = isFloat(this.typeOfExpr(e.condition)) ? E.compare('!=', e.condition, E.int(0)) : e.condition;
        // nested conditionals are parenthesized everywhere: legal without, but hard to read
        const [c, then, otherwise] = [this.expr(condition), this.expr(e.then, t), this.expr(e.otherwise, t)].map((p) =>
          paren(p, PRECEDENCE.or),
        );
        return { text: `${c} ? ${then} : ${otherwise}`, precedence: PRECEDENCE.ternary };
      }
      case 'call':
        return this.call(e, t);
      case 'reduce':
        throw new InternalError('a reduction reached the printer');
      default:
        return unreachable(e, 'expression node');
    }
  }

  /** A whole-vector access `a[lanes*X + lane]` of the vector statement being printed: the vector X. */
  wholeVector(e: Expr): { index: Expr; packed: boolean } | undefined {
    if (!this.vectorLoop || e.kind !== 'subscript') return undefined;
    const array = this.vectorWidths.get(e.array);
    const index = vectorIndex(e.indices[0], this.vectorLoop, array?.lanes);
    return index && { index, packed: array!.packed };
  }

  /** A conditional over a vector comparison: per lane, `select` (branches widened to the vector type). */
  private select(e: Extract<Expr, { kind: 'if' }>, t: DType): Printed {
    const { select } = this.dialect.vectors;
    if (!select)
      throw new InternalError(
        `a conditional per lane reached the ${this.dialect.language} printer, which prints vector statements lane by lane`,
      );
    const vt = this.dialect.vectors.type(t, this.vectorLoop!.lanes);
    return applied(select(vt, this.print(e.then, t), this.print(e.otherwise, t), this.print(e.condition)));
  }

  /** `x % k == 0` with a constant k: C's remainder gives the same answer as Python's, no helper needed. */
  private divisibilityTest(e: Extract<Expr, { kind: 'compare' }>): Printed | undefined {
    const { left, right } = e;
    if ((e.op !== '==' && e.op !== '!=') || right.kind !== 'int' || right.value !== 0) return undefined;
    if (left.kind !== 'binary' || left.op !== '%' || left.right.kind !== 'int' || left.right.value === 0)
      return undefined;
    const t = this.typeOfExpr(left);
    if (!isInteger(t)) return undefined;
    const rem = infix(this.expr(left.left, t), '%', this.expr(left.right, t), PRECEDENCE.multiplicative);
    return infix(rem, e.op, atom('0'), PRECEDENCE.equality);
  }

  /**
   * Integer `//` or `%`: with both operands non-negative (unsigned, a non-negative literal or
   * loop counter) the rounding and the divisor's sign do not matter, so the unsigned helper of
   * `t`'s width computes it (only `x % 0` is guarded), as loopy prints a plain `%` there.
   */
  private integerDivision(
    kind: 'mod' | 'floor_div',
    e: Extract<Expr, { kind: 'binary' }>,
    t: DType,
    l: Printed,
    r: Printed,
  ): Printed {
    // a signed dtype's unsigned twin; an unsigned dtype already gets the unsigned helper
    const unsigned = ({ int8: 'uint8', int16: 'uint16', int32: 'uint32', int64: 'uint64' } as const)[t as 'int8'];
    // a non-negative index by a positive literal: C's own operators (which truncate, as floor does here)
    if (divisionTruncates(e, this.indexFacts, this.isUnsigned))
      return infix(l, kind === 'mod' ? '%' : '/', r, PRECEDENCE.multiplicative);
    const nonNegative = this.isNonNegative(e.left) && this.isNonNegative(e.right);
    if (unsigned === undefined || !nonNegative) return call(this.helper(kind, t), [l.text, r.text]);
    const result = call(this.helper(kind, unsigned), [this.print(e.left, unsigned), this.print(e.right, unsigned)]);
    return this.converted(result, unsigned, t);
  }

  /**
   * Whether `e` is never negative by its type or what it is made of: a literal, a loop counter
   * from 0, a hardware id, and sums, products, quotients and remainders of those (loopy's
   * `i*(i+1) // 2` is C's `/`). A sum or product counts only as index arithmetic, which does
   * not overflow (`isIndexExpression`): data arithmetic wraps and may turn negative.
   */
  private isNonNegative(e: Expr): boolean {
    return isNonNegative(e, this.indexFacts, this.isUnsigned);
  }

  /** Whether the type of `e` alone makes it non-negative. */
  private readonly isUnsigned = (e: Expr): boolean => {
    const t = this.typeOfExpr(e);
    return t.startsWith('uint') || t === 'bool';
  };

  private binary(e: Extract<Expr, { kind: 'binary' }>, t: DType): Printed {
    if (this.inFloat(t)) {
      // computed in float, rounded to the 16-bit float (`//`: the quotient rounded, then floored)
      if (e.op === '//')
        return call(this.math('floor', 'float32'), [
          this.toNarrow(this.binary({ ...e, op: '/' }, 'float32'), 'float32', t).text,
        ]);
      return this.toNarrow(this.binary(e, 'float32'), 'float32', t);
    }
    let l = this.expr(e.left, t);
    let r = this.expr(e.right, t);
    if ((e.op === '+' || e.op === '-') && isFloat(t) && this.dialect.foldsZeroSums) {
      // the operand beside a literal zero, out of the front end's reach (CDialect.foldsZeroSums)
      if (isZeroLiteral(e.left)) r = call(this.helper('opaque', t), [r.text]);
      else if (isZeroLiteral(e.right)) l = call(this.helper('opaque', t), [l.text]);
    }
    switch (e.op) {
      case '+':
      case '-':
      case '*':
        if (this.mayOverflow(e, t)) return this.wrapping(l, e.op, r, t);
        if (isFloat(t)) {
          this.floatOps.add(e.op);
          const product = e.op === '*' ? this.dialect.product?.(l.text, r.text, t, this.fusedMultiplyAdd) : undefined;
          if (product) return applied(product);
        }
        return infix(l, e.op, r, e.op === '*' ? PRECEDENCE.multiplicative : PRECEDENCE.additive);
      case '/':
        // an integer divisor that may be 0 or -1 needs the helper (C: undefined, x86: a trap)
        if (isInteger(t) && !(e.right.kind === 'int' && e.right.value !== 0 && e.right.value !== -1)) {
          return call(this.helper('div', t), [l.text, r.text]);
        }
        return infix(l, '/', r, PRECEDENCE.multiplicative);
      case '//':
        if (isFloat(t)) return call(this.math('floor', t), [infix(l, '/', r, PRECEDENCE.multiplicative).text]);
        return this.integerDivision('floor_div', e, t, l, r);
      case '%':
        if (isFloat(t)) return call(this.helper('mod', t), [l.text, r.text]);
        return this.integerDivision('mod', e, t, l, r);
      case '**':
        if (isFloat(t)) return call(this.math('pow', t), [l.text, r.text]);
        return call(this.helper('pow', t), [l.text, r.text]);
      case '&':
        return infix(l, '&', r, PRECEDENCE.bitAnd);
      case '^':
        return infix(l, '^', r, PRECEDENCE.bitXor);
      case '|':
        return infix(l, '|', r, PRECEDENCE.bitOr);
      case '<<':
      case '>>': {
        // narrow integers shift as C promotes them, in int
        const c = t === 'int64' || t === 'uint64' || t === 'uint32' ? t : 'int32';
        const [a, b] = c === t ? [l, r] : [this.expr(e.left, c), this.expr(e.right, c)];
        return call(this.helper(e.op === '<<' ? 'shl' : 'shr', c), [a.text, b.text]);
      }
    }
  }

  /**
   * `!(a >= b)` of floats spelled as what it is, "a < b, or either is NaN": NVIDIA's compiler
   * folded `!(fabs(x) >= 0)` to false for a NaN x (seed 3929237285 of the differential run on
   * the H100), losing the else-branch of `if (abs(x) >= 0)`. `isunordered` keeps the NaN case.
   */
  private unorderedComplement(e: Expr): Printed | undefined {
    if (e.kind !== 'compare' || !['<', '<=', '>', '>='].includes(e.op)) return undefined;
    const common = exprType({ kind: 'binary', op: '+', left: e.left, right: e.right }, this.typeOf).dtype;
    if (!isFloat(common)) return undefined;
    const opposite = { '<': '>=', '<=': '>', '>': '<=', '>=': '<' }[e.op as '<' | '<=' | '>' | '>='];
    const ordered = infix(this.expr(e.left, common), opposite, this.expr(e.right, common), PRECEDENCE.relational);
    const unordered = this.dialect.unordered(this.print(e.left, common), this.print(e.right, common));
    return { text: `(${unordered} || ${ordered.text})`, precedence: PRECEDENCE.postfix };
  }

  private call(e: Extract<Expr, { kind: 'call' }>, t: DType): Printed {
    if (isHardwareId(e))
      return applied(this.dialect.hardwareId(e.fn as 'lid' | 'gid', (e.args[0] as { value: number }).value));
    if (isAtomicFunction(e.fn)) return applied(printAtomicFetch(e, t, this));
    if (isSubgroupFunction(e.fn)) {
      const [value, ...lanes] = e.args;
      const args = value ? [this.print(value, t), ...lanes.map((a) => this.print(a, 'int32'))] : [];
      return applied(printSubgroupCall(e.fn, args, t, this.dialect, this));
    }
    if (e.dtype !== undefined) return printUserCall(this, e);
    // a 16-bit float without arithmetic of its own: computed in float, rounded
    if (this.inFloat(t)) return this.toNarrow(this.call(e, 'float32'), 'float32', t);
    const float = isFloat(t);
    if (float && (e.fn === 'min' || e.fn === 'max')) {
      // NaN-propagating, unlike C's fmin/fmax
      const fn = this.helper(e.fn === 'min' ? 'minimum' : 'maximum', t);
      const [first, ...rest] = e.args;
      return rest.reduce<Printed>((acc, a) => call(fn, [acc.text, this.print(a, t)]), this.expr(first, t));
    }
    if (e.fn === 'clamp') return this.call(E.call('min', [E.call('max', [e.args[0], e.args[1]]), e.args[2]]), t);
    if (e.fn === 'isnan' || e.fn === 'isinf' || e.fn === 'isfinite') {
      const x = e.args[0];
      if (!isFloat(this.typeOfExpr(x))) return atom(e.fn === 'isfinite' ? '1' : '0'); // integers are finite numbers
      return call(e.fn, [this.print(x)]);
    }
    if (float && (e.fn === 'fmin' || e.fn === 'fmax')) {
      // a NaN argument ignored, as C's, and -0 below +0 (C leaves the order of zeros open)
      return call(
        this.helper(e.fn, t),
        e.args.map((a) => this.print(a, t)),
      );
    }
    if ((e.fn === 'min' || e.fn === 'max') && e.args.length > 2) {
      const [first, ...rest] = e.args;
      const fn = this.integerMinMax(e.fn, t);
      return rest.reduce<Printed>((acc, a) => call(fn, [acc.text, this.print(a, t)]), this.expr(first, t));
    }
    if (!float && isInteger(t)) {
      if (e.fn === 'min' || e.fn === 'max')
        return call(
          this.integerMinMax(e.fn, t),
          e.args.map((a) => this.print(a, t)),
        );
      // int8/int16 in int: abs(short) is a ushort that the cast must bring back from 32768, and
      // NVIDIA's abs of a narrow MIN disagreed with PoCL's; |x| of a value in range fits int
      if (e.fn === 'abs') {
        const abs = this.dialect.integerAbs(t);
        if (abs === undefined) return this.expr(e.args[0], t);
        const c = t === 'int8' || t === 'int16' ? 'int32' : t;
        return { text: `(${this.dialect.type(t)}) ${abs}(${this.print(e.args[0], c)})`, precedence: PRECEDENCE.unary };
      }
      if (['floor', 'ceil', 'round', 'trunc'].includes(e.fn)) return this.expr(e.args[0], t);
      if (e.fn === 'mul_hi' || e.fn === 'rotate') {
        const builtin = this.dialect.integerBuiltin?.(e.fn, t);
        return call(
          builtin ?? this.helper(e.fn, t),
          e.args.map((a) => this.print(a, t)),
        );
      }
    }
    const name = this.dialect.mathFunction(e.fn, t);
    if (!name)
      throw new LoomError(
        `function '${e.fn}' is not available in ${this.dialect.language} (unknown function or unexpanded substitution rule)`,
      );
    return call(
      name,
      e.args.map((a) => this.print(a, t)),
    );
  }

  /**
   * Whether values of `t` are floats here, rounded to `t` after every operation: bfloat16, and
   * float16 without half arithmetic (`halfStorage`).
   */
  inFloat(t: DType): t is NarrowFloat {
    return t === 'bfloat16' || (t === 'float16' && this.halfStorage);
  }

  /** How the 16-bit float `t` is stored, read and rounded. */
  storageOf(t: NarrowFloat) {
    return t === 'bfloat16' ? this.dialect.bfloat16Storage : this.dialect.halfStorage;
  }

  /**
   * `p` (of dtype `from`) rounded to the 16-bit float `to`, as a float (half-storage.ts). An
   * integer becomes a float first (PyTorch's rule: for bfloat16 that may round twice).
   */
  private toNarrow(p: Printed, from: DType, to: NarrowFloat): Printed {
    const fromDouble = from === 'float64';
    const { name, definition } = this.storageOf(to).round(fromDouble);
    if (!this.helpers.has(name)) this.helpers.set(name, definition);
    if (fromDouble) this.usesDouble = true;
    const value = isFloat(from) ? p.text : `(float) ${paren(p, PRECEDENCE.unary)}`;
    return call(name, [value]);
  }

  /** The call of a call statement (a user function called for its side effect): `f(x)`, any result dropped. */
  statementCall(e: Extract<Expr, { kind: 'call' }>): string {
    return printUserCall(this, e).text;
  }

  /**
   * Whether `e` (a sum, difference, product or negation of dtype `t`) is signed arithmetic
   * on data, which may overflow (see `indexFacts`). int8, uint8 and int16 operands are promoted
   * to int by C itself, where they cannot overflow; a uint16 product can (65535 * 65535 is
   * past INT_MAX in C's int), so it is computed in uint too.
   */
  private mayOverflow(e: Expr, t: DType): boolean {
    const wide = t === 'int32' || t === 'int64' || (t === 'uint16' && e.kind === 'binary' && e.op === '*');
    return wide && !this.isIndexArithmetic(e);
  }

  private isIndexArithmetic(e: Expr): boolean {
    return isIndexExpression(e, this.indexFacts.index);
  }

  /** The helper function `kind` for dtype `t`, recorded for the program (for statements that call one). */
  helperFunction(kind: HelperKind, t: DType): string {
    return this.helper(kind, t);
  }

  /** Records the helper function `kind` for dtype `t` (see `arithmetic-helpers.ts`). */
  private helper(kind: HelperKind, t: DType): string {
    if (this.inFloat(t)) t = 'float32'; // computed in float (`HalfStorageSpelling`)
    const name = helperName(kind, t);
    if (!this.helpers.has(name)) this.helpers.set(name, helperDefinition(kind, t, this.dialect));
    return name;
  }

  /** The function computing the integer `min`/`max` of dtype `t`: the built-in, or the dialect's helper (recorded). */
  private integerMinMax(fn: 'min' | 'max', t: DType): string {
    const helper = this.dialect.integerMinMax?.(fn, t);
    if (!helper) return fn;
    this.useHelper(helper);
    return helper.name;
  }

  /** Records a helper function the printed code calls, defined once per program whoever asks. */
  useHelper(helper: { readonly name: string; readonly definition: string }): void {
    if (!this.helpers.has(helper.name)) this.helpers.set(helper.name, helper.definition);
  }

  /** The dialect's name of math function `fn` on dtype `t` (one every C-family language has). */
  private math(fn: string, t: DType): string {
    const name = this.dialect.mathFunction(fn, t);
    if (!name) throw new InternalError(`${this.dialect.language} has no '${fn}' for ${t}`);
    return name;
  }

  /**
   * `p`, of dtype `from`, converted to `to`: a float to an integer saturates (NaN → 0),
   * anything to bool tests `!= 0` (a cast to uchar would make 0.5 false and 256 zero).
   */
  private converted(p: Printed, from: DType, to: DType): Printed {
    if (this.inFloat(to)) return this.toNarrow(p, from, to);
    // a 16-bit float's value is a float here
    if (this.inFloat(from)) return to === 'float32' ? p : this.converted(p, 'float32', to);
    if (isFloat(from) && isInteger(to)) {
      const { name, definition } = this.dialect.floatToInteger(from, to);
      if (!this.helpers.has(name)) this.helpers.set(name, definition);
      return call(name, [p.text]);
    }
    if (to === 'bool' && from !== 'bool')
      return {
        text: `(${this.dialect.type('bool')}) (${paren(p, PRECEDENCE.relational)} != 0)`,
        precedence: PRECEDENCE.unary,
      };
    if (
      (to === 'int8' || to === 'int16') &&
      isWiderInteger(from) &&
      p.precedence !== PRECEDENCE.atom &&
      p.precedence !== PRECEDENCE.postfix
    )
      return this.signExtendedNarrowing(p, to);
    return { text: `(${this.dialect.type(to)}) ${paren(p, PRECEDENCE.unary)}`, precedence: PRECEDENCE.unary };
  }

  /**
   * A computed value wrapped into int8/int16 by shifting its low bits up to the sign and back:
   * NVIDIA's OpenCL compiler (driver 580) dropped the plain cast of a negation, so that
   * `(short) -x` at x = -32768 read as 32768 (bench/repro-nvidia-int16-min.ts); the shifts
   * say the same wrap in a form it keeps (NVRTC shares its backend). Loads and literals are
   * in range and keep the cast.
   */
  private signExtendedNarrowing(p: Printed, to: 'int8' | 'int16'): Printed {
    const shift = to === 'int8' ? 24 : 16;
    const [int, uint] = [this.dialect.type('int32'), this.dialect.type('uint32')];
    return {
      text: `(${this.dialect.type(to)}) ((${int}) ((${uint}) ${paren(p, PRECEDENCE.unary)} << ${shift}) >> ${shift})`,
      precedence: PRECEDENCE.unary,
    };
  }

  /** `l op r` in signed `t`, computed in its unsigned type: wraps where C would leave it undefined. */
  private wrapping(l: Printed, op: string, r: Printed, t: DType): Printed {
    const precedence = op === '*' ? PRECEDENCE.multiplicative : PRECEDENCE.additive;
    return this.wrapped(infix(this.inUnsigned(l, t), op, this.inUnsigned(r, t), precedence), t);
  }

  /** `p`, of signed `t`, as its unsigned type: a wrapping operation's value before its cast back. */
  private inUnsigned(p: Printed, t: DType): Printed {
    const unsigned = this.dialect.type(t === 'int64' ? 'uint64' : 'uint32');
    return p.unsigned ?? { text: `(${unsigned}) ${paren(p, PRECEDENCE.unary)}`, precedence: PRECEDENCE.unary };
  }

  /** The unsigned computation `u`, cast back to signed `t` (keeping `u` for an enclosing one). */
  private wrapped(u: Printed, t: DType): Printed {
    return { text: `(${this.dialect.type(t)}) (${u.text})`, precedence: PRECEDENCE.unary, unsigned: u };
  }
}

/** A 32- or 64-bit integer: a conversion from one to int8/int16 may drop bits. */
function isWiderInteger(t: DType): boolean {
  return t === 'int32' || t === 'uint32' || t === 'int64' || t === 'uint64';
}

function isBoolish(t: DType): boolean {
  return t === 'bool';
}

/** A dialect's spelling of a call, a member access or an index (`vload_half(i, a)`, `tIdx(x)`): binds as a postfix expression. */
function applied(text: string): Printed {
  return { text, precedence: PRECEDENCE.postfix };
}

/** `value` rounded to the 16-bit float `t`, once, from its exact value. */
const roundedTo = (t: NarrowFloat, value: number) =>
  t === 'bfloat16' ? roundToBfloat16(value) : roundToFloat16(value);

/** A literal zero (`0`, `0.0`, `-0.0`): what `CDialect.foldsZeroSums` keeps a float sum's other operand from. */
function isZeroLiteral(e: Expr): boolean {
  return (e.kind === 'float' || e.kind === 'int') && e.value === 0;
}
