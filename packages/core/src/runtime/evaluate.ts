/** Integer evaluation of size expressions in the parameters (shapes, grid sizes). */
import { LoomError } from '../errors.ts';
import { printExpr } from '../expr/index.ts';
import type { Expr } from '../expr/nodes.ts';

/** The value of each parameter a size expression names. */
export type IntEnv = (name: string) => number;

/** The integer value of `e` (a size in the parameters) in `env`; a LoomError naming `what` where it has none. */
export function evaluateInt(e: Expr, env: IntEnv, what: string): number {
  const rec = (x: Expr) => evaluateInt(x, env, what);
  switch (e.kind) {
    case 'int':
      return e.value;
    case 'var':
      return env(e.name);
    case 'neg':
      return -rec(e.operand);
    case 'binary': {
      const a = rec(e.left);
      const b = rec(e.right);
      switch (e.op) {
        case '+':
          return a + b;
        case '-':
          return a - b;
        case '*':
          return a * b;
        case '//':
          return Math.floor(a / b);
        case '/':
          return Math.trunc(a / b);
        case '%':
          return a - b * Math.floor(a / b);
        case '**':
          return a ** b;
      }
      break;
    }
    case 'call':
      if ((e.fn === 'max' || e.fn === 'min') && e.args.length > 0) return Math[e.fn](...e.args.map(rec));
      break;
    default:
      break;
  }
  throw new LoomError(`cannot compute ${what}: '${printExpr(e)}' is not an integer expression of the parameters`);
}

/** An environment over given values that names what is missing. */
export function valuesEnv(values: ReadonlyMap<string, number | bigint>, what: string): IntEnv {
  return (name) => {
    const v = values.get(name);
    if (v === undefined) throw new LoomError(`cannot compute ${what}: no value for '${name}'`);
    return Number(v);
  };
}
