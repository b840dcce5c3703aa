/**
 * The built-in reductions, as loopy's library has them (loopy/library/reduction.py):
 * `sum`, `product`, `max`, `min`, `any`, `all`, `argmax`, `argmin`, `segmented(sum)` and
 * `segmented(product)`.
 *
 * Where Loom decides what loopy leaves open:
 *  - `argmax`/`argmin` return the first index of the extreme (as numpy and PyTorch do),
 *    whatever order the values are combined in, and take NaN as the extreme (the first
 *    NaN wins), so the value they return agrees with `max`/`min`.
 *  - a segmented reduction's flag starts a new segment where it is nonzero; its second
 *    result is the flag of the last segment start seen (nonzero once any flag was).
 */
import { LoomError } from '../errors.ts';
import { isFloat, type DType } from '../dtypes.ts';
import { binary, bool, call, cast, compare, float, ifThenElse, int, logical, not, type Expr } from '../expr/nodes.ts';
import { addReductionOperation, type ReductionOperation } from './operations.ts';

const same = (dtypes: readonly DType[]) => dtypes;

function scalar(
  name: string,
  neutral: (t: DType) => Expr,
  combine: (a: Expr, b: Expr, t: DType) => Expr,
): ReductionOperation {
  return {
    name,
    arity: 1,
    commutative: true,
    resultDtypes: same,
    neutral: ([t]) => [neutral(t)],
    combine: ([a], [b], [t]) => [combine(a, b, t)],
  };
}

const zero = (t: DType) => (isFloat(t) ? float(0) : int(0));
const one = (t: DType) => (isFloat(t) ? float(1) : int(1));

/** The smallest value of `t` (-inf for floats): the neutral element of `max`. */
export function lowest(t: DType): Expr {
  switch (t) {
    case 'float16':
    case 'bfloat16':
    case 'float32':
    case 'float64':
      return float(-Infinity);
    case 'bool':
      return bool(false);
    case 'int8':
      return int(-128);
    case 'int16':
      return int(-32768);
    case 'int32':
      return int(-2147483648);
    // -2**63 has no literal in C (nor has a printer an exact one past 2**53): -2**31 * 2**31 * 2
    case 'int64':
      return binary('*', binary('*', cast('int64', int(-(2 ** 31))), int(2 ** 31)), int(2));
    default:
      return int(0); // unsigned
  }
}

/** The largest value of `t` (+inf for floats): the neutral element of `min`. */
export function highest(t: DType): Expr {
  switch (t) {
    case 'float16':
    case 'bfloat16':
    case 'float32':
    case 'float64':
      return float(Infinity);
    case 'bool':
      return bool(true);
    case 'int8':
      return int(127);
    case 'uint8':
      return int(255);
    case 'int16':
      return int(32767);
    case 'uint16':
      return int(65535);
    case 'int32':
      return int(2147483647);
    case 'uint32':
      return int(4294967295);
    // 2**63 - 1 and 2**64 - 1, from safe literals, in steps that do not overflow
    case 'int64':
      return binary('+', binary('*', binary('-', twoTo62('int64'), int(1)), int(2)), int(1));
    case 'uint64':
      return binary('+', binary('*', binary('-', twoTo62('uint64'), int(1)), int(4)), int(3));
    default:
      throw new LoomError(`min and max have no neutral element for ${t}: complex values are not ordered`);
  }
}

const twoTo62 = (t: DType) => binary('*', cast(t, int(2 ** 31)), int(2 ** 31));

/** `x != x`: NaN, the one value unequal to itself (never true for integers). */
const isNan = (x: Expr, t: DType): Expr => (isFloat(t) ? compare('!=', x, x) : bool(false));

const extremum = (name: 'max' | 'min') =>
  scalar(name, name === 'max' ? lowest : highest, (a, b, t) =>
    t === 'bool' ? logical(name === 'max' ? 'or' : 'and', a, b) : call(name, [a, b]),
  );

/**
 * `argmax`/`argmin` of (value, index) pairs: `b` replaces `a` when its value is further out,
 * or a NaN where `a`'s is not, or the same value (or both NaN) at a smaller index. The neutral
 * pair's index is the largest of its dtype, which every other index beats on a tie, from
 * either side (so an argmax over -inf values still finds the first); it is what a reduction
 * over nothing yields.
 */
function argExtremum(name: 'argmax' | 'argmin'): ReductionOperation {
  const further = name === 'argmax' ? '>' : '<';
  const select = ([av, ai]: readonly Expr[], [bv, bi]: readonly Expr[], [t]: readonly DType[]): Expr => {
    const nanA = isNan(av, t);
    const nanB = isNan(bv, t);
    const tie = isFloat(t) ? logical('or', compare('==', av, bv), logical('and', nanA, nanB)) : compare('==', av, bv);
    const takeB: Expr = logical('or', compare(further, bv, av), logical('and', tie, compare('<', bi, ai)));
    return isFloat(t) ? logical('or', logical('and', nanB, not(nanA)), takeB) : takeB;
  };
  return {
    name,
    arity: 2,
    commutative: true,
    resultDtypes: same,
    neutral: ([v, i]) => [name === 'argmax' ? lowest(v) : highest(v), highest(i)],
    select,
    combine: (a, b, dtypes) => {
      const takeB = select(a, b, dtypes);
      return [ifThenElse(takeB, b[0], a[0]), ifThenElse(takeB, b[1], a[1])];
    },
  };
}

/** `segmented(op)` of (value, flag) pairs: a nonzero flag starts the sum (product) afresh. */
function segmented(inner: 'sum' | 'product'): ReductionOperation {
  const op = inner === 'sum' ? '+' : '*';
  return {
    name: `segmented(${inner})`,
    arity: 2,
    commutative: false,
    resultDtypes: same,
    neutral: ([v, f]) => [inner === 'sum' ? zero(v) : one(v), f === 'bool' ? bool(false) : int(0)],
    combine: ([av, af], [bv, bf], [, ft]) => {
      const starts = ft === 'bool' ? bf : compare('!=', bf, int(0));
      return [ifThenElse(starts, bv, binary(op, av, bv)), ifThenElse(starts, bf, af)];
    },
  };
}

/** `any`/`all`: truth values (a number counts as true when nonzero). */
function logicalReduction(name: 'any' | 'all'): ReductionOperation {
  return {
    name,
    arity: 1,
    commutative: true,
    resultDtypes: () => ['bool'],
    neutral: () => [bool(name === 'all')],
    lift: ([v], [t]) => [t === 'bool' ? v : compare('!=', v, int(0))],
    combine: ([a], [b]) => [logical(name === 'any' ? 'or' : 'and', a, b)],
  };
}

for (const op of [
  scalar('sum', zero, (a, b) => binary('+', a, b)),
  scalar('product', one, (a, b) => binary('*', a, b)),
  extremum('max'),
  extremum('min'),
  logicalReduction('any'),
  logicalReduction('all'),
  argExtremum('argmax'),
  argExtremum('argmin'),
  segmented('sum'),
  segmented('product'),
]) {
  addReductionOperation(op);
}
