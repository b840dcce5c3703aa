// Property: on random domain trees (a domain over [i, j], a child over [k] whose bounds use i
// or j, a grandchild over [l] whose bounds use k or i, listed in either order), domainOf's set
// of any choice of inames is what enumeration gives: a point is in it iff some values of the
// other inames of the domains it needs satisfy them all (and the assumptions, if asked).
// domainOf projects each iname out as soon as no later domain mentions it; this checks that
// the result is still the projection of the whole.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { domainOf } from '../packages/core/src/kernel/domains.ts';
import { BasicSet } from '../packages/core/src/sets/index.ts';

type Point = Record<string, number>;

/** Every iname lies in [-BOX, BOX]; the parameter n in [0, N_MAX]. */
const BOX = 2;
const N_MAX = 3;

/** `c0*x + c1*y + c2*n + c3 >= 0` over the names given with it. */
interface Condition {
  readonly coeffs: readonly [number, number, number];
  readonly constant: number;
}

interface DomainSpec {
  readonly dims: readonly string[];
  /** The names the conditions use besides n: a dim and, for a child, its parent iname. */
  readonly over: readonly [string, string];
  readonly conditions: readonly Condition[];
}

interface TreeSpec {
  readonly domains: readonly DomainSpec[];
  readonly assumption: 'n >= 1' | 'n mod 2 = 0';
}

const condition: fc.Arbitrary<Condition> = fc.record({
  coeffs: fc.tuple(fc.integer({ min: -2, max: 2 }), fc.integer({ min: -2, max: 2 }), fc.integer({ min: -1, max: 1 })),
  constant: fc.integer({ min: -3, max: 3 }),
});

const tree: fc.Arbitrary<TreeSpec> = fc
  .record({
    top: fc.array(condition, { minLength: 1, maxLength: 3 }),
    kParent: fc.constantFrom('i', 'j'),
    kConditions: fc.array(condition, { minLength: 1, maxLength: 2 }),
    lParent: fc.constantFrom('k', 'i'),
    lConditions: fc.array(condition, { minLength: 1, maxLength: 2 }),
    order: fc.constantFrom([0, 1, 2], [1, 0, 2], [2, 1, 0], [0, 2, 1]),
    assumption: fc.constantFrom<TreeSpec['assumption']>('n >= 1', 'n mod 2 = 0'),
  })
  .map((r) => {
    const domains: DomainSpec[] = [
      { dims: ['i', 'j'], over: ['i', 'j'], conditions: r.top },
      { dims: ['k'], over: ['k', r.kParent], conditions: r.kConditions },
      { dims: ['l'], over: ['l', r.lParent], conditions: r.lConditions },
    ];
    return { domains: r.order.map((k) => domains[k]!), assumption: r.assumption };
  });

const render = (c: Condition, [x, y]: readonly [string, string]) =>
  `${c.coeffs[0]}*${x} + ${c.coeffs[1]}*${y} + ${c.coeffs[2]}*n + ${c.constant} >= 0`;
const holds = (c: Condition, [x, y]: readonly [string, string], p: Point) =>
  c.coeffs[0] * p[x]! + c.coeffs[1] * p[y]! + c.coeffs[2] * p.n! + c.constant >= 0;

function domainText(d: DomainSpec): string {
  const params = ['n', ...d.over.filter((v) => !d.dims.includes(v))];
  const parts = [`-${BOX} <= ${d.dims.join(', ')} <= ${BOX}`, ...d.conditions.map((c) => render(c, d.over))];
  return `[${params.join(', ')}] -> { [${d.dims.join(', ')}] : ${parts.join(' and ')} }`;
}

function inDomain(d: DomainSpec, p: Point): boolean {
  return d.dims.every((v) => Math.abs(p[v]!) <= BOX) && d.conditions.every((c) => holds(c, d.over, p));
}

const assumed = (spec: TreeSpec, n: number) => (spec.assumption === 'n >= 1' ? n >= 1 : n % 2 === 0);

/** The domains a question needs: the home domains of the inames, their parents', transitively. */
function neededDomains(spec: TreeSpec, inames: readonly string[]): DomainSpec[] {
  const needed = new Set<DomainSpec>();
  const stack = [...inames];
  while (stack.length > 0) {
    const name = stack.pop()!;
    const home = spec.domains.find((d) => d.dims.includes(name))!;
    if (needed.has(home)) continue;
    needed.add(home);
    stack.push(...home.dims, ...home.over.filter((v) => !home.dims.includes(v)));
  }
  return [...needed];
}

function* points(names: readonly string[]): Generator<Point> {
  if (names.length === 0) return yield {};
  const [first, ...rest] = names;
  for (const p of points(rest)) for (let v = -BOX - 1; v <= BOX + 1; v++) yield { ...p, [first!]: v };
}

const INAMES = ['i', 'j', 'k', 'l'];

test('domainOf: a point is in the set iff the domains it needs have an extension of it', () => {
  fc.assert(
    fc.property(
      tree,
      fc.subarray(INAMES, { minLength: 1, maxLength: 3 }),
      fc.boolean(),
      fc.boolean(),
      fc.integer({ min: 0, max: N_MAX }),
      (spec, wanted, keepParents, withAssumptions, n) => {
        const knl = {
          domains: spec.domains.map((d) => BasicSet.parse(domainText(d))),
          assumptions: BasicSet.parseConditions(spec.assumption),
        };
        const set = domainOf(knl, wanted, keepParents, withAssumptions);
        const needed = neededDomains(spec, wanted);
        const closure = needed.flatMap((d) => d.dims);
        const shown = keepParents ? closure : wanted;
        assert.equal([...set.dims].sort(), [...shown].sort(), 'the set variables');
        const away = closure.filter((v) => !shown.includes(v));
        const context = `${spec.domains.map(domainText).join(' ; ')} on ${wanted} (keepParents ${keepParents}, assumptions ${withAssumptions}: ${spec.assumption}) = ${set}`;
        for (const p of points(shown)) {
          const q = { ...p, n };
          let extends_ = false;
          for (const ext of points(away)) extends_ ||= needed.every((d) => inDomain(d, { ...q, ...ext }));
          const expected = extends_ && (!withAssumptions || assumed(spec, n));
          assert.is(set.contains(q), expected, `${context} at ${JSON.stringify(q)}`);
        }
      },
    ),
    { numRuns: 150 },
  );
});

test.run();
