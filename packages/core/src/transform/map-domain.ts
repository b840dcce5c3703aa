/**
 * `mapDomain(knl, '[nt] -> { [t] -> [t_outer, t_inner]: 0 <= t_inner < 32 and t = 32*t_outer + t_inner }')`:
 * some inames are replaced by others through a bijective affine map (loopy's map_domain).
 * The domain that holds the old inames gets the new ones instead (the image of the old
 * points), every use of an old iname becomes its value in the new ones, and the
 * instructions run in the new loops. A split, a skew, a diamond tiling are such maps.
 *
 * `affineMapInames(knl, 'i, n', 'i0, n0', ['i0 = n + i', 'n0 = n'])` is the same with the
 * map given as equations (loopy's older spelling).
 *
 * What Loom needs and checks: the map is a bijection (each old point has exactly one
 * image and each image one old point); each old iname is an affine function, with
 * integer coefficients, of the new ones (solved from the map's equalities); the old
 * inames all live in exactly one domain, untagged, in no loop priority; an instruction
 * runs in all of them or none, and a reduction reduces over all of them or none.
 */
import { LoomError } from '../errors.ts';
import { checkName, nameList } from '../names.ts';
import { fromLinear, mapExpr } from '../expr/index.ts';
import { reduce, type Expr } from '../expr/nodes.ts';
import { Linear, gcd } from '../linear.ts';
import { BasicSet, type Constraint } from '../sets/index.ts';
import { tagToString, type LoopKernel } from '../kernel/model.ts';
import { mapKernelExpressions } from '../kernel/rewrite-expressions.ts';

interface ParsedMap {
  readonly set: BasicSet;
  readonly inputs: readonly string[];
  readonly outputs: readonly string[];
}

/** Changes the kernel's loop variables by an affine map (loopy's `map_domain`). */
export function mapDomain(knl: LoopKernel, map: string): LoopKernel {
  return applyMap(knl, parseMap(map), 'mapDomain');
}

/** Replaces inames by new ones related to them by affine equations (loopy's `affine_map_inames`). */
export function affineMapInames(
  knl: LoopKernel,
  oldInames: string | readonly string[],
  newInames: string | readonly string[],
  equations: string | readonly string[],
): LoopKernel {
  const inputs = nameList(oldInames);
  const outputs = nameList(newInames);
  const eqs = typeof equations === 'string' ? [equations] : equations;
  for (const e of eqs)
    if (!/^[^=]+=[^=]+$/.test(e)) throw new LoomError(`affineMapInames: '${e}' is not an equation 'lhs = rhs'`);
  const text = `{ [${inputs.join(', ')}] -> [${outputs.join(', ')}] : ${eqs.join(' and ')} }`;
  return applyMap(knl, parseMap(text), 'affineMapInames');
}

/**
 * An ISL map `[params] -> { [in] -> [out] : conditions }`, read as the set over `in` and
 * `out` together: `] -> [` is blanked to `, ` of the same length, so the set parser's
 * carets still point into the text the user wrote.
 */
function parseMap(text: string): ParsedMap {
  const brace = text.indexOf('{');
  const open = brace < 0 ? -1 : text.indexOf('[', brace);
  const close = open < 0 ? -1 : text.indexOf(']', open);
  const arrow = close < 0 ? null : /^\s*->\s*\[/.exec(text.slice(close + 1));
  if (!arrow) {
    const at = brace < 0 ? 0 : open < 0 ? brace : close < 0 ? open : close;
    throw new LoomError("mapDomain: expected a map '[params] -> { [old inames] -> [new inames] : conditions }'", {
      text,
      start: at,
      end: at + 1,
    });
  }
  const inputs = text
    .slice(open + 1, close)
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const joined = `${text.slice(0, close)},${' '.repeat(arrow[0].length)}${text.slice(close + 1 + arrow[0].length)}`;
  const set = BasicSet.parse(joined);
  const outputs = set.dims.slice(inputs.length);
  const twice = inputs.find((n) => outputs.includes(n));
  if (twice !== undefined)
    throw new LoomError(`mapDomain: '${twice}' is both an old and a new iname; give the new one another name`);
  return { set, inputs, outputs };
}

function applyMap(knl: LoopKernel, map: ParsedMap, what: string): LoopKernel {
  const { inputs, outputs } = map;
  if (inputs.length === 0 || outputs.length === 0) throw new LoomError(`${what}: the map must have old and new inames`);
  checkBijective(map, what);
  const values = solveInputs(map, what);

  // the map applies to the one domain holding all of its old inames
  const applicable = knl.domains
    .map((d, k) => ({ d, k }))
    .filter(({ d }) => inputs.every((n) => d.dims.includes(n) || d.params.includes(n)));
  const rules = 'The map must be applicable to exactly one domain: one whose inames include all of its old inames.';
  if (applicable.length !== 1) {
    throw new LoomError(
      `${what}: the map ${applicable.length === 0 ? 'was not applicable to any domain' : 'was applicable to more than one domain'}. ${rules}`,
    );
  }
  const { d: home, k: index } = applicable[0];
  const asParam = inputs.find((n) => !home.dims.includes(n));
  if (asParam !== undefined)
    throw new LoomError(
      `${what}: '${asParam}' bounds another domain's loops; map the inames of a domain no other domain depends on`,
    );
  const taken = new Set([
    ...knl.inames,
    ...knl.args.map((a) => a.name),
    ...knl.temporaries.keys(),
    ...knl.substitutions.keys(),
    ...knl.domains.flatMap((d) => d.params),
  ]);
  for (const n of outputs) {
    checkName(n, `${what}: a new iname`);
    if (taken.has(n)) throw new LoomError(`${what}: the new iname '${n}' is already used in the kernel`);
  }
  for (const n of inputs) {
    const tag = knl.inameTags.get(n);
    if (tag && tag.kind !== 'for')
      throw new LoomError(
        `${what}: '${n}' is tagged '${tagToString(tag)}'; map the domain before tagging (and tag the new inames)`,
      );
    if (knl.loopSlabs.has(n)) throw new LoomError(`${what}: '${n}' has slabs; map the domain before asking for slabs`);
  }
  const prioritized = knl.loopPriorities.find((p) => p.some((n) => inputs.includes(n)));
  if (prioritized)
    throw new LoomError(
      `${what}: the loop priority (${prioritized.join(', ')}) contains iname(s) the map transforms; prioritize the new inames after mapping`,
    );
  for (const insn of knl.instructions) {
    const within = inputs.filter((n) => insn.withinInames.includes(n));
    if (within.length && within.length < inputs.length) {
      throw new LoomError(
        `${what}: instruction '${insn.id}' is within only a part of the mapped inames (${within.join(', ')} of ${inputs.join(', ')}); instructions must be within all or none of them`,
      );
    }
  }

  // the image: the old inames' values substituted into the domain and the map's conditions
  const substituteAll = (c: Constraint): Constraint => ({
    kind: c.kind,
    expr: inputs.reduce((e, n) => e.substitute(n, values.get(n)!), c.expr),
  });
  const dims = [...home.dims.filter((n) => !inputs.includes(n)), ...outputs];
  const renamedExistentials = map.set.existentials.map((e) => `${e}__map`);
  const mapConstraints = map.set.constraints.map((c) => ({
    kind: c.kind,
    expr: map.set.existentials.reduce((e, x, k) => e.substitute(x, Linear.variable(renamedExistentials[k])), c.expr),
  }));
  const image = BasicSet.fromConstraints(
    home.params,
    dims,
    [...home.constraints, ...mapConstraints].map(substituteAll),
    [...home.existentials, ...renamedExistentials],
  );
  const domains = knl.domains.map((d, k) => (k === index ? image : d));

  const exprOf = new Map(inputs.map((n) => [n, fromLinear(values.get(n)!)] as const));
  const rewrite = (e: Expr) =>
    mapExpr(e, (x) => {
      if (x.kind === 'var') return exprOf.get(x.name) ?? x;
      if (x.kind !== 'reduce') return x;
      const reduced = inputs.filter((n) => x.inames.includes(n));
      if (reduced.length === 0) return x;
      if (reduced.length < inputs.length)
        throw new LoomError(
          `${what}: a ${x.op} reduction over ${x.inames.join(', ')} involves only a part of the mapped inames; reductions must involve all or none of them`,
        );
      return reduce(x.op, [...x.inames.filter((n) => !inputs.includes(n)), ...outputs], x.operands, x.simultaneous);
    });
  const rewritten = mapKernelExpressions(knl.with({ domains }), rewrite, { what });
  const instructions = rewritten.instructions.map((insn) =>
    insn.withinInames.some((n) => inputs.includes(n))
      ? { ...insn, withinInames: [...insn.withinInames.filter((n) => !inputs.includes(n)), ...outputs] }
      : insn,
  );
  return rewritten.with({ instructions });
}

/**
 * A bijection: no old point has two images (two points of the map with the same old inames
 * and different new ones, along any new iname, do not exist), and no image two old points.
 */
function checkBijective({ set, inputs, outputs }: ParsedMap, what: string): void {
  const primed = (names: readonly string[]) => names.reduce((s, n) => s.renameVariable(n, `${n}__other`), set);
  for (const [same, differ] of [
    [inputs, outputs],
    [outputs, inputs],
  ] as const) {
    const other = primed(differ);
    const both = set.intersect(other);
    for (const n of differ) {
      const apart = both.addConstraints([
        {
          kind: 'ge',
          expr: Linear.variable(n)
            .sub(Linear.variable(`${n}__other`))
            .sub(1),
        },
      ]);
      if (!apart.isEmpty()) {
        const side =
          same === inputs
            ? 'an old point has several images'
            : `several old points have the same image (they differ in '${n}')`;
        throw new LoomError(`${what}: the map must be bijective, and ${side}: ${set.toString()}`);
      }
    }
  }
}

/**
 * Each old iname as an affine function of the new ones and the parameters, from the map's
 * equalities: Gaussian elimination that keeps integer coefficients (a pivot's equation is
 * kept as `c*v = rest`, and equations it is substituted into are scaled by c), then back
 * substitution, then a check that each value divides out exactly.
 */
function solveInputs({ set, inputs }: ParsedMap, what: string): Map<string, Linear> {
  const unknowns = [...inputs, ...set.existentials];
  let equations = set.constraints.filter((c) => c.kind === 'eq').map((c) => c.expr);
  const pivots: { v: string; c: number; rest: Linear }[] = [];
  for (const v of unknowns) {
    const candidates = equations.filter((e) => e.coeff(v) !== 0);
    if (candidates.length === 0) continue;
    const eq = candidates.reduce((a, b) => (Math.abs(b.coeff(v)) < Math.abs(a.coeff(v)) ? b : a));
    const c = eq.coeff(v);
    // c*v + r = 0  ->  c*v = -r
    const rest = eq.without([v]).negate();
    pivots.push({ v, c, rest });
    equations = equations
      .filter((e) => e !== eq)
      .map((e) => {
        const a = e.coeff(v);
        return a === 0 ? e : e.without([v]).scale(c).add(rest.scale(a));
      });
  }
  const values = new Map<string, { numerator: Linear; denominator: number }>();
  for (let k = pivots.length - 1; k >= 0; k--) {
    const { v, c } = pivots[k];
    let numerator = pivots[k].rest;
    let denominator = c;
    for (const [w, value] of values) {
      const b = numerator.coeff(w);
      if (b === 0) continue;
      // numerator = b*w + r with w = value.n/value.d: scale by value.d
      numerator = numerator.without([w]).scale(value.denominator).add(value.numerator.scale(b));
      denominator *= value.denominator;
    }
    values.set(v, { numerator, denominator });
  }
  const out = new Map<string, Linear>();
  for (const v of inputs) {
    const value = values.get(v);
    const free = value?.numerator.variables.filter((n) => unknowns.includes(n)) ?? [];
    if (!value || free.length) {
      throw new LoomError(
        `${what}: '${v}' cannot be expressed as an affine function of the new inames from the map's equalities (${set.toString()})`,
      );
    }
    const g = gcd(value.numerator.coefficientGcd(), gcd(value.numerator.constant, value.denominator));
    const d = value.denominator / (g || 1);
    if (Math.abs(d) !== 1)
      throw new LoomError(
        `${what}: '${v}' is not an integer affine function of the new inames (${value.numerator.toString()} divided by ${value.denominator})`,
      );
    out.set(
      v,
      Linear.of(
        [...value.numerator.coeffs].map(([n, x]) => [n, (x / (g || 1)) * d] as const),
        (value.numerator.constant / (g || 1)) * d,
      ),
    );
  }
  return out;
}
