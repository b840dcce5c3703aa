/**
 * Expressions of the program AST as JavaScript.
 *
 * Every node is computed in the type numpy's promotion gives it (`exprType` from
 * the core, with weak literals: `2*a` stays float32, `0.5*k` is float64 for an
 * int32 `k`), its operands converted to that type first, exactly as the OpenCL
 * target's C does. Literals are converted while printing (`0.1` in a float32
 * computation is written as float32's 0.10000000149011612).
 */
import {
  InternalError,
  unreachable,
  combineTypes,
  exprTypes,
  type ExprType,
  isDType,
  isHardwareId,
  LoomError,
  printExpr,
  type DType,
  type Expr,
  type KernelFunction,
  type RealDType,
} from '@loom/core';
import { binaryOp, complement, negate } from './arithmetic.ts';
import { callFunction } from './functions.ts';
import { HELPERS_PARAM, jsName } from './names.ts';
import { UserCalls } from './user-functions.ts';
import {
  Prec,
  asCondition,
  asNumber,
  atom,
  computeType,
  convert,
  infix,
  isBigIntType,
  isFloatType,
  isSmallIntType,
  literal,
  operand,
  reduce,
  storable,
  type JsValue,
} from './values.ts';

export class ExpressionPrinter {
  readonly typeOf: (name: string) => DType | undefined;
  /** Types per expression node, remembered: printing asks for an operand's type at every level. */
  private readonly types: (e: Expr) => ExprType;

  constructor(
    private readonly kernel: KernelFunction,
    /** Scalars shared by work-items, kept as one-element arrays: read and written as `name[0]`. */
    private readonly sharedScalars: ReadonlySet<string>,
    /** The user functions called, collected for the device (user-functions.ts). */
    private readonly calls: UserCalls = new UserCalls(new Map()),
  ) {
    this.typeOf = (name) => kernel.types.get(name);
    this.types = exprTypes(this.typeOf);
  }

  /** The value of `e`, in its own type's representation (possibly unreduced or a JS boolean). */
  value(e: Expr): JsValue {
    switch (e.kind) {
      case 'int':
        return literal(e.value, 'int32');
      case 'float':
        return literal(e.value, 'float64');
      case 'bool':
        return literal(e.value ? 1 : 0, 'bool');
      case 'var':
        return this.variable(e.name);
      case 'subscript':
        if (e.field?.dtype) return loaded(this.fieldRead(e), e.field.dtype);
        return loaded(this.element(e), this.declaredType(e.array));
      case 'neg': {
        // `-0.1` is a literal still to be converted to its context's type, not a float64 negation
        const x = e.operand;
        if (x.kind === 'int') return literal(0 - x.value, 'int32'); // integers have no -0
        if (x.kind === 'float') return literal(-x.value, 'float64');
        return negate(asNumber(this.value(x)), computeType(this.dtype(e)));
      }
      case 'bitnot':
        return complement(asNumber(this.value(e.operand)), computeType(this.dtype(e)));
      case 'imag':
        throw new InternalError(`the complex literal ${printExpr(e)} reached the JavaScript printer unlowered`);
      case 'binary':
        return binaryOp(e.op, asNumber(this.value(e.left)), asNumber(this.value(e.right)), computeType(this.dtype(e)));
      case 'compare':
        return this.comparison(e);
      case 'logical': {
        const op = e.op === 'and' ? '&&' : '||';
        const prec = e.op === 'and' ? Prec.LogicalAnd : Prec.LogicalOr;
        return {
          code: infix(this.condition(e.left), op, this.condition(e.right), prec),
          prec,
          repr: 'bool',
          condition: true,
        };
      }
      case 'not':
        return {
          code: `!${operand(this.condition(e.operand), Prec.Unary)}`,
          prec: Prec.Unary,
          repr: 'bool',
          condition: true,
        };
      case 'if':
        return this.conditional(e);
      case 'call':
        if (isHardwareId(e)) return this.hardwareId(e);
        if (e.dtype !== undefined) return this.userCall(e);
        return callFunction(
          e.fn,
          e.args.map((a) => asNumber(this.value(a))),
          this.dtype(e),
        );
      case 'cast': {
        if (!isDType(e.dtype)) throw new LoomError(`cannot cast to the unknown dtype '${e.dtype}': ${printExpr(e)}`);
        return convert(this.value(e.operand), e.dtype);
      }
      case 'reduce':
        throw new InternalError(`the reduction ${printExpr(e)} reached code generation unrealized`);
      default:
        return unreachable(e, 'expression node');
    }
  }

  /** `e` as a JavaScript condition (C's truth: non-zero, NaN included). */
  condition(e: Expr): JsValue {
    return asCondition(this.value(e));
  }

  /** `e` converted to `dtype` and ready to be stored into an array of that dtype (see `storable`). */
  stored(e: Expr, dtype: DType): JsValue {
    return storable(this.value(e), dtype);
  }

  /** `e` converted to `dtype`, for a scalar variable. */
  converted(e: Expr, dtype: DType): JsValue {
    return convert(this.value(e), dtype);
  }

  /**
   * An integer used as an array index or loop bound, as a number. An int32 may stay
   * unreduced here: it can only be out of range after a signed overflow, undefined
   * behavior in C, and then the index is out of bounds either way.
   */
  integer(e: Expr, what: string): JsValue {
    const v = asNumber(this.value(e));
    if (isFloatType(v.repr)) throw new LoomError(`${what} '${printExpr(e)}' is ${v.repr}, not an integer`);
    if (v.literal !== undefined) return convert(v, 'int32');
    if (isBigIntType(v.repr)) return atom(`Number(${reduce(v).code})`, 'int32');
    return v.repr === 'int32' ? v : reduce(v);
  }

  /** The dtype numpy's promotion gives `e`. */
  dtype(e: Expr): DType {
    return this.types(e).dtype;
  }

  private index(indices: readonly Expr[], e: Expr): JsValue {
    if (indices.length !== 1) {
      throw new InternalError(
        `'${printExpr(e)}' reached the JavaScript target with ${indices.length} indices; array accesses must be flattened to one`,
      );
    }
    return this.integer(indices[0], 'the array index');
  }

  private variable(name: string): JsValue {
    const dtype = this.declaredType(name);
    return this.sharedScalars.has(name) ? loaded(`${jsName(name)}[0]`, dtype) : atom(jsName(name), dtype);
  }

  /**
   * A field of a struct element (ast.ts `KernelParam.struct`): the struct array is its bytes, read
   * through the DataView the kernel function makes of it (`structView`), at the element's first
   * byte plus the field's offset, little-endian as the host packed it.
   */
  private fieldRead(e: Extract<Expr, { kind: 'subscript' }>): string {
    const { dtype, offset } = e.field!;
    return `${structView(e.array)}.get${dataViewType(dtype!)}(${this.fieldByte(e, offset!)}, true)`;
  }

  /** A store of `value` (in the field's stored representation) into a struct element's field. */
  fieldWrite(e: Extract<Expr, { kind: 'subscript' }>, value: string): string {
    const { dtype, offset } = e.field!;
    return `${structView(e.array)}.set${dataViewType(dtype!)}(${this.fieldByte(e, offset!)}, ${value}, true)`;
  }

  private fieldByte(e: Extract<Expr, { kind: 'subscript' }>, offset: number): string {
    const first = this.index(e.indices, e).code;
    return offset ? `${first} + ${offset}` : first;
  }

  /** The array element `e` as a place to store to: `a[index]` (a float16 or bfloat16 array holds bits). */
  element(e: Extract<Expr, { kind: 'subscript' }>): string {
    return `${jsName(e.array)}[${this.index(e.indices, e).code}]`;
  }

  /** The call of a call statement (a user function called for its side effect): any result dropped. */
  statementCall(e: Extract<Expr, { kind: 'call' }>): string {
    return this.userCallCode(e).code;
  }

  /** A user function's call: its arguments in the signature's dtypes; its result in the result dtype's representation. */
  private userCall(e: Extract<Expr, { kind: 'call' }>): JsValue {
    const { code, result } = this.userCallCode(e);
    if (result === 'void') throw new InternalError(`the call of the void function '${e.fn}' is used as a value`);
    return atom(code, result);
  }

  private userCallCode(e: Extract<Expr, { kind: 'call' }>): { code: string; result: DType | 'void' } {
    const { key, signature } = this.calls.key(
      e.fn,
      e.args.map((a) => this.dtype(a)),
    );
    const args = e.args.map((a, k) => convert(this.value(a), signature.args[k]).code);
    return { code: `${HELPERS_PARAM}.user[${JSON.stringify(key)}](${args.join(', ')})`, result: signature.result };
  }

  /** `gid(0)`, `lid(2)`: the kernel function's `gid0`, `lid2` parameters. */
  private hardwareId(e: Extract<Expr, { kind: 'call' }>): JsValue {
    const axis = (e.args[0] as Extract<Expr, { kind: 'int' }>).value;
    if (axis < 0 || axis > 2) throw new LoomError(`'${printExpr(e)}': work-item ids have axes 0, 1 and 2`);
    return atom(`${e.fn}${axis}`, 'int32');
  }

  private declaredType(name: string): DType {
    const t = this.kernel.types.get(name);
    if (t === undefined) throw new LoomError(`kernel '${this.kernel.name}' uses '${name}', whose type is not known`);
    return t;
  }

  /** Comparisons in the promoted type of both sides, like C's usual arithmetic conversions. */
  private comparison(e: Extract<Expr, { kind: 'compare' }>): JsValue {
    const left = asNumber(this.value(e.left));
    const right = asNumber(this.value(e.right));
    const common = computeType(combineTypes(this.types(e.left), this.types(e.right)).dtype);
    // int32 against uint32 promotes to int64; as numbers both compare exactly without bigints
    const bothNumbers =
      isBigIntType(common) &&
      isSmallIntType(left.repr) &&
      isSmallIntType(right.repr) &&
      left.literal === undefined &&
      right.literal === undefined;
    const a = bothNumbers ? reduce(left) : convert(left, common);
    const b = bothNumbers ? reduce(right) : convert(right, common);
    const op = e.op === '==' ? '===' : e.op === '!=' ? '!==' : e.op;
    const prec = op === '===' || op === '!==' ? Prec.Equality : Prec.Relational;
    return { code: infix(a, op, b, prec), prec, repr: 'bool', condition: true };
  }

  /** `if(c, a, b)`: both branches in their common type. */
  private conditional(e: Extract<Expr, { kind: 'if' }>): JsValue {
    const c = computeType(this.dtype(e));
    const test = operand(this.condition(e.condition), Prec.LogicalOr);
    const then = convert(this.value(e.then), c);
    const otherwise = convert(this.value(e.otherwise), c);
    // nested conditionals are parenthesized: legal without, but hard to read
    const branch = (x: JsValue) => operand(x, Prec.Conditional + 1);
    return { code: `${test} ? ${branch(then)} : ${branch(otherwise)}`, prec: Prec.Conditional, repr: c };
  }
}

/** An element read from an array of `dtype`: a float16 or bfloat16 array holds bits, read as the number they stand for. */
function loaded(element: string, dtype: DType): JsValue {
  if (dtype === 'float16') return atom(`loom.halfValue(${element})`, dtype);
  if (dtype === 'bfloat16') return atom(`loom.bf16Value(${element})`, dtype);
  return atom(element, dtype);
}

/** The DataView over a struct array's bytes, made once per kernel call (target.ts). */
export const structView = (array: string): string => `${jsName(array)}$view`;

/** The DataView accessor of a dtype (`getFloat32`...): the representation its typed array holds (float16, bfloat16: their bits). */
function dataViewType(dtype: RealDType): string {
  switch (dtype) {
    case 'bool':
    case 'uint8':
      return 'Uint8';
    case 'int8':
      return 'Int8';
    case 'int16':
      return 'Int16';
    case 'uint16':
    case 'float16':
    case 'bfloat16':
      return 'Uint16';
    case 'int32':
      return 'Int32';
    case 'uint32':
      return 'Uint32';
    case 'int64':
      return 'BigInt64';
    case 'uint64':
      return 'BigUint64';
    case 'float32':
      return 'Float32';
    case 'float64':
      return 'Float64';
  }
}
