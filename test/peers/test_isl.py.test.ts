/**
 * Ports of loopy's test_isl.py against Loom's own counterparts of isl's objects: affine forms
 * (`Linear`) and quasi-affine bounds (`Bound`, `floor(e/d)`) as expressions, quasi-polynomials
 * (`QPolynomial`, the statistics' counts) as and from expressions, and a piecewise function's
 * parameters replaced by affine forms of others (its pieces' domains through the set library's
 * intersection and exact projection). test_pw_aff_to_conditional_expr is in NOT-PORTED.md.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { BasicSet, expr, Linear, parseExpression, printExpr, QPolynomial } from '@loom/core';
import { boundExpr } from '../../packages/core/src/codegen/conditions.ts';
import { polynomialOf } from '../../packages/core/src/expr/polynomial.ts';

const parse = (text: string) => parseExpression(text);
/** The quasi-polynomial of an integer expression (what the statistics count in). */
const poly = (text: string): QPolynomial => {
  const p = polynomialOf(parse(text));
  if (p === undefined) throw new Error(`no quasi-polynomial: ${text}`);
  return p;
};
const at = (values: Record<string, number>) => new Map(Object.entries(values).map(([k, v]) => [k, BigInt(v)]));

test('test_aff_to_expr', () => {
  // loopy prints (5a + 3b) mod 17 mod 5 as an expression; Loom's affine forms have no mod
  // terms (those are floor atoms of quasi-polynomials): the affine part, and the mods as the
  // floor atoms they become, checked for their values
  const lin = Linear.variable('a').scale(5).add(Linear.variable('b').scale(3));
  const e = expr.fromLinear(lin);
  assert.is(printExpr(e), '5*a + 3*b');
  assert.ok(expr.toLinear(e)!.equals(lin));
  const mod17 = poly('(5*a + 3*b) - 17*((5*a + 3*b) // 17)');
  for (const [a, b] of [
    [0, 0],
    [3, 4],
    [-7, 2],
    [11, -13],
  ]) {
    const x = 5 * a + 3 * b;
    assert.is(mod17.evaluate(at({ a, b })).toString(), String(((x % 17) + 17) % 17));
  }
});

test('test_aff_to_expr_2', () => {
  // isl's [i0] -> [-i0 + 2*floor(i0/2)]: the floor is a quasi-affine bound as codegen prints it
  const floorHalf = boundExpr({ expr: Linear.variable('i0'), divisor: 2 }, 'upper');
  const e = expr.add(expr.fromLinear(Linear.variable('i0').negate()), expr.mul(expr.int(2), floorHalf));
  assert.is(printExpr(floorHalf), 'i0 // 2');
  assert.ok(expr.isExpressionEqual(e, parse('(-1)*i0 + 2*(i0 // 2)')));
  for (const i0 of [-3, -2, 0, 1, 4, 7])
    assert.is(poly(printExpr(e)).evaluate(at({ i0 })).toString(), String(-(((i0 % 2) + 2) % 2)));
});

/** A piecewise function: pieces of a domain (parameters only) and a quasi-polynomial. */
type Pieces = readonly { readonly domain: BasicSet; readonly value: QPolynomial }[];

/**
 * loopy's subst_into_pw*: each parameter of `old` replaced by an affine form in `params`.
 * A domain takes the equalities `m = 3*nx` and projects `m` out (exactly: it is an equality);
 * a value substitutes the forms into its polynomial.
 */
function substitute(pieces: Pieces, forms: Record<string, string>, params: readonly string[]): Pieces {
  const equalities = BasicSet.parseConditions(
    Object.entries(forms)
      .map(([name, form]) => `${name} = ${form}`)
      .join(' and '),
  );
  return pieces.map(({ domain, value }) => ({
    domain: domain
      .addParams([...params])
      .intersect(equalities)
      .project(Object.keys(forms)),
    value: Object.entries(forms).reduce((v, [name, form]) => v.substitute(name, poly(form)), value),
  }));
}

/** The piecewise value at a point: the value of the one piece whose domain holds it, or none. */
function valueAt(pieces: Pieces, point: Record<string, number>): string | undefined {
  const holding = pieces.filter((p) => p.domain.contains(point));
  assert.ok(holding.length <= 1, `pieces overlap at ${JSON.stringify(point)}`);
  return holding[0]?.value.evaluate(at(point)).toString();
}

function assertSamePieces(got: Pieces, expected: Pieces, params: readonly string[]) {
  for (let x = -3; x <= 3; x++)
    for (let y = -4; y <= 3; y++) {
      const point = Object.fromEntries(params.map((p, k) => [p, [x, y, 1][k]]));
      assert.is(valueAt(got, point), valueAt(expected, point), JSON.stringify(point));
    }
}

test('test_subst_into_pwqpolynomial', () => {
  const params = ['nx', 'ny', 'nz'];
  const pieces: Pieces = [
    { domain: BasicSet.parseConditions('m > 0 and n > 0'), value: poly('256 * m + 256 * m * n') },
    { domain: BasicSet.parseConditions('m > 0 and n <= 0'), value: poly('256 * m') },
  ];
  const result = substitute(pieces, { m: '3*nx', n: '3*ny' }, params);
  const expected: Pieces = [
    { domain: BasicSet.parseConditions('nx > 0 and ny > 0'), value: poly('768 * nx + 2304 * nx * ny') },
    { domain: BasicSet.parseConditions('nx > 0 and ny <= 0'), value: poly('768 * nx') },
  ];
  // loopy: (result - expected).is_zero(): piece for piece, and at every point
  result.forEach((r, k) => assert.ok(r.value.equals(expected[k].value), r.value.toString()));
  assertSamePieces(result, expected, params);
});

test('test_subst_into_pwaff', () => {
  const params = ['nx', 'ny', 'nz'];
  const pieces: Pieces = [
    { domain: BasicSet.parseConditions('m > 0 and n > 0'), value: poly('3 * m + 2 * n') },
    { domain: BasicSet.parseConditions('m > 0 and n <= 0'), value: poly('7* m + 4*n') },
  ];
  const result = substitute(pieces, { m: '3*nx', n: '2*ny+4' }, params);
  const expected: Pieces = [
    { domain: BasicSet.parseConditions('nx > 0 and ny > -2'), value: poly('9*nx + 4*ny + 8') },
    { domain: BasicSet.parseConditions('nx > 0 and ny <= -2'), value: poly('21*nx + 8*ny + 16') },
  ];
  result.forEach((r, k) => assert.ok(r.value.equals(expected[k].value), r.value.toString()));
  // loopy: result.equals(expected): the same value wherever either is defined
  assertSamePieces(result, expected, params);
});

test('test_simplify_via_aff_reproducibility', () => {
  // loopy's simplify_via_aff is Loom's simplify with affine normalization: it keeps i + i_0 as written
  const e = parse('i+i_0');
  assert.ok(expr.exprEquals(expr.simplify(e, { integer: true }), e));
  assert.ok(expr.exprEquals(expr.simplify(e, { isInteger: () => true }), e));
});

test('test_qpolynomrial_to_expr', () => {
  // loopy turns (1/3)i + (1/2)j + (1/4)k on { (4i+6j+3k) mod 12 = 0 } into (4i+6j+3k) // 12; Loom
  // reads expressions as quasi-polynomials (not back): the expression and the polynomial agree
  // on that domain, and differ off it, where the floor counts
  const floorExpr = poly('(4*i + 6*j + 3*k) // 12');
  const rational = QPolynomial.affine(
    Linear.variable('i').scale(4).add(Linear.variable('j').scale(6)).add(Linear.variable('k').scale(3)),
    12,
  );
  let on = 0;
  let off = 0;
  for (let i = -4; i <= 4; i++)
    for (let j = -4; j <= 4; j++)
      for (let k = -4; k <= 4; k++) {
        const same = floorExpr.evaluate(at({ i, j, k })).equals(rational.evaluate(at({ i, j, k })));
        if ((((4 * i + 6 * j + 3 * k) % 12) + 12) % 12 === 0) {
          assert.ok(same, `${i}, ${j}, ${k}`);
          on++;
        } else {
          assert.not.ok(same, `${i}, ${j}, ${k}`);
          off++;
        }
      }
  assert.ok(on > 0 && off > 0);
});

test.run();
