/**
 * Every target prints what the tree says: parentheses where regrouping would change the
 * result (`c + (a - b)` in float32), no glued tokens (`-(-t)` is not the decrement `--t`).
 *
 * First the two reported reproductions on every device; then a property: random
 * expression trees, printed by each target's printer, read back by an independent
 * reader of that language (`support/operator-grammar.ts`) give the same tree; and, for a
 * fixed sample, kernels computing them give plain JavaScript's values on every device.
 * The values avoid what is undefined or still being defined (overflow, division by zero,
 * rounding): integers stay far from 2^31, divisors are non-zero by construction, and
 * float32 operations are exact, so no grouping or contraction can hide behind rounding.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import {
  exprType,
  makeKernel,
  parseExpression,
  printExpr,
  run,
  type DType,
  type Expr,
  type KernelFunction,
} from '@loom/core';
import {
  arraysAccessed,
  bitnot,
  cast,
  compare,
  exprEquals,
  float,
  ifThenElse,
  int,
  logical,
  neg,
  not,
  subscript,
  variable,
  binary,
  type BinaryOp,
  type CompareOp,
} from '../packages/core/src/expr/index.ts';
import { ClExpressionPrinter } from '../packages/codegen-opencl/src/expressions.ts';
import { ExpressionPrinter as WgslPrinter } from '../packages/codegen-wgsl/src/expressions.ts';
import { primary } from '../packages/codegen-wgsl/src/printed.ts';
import { helperName } from '../packages/codegen-wgsl/src/helpers.ts';
import { computeType } from '../packages/codegen-wgsl/src/types.ts';
import { ExpressionPrinter as JsPrinter } from '../packages/codegen-js/src/expressions.ts';
import { testDevices } from './support/devices.ts';
import {
  javascriptGrammar,
  openclGrammar,
  parseAs,
  wgslGrammar,
  type Grammar,
  type Node,
} from './support/operator-grammar.ts';

for (const device of testDevices()) {
  test(`${device.name}: -(-t) negates twice (not a decrement of t)`, async () => {
    const knl = makeKernel('{ [i]: 0<=i<n }', ['<> t = a[i]', 'out[i] = -(-t)']);
    const { out } = await run(knl, device, { a: new Float32Array([10, 20, 30]) });
    assert.equal(Array.from(out as Float32Array), [10, 20, 30]);
  });

  test(`${device.name}: c + (a - b) keeps its parentheses (float32 addition does not associate)`, async () => {
    const knl = makeKernel('{ [i]: 0<=i<n }', 'out[i] = c[i] + (a[i] - b[i])');
    const a = new Float32Array([1e8]);
    const { out } = await run(knl, device, { a, b: a, c: new Float32Array([1]) });
    assert.equal(Array.from(out as Float32Array), [Math.fround(1 + Math.fround(1e8 - 1e8))]);
  });
}

// Random trees, in one dtype: int32 (+ - * // %, & | ^ ~ << >>, casts through float32) or float32 (+ - * /).

type World = 'int32' | 'float32';
const ARRAYS = ['a', 'b', 'c'];
const i = variable('i');

/** Numbers every operation on them keeps exact: small integers, or a few binary fractions. */
const LEAF_VALUES: Record<World, number[]> = {
  int32: [-9, -4, -1, 0, 1, 2, 3, 7],
  float32: [-3, -1.5, -0.5, 0, 0.25, 1, 2, 3.5],
};
/** Divisors: non-zero, and in float32 powers of two, so that quotients stay exact. */
const DIVISORS: Record<World, number[]> = { int32: [-7, -2, -1, 1, 2, 3, 5], float32: [-2, -0.5, 0.25, 0.5, 2, 4] };

function arbitraries(world: World): { num: fc.Arbitrary<Expr> } {
  const lit = (v: number) => (world === 'int32' ? int(v) : float(v));
  const divisionOps: BinaryOp[] = world === 'int32' ? ['//', '%'] : ['/'];
  const compareOps: CompareOp[] = ['==', '!=', '<', '<=', '>', '>='];
  return fc.letrec<{ num: Expr; bool: Expr; divisor: Expr }>((tie) => {
    const num = tie('num');
    const bool = tie('bool');
    const divisor = tie('divisor');
    const depth = { maxDepth: 4, depthIdentifier: 'tree' };
    const leaf = fc.oneof(
      fc.constantFrom(...ARRAYS).map((a) => subscript(a, [i])),
      fc.constantFrom(...LEAF_VALUES[world]).map(lit),
    );
    const numbers: fc.Arbitrary<Expr>[] = [
      num.map(neg),
      fc.tuple(fc.constantFrom<BinaryOp>('+', '-', '*'), num, num).map(([op, l, r]) => binary(op, l, r)),
      fc.tuple(fc.constantFrom(...divisionOps), num, divisor).map(([op, l, r]) => binary(op, l, r)),
      fc.tuple(bool, num, num).map(([c, t, f]) => ifThenElse(c, t, f)),
    ];
    if (world === 'int32') {
      numbers.push(
        num.map((x) => cast('int32', cast('float32', x))),
        fc.tuple(fc.constantFrom<BinaryOp>('&', '|', '^'), num, num).map(([op, l, r]) => binary(op, l, r)),
        num.map(bitnot),
        // counts out of [0, 32) included: they shift everything out, on every device
        fc
          .tuple(fc.constantFrom<BinaryOp>('<<', '>>'), num, fc.constantFrom(0, 1, 3, 31, 32, 40, -1).map(int))
          .map(([op, l, r]) => binary(op, l, r)),
      );
    }
    return {
      num: fc.oneof(depth, { arbitrary: leaf, weight: 3 }, ...numbers),
      bool: fc.oneof(
        depth,
        fc.tuple(fc.constantFrom(...compareOps), num, num).map(([op, l, r]) => compare(op, l, r)),
        fc.tuple(fc.constantFrom<CompareOp>('==', '!='), bool, bool).map(([op, l, r]) => compare(op, l, r)),
        fc.tuple(fc.constantFrom('and' as const, 'or' as const), bool, bool).map(([op, l, r]) => logical(op, l, r)),
        bool.map(not),
      ),
      // non-zero by construction: a non-zero literal, its negation, a product of such
      divisor: fc.oneof(
        depth,
        { arbitrary: fc.constantFrom(...DIVISORS[world]).map(lit), weight: 3 },
        divisor.map(neg),
        fc.tuple(divisor, divisor).map(([l, r]) => binary('*', l, r)),
      ),
    };
  });
}

// Printing with each target's own expression printer, and reading the text back.

const typeOf =
  (world: World) =>
  (name: string): DType | undefined =>
    name === 'i' ? 'int32' : ARRAYS.includes(name) ? world : undefined;

const TARGETS: { name: string; grammar: Grammar; print: (e: Expr, world: World) => string }[] = [
  { name: 'OpenCL', grammar: openclGrammar, print: (e, world) => new ClExpressionPrinter(typeOf(world)).print(e) },
  {
    name: 'WGSL',
    grammar: wgslGrammar,
    print: (e, world) => {
      const printer: WgslPrinter = new WgslPrinter({
        typeOf: typeOf(world),
        nameOf: (name) => name,
        loadElement: (array, index) => primary(`${array}${printer.subscript(array, index)}`, computeType(world)),
        rowSplit: () => undefined,
        isTexture: () => false,
        structSize: () => undefined,
        structElement: () => {
          throw new Error('no structs here');
        },
        loadTexel: () => {
          throw new Error('no images here');
        },
        loadAtomicScalar: () => undefined,
        vectorStorage: () => undefined,
        hardwareId: () => {
          throw new Error('no hardware ids here');
        },
        subgroupId: () => {
          throw new Error('no subgroup ids here');
        },
        helper: helperName,
        userFunction: () => {
          throw new Error('no user functions here');
        },
      });
      return printer.print(e).text;
    },
  },
  {
    name: 'JavaScript',
    grammar: javascriptGrammar,
    print: (e, world) => {
      const types = new Map<string, DType>([['i', 'int32'], ...ARRAYS.map((a) => [a, world] as [string, DType])]);
      return new JsPrinter({ name: 'k', types } as unknown as KernelFunction, new Set()).value(e).code;
    },
  },
];

/** The printers' conversions and helper spellings, read back as the operations they stand for (WGSL's at_run_time(x) is x, computed by the shader). */
const IDENTITIES = new Set(['Math.fround', 'f32', 'i32', 'at_run_time_f32']);
/** Conversions that saturate (OpenCL's convert_int_sat_rtz, WGSL's to_i32_f32) and WGSL's bitwise truth test. */
const CONVERSIONS = /^(loom_convert_\w+|convert_\w+_sat_rtz|to_[iu]32_f32|truthy_\w+|loom\.saturate)$/;
const CALLED_OPERATORS: [RegExp, BinaryOp][] = [
  [/floor_div/, '//'],
  [/(^|_)div_/, '/'],
  [/(^|[._])mod|remainder/, '%'],
  [/pow/, '**'],
  [/^Math\.imul$/, '*'],
  [/(^|[._])shl/, '<<'],
  [/(^|[._])shr/, '>>'],
];

function toExpr(n: Node): Expr {
  switch (n.kind) {
    case 'num':
      return float(Number(n.text.replace(/[a-zA-Z]+$/, '')));
    case 'name':
      return variable(n.text);
    case 'index':
      return subscript((n.base as { text: string }).text, [toExpr(n.index)]);
    case 'cast':
      return toExpr(n.operand);
    case 'prefix':
      if (n.op === '-') return neg(toExpr(n.operand));
      if (n.op === '!') return not(toExpr(n.operand));
      if (n.op === '~') return bitnot(toExpr(n.operand));
      throw new Error(`unexpected prefix '${n.op}'`);
    case 'ternary':
      return ifThenElse(toExpr(n.condition), toExpr(n.then), toExpr(n.otherwise));
    case 'call': {
      const args = n.args.map(toExpr);
      if (IDENTITIES.has(n.fn) && args.length === 1) return args[0];
      if (CONVERSIONS.test(n.fn)) return args[0]; // JavaScript's saturate also takes the range
      // WGSL's NaN test on the bits: what `x != x` means under finite-math compilers
      if (/^is_nan_/.test(n.fn) && args.length === 1) return compare('!=', args[0], args[0]);
      if (n.fn === 'select') return ifThenElse(args[2], args[1], args[0]);
      const called = CALLED_OPERATORS.find(([pattern]) => pattern.test(n.fn));
      if (called && args.length === 2) return binary(called[1], args[0], args[1]);
      // floor(a / b): `//` on floats, and on int32 in JavaScript
      if ((n.fn === 'Math.floor' || n.fn === 'floor') && args[0].kind === 'binary' && args[0].op === '/')
        return binary('//', args[0].left, args[0].right);
      throw new Error(`unexpected call of ${n.fn}`);
    }
    case 'binary': {
      // OpenCL's `!(a >= b)` of floats: `(isunordered(a, b) || a < b)`, NaN kept in the complement
      if (n.op === '||' && n.left.kind === 'call' && n.left.fn === 'isunordered') {
        const complement = toExpr(n.right);
        const opposite = { '<': '>=', '<=': '>', '>': '<=', '>=': '<' } as const;
        if (complement.kind === 'compare' && complement.op in opposite)
          return not(compare(opposite[complement.op as keyof typeof opposite], complement.left, complement.right));
      }
      const [l, r] = [toExpr(n.left), toExpr(n.right)];
      // JavaScript's wrap into int32/uint32 range
      if ((n.op === '|' || n.op === '>>>') && r.kind === 'float' && r.value === 0) return l;
      if (n.op === '&&' || n.op === '||') return logical(n.op === '&&' ? 'and' : 'or', l, r);
      const op = n.op === '===' ? '==' : n.op === '!==' ? '!=' : n.op;
      if (['==', '!=', '<', '<=', '>', '>='].includes(op)) return compare(op as CompareOp, l, r);
      if (['+', '-', '*', '/', '&', '|', '^', '<<', '>>'].includes(op)) return binary(op as BinaryOp, l, r);
      throw new Error(`unexpected operator '${n.op}'`);
    }
  }
}

/**
 * The tree up to what printing may legitimately change: conversions dropped, literals as
 * numbers with negations folded into them (the sign of a zero literal is not printing's
 * business), a truth value as a 0/1 number (`c ? 1 : 0`), and `a && (b && c)` as
 * `(a && b) && c`: the same truth value and the same short-circuit order, which WGSL's
 * printer writes `a && b && c`.
 */
function canonical(e: Expr): Expr {
  switch (e.kind) {
    case 'int':
      return float(e.value);
    case 'cast':
      return canonical(e.operand);
    case 'neg': {
      const x = canonical(e.operand);
      return x.kind === 'float' ? float(x.value === 0 ? 0 : -x.value) : neg(x);
    }
    case 'bitnot':
      return bitnot(canonical(e.operand));
    case 'binary': {
      // `x | 0` is how JavaScript wraps into int32: the same value as `x` (for int32 `x`)
      const [l, r] = [canonical(e.left), canonical(e.right)];
      return e.op === '|' && r.kind === 'float' && r.value === 0 ? l : binary(e.op, l, r);
    }
    case 'compare':
      return compare(e.op, canonical(e.left), canonical(e.right));
    case 'logical':
      return leftLeaning(e.op, canonical(e.left), canonical(e.right));
    case 'not': {
      // !(x != x) is x == x, which WGSL prints as !is_nan(x)
      const x = canonical(e.operand);
      return x.kind === 'compare' && x.op === '!=' && exprEquals(x.left, x.right)
        ? compare('==', x.left, x.right)
        : not(x);
    }
    case 'subscript':
      return subscript(e.array, e.indices.map(canonical));
    case 'if': {
      const [c, t, f] = [canonical(e.condition), canonical(e.then), canonical(e.otherwise)];
      const isNumber = (x: Expr, v: number) => x.kind === 'float' && x.value === v;
      return isNumber(t, 1) && isNumber(f, 0) ? c : ifThenElse(c, t, f);
    }
    default:
      return e;
  }
}

function leftLeaning(op: 'and' | 'or', l: Expr, r: Expr): Expr {
  return r.kind === 'logical' && r.op === op ? leftLeaning(op, leftLeaning(op, l, r.left), r.right) : logical(op, l, r);
}

/** `e` printed by every target reads back as `e`, or an error naming the target and the text. */
function checkReadsBack(e: Expr, world: World): void {
  const want = canonical(e);
  for (const target of TARGETS) {
    const text = target.print(e, world);
    const got = canonical(toExpr(parseAs(target.grammar, text)));
    if (!exprEquals(got, want))
      throw new Error(`${target.name} printed ${printExpr(e)} as ${text}, which reads as ${printExpr(got)}`);
  }
}

test('the audited corner cases read back on every target', () => {
  const cases: [World, string][] = [
    ['float32', 'c[i] + (a[i] - b[i])'],
    ['float32', 'a[i] - (b[i] - c[i])'],
    ['float32', 'a[i] / (b[i] * c[i])'],
    ['float32', 'a[i] - -b[i]'],
    ['float32', '-(-a[i])'],
    ['float32', 'a[i] * -(-1.0)'],
    ['float32', 'a[i] - -1.0'],
    ['float32', 'a[i]**-1.0'],
    ['float32', '(-a[i])**2.0'],
    ['float32', 'if(a[i] < b[i], if(b[i] < c[i], a[i], b[i]), if(c[i] < a[i], c[i], -a[i]))'],
    ['float32', 'if((a[i] < b[i]) == (b[i] < c[i]), 1.0, 0.0) + 1.0'],
    ['float32', 'if(not (a[i] < b[i] and b[i] < c[i]) or a[i] == c[i], 1.0, 2.0)'],
    ['int32', '-int32(-float32(a[i]))'],
    ['int32', 'int32(float32(a[i] - b[i])) * -1'],
    ['int32', 'a[i] - (b[i] - -(-c[i]))'],
    ['int32', '(a[i] + b[i]) // (-2) % 3'],
  ];
  for (const [world, text] of cases) checkReadsBack(parseExpression(text), world);
});

for (const world of ['int32', 'float32'] as const) {
  test(`property (${world}): every target's text reads back as the printed tree`, () => {
    fc.assert(
      fc.property(arbitraries(world).num, (e) => checkReadsBack(e, world)),
      { seed: 20240610, numRuns: 400, includeErrorInReport: true },
    );
  });
}

// Values: kernels computing sampled trees, on every device, against plain JavaScript.

class Inexact extends Error {}

/** `e` at element `k`, exactly, or `Inexact` where the target could rightly differ. */
function evaluate(e: Expr, data: Record<string, number[]>, k: number, world: World): number | boolean {
  const num = (x: Expr) => evaluate(x, data, k, world) as number;
  const exact = (v: number) => {
    const ok = world === 'int32' ? Math.abs(v) < 2 ** 31 : Math.fround(v) === v && Math.abs(v) < 2 ** 24;
    if (!ok) throw new Inexact();
    return v === 0 ? 0 : v; // -0 and 0 are not told apart here
  };
  switch (e.kind) {
    case 'int':
    case 'float':
      return e.value;
    case 'subscript':
      return data[e.array][k];
    case 'neg':
      return exact(-num(e.operand));
    case 'bitnot':
      return ~num(e.operand);
    case 'binary': {
      const [a, b] = [num(e.left), num(e.right)];
      switch (e.op) {
        case '+':
          return exact(a + b);
        case '-':
          return exact(a - b);
        case '*':
          return exact(a * b);
        case '/':
          return exact(a / b);
        case '//':
          return exact(Math.floor(a / b));
        case '%':
          return exact(a - b * Math.floor(a / b));
        // on int32 values (the only world that draws them): JavaScript's bit operators are int32's
        case '&':
          return a & b;
        case '|':
          return a | b;
        case '^':
          return a ^ b;
        case '<<':
          return b >= 0 && b < 32 ? a << b : 0;
        case '>>':
          return a >> (b >= 0 && b < 32 ? b : 31);
        default:
          throw new Error(`no ${e.op} here`);
      }
    }
    case 'cast': {
      const x = num(e.operand);
      if (Math.abs(x) >= 2 ** 24) throw new Inexact();
      return e.dtype === 'int32' ? Math.trunc(x) : x;
    }
    case 'compare': {
      const [a, b] = [evaluate(e.left, data, k, world), evaluate(e.right, data, k, world)];
      return { '==': a === b, '!=': a !== b, '<': a < b, '<=': a <= b, '>': a > b, '>=': a >= b }[e.op];
    }
    case 'logical': {
      const [a, b] = [evaluate(e.left, data, k, world), evaluate(e.right, data, k, world)];
      return e.op === 'and' ? a && b : a || b;
    }
    case 'not':
      return !evaluate(e.operand, data, k, world);
    case 'if':
      return evaluate(e.condition, data, k, world) ? num(e.then) : num(e.otherwise);
    default:
      throw new Error(`no ${e.kind} here`);
  }
}

const N = 8;
const PER_KERNEL = 8;
const KERNELS = 3;

for (const world of ['int32', 'float32'] as const) {
  const values = LEAF_VALUES[world];
  const data = Object.fromEntries(
    ARRAYS.map((a, s) => [a, Array.from({ length: N }, (_, k) => values[(k * (s + 3) + s) % values.length])]),
  );
  // a fixed sample of the trees whose values are exact on all elements
  // (a tree of literals alone would be a weak-typed constant: float64, or int64, not `world`)
  const cases = fc
    .sample(arbitraries(world).num, { seed: 7, numRuns: 400 })
    .flatMap((e) => {
      if (exprType(e, typeOf(world)).dtype !== world) return [];
      try {
        return [{ e, expected: data.a.map((_, k) => Number(evaluate(e, data, k, world))) }];
      } catch (err) {
        if (err instanceof Inexact) return [];
        throw err;
      }
    })
    .slice(0, PER_KERNEL * KERNELS);

  for (const device of testDevices()) {
    test(`${device.name}: sampled ${world} trees compute plain JavaScript's values`, async () => {
      assert.is(cases.length, PER_KERNEL * KERNELS, 'enough exact trees in the sample');
      const arrays = Object.fromEntries(
        ARRAYS.map((a) => [a, world === 'int32' ? Int32Array.from(data[a]) : Float32Array.from(data[a])]),
      );
      for (let start = 0; start < cases.length; start += PER_KERNEL) {
        const batch = cases.slice(start, start + PER_KERNEL);
        const knl = makeKernel(
          '{ [i]: 0<=i<n }',
          batch.map(({ e }, k) => `out${k}[i] = ${printExpr(e)}`),
        );
        const used = new Set(batch.flatMap(({ e }) => [...arraysAccessed(e).keys()]));
        const outputs = await run(knl, device, {
          ...Object.fromEntries(Object.entries(arrays).filter(([a]) => used.has(a))),
          n: N,
        });
        batch.forEach(({ e, expected }, k) => {
          assert.equal(Array.from(outputs[`out${k}`] as ArrayLike<number>), expected, printExpr(e));
        });
      }
    });
  }
}

test.run();
