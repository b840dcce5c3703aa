/**
 * Printing expressions the way loopy (pymbolic) does: `2*a[i]`, `a[i, j] + 1`,
 * `sum(k, a[i, k]*b[k, j])`, `if(i > 0, a[i - 1], 0)`.
 *
 * Spacing follows pymbolic: `*` and `**` are written tight, every other binary operator
 * with spaces. Parentheses are the fewest that make the text parse back to the same tree
 * (`parseExpression(printExpr(e))` equals `e`), so they reflect the tree, not arithmetic:
 * `a - (b - c)`, `a*(b*c)`, `(a**b)**c` keep theirs.
 */
import { unreachable } from '../errors.ts';
import { freeVariables } from './analysis.ts';
import type { Expr, FieldRef } from './nodes.ts';

/** Binding strength, loosest first, as in Python: `not` is looser than comparisons. */
const Prec = {
  Or: 1,
  And: 2,
  Not: 3,
  Compare: 4,
  BitOr: 5, //    |
  BitXor: 6, //   ^
  BitAnd: 7, //   &
  Shift: 8, //    << >>
  Sum: 9, //      + -
  Product: 10, // * / // %
  Negation: 11, // unary - and ~, and negative literals
  Power: 12, //   **
  Atom: 13, //    literals, names, subscripts, calls
} as const;
type Prec = (typeof Prec)[keyof typeof Prec];

/** An expression as Loom's language spells it (what `parseExpression` reads back). */
export function printExpr(e: Expr): string {
  switch (e.kind) {
    case 'int':
      return String(e.value);
    case 'float':
      return e.dtype === undefined ? formatFloat(e.value) : sized(e.value, e.dtype === 'float32' ? 'f' : 'd');
    case 'imag':
      return sized(e.value, e.dtype === undefined ? 'j' : e.dtype === 'complex64' ? 'jf' : 'jd');
    case 'bool':
      return String(e.value);
    case 'var':
      return e.name;
    case 'subscript':
      if (e.linear) return `${e.array}${e.tag ? `$${e.tag}` : ''}[[${printExpr(e.indices[0])}]]${printField(e.field)}`;
      return `${e.array}${e.tag ? `$${e.tag}` : ''}[${e.indices.map(printExpr).join(', ')}]${printField(e.field)}`;
    case 'neg':
      // `-(1)`: a bare `-1` would read back as the literal -1, not a negation of 1.
      if (isLiteral(e.operand) && precedence(e.operand) === Prec.Atom) return `-(${printExpr(e.operand)})`;
      return `-${operand(e.operand, Prec.Power)}`;
    case 'bitnot':
      return `~${operand(e.operand, Prec.Power)}`;
    case 'binary':
      return printBinary(e);
    case 'compare':
      return `${operand(e.left, Prec.Compare + 1)} ${e.op} ${operand(e.right, Prec.Compare + 1)}`;
    case 'logical': {
      const p = e.op === 'or' ? Prec.Or : Prec.And;
      return `${operand(e.left, p)} ${e.op} ${operand(e.right, p + 1)}`;
    }
    case 'not':
      return `not ${operand(e.operand, Prec.Not)}`;
    case 'if':
      return `if(${printExpr(e.condition)}, ${printExpr(e.then)}, ${printExpr(e.otherwise)})`;
    case 'call':
      return `${e.fn}${e.tag === undefined ? '' : `$${e.tag}`}(${e.args.map(printExpr).join(', ')})`;
    case 'cast':
      return `${e.dtype}(${printExpr(e.operand)})`;
    case 'reduce':
      return printReduction(e);
    default:
      return unreachable(e, 'expression node');
  }
}

function printBinary(e: Extract<Expr, { kind: 'binary' }>): string {
  switch (e.op) {
    case '+':
    case '-':
      return `${operand(e.left, Prec.Sum)} ${e.op} ${operand(e.right, Prec.Sum + 1)}`;
    case '*':
      return `${operand(e.left, Prec.Product)}*${operand(e.right, Prec.Product + 1)}`;
    case '/':
    case '//':
    case '%':
      return `${operand(e.left, Prec.Product)} ${e.op} ${operand(e.right, Prec.Product + 1)}`;
    case '**':
      // Right-associative; binds tighter than a unary minus on its left, not on its right.
      return `${operand(e.left, Prec.Atom)}**${operand(e.right, Prec.Negation)}`;
    default: {
      const p = BITWISE_PRECEDENCE[e.op];
      return `${operand(e.left, p)} ${e.op} ${operand(e.right, p + 1)}`;
    }
  }
}

const BITWISE_PRECEDENCE: Readonly<Record<string, Prec>> = {
  '|': Prec.BitOr,
  '^': Prec.BitXor,
  '&': Prec.BitAnd,
  '<<': Prec.Shift,
  '>>': Prec.Shift,
};

/**
 * A sized literal: `2.0f`, `5jf`. The number is written as a float (`2.0`, not `2`), so that
 * the suffix reads back onto a float; negative ones are a negation of it.
 */
function sized(value: number, suffix: string): string {
  return `${formatFloat(value)}${suffix}`;
}

/**
 * `sum(k, e)`, `argmax(i, v, i)`; `reduce(op, inames, ...)` where the short form would not
 * read back as the same reduction: an operation whose name is no word (`segmented(sum)`),
 * no inames at all, or `simul_reduce`.
 */
function printReduction(e: Extract<Expr, { kind: 'reduce' }>): string {
  const operands = e.operands.map(printExpr).join(', ');
  if (e.simultaneous || e.inames.length === 0 || !/^[A-Za-z_]\w*$/.test(e.op)) {
    return `${e.simultaneous ? 'simul_reduce' : 'reduce'}(${e.op}, ${printInames(e)}, ${operands})`;
  }
  return `${e.op}(${printInames(e)}, ${operands})`;
}

/**
 * `k` for one iname, `(i, j)` for several. A `max`/`min` over one iname whose body does not
 * use it would read back as the function `max(k, e)`, so it is written as the list `[k]`.
 */
function printInames(e: Extract<Expr, { kind: 'reduce' }>): string {
  if (e.inames.length === 0) return '[]';
  if (e.inames.length > 1) return `(${e.inames.join(', ')})`;
  const [iname] = e.inames;
  const ambiguous = (e.op === 'max' || e.op === 'min') && !e.operands.some((x) => freeVariables(x).has(iname));
  return ambiguous ? `[${iname}]` : iname;
}

function operand(e: Expr, min: number): string {
  const text = printExpr(e);
  return precedence(e) >= min ? text : `(${text})`;
}

function isLiteral(e: Expr): e is Extract<Expr, { kind: 'int' | 'float' | 'imag' }> {
  return e.kind === 'int' || e.kind === 'float' || e.kind === 'imag';
}

function precedence(e: Expr): Prec {
  switch (e.kind) {
    case 'int':
    case 'float':
    case 'imag':
      return e.value < 0 || Object.is(e.value, -0) ? Prec.Negation : Prec.Atom;
    case 'neg':
    case 'bitnot':
      return Prec.Negation;
    case 'binary':
      if (e.op === '**') return Prec.Power;
      if (Object.hasOwn(BITWISE_PRECEDENCE, e.op)) return BITWISE_PRECEDENCE[e.op];
      return e.op === '+' || e.op === '-' ? Prec.Sum : Prec.Product;
    case 'compare':
      return Prec.Compare;
    case 'logical':
      return e.op === 'or' ? Prec.Or : Prec.And;
    case 'not':
      return Prec.Not;
    default:
      return Prec.Atom;
  }
}

/**
 * A float as Python's `repr` writes it, so it reads back as a float: `2.0`, `0.5`, `1e-07`,
 * `1.5e+16`. JavaScript's shortest round-trip digits, laid out by Python's rule (scientific
 * below 1e-4 and from 1e16 on).
 */
export function formatFloat(value: number): string {
  if (Number.isNaN(value)) return 'nan';
  if (!Number.isFinite(value)) return value > 0 ? 'inf' : '-inf';
  if (value === 0) return Object.is(value, -0) ? '-0.0' : '0.0';
  const sign = value < 0 ? '-' : '';
  const [mantissa, exponentText] = Math.abs(value).toExponential().split('e');
  const exponent = Number(exponentText);
  if (exponent < -4 || exponent >= 16) {
    return `${sign}${mantissa}e${exponent < 0 ? '-' : '+'}${String(Math.abs(exponent)).padStart(2, '0')}`;
  }
  const digits = mantissa.replace('.', '');
  if (exponent < 0) return `${sign}0.${'0'.repeat(-exponent - 1)}${digits}`;
  const whole = digits.slice(0, exponent + 1).padEnd(exponent + 1, '0');
  return `${sign}${whole}.${digits.slice(exponent + 1) || '0'}`;
}

/** `.f.g[2]`: a field path as written after an element. */
export function printField(field: FieldRef | undefined): string {
  return field ? field.path.map((step) => (typeof step === 'number' ? `[${step}]` : `.${step}`)).join('') : '';
}
