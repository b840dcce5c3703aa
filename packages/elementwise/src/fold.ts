/**
 * Constant folding of a payload's literal sub-expressions, by JavaScript itself.
 *
 * A payload is JavaScript, where a number is a double: `Math.PI * 2`, `1 / 3` or `2 ** 0.5`
 * have their double values whatever the tensors' dtypes. Left in the tree, such a
 * sub-expression would be computed in the kernel, in the dtype the core types weak literals
 * with (float32 when nothing else decides, as for a temporary), and `x + 1 / 3` on float64
 * data would add a float32 third. Folded here, it is one literal, weak as every literal is
 * (it takes the dtype of what it meets, the promotion rules of the README), and its value is
 * the one JavaScript computes, so `1 === true`, `2 && 3` and `Math.round(-0.5)` mean what
 * they mean in JavaScript without any lowering.
 */
import { expr, mathFunctionsWhere, type Expr } from '@loom/core';

const { bool, float, int } = expr;

type JsValue = number | boolean;

/** `Math.<name>` as a function of numbers. */
const mathFunction = (name: string) => (Math as unknown as Record<string, (...xs: number[]) => number>)[name];

/**
 * The functions a folded call may be (the IR names they have in the payload): the known
 * functions that are JavaScript's `Math.<name>` (the table of known functions), and the
 * payload's own, which stand for JavaScript's operators and `Math` functions.
 */
const MATH: Readonly<Record<string, (...xs: number[]) => number>> = {
  ...Object.fromEntries([...mathFunctionsWhere((f) => f.js === true)].map((name) => [name, mathFunction(name)])),
  truediv: (a, b) => a / b,
  fmod: (a, b) => a % b,
  jspow: (a, b) => a ** b,
  jsround: Math.round,
  jshypot: Math.hypot,
};

/**
 * A number as an IR literal: whole numbers are (weak) integers, whatever their magnitude
 * (3000000000 beside int32 data is an int32 that does not fit, refused once typed by
 * `literal-range.ts`, not a float that saturates); -0 is a float (integers have none).
 */
export function numberLiteral(value: number): Expr {
  return Number.isInteger(value) && !Object.is(value, -0) ? int(value) : float(value);
}

/** `e` as one literal when every operand of its top node is a literal and JavaScript can compute it; else `e`. */
export function foldLiterals(e: Expr): Expr {
  const value = evaluate(e);
  if (value === undefined) return e;
  return typeof value === 'boolean' ? bool(value) : numberLiteral(value);
}

/** A literal's JavaScript value (undefined for anything else). */
function literal(e: Expr): JsValue | undefined {
  return e.kind === 'int' || e.kind === 'float' ? e.value : e.kind === 'bool' ? e.value : undefined;
}

/** The JavaScript value of `e`'s top node over literal operands, or undefined when it is not such a node. */
function evaluate(e: Expr): JsValue | undefined {
  // biome-ignore lint/suspicious/noExplicitAny: JavaScript's operators on numbers and booleans alike, as the payload wrote them
  const operands = (...xs: Expr[]): any[] | undefined => {
    const values = xs.map(literal);
    return values.every((v) => v !== undefined) ? values : undefined;
  };
  switch (e.kind) {
    case 'neg': {
      const v = operands(e.operand);
      return v && -v[0];
    }
    case 'bitnot': {
      const v = operands(e.operand);
      return v && ~v[0];
    }
    case 'not': {
      const v = operands(e.operand);
      return v && !v[0];
    }
    case 'binary': {
      const v = operands(e.left, e.right);
      if (!v) return undefined;
      const [a, b] = v;
      switch (e.op) {
        case '+':
          return a + b;
        case '-':
          return a - b;
        case '*':
          return a * b;
        case '&':
          return a & b;
        case '|':
          return a | b;
        case '^':
          return a ^ b;
        case '<<':
          return a << b;
        case '>>':
          return a >> b;
        default:
          return undefined; // the payload never writes the others as binary nodes (`/` is truediv)
      }
    }
    case 'compare': {
      const v = operands(e.left, e.right);
      if (!v) return undefined;
      const [a, b] = v;
      switch (e.op) {
        case '<':
          return a < b;
        case '<=':
          return a <= b;
        case '>':
          return a > b;
        case '>=':
          return a >= b;
        case '==':
          // biome-ignore lint/suspicious/noDoubleEquals: the payload's loose equality (true == 1)
          return a == b;
        case '!=':
          // biome-ignore lint/suspicious/noDoubleEquals: the payload's loose inequality
          return a != b;
      }
      return undefined;
    }
    case 'logical': {
      const v = operands(e.left, e.right);
      return v && (e.op === 'and' ? v[0] && v[1] : v[0] || v[1]);
    }
    case 'if': {
      const v = operands(e.condition, e.then, e.otherwise);
      return v && (v[0] ? v[1] : v[2]);
    }
    case 'cast': {
      const v = operands(e.operand);
      return v && e.dtype === 'float32' ? Math.fround(v[0]) : undefined; // Math.fround
    }
    case 'call': {
      const v = operands(...e.args);
      if (!v) return undefined;
      if (e.fn === 'jsstricteq') return v[0] === v[1];
      if (e.fn === 'jsstrictne') return v[0] !== v[1];
      const f = Object.hasOwn(MATH, e.fn) ? MATH[e.fn] : undefined;
      return f?.(...v);
    }
    default:
      return undefined;
  }
}
