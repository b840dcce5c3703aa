/**
 * Random expressions and input values for one case. Expressions are small trees printed
 * fully parenthesized: the parentheses do not survive Loom's parser, so what the tree's
 * shape tests is the code Loom prints for each target (a right operand of equal
 * precedence, a negated sum: `nestedRightOperands`).
 */
import { complexPart, isComplex, isFloat, type DType, type HostArray } from '@loom/core';
import type { FeatureSet } from './features.ts';
import type { Rng } from './random.ts';
import { sideStream, specialFloats } from './tables.ts';

export type GenExpr =
  | { readonly kind: 'leaf'; readonly text: string }
  | { readonly kind: 'bin'; readonly op: string; readonly l: GenExpr; readonly r: GenExpr }
  | { readonly kind: 'neg'; readonly x: GenExpr }
  | { readonly kind: 'call'; readonly fn: string; readonly args: readonly GenExpr[] }
  | { readonly kind: 'if'; readonly c: GenExpr; readonly t: GenExpr; readonly e: GenExpr; readonly python?: boolean }
  | { readonly kind: 'not'; readonly x: GenExpr }
  | { readonly kind: 'bitnot'; readonly x: GenExpr };

export const leaf = (text: string): GenExpr => ({ kind: 'leaf', text });
const bin = (op: string, l: GenExpr, r: GenExpr): GenExpr => ({ kind: 'bin', op, l, r });

export function exprToString(e: GenExpr): string {
  switch (e.kind) {
    case 'leaf':
      return e.text;
    case 'bin':
      return `(${exprToString(e.l)} ${e.op} ${exprToString(e.r)})`;
    case 'neg':
      return `(-${exprToString(e.x)})`;
    case 'call':
      return `${e.fn}(${e.args.map(exprToString).join(', ')})`;
    case 'if':
      return e.python
        ? `(${exprToString(e.t)} if ${exprToString(e.c)} else ${exprToString(e.e)})`
        : `if(${exprToString(e.c)}, ${exprToString(e.t)}, ${exprToString(e.e)})`;
    case 'not':
      return `(not ${exprToString(e.x)})`;
    case 'bitnot':
      return `(~${exprToString(e.x)})`;
  }
}

/** Where an expression is generated: which indices, inames and arrays it may use. */
export interface Scope {
  readonly index: readonly string[];
  readonly inames: readonly string[];
  readonly arrays: readonly string[];
  /** The array of divisors (values never 0 or −1 unless intDivByZero), if any. */
  readonly divisor?: string;
  /** Leaves beyond arrays, inames and literals: a temporary, a rule call. */
  readonly extra: readonly GenExpr[];
  /** Inside a reduction's body: only operations whose accumulation stays exact. */
  readonly reduction?: 'sum' | 'product' | 'max' | 'min';
}

const PRECEDENCE: Record<string, number> = { '+': 1, '-': 1, '*': 2, '/': 2, '//': 2, '%': 2 };
const isProduct = (e: GenExpr) => e.kind === 'bin' && e.op === '*';

export class ExpressionGenerator {
  /** Whether a division or sqrt was emitted (the case is then compared within ulps). */
  usedInexact = false;
  /** Floats, or complex values (whose parts are floats). */
  private readonly float: boolean;
  /**
   * Complex values (complex64, complex128): no ordering, so no min, max, argmax or comparison
   * of data; real(), imag() and conj() besides + − * (exact on the value pools), imaginary
   * literals (`1j`), and division and abs (inexact: Smith's formula, a square root) only as
   * the last operation.
   */
  private readonly complex: boolean;

  constructor(
    private readonly rng: Rng,
    private readonly features: FeatureSet,
    private readonly dtype: DType,
  ) {
    this.complex = isComplex(dtype);
    this.float = isFloat(dtype) || this.complex;
    this.specials = this.float && !this.complex ? specialFloats(features, dtype) : [];
    this.side = sideStream(rng.seed, 0x5bec1a1);
    this.zeroSums = sideStream(rng.seed, 0x2e505);
  }

  /**
   * Sums of a literal zero and an index, `0.0 - i` and `0.0 + (-i)` (signedZeros), from a stream of
   * their own: gcc folded the first to `-i`, -0 for i = 0 where IEEE gives +0 (seed 1997718368).
   */
  private readonly zeroSums: Rng;

  /** Negative zeros and subnormals (signedZeros, subnormals), drawn from a stream of their own. */
  private readonly specials: readonly number[];
  private readonly side: Rng;

  /** Comparisons, min and max are safe unless a float operand may be NaN or −0 (and never on complex values). */
  get comparesData(): boolean {
    return this.compareData;
  }

  private get compareData(): boolean {
    return !this.complex && (!this.float || !this.features.has('floatSpecials') || this.features.has('nanComparisons'));
  }

  leaf(scope: Scope): GenExpr {
    const r = this.rng;
    const kinds = [
      'array',
      'array',
      'array',
      'literal',
      ...(scope.reduction === 'product' ? [] : ['iname']),
      ...(scope.extra.length ? ['extra', 'extra'] : []),
    ];
    switch (r.pick(kinds)) {
      case 'array':
        return leaf(`${r.pick(scope.arrays)}[${scope.index.join(', ')}]`);
      case 'iname': {
        const iname = leaf(r.pick(scope.inames));
        if (!this.float || this.complex || !this.features.has('signedZeros') || !this.zeroSums.chance(0.2))
          return iname;
        return this.zeroSums.chance(0.5)
          ? bin('-', leaf('0.0'), iname)
          : bin('+', leaf('0.0'), { kind: 'neg', x: iname });
      }
      case 'extra':
        return r.pick(scope.extra);
      default:
        return this.literal(scope);
    }
  }

  private literal(scope: Scope): GenExpr {
    const exactOnly = scope.reduction !== undefined;
    if (!exactOnly && this.specials.length && this.side.chance(0.15)) {
      const v = this.side.pick(this.specials);
      // a negative literal is a negation, which the printers parenthesize only with nestedRightOperands
      if ((v < 0 || Object.is(v, -0)) && !this.features.has('nestedRightOperands')) return leaf(String(Math.abs(v)));
      return v < 0 || Object.is(v, -0) ? { kind: 'neg', x: leaf(String(-v === 0 ? '0.0' : -v)) } : leaf(String(v));
    }
    const imaginary = this.complex ? ['1j', '0.5j', '-1j', ...(exactOnly ? [] : ['2j', '-2.5j'])] : [];
    const values = this.float
      ? [
          '0',
          '1',
          '2',
          '0.5',
          '-1',
          ...(exactOnly ? [] : ['3', '-2.5', ...(this.features.has('floatSpecials') ? ['1e30'] : [])]),
        ]
      : ['0', '1', '2', '3', '-1', ...(exactOnly ? [] : ['7', '-3'])];
    const all = [...values, ...imaginary];
    const v = this.rng.pick(this.features.has('nestedRightOperands') ? all : all.filter((x) => !x.startsWith('-')));
    return v.startsWith('-') ? { kind: 'neg', x: leaf(v.slice(1)) } : leaf(v);
  }

  expr(depth: number, scope: Scope): GenExpr {
    const r = this.rng;
    if (depth <= 0 || r.chance(0.2)) return this.leaf(scope);
    const ops = ['+', '-', '*', '+', '-', '*', 'neg'];
    if (!this.float) ops.push('/', '//', '%');
    if (this.features.has('conditionals')) ops.push('if');
    if (this.compareData) ops.push('minmax');
    if (this.float && !this.complex) ops.push('abs');
    // the parts of a complex value (real ones, which promote back), its conjugate, a halving
    if (this.complex) ops.push('part', 'conj', 'half');
    // a complex power by a small integer literal: loopy's `**` on complex values
    if (this.complex && this.features.has('complexPowers')) ops.push('power');
    // bit operations of integers; in a reduction's body they would only make its values large
    if (!this.float && this.features.has('bitwise') && scope.reduction === undefined)
      ops.push('&', '|', '^', '~', 'shift');
    const op = r.pick(ops);
    const sub = () => this.expr(depth - 1, scope);
    switch (op) {
      case 'neg': {
        // without nested operands only an array element is negated: a literal may be negative
        // already (−(−1)) and a rule's body may be a negation itself
        const x = this.features.has('nestedRightOperands')
          ? sub()
          : leaf(`${r.pick(scope.arrays)}[${scope.index.join(', ')}]`);
        return { kind: 'neg', x };
      }
      case 'if':
        return { kind: 'if', c: this.condition(scope), t: sub(), e: sub(), python: r.chance(0.5) };
      case '~':
        return { kind: 'bitnot', x: sub() };
      case 'shift':
        return bin(
          r.pick(['<<', '>>']),
          sub(),
          r.chance(0.5) ? leaf(r.pick(['0', '1', '3', '31', '40'])) : this.leaf(scope),
        );
      case 'minmax': {
        // min(i, e) with an iname first is Loom's min-reduction over i: keep a bare iname second
        let [x, y] = [sub(), sub()];
        if (this.isIname(x, scope)) [x, y] = [y, x];
        if (this.isIname(x, scope)) x = bin('+', x, leaf('0'));
        return { kind: 'call', fn: r.pick(['min', 'max']), args: [x, y] };
      }
      case 'abs':
        return { kind: 'call', fn: 'abs', args: [sub()] };
      case 'part':
        return { kind: 'call', fn: r.pick(['real', 'imag']), args: [sub()] };
      case 'conj':
        return { kind: 'call', fn: 'conj', args: [sub()] };
      case 'power':
        // of a complex value, repeated products as the reference computes them; but the base may be
        // real (a literal, a part), and then it is the target's pow, which OpenCL allows 16 ulp
        // (PoCL's pow(1e30, 2.0) is 1 ulp from the square, seed 2898842444)
        this.usedInexact = true;
        return bin('**', sub(), leaf(r.pick(['2', '3'])));
      case 'half':
        // a complex value divided by a real power of two: exact, part by part
        return bin('/', sub(), leaf(r.pick(['2', '4', '0.5'])));
      case '/':
      case '//':
      case '%':
        return this.binary(op, sub(), this.divisor(scope));
      default:
        return this.binary(op, sub(), sub());
    }
  }

  /**
   * `l op r`, with the operands the feature set excludes replaced by leaves: a right
   * operand of the same precedence (nestedRightOperands), a float product under a sum
   * (mulAdd: a device that contracts it into fma rounds once instead of twice).
   */
  private binary(op: string, l: GenExpr, r: GenExpr): GenExpr {
    const f = this.features;
    if (!f.has('nestedRightOperands') && r.kind === 'bin' && PRECEDENCE[r.op] === PRECEDENCE[op]) r = this.leafFor(r);
    if (!f.has('nestedRightOperands') && r.kind === 'neg' && r.x.kind !== 'leaf') r = this.leafFor(r);
    if (this.float && !f.has('mulAdd') && PRECEDENCE[op] === 1) {
      if (isProduct(l)) l = this.leafFor(l);
      if (isProduct(r)) r = this.leafFor(r);
    }
    return bin(op, l, r);
  }

  /** The leftmost leaf of `e`: a replacement that keeps the same kind of operand. */
  private leafFor(e: GenExpr): GenExpr {
    switch (e.kind) {
      case 'bin':
        return this.leafFor(e.l);
      case 'neg':
      case 'not':
      case 'bitnot':
        return this.leafFor(e.x);
      case 'call':
        return this.leafFor(e.args[0]);
      case 'if':
        return this.leafFor(e.t);
      case 'leaf':
        return e;
    }
  }

  private isIname(e: GenExpr, scope: Scope): boolean {
    return e.kind === 'leaf' && scope.inames.includes(e.text);
  }

  /** An integer divisor: never 0 or −1 unless intDivByZero allows them. */
  private divisor(scope: Scope): GenExpr {
    const r = this.rng;
    const d =
      this.features.has('intDivByZero') && r.chance(0.3)
        ? this.leaf(scope)
        : scope.divisor
          ? leaf(`${scope.divisor}[${scope.index.join(', ')}]`)
          : leaf(r.pick(['2', '3', '5']));
    return this.features.has('nestedRightOperands') && r.chance(0.3) ? bin('*', d, leaf(r.pick(['2', '3']))) : d;
  }

  /**
   * A condition; `block` for an if-block's, which may call a rule only with the
   * rulePredicates feature.
   */
  condition(scope: Scope, block = false): GenExpr {
    const r = this.rng;
    if (block && !this.features.has('rulePredicates'))
      scope = { ...scope, extra: scope.extra.filter((e) => !/^f\(/.test(exprToString(e))) };
    const operand = (): GenExpr =>
      this.compareData
        ? this.expr(1, scope)
        : r.chance(0.5)
          ? leaf(r.pick(scope.inames))
          : bin('%', leaf(r.pick(scope.inames)), leaf(r.pick(['2', '3'])));
    const cmp = bin(
      r.pick(['<', '<=', '==', '!=', '>', '>=']),
      operand(),
      r.chance(0.5) ? operand() : leaf(r.pick(['0', '1', '2'])),
    );
    if (r.chance(0.2)) return { kind: 'not', x: cmp };
    if (r.chance(0.2)) return bin(r.pick(['and', 'or']), cmp, this.condition(scope, block));
    return cmp;
  }

  /** The output's last operation: sometimes an inexact one (division, sqrt). */
  top(e: GenExpr, scope: Scope): GenExpr {
    if (!this.float || !this.features.has('inexactFloat') || !this.rng.chance(0.3)) return e;
    this.usedInexact = true;
    if (this.complex)
      return this.rng.chance(0.6) ? bin('/', e, this.expr(1, scope)) : { kind: 'call', fn: 'abs', args: [e] };
    return this.rng.chance(0.7) ? bin('/', e, this.expr(1, scope)) : { kind: 'call', fn: 'sqrt', args: [e] };
  }

  /** `piece` (a reduction, a temporary) combined with `e`, so that it is always used. */
  around(piece: GenExpr, e: GenExpr): GenExpr {
    if (this.rng.chance(0.2)) return piece;
    const op = this.rng.pick(['+', '-', '*']);
    return this.rng.chance(0.5) ? this.binary(op, piece, e) : this.binary(op, e, piece);
  }

  reductionOp(): 'sum' | 'product' | 'max' | 'min' {
    // complex values have no order, and Loom lowers only their sums
    if (this.complex) return 'sum';
    return this.rng.pick(['sum', 'sum', 'product', ...(this.compareData ? (['max', 'min'] as const) : [])]);
  }

  /** A term whose accumulation is exact in any order (see kernels.ts). */
  reductionBody(op: string, scope: Scope): GenExpr {
    if (op === 'product') {
      const x = this.leaf(scope);
      const negated: GenExpr[] = this.features.has('nestedRightOperands') ? [{ kind: 'neg', x }] : [];
      return this.rng.pick([x, bin('*', x, this.leaf(scope)), ...negated]);
    }
    return this.expr(scope.extra.length ? 1 : 2, scope);
  }

  /** Input values: `pool` 'reduction' keeps every sum and product of them exact. */
  values(pool: 'full' | 'reduction' | 'divisor', size: number): HostArray {
    const r = this.rng;
    const f = this.features;
    const wide = this.dtype === 'int64';
    let ordinary: number[];
    let edge: number[];
    if (this.float) {
      ordinary = pool === 'full' ? [-3, -2, -1, 0, 1, 2, 3, 0.5, -1.5, 4, 7] : [-2, -1, -0.5, 0, 0.5, 1, 2];
      edge = !f.has('floatSpecials')
        ? []
        : pool === 'full'
          ? [-0, NaN, Infinity, -Infinity, 1e30, -1e30, 1, -1]
          : [-0, NaN, Infinity, -Infinity];
    } else if (pool === 'divisor') {
      ordinary = [-3, -2, 1, 2, 3, 5];
      edge = f.has('intDivByZero') ? [0, -1, 0, -1] : [];
    } else {
      ordinary = pool === 'full' ? [-3, -2, -1, 0, 1, 2, 3, 4, 5] : [-2, -1, 0, 1, 2];
      edge = f.has('intExtremes') ? [wide ? -(2 ** 63) : -(2 ** 31), wide ? 2 ** 63 - 1 : 2 ** 31 - 1, -1, 0, 1] : [];
    }
    const plain = () => (edge.length && r.chance(0.35) ? r.pick(edge) : r.pick(ordinary));
    // negative zeros and subnormals: from their own stream, in the full pool only (sums stay exact)
    const draw = () => {
      const v = plain();
      return pool === 'full' && this.specials.length && this.side.chance(0.15) ? this.side.pick(this.specials) : v;
    };
    // complex values: their parts interleaved, as a complex argument is passed
    if (this.complex)
      return complexPart(this.dtype) === 'float32'
        ? Float32Array.from({ length: 2 * size }, draw)
        : Float64Array.from({ length: 2 * size }, draw);
    switch (this.dtype) {
      case 'float32':
        return Float32Array.from({ length: size }, draw);
      case 'float64':
        return Float64Array.from({ length: size }, draw);
      case 'int32':
        return Int32Array.from({ length: size }, draw);
      case 'int64':
        return BigInt64Array.from({ length: size }, () => {
          const v = draw();
          return v === 2 ** 63 - 1 ? 2n ** 63n - 1n : BigInt(v);
        });
      default:
        throw new Error(`no values for ${this.dtype}`);
    }
  }
}
