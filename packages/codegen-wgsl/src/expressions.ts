/**
 * Expressions in WGSL.
 *
 * WGSL converts nothing implicitly, so every operation is printed in one type, the one
 * numpy's promotion gives it (`exprType`, mapped by `arithmeticType`), and every operand
 * is converted to that type first: `f32(i) * a[i]`. Literals are printed in the type
 * they are used in (`2*a[i]` → `2.0 * a[i]`, `i + 1` → `i + 1i`). Python's `//`, `%` and
 * integer `**` and some C functions are small helper functions (`helpers.ts`).
 *
 * WGSL's grammar is stricter than C's about mixing operators: `a && b || c`, `a < b == c`
 * and `a & b + c` need parentheses, so the precedence levels follow its grammar (printed.ts).
 * Integers narrower than 32 bits are held in i32 and wrapped (narrow-integers.ts).
 *
 * bfloat16, which WGSL lacks, is computed in f32 as the C-family targets compute float16
 * without half arithmetic: an operation whose dtype is bfloat16 takes bfloat16 values (a
 * literal rounded once here, an integer converted to f32 and rounded), computes in f32 and
 * rounds its result to bfloat16 (the `to_bfloat16` helper); `min`, `max`, `abs`, negation,
 * `select` and the like give a bfloat16 back exactly and are not rounded again.
 */
import {
  combineTypes,
  exprTypes,
  type ExprType,
  isFloat,
  isHardwareId,
  isSubgroupFunction,
  subgroupFunction,
  type SubgroupFunctionName,
  LoomError,
  printExpr,
  expr as E,
  structElementIndex,
  type DType,
  type Expr,
  type NameTypes,
  InternalError,
  unreachable,
  type FunctionSignature,
  type VectorLoop,
  divisionTruncates,
  type IndexFacts,
} from '@loom/core';
import type { RowSplit } from './array-rows.ts';
import { bfloat16Literal, EXACT_IN_BFLOAT16 } from './bfloat16.ts';
import { declaredIndex } from './declared-units.ts';
import { printBuiltin } from './builtins.ts';
import type { HelperKind } from './helpers.ts';
import { fitsIn, NARROW, RANGES, wrapLiteral, wrapNarrow } from './narrow-integers.ts';
import { call, convert, infix, operand, Prec, primary, relation, splat, type Printed } from './printed.ts';
import { arithmeticType, computeType, isFloatScalar, isNonFiniteIn, literal, type WgslScalar } from './types.ts';

/**
 * What a vector statement contains that the printer spells only lane by lane (a NaN test
 * on a vector): caught by the statement printer, which then prints the lanes one by one.
 */
export class LaneByLane extends Error {}

/** What the printer needs from the module around it. */
export interface ExpressionContext {
  /** The dtype of a Loom name (arguments, temporaries, inames). */
  readonly typeOf: NameTypes;
  /** The WGSL spelling of a scalar name (a loop index, a temporary, a value argument). */
  nameOf(loomName: string): string;
  /** Element `index` of an array argument or temporary (not one held as vectors), in the computation type of its dtype. */
  loadElement(array: string, index: Expr): Printed;
  /**
   * Where a workgroup array laid out in rows (array-rows.ts) holds `index`, in its declared units:
   * its row and its column; undefined for every other array.
   */
  rowSplit(array: string, index: Expr): RowSplit | undefined;
  /** Whether `array` is an image argument, bound as a texture (`bindings.ts`). */
  isTexture(array: string): boolean;
  /** A struct array's struct size in bytes (structs.ts); undefined for any other array. */
  structSize(array: string): number | undefined;
  /** The element `index` of a struct array, as its storage variable spells it. */
  structElement(array: string, index: Printed): string;
  /** A texel of an image argument at `coordinates` (x, the last index, first), in its computation type. */
  loadTexel(array: string, coordinates: readonly Printed[]): Printed;
  /** A scalar temporary held as a WGSL atomic (workgroup-atomics.ts), loaded; undefined for any other name. */
  loadAtomicScalar(name: string): Printed | undefined;
  /** An array argument held as vectors (`bindings.ts`): its variable and lanes; else undefined. */
  vectorStorage(array: string): { readonly name: string; readonly lanes: number } | undefined;
  /** `gid(N)` / `lid(N)`: the work-group / work-item index along axis N, as i32. */
  hardwareId(kind: 'gid' | 'lid', axis: number): string;
  /** `subgroupLocalId()`, `subgroupSize()`, `subgroupId()`, as i32 (from the entry point's built-ins). */
  subgroupId(fn: 'subgroupLocalId' | 'subgroupSize' | 'subgroupId'): string;
  /** Registers a helper function and returns its name. */
  helper(kind: HelperKind, t: WgslScalar): string;
  /**
   * `a * b + c` may be one fma (`setOptions(knl, { fusedMultiplyAdd: true })`): printed as WGSL's
   * `fma`, which Vulkan and Metal compile to their fused instruction; a sum of a product is
   * otherwise left to the shader compiler, which on NVIDIA's Vulkan driver kept it unfused
   * (the profile's chains of multiply-adds ran at half the rate OpenCL's did).
   */
  readonly fusedMultiplyAdd?: boolean;
  /**
   * The kernel's index arithmetic and non-negative loop counters (core's `indexFacts`): `i // 4`
   * and `i % 4` of a non-negative `i` print as WGSL's own `/` and `%` (which truncate, as floor
   * does there), not as the floor-division helpers, which cost a division, a remainder and a
   * select each time an index is computed.
   */
  readonly indexFacts?: IndexFacts;
  /** A user function's WGSL name for arguments of these dtypes, and the signature it is called with (its preamble registered). */
  userFunction(
    name: string,
    argTypes: readonly DType[],
  ): { readonly name: string; readonly signature: FunctionSignature };
}

const AXES = ['x', 'y', 'z'];
export const axisName = (axis: number) => AXES[axis];

export class ExpressionPrinter {
  /** Sub-expressions to print as given text instead (an atomic update's old value). */
  private readonly replacements: { readonly expr: Expr; readonly printed: Printed }[] = [];

  /** Types per expression node, remembered: printing asks for an operand's type at every level. */
  private readonly types: (e: Expr) => ExprType;
  /** The `vec` loop of the vector statement being printed: its whole-vector accesses are vectors. */
  vectorLoop: VectorLoop | undefined;

  constructor(private readonly context: ExpressionContext) {
    this.types = exprTypes(context.typeOf);
  }

  /** `e` converted to WGSL type `want` (default: its own computation type). */
  print(e: Expr, want?: WgslScalar): Printed {
    for (const r of this.replacements)
      if (E.exprEquals(r.expr, e)) return want ? this.convert(r.printed, want) : r.printed;
    switch (e.kind) {
      case 'int':
        return this.number(e.value, want ?? 'i32');
      case 'float':
        return this.number(e.value, want ?? 'f32');
      case 'bool':
        return want && want !== 'bool'
          ? this.number(e.value ? 1 : 0, want)
          : primary(e.value ? 'true' : 'false', 'bool');
      default: {
        const printed = this.compute(e);
        return want ? this.convert(printed, want) : printed;
      }
    }
  }

  /** `e` as a condition. */
  condition(e: Expr): Printed {
    return this.print(e, 'bool');
  }

  /** `e` as an array index or loop bound (i32). */
  /** `a[element].path`: a field of a struct array's element, whose flattened index counts bytes. */
  fieldReference(e: Extract<Expr, { kind: 'subscript' }>): Printed {
    const c = this.context;
    const size = c.structSize(e.array);
    if (size === undefined || !e.field?.dtype)
      throw new InternalError(`'${printExpr(e)}' reached the WGSL printer without its struct array`);
    const index = this.index(structElementIndex(e.indices[0], size));
    return primary(`${c.structElement(e.array, index)}${E.printField(e.field)}`, computeType(e.field.dtype));
  }

  index(e: Expr): Printed {
    return this.print(e, 'i32');
  }

  /**
   * `e` converted to `dtype` as C converts it, ready to be stored in a variable or an array
   * of that dtype: to the computation type, then wrapped into the range of a narrow integer
   * type (a uint8 holds `x & 255`).
   */
  converted(e: Expr, dtype: DType): Printed {
    if (dtype === 'bfloat16') return this.bfloat16Value(e);
    if (e.kind === 'int' || e.kind === 'float' || e.kind === 'bool')
      return this.print(wrapLiteral(e, dtype), computeType(dtype));
    const printed = this.print(e, computeType(dtype));
    if (fitsIn(this.dtype(e), dtype)) return printed;
    // a float saturates at the narrow type's range (already at i32's); an integer wraps, as in C
    const range = NARROW.has(dtype) ? RANGES[dtype] : undefined;
    if (isFloat(this.dtype(e)) && range)
      return call('clamp', [printed.text, literal(range[0], 'i32'), literal(range[1], 'i32')], 'i32');
    return wrapNarrow(printed, dtype);
  }

  /**
   * `e` as a bfloat16 value, an f32 (types.ts): a literal rounded once, here (an integer through
   * float32 first, as an integer converted at run time goes); a bfloat16 as it is; anything else
   * converted to f32 and rounded (an integer through f32: PyTorch's rule).
   */
  private bfloat16Value(e: Expr): Printed {
    const value = bfloat16Literal(e);
    if (value !== undefined) return this.number(value, 'f32');
    const printed = this.print(e, 'f32');
    const from = this.dtype(e);
    return from === 'bfloat16' || from === 'bool' ? printed : this.roundedToBfloat16(printed);
  }

  /** `p`, an f32, rounded to the nearest bfloat16 (as an f32). */
  private roundedToBfloat16(p: Printed): Printed {
    if (p.lanes) throw new LaneByLane('a bfloat16 rounding of a vector');
    return call(this.context.helper('to_bfloat16', 'f32'), [p.text], 'f32');
  }

  /** `e` as an operand of an operation of dtype `dtype`, computed in `t`: a bfloat16 one's operands are bfloat16 values. */
  private operandIn(e: Expr, dtype: DType, t: WgslScalar): Printed {
    return dtype === 'bfloat16' ? this.bfloat16Value(e) : this.print(e, t);
  }

  /**
   * `p` converted to WGSL type `to`, as Loom means it: a float as a condition is true
   * when non-zero or NaN, and a float becomes an integer saturated at the type's range
   * with NaN → 0 — both told on the bits (`ieee-helpers.ts`). Everything else is `convert`.
   */
  private convert(p: Printed, to: WgslScalar): Printed {
    if (p.lanes && p.type !== to) throw new LaneByLane(`a ${p.type} vector converted to ${to}`);
    if (!isFloatScalar(p.type) || p.type === to) return convert(p, to);
    if (to === 'bool') return call(this.context.helper('truthy', p.type), [p.text], 'bool');
    if (to === 'i32' || to === 'u32')
      return call(this.context.helper(to === 'i32' ? 'to_i32' : 'to_u32', p.type), [p.text], to);
    return convert(p, to);
  }

  /** Prints `e`, with every occurrence of `expr` in it printed as `printed`. */
  withReplacement<T>(expr: Expr, printed: Printed, print: () => T): T {
    this.replacements.push({ expr, printed });
    try {
      return print();
    } finally {
      this.replacements.pop();
    }
  }

  /** The Loom dtype numpy's promotion gives `e`. */
  dtype(e: Expr): DType {
    return this.types(e).dtype;
  }

  /** A number literal in type `t` (a NaN or infinity through a helper: WGSL has no literal for them). */
  private number(value: number, t: WgslScalar): Printed {
    if (t === 'bool') return primary(value !== 0 ? 'true' : 'false', 'bool');
    if (isNonFiniteIn(value, t)) {
      if (Number.isNaN(value)) return primary(`${this.context.helper('nan', t)}()`, t);
      const inf = `${this.context.helper('infinity', t)}()`;
      return value > 0 ? primary(inf, t) : { text: `-${inf}`, prec: Prec.Unary, type: t };
    }
    const text = literal(value, t);
    return { text, prec: text.startsWith('-') ? Prec.Unary : Prec.Primary, type: t };
  }

  /** `e` in its own computation type (the literals are spelled by `print`, in the type they are wanted in). */
  private compute(e: Exclude<Expr, { kind: 'int' | 'float' | 'bool' }>): Printed {
    const c = this.context;
    switch (e.kind) {
      case 'var':
        return c.loadAtomicScalar(e.name) ?? primary(c.nameOf(e.name), this.scalarType(e));
      case 'subscript': {
        if (c.isTexture(e.array))
          return c.loadTexel(
            e.array,
            [...e.indices].reverse().map((i) => this.index(i)),
          );
        if (e.indices.length !== 1) throw new InternalError(`'${printExpr(e)}' reached the WGSL printer unflattened`);
        if (e.field) return this.fieldReference(e);
        const vector = this.vectorReference(e);
        if (vector) return vector;
        return c.loadElement(e.array, e.indices[0]);
      }
      case 'neg': {
        const t = arithmeticType(this.dtype(e));
        const x = e.operand;
        if (x.kind === 'int' || x.kind === 'float') return this.number(-x.value, t);
        const operand = this.print(x, t);
        // WGSL has no unary minus on u32: negation modulo 2^32 is a subtraction from zero
        if (t === 'u32') return infix(this.number(0, t), '-', operand, Prec.Additive, t);
        // `- -x` would read as a decrement
        const text = operand.text.startsWith('-') || operand.prec < Prec.Unary ? `(${operand.text})` : operand.text;
        return { text: `-${text}`, prec: Prec.Unary, type: t, lanes: operand.lanes };
      }
      case 'binary':
        return this.binary(e);
      case 'bitnot': {
        const t = arithmeticType(this.checked(e));
        return { text: `~${operand(this.print(e.operand, t), Prec.Unary)}`, prec: Prec.Unary, type: t };
      }
      case 'imag':
        throw new InternalError(`the complex literal ${printExpr(e)} reached the WGSL printer unlowered`);
      case 'compare':
        return this.comparison(e);
      case 'logical': {
        const op = e.op === 'and' ? '&&' : '||';
        // an operand is a comparison or tighter (never `a & b`), or a chain of the same operator
        const side = (x: Expr) => {
          const p = this.condition(x);
          return (p.prec > Prec.Logical && p.prec !== Prec.Bitwise) || p.logical === op ? p.text : `(${p.text})`;
        };
        return { text: `${side(e.left)} ${op} ${side(e.right)}`, prec: Prec.Logical, type: 'bool', logical: op };
      }
      case 'not':
        return { text: `!${operand(this.condition(e.operand), Prec.Unary)}`, prec: Prec.Unary, type: 'bool' };
      case 'if': {
        // select(otherwise, then, condition): both sides are evaluated, and WGSL's accesses never fault
        const dtype = this.dtype(e);
        const t = computeType(dtype);
        const args = [
          this.operandIn(e.otherwise, dtype, t),
          this.operandIn(e.then, dtype, t),
          this.condition(e.condition),
        ];
        const lanes = args.find((a) => a.lanes)?.lanes;
        // a vector select takes vectors on both sides (and a scalar or same-length condition)
        const [otherwise, then] = args.slice(0, 2).map((a) => splat(a, lanes));
        return { ...call('select', [otherwise, then, args[2].text], t), lanes };
      }
      case 'cast':
        return this.converted(e.operand, castDType(e));
      case 'call':
        return this.call(e);
      case 'reduce':
        throw new InternalError(`the reduction ${printExpr(e)} reached code generation unrealized`);
      default:
        return unreachable(e, 'expression node');
    }
  }

  /**
   * An element of an array held as vectors, as a reference (read or written): the whole
   * vector `a[X]` where a vector statement reads or writes all its lanes, a component
   * `a[X].z` where the lane is a constant, else `a[i / 4][i % 4]` (Python's division);
   * the vector `a[row][column]` where the array is in rows (`subscript`).
   */
  vectorReference(e: Extract<Expr, { kind: 'subscript' }>): Printed | undefined {
    const storage = this.context.vectorStorage(e.array);
    if (!storage) return undefined;
    const { name, lanes } = storage;
    const t = computeType(this.dtype(e));
    const at = declaredIndex(e.indices[0], lanes, this.vectorLoop);
    const vector = `${name}${this.subscript(e.array, at.index)}`;
    switch (at.kind) {
      case 'vector':
        return { text: vector, prec: Prec.Primary, type: t, lanes };
      case 'lane':
        return primary(`${vector}.${'xyzw'[at.lane]}`, t);
      case 'computed-lane':
        return primary(`${vector}[${this.index(at.lane).text}]`, t);
      case 'element':
        throw new InternalError(`'${e.array}' is held as vectors of ${lanes} lanes, yet its index is of elements`);
      default:
        return unreachable(at, 'declared index');
    }
  }

  /**
   * The subscript of element `index` (in the array's declared units: declared-units.ts) of an array:
   * `[i]`, or `[row][column]` for a workgroup array laid out in rows (array-rows.ts).
   */
  subscript(array: string, index: Expr): string {
    const split = this.context.rowSplit(array, index);
    if (!split) return `[${this.index(index).text}]`;
    return `[${this.index(split.row).text}][${this.index(split.column).text}]`;
  }

  /** The type a name holds: a scalar of its dtype's computation type. */
  private scalarType(e: Extract<Expr, { kind: 'var' }>): WgslScalar {
    const t = this.context.typeOf(e.name);
    if (t === undefined) throw new LoomError(`the type of '${e.name}' is not known`);
    return computeType(t);
  }

  /** Whether the integer `//` or `%` `e` is WGSL's truncating operator's (core's `divisionTruncates`). */
  private truncates(e: Extract<Expr, { kind: 'binary' }>): boolean {
    const facts = this.context.indexFacts;
    return facts !== undefined && divisionTruncates(e, facts);
  }

  private binary(e: Extract<Expr, { kind: 'binary' }>): Printed {
    const dtype = this.checked(e);
    if (dtype === 'bfloat16') {
      // computed in f32, rounded to bfloat16 (`//`: the quotient rounded, then floored, as a
      // float16 one is; the floor of a bfloat16 is one)
      if (e.op === '//') return call('floor', [this.binary({ ...e, op: '/' }).text], 'f32');
      return this.roundedToBfloat16(this.arithmetic(e, dtype, 'f32'));
    }
    return this.arithmetic(e, dtype, arithmeticType(dtype));
  }

  /** Binary operation `e` of dtype `dtype`, computed in `t` (a bfloat16 one unrounded). */
  private arithmetic(e: Extract<Expr, { kind: 'binary' }>, dtype: DType, t: WgslScalar): Printed {
    // floats of literals only would be computed by the WGSL compiler, which refuses a result
    // that is not finite (4.0 / 0.0, as Smith's complex division by a real makes): the left
    // one goes through 'at_run_time', so that the shader computes it as every device does
    const atRunTime = isFloatScalar(t) && ARITHMETIC.has(e.op) && isConstant(e.left) && isConstant(e.right);
    const left = this.operandIn(e.left, dtype, t);
    const l = atRunTime ? call(this.context.helper('at_run_time', t), [left.text], t) : left;
    const r = this.operandIn(e.right, dtype, t);
    const helper = (kind: HelperKind) => call(this.context.helper(kind, t), [l.text, r.text], t);
    switch (e.op) {
      case '+':
      case '-':
        // a bfloat16 product is rounded before it is added: never fused
        return (
          (atRunTime || dtype === 'bfloat16' ? undefined : this.fusedSum(e, t)) ?? infix(l, e.op, r, Prec.Additive, t)
        );
      case '*':
        return infix(l, e.op, r, Prec.Multiplicative, t);
      case '/':
        // an integer x / 0 is x in WGSL, 0 in Loom: the helper unless the divisor is a non-zero literal
        return isFloatScalar(t) || nonZeroLiteral(e.right) ? infix(l, e.op, r, Prec.Multiplicative, t) : helper('div');
      case '//':
        if (isFloatScalar(t)) return call('floor', [infix(l, '/', r, Prec.Multiplicative, t).text], t);
        if (t === 'u32') return nonZeroLiteral(e.right) ? infix(l, '/', r, Prec.Multiplicative, t) : helper('div');
        return this.truncates(e) ? infix(l, '/', r, Prec.Multiplicative, t) : helper('floor_div');
      case '%':
        if (isFloatScalar(t)) return helper('remainder');
        return t === 'u32' || this.truncates(e) ? infix(l, '%', r, Prec.Multiplicative, t) : helper('mod');
      case '**':
        return helper('pow');
      case '&':
      case '|':
      case '^': {
        // the operands of a bitwise operator are unary expressions, or the same operator on the left
        const left =
          l.prec === Prec.Bitwise &&
          l.text === operand(l, Prec.Bitwise) &&
          e.left.kind === 'binary' &&
          e.left.op === e.op
            ? l.text
            : operand(l, Prec.Unary);
        return { text: `${left} ${e.op} ${operand(r, Prec.Unary)}`, prec: Prec.Bitwise, type: t };
      }
      case '<<':
        return helper('shl');
      case '>>':
        return helper('shr');
    }
  }

  /**
   * `a * b ± c` or `c ± a * b` as one `fma`, where the kernel allows it and the sum is of floats;
   * undefined otherwise. (Printed afresh from the nodes: the product's operands are the fma's.)
   */
  private fusedSum(e: Extract<Expr, { kind: 'binary' }>, t: WgslScalar): Printed | undefined {
    if (!this.context.fusedMultiplyAdd || !isFloatScalar(t)) return undefined;
    const isProduct = (x: Expr): x is Extract<Expr, { kind: 'binary' }> => x.kind === 'binary' && x.op === '*';
    const [product, addend, negateProduct] = isProduct(e.left)
      ? [e.left, e.right, false]
      : isProduct(e.right)
        ? [e.right, e.left, e.op === '-']
        : [undefined, undefined, false];
    // a product of integers promoted to a float sum is computed as integers: no fma
    // and a bfloat16 product is rounded to bfloat16 before the sum
    if (!product || !addend || arithmeticType(this.checked(product)) !== t || this.dtype(product) === 'bfloat16')
      return undefined;
    const a = this.print(product.left, t);
    const b = this.print(product.right, t);
    const c = this.print(addend, t);
    // in a vector statement fma takes three vectors: a scalar operand beside them is splatted
    const lanes = a.lanes ?? b.lanes ?? c.lanes;
    const [va, vb, vc] = [a, b, c].map((p) => (lanes && !p.lanes ? primary(splat(p, lanes), t) : p));
    const negated = (p: Printed) => `-${operand(p, Prec.Unary)}`;
    const first = negateProduct ? negated(va) : va.text;
    const last = e.op === '-' && !negateProduct ? negated(vc) : vc.text;
    return { ...call('fma', [first, vb.text, last], t), lanes };
  }

  /** Comparisons in the promoted type of both sides. */
  private comparison(e: Extract<Expr, { kind: 'compare' }>): Printed {
    const divisibility = this.divisibilityTest(e);
    if (divisibility) return divisibility;
    const lt = this.dtype(e.left);
    const rt = this.dtype(e.right);
    const common = combineTypes(this.types(e.left), this.types(e.right)).dtype;
    if (common === 'int64' && (computeType(lt) === 'u32') !== (computeType(rt) === 'u32'))
      return this.mixedSignComparison(e);
    const t = common === 'bool' && (e.op === '==' || e.op === '!=') ? 'bool' : arithmeticType(this.checked(e, common));
    if (isFloatScalar(t) && (e.op === '==' || e.op === '!=') && E.exprEquals(e.left, e.right)) {
      // `x != x` is the NaN test, which a compiler assuming finite floats folds to false
      const x = this.print(e.left, t);
      if (x.lanes) throw new LaneByLane('a NaN test on a vector');
      const nan = call(this.context.helper('is_nan', t), [x.text], 'bool');
      return e.op === '!=' ? nan : { text: `!${nan.text}`, prec: Prec.Unary, type: 'bool' };
    }
    // bfloat16 values are compared as bfloat16 values (a literal rounded first, as in bfloat16 arithmetic)
    return relation(this.operandIn(e.left, common, t), e.op, this.operandIn(e.right, common, t));
  }

  /** `x % k == 0` with a constant k: WGSL's remainder and Python's agree on zero, no helper needed. */
  private divisibilityTest(e: Extract<Expr, { kind: 'compare' }>): Printed | undefined {
    const { left, right } = e;
    if ((e.op !== '==' && e.op !== '!=') || right.kind !== 'int' || right.value !== 0) return undefined;
    if (left.kind !== 'binary' || left.op !== '%' || left.right.kind !== 'int' || left.right.value === 0)
      return undefined;
    const t = arithmeticType(this.dtype(left));
    if (isFloatScalar(t)) return undefined;
    const rem = infix(this.print(left.left, t), '%', this.print(left.right, t), Prec.Multiplicative, t);
    return relation(rem, e.op, this.number(0, t));
  }

  /**
   * An int32 compared with a uint32: numpy compares them as int64, which WGSL lacks; the
   * same answer comes from the sign of the int32 and an unsigned comparison.
   */
  private mixedSignComparison(e: Extract<Expr, { kind: 'compare' }>): Printed {
    const signedOnLeft = computeType(this.dtype(e.left)) !== 'u32';
    const s = this.print(signedOnLeft ? e.left : e.right, 'i32');
    const u = this.print(signedOnLeft ? e.right : e.left, 'u32');
    // the comparison read as `s op u`
    const flipped: Record<string, string> = { '<': '>', '<=': '>=', '>': '<', '>=': '<=', '==': '==', '!=': '!=' };
    const op = signedOnLeft ? e.op : flipped[e.op];
    const negative = relation(s, '<', this.number(0, 'i32'));
    const nonNegative = relation(s, '>=', this.number(0, 'i32'));
    const unsigned = relation(primary(`u32(${s.text})`, 'u32'), op, u);
    const either = (a: Printed, joiner: '&&' | '||', b: Printed): Printed => ({
      text: `(${a.text} ${joiner} ${b.text})`,
      prec: Prec.Primary,
      type: 'bool',
    });
    // below zero, the int32 is smaller than every uint32
    return op === '<' || op === '<=' || op === '!='
      ? either(negative, '||', unsigned)
      : either(nonNegative, '&&', unsigned);
  }

  /**
   * The call of a call statement (a user function called for its side effect): `f(x)`, or `_ = f(x)`
   * where it returns a value, which WGSL drops only through the phony assignment.
   */
  statementCall(e: Extract<Expr, { kind: 'call' }>): string {
    const { name, args, result } = this.userCall(e);
    return `${result === 'void' ? '' : '_ = '}${name}(${args.join(', ')})`;
  }

  /** A user function's WGSL name, its arguments in its signature's types, and its result dtype. */
  private userCall(e: Extract<Expr, { kind: 'call' }>): { name: string; args: string[]; result: DType | 'void' } {
    const { name, signature } = this.context.userFunction(
      e.fn,
      e.args.map((a) => this.dtype(a)),
    );
    const args = e.args.map((a, k) => {
      const dtype = this.checked(a, signature.args[k]);
      return this.operandIn(a, dtype, computeType(dtype)).text;
    });
    return { name, args, result: signature.result };
  }

  /** A subgroup function: WGSL's built-in of the same name, on 32-bit values (core checked the dtype). */
  private subgroupCall(e: Extract<Expr, { kind: 'call' }>, fn: SubgroupFunctionName): Printed {
    const f = subgroupFunction(fn);
    if (f.kind === 'id') return primary(this.context.subgroupId(fn as 'subgroupLocalId'), 'i32');
    const t = arithmeticType(this.checked(e));
    const value = this.print(e.args[0], t);
    if (value.lanes) throw new LaneByLane(`'${e.fn}' of a vector`);
    if (f.kind === 'reduce' || f.kind === 'scan') return call(fn, [value.text], t);
    const lane = this.print(e.args[1], 'u32').text;
    // subgroupBroadcast takes a constant lane only; a uniform lane computed at run time is a shuffle's
    const name =
      f.kind === 'shuffle-xor'
        ? 'subgroupShuffleXor'
        : f.kind === 'broadcast' && e.args[1].kind === 'int'
          ? 'subgroupBroadcast'
          : 'subgroupShuffle';
    return call(name, [value.text, lane], t);
  }

  private call(e: Extract<Expr, { kind: 'call' }>): Printed {
    if (isHardwareId(e)) {
      const axis = (e.args[0] as { value: number }).value;
      return primary(this.context.hardwareId(e.fn as 'gid' | 'lid', axis), 'i32');
    }
    if (isSubgroupFunction(e.fn)) return this.subgroupCall(e, e.fn);
    if (e.dtype !== undefined) {
      const { name, args, result } = this.userCall(e);
      if (result === 'void') throw new InternalError(`the call of the void function '${e.fn}' is used as a value`);
      const value = call(name, args, computeType(this.checked(e, result)));
      // a WGSL function computes an f32: a bfloat16 result is rounded, as every bfloat16 operation's is
      return result === 'bfloat16' ? this.roundedToBfloat16(value) : value;
    }
    if (e.fn === 'isnan' || e.fn === 'isinf' || e.fn === 'isfinite') {
      const x = e.args[0];
      const xt = arithmeticType(this.checked(x));
      // integers are finite numbers; floats are told by their bits
      if (!isFloatScalar(xt)) return primary(e.fn === 'isfinite' ? 'true' : 'false', 'bool');
      return call(this.context.helper(e.fn === 'isnan' ? 'is_nan' : e.fn, xt), [this.print(x, xt).text], 'bool');
    }
    if (e.fn === 'clamp') return this.call(E.call('min', [E.call('max', [e.args[0], e.args[1]]), e.args[2]]));
    const dtype = this.checked(e);
    const t = arithmeticType(dtype);
    const float = isFloatScalar(t);
    const printed = e.args.map((a) => this.operandIn(a, dtype, t));
    if (printed.some((a) => a.lanes)) throw new LaneByLane(`'${e.fn}' of a vector`);
    // a built-in of constants only would be evaluated by the WGSL compiler (see 'at_run_time')
    const args =
      float && e.args.every(isConstant) && printed.length > 0
        ? [call(this.context.helper('at_run_time', t), [printed[0].text], t), ...printed.slice(1)]
        : printed;
    const value = printBuiltin(e, args, t, {
      helper: (kind, at) => this.context.helper(kind, at),
      number: (v, at) => this.number(v, at),
    });
    // a bfloat16 function computed in f32, its value rounded to bfloat16 (unless it is one already)
    return dtype === 'bfloat16' && !EXACT_IN_BFLOAT16.has(e.fn) ? this.roundedToBfloat16(value) : value;
  }

  /** The dtype of `e` (or `dtype`), refusing what WGSL cannot compute. */
  private checked(e: Expr, dtype: DType = this.dtype(e)): DType {
    if (dtype === 'int64' || dtype === 'uint64') {
      throw new LoomError(
        `'${printExpr(e)}' is computed in ${dtype} (numpy promotes int32 with uint32 to int64), which WGSL lacks; ` +
          'convert one operand explicitly (int32(x) or uint32(x)), or run on the OpenCL or CPU device',
      );
    }
    return dtype;
  }
}

/** An integer literal other than 0: a divisor that needs no guard. */
function nonZeroLiteral(e: Expr): boolean {
  return e.kind === 'int' && e.value !== 0;
}

function castDType(e: Extract<Expr, { kind: 'cast' }>): DType {
  const t = e.dtype as DType;
  if (isFloat(t) || ['bool', 'int8', 'int16', 'int32', 'int64', 'uint8', 'uint16', 'uint32', 'uint64'].includes(t))
    return t;
  throw new LoomError(`cannot convert to the unknown dtype '${e.dtype}': ${printExpr(e)}`);
}

/** The float operators WGSL's constant evaluation computes and can refuse (an infinite or NaN result). */
const ARITHMETIC = new Set(['+', '-', '*', '/']);

/** A literal, or one negated or converted: what WGSL's constant evaluation would compute. */
function isConstant(e: Expr): boolean {
  if (e.kind === 'int' || e.kind === 'float') return true;
  if (e.kind === 'neg') return isConstant(e.operand);
  if (e.kind === 'cast') return isConstant(e.operand);
  return false;
}
