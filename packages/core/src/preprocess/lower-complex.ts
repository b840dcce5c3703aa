/**
 * Complex values become pairs of reals, before code generation, so that no target ever
 * sees one (the representation `pointwise()` payloads use too: expr/complex.ts).
 *
 * - A complex argument of shape S is stored as its parts interleaved, real then imaginary:
 *   it becomes an array of its part dtype (float32 for complex64) with shape (S, 2), which
 *   is how the caller passes it (a Float32Array of 2n numbers for n complex64 elements).
 * - A complex temporary `t` becomes two temporaries of the part dtype, `t_re` and `t_im`.
 * - An instruction assigning a complex value becomes two, one per part (`id` and `id_im`);
 *   when the value reads what is assigned (`z = z*w`), the imaginary part goes through a
 *   private temporary first, so that both parts are computed from the old value.
 * - A part used several times by a formula (Smith's division uses the divisor's parts five
 *   times) is computed once into a private temporary, by an instruction just before.
 * - Expressions are expanded into real arithmetic on the parts (`+ - * /`, `**` and `pow`, `==`, `!=`,
 *   conditionals, `sum` reductions, `real`, `imag`, `conj`, `abs`, `exp`, `log`, `sqrt`, `sin`,
 *   `cos`). Whatever has no complex meaning here (ordering, `//`, a product reduction of
 *   complex values, a complex value stored into a real array) is a LoomError naming it.
 *
 * Types must be known (after `inferTypes`): the promotion of each operation decides the
 * complex dtype it computes in, with Loom's rules (a weak `1j` beside float32 data stays complex64).
 */
import { complexPart, isComplex, type ComplexDType, type DType } from '../dtypes.ts';
import { LoomError } from '../errors.ts';
import {
  binary,
  bitnot,
  call,
  cast,
  compare,
  float,
  ifThenElse,
  int,
  logical,
  neg,
  not,
  reduce,
  subscript,
  variable,
  type Expr,
} from '../expr/nodes.ts';
import {
  complexAdd,
  complexDivide,
  complexPower,
  complexEquals,
  complexFunction,
  complexMultiply,
  complexTruthy,
  type ComplexParts,
} from '../expr/complex.ts';
import { freeVariables, printExpr, someExpr, walk } from '../expr/index.ts';
import { expandSubstitutions } from '../kernel/accesses.ts';
import type { DimTag, Instruction, KernelArg, LoopKernel, TemporaryVariable } from '../kernel/model.ts';
import { exprType, INDEX_DTYPE, type NameTypes } from '../kernel/type-inference.ts';
import { kernelNamer } from '../kernel/rename.ts';
import { rowMajorDimTags } from '../kernel/strides.ts';

type Value =
  | { readonly kind: 'real'; readonly expr: Expr }
  | ({ readonly kind: 'complex'; readonly dtype: ComplexDType } & ComplexParts);

const real = (expr: Expr): Value => ({ kind: 'real', expr });
const complex = (parts: ComplexParts, dtype: ComplexDType): Value => ({
  kind: 'complex',
  re: parts.re,
  im: parts.im,
  dtype,
});

/** Whether `knl` has anything complex to lower: complex names, imaginary literals, complex casts, `real`/`imag`/`conj`. */
export function mentionsComplex(knl: LoopKernel): boolean {
  if (
    knl.args.some((a) => a.dtype && isComplex(a.dtype)) ||
    [...knl.temporaries.values()].some((t) => t.dtype && isComplex(t.dtype))
  )
    return true;
  const complexNode = (e: Expr) =>
    e.kind === 'imag' ||
    (e.kind === 'cast' && isComplex(e.dtype as DType)) ||
    (e.kind === 'call' && ['real', 'imag', 'conj'].includes(e.fn));
  const exprs = knl.instructions
    .flatMap((i) => [i.expression, ...i.assignees, ...i.predicates])
    .filter((e): e is Expr => e !== undefined);
  return [...exprs, ...[...knl.substitutions.values()].map((r) => r.expression)].some((e) => someExpr(e, complexNode));
}

/**
 * The names of the parts of a complex value argument `a`: `a_re` and `a_im`, two value
 * arguments of its part dtype (loopy passes a complex scalar by value; no target here has a
 * complex type, so its parts travel as two reals). Fixed names, not fresh ones: the runtime
 * splits the caller's value under the same names; a kernel that already uses one is refused.
 */
export function complexValueParts(arg: KernelArg, knl: LoopKernel): { re: string; im: string } {
  const parts = { re: `${arg.name}_re`, im: `${arg.name}_im` };
  for (const name of [parts.re, parts.im]) {
    if (knl.arg(name) || knl.temporaries.has(name) || knl.inames.includes(name))
      throw new LoomError(
        `complex value argument '${arg.name}' is passed as its parts '${parts.re}' and '${parts.im}', but the kernel already has a '${name}': rename it`,
      );
  }
  return parts;
}

/**
 * The arguments as they are stored: a complex array of shape S as an array of its parts with a
 * trailing axis of 2, a complex value as two value arguments of its parts (complexValueParts).
 */
export function complexStorage(arg: KernelArg, knl: LoopKernel): KernelArg[] {
  if (!arg.dtype || !isComplex(arg.dtype)) return [arg];
  if (arg.kind === 'value') {
    const { re, im } = complexValueParts(arg, knl);
    return [re, im].map((name) => ({ ...arg, name, dtype: complexPart(arg.dtype as ComplexDType) }));
  }
  return [
    {
      ...arg,
      dtype: complexPart(arg.dtype),
      shape: [...arg.shape!, int(2)],
      dimTags: partsAxis(arg),
    },
  ];
}

/** The layout with an innermost axis for the parts: they are adjacent, whatever the element layout. */
function partsAxis(arg: KernelArg): DimTag[] {
  const tags = arg.dimTags ?? rowMajorDimTags(arg.shape!.length);
  if (!arg.offset && tags.every((t) => t.kind === 'nested')) return [...tags, { kind: 'vec' }];
  return [
    ...tags.map((t): DimTag => {
      switch (t.kind) {
        case 'nested':
          return { kind: 'nested', level: t.level + 1 };
        case 'stride':
          return { kind: 'stride', stride: binary('*', int(2), t.stride) };
        default:
          throw new LoomError(
            `complex argument '${arg.name}' has a '${t.kind}' axis, which complex arrays cannot have (their parts are interleaved)`,
          );
      }
    }),
    { kind: 'nested', level: 0 },
  ];
}

export function lowerComplex(knl: LoopKernel): LoopKernel {
  if (!mentionsComplex(knl)) return knl;
  const { fresh } = kernelNamer(knl);

  const temporaries = new Map<string, TemporaryVariable>();
  const splitTemps = new Map<string, { re: string; im: string }>();
  for (const t of knl.temporaries.values()) {
    if (!t.dtype || !isComplex(t.dtype)) {
      temporaries.set(t.name, t);
      continue;
    }
    const parts = { re: fresh(`${t.name}_re`), im: fresh(`${t.name}_im`) };
    splitTemps.set(t.name, parts);
    for (const name of [parts.re, parts.im]) temporaries.set(name, { ...t, name, dtype: complexPart(t.dtype) });
  }
  // a complex value is read as its two parts, as a scalar complex temporary is
  for (const a of knl.args)
    if (a.kind === 'value' && a.dtype && isComplex(a.dtype)) splitTemps.set(a.name, complexValueParts(a, knl));
  const args = knl.args.flatMap((a) => complexStorage(a, knl));

  const inames = new Set(knl.inames);
  const original: NameTypes = (name) =>
    inames.has(name) ? INDEX_DTYPE : (knl.arg(name)?.dtype ?? knl.temporaries.get(name)?.dtype);
  const lowered: NameTypes = (name) =>
    inames.has(name) ? INDEX_DTYPE : (args.find((a) => a.name === name)?.dtype ?? temporaries.get(name)?.dtype);
  const lowering = new Lowering(original, lowered, splitTemps);

  const instructions: Instruction[] = [];
  const alsoIds = new Map<string, string[]>();
  for (const insn of knl.instructions) {
    const at = (what: string) => `instruction '${insn.id}': ${what}`;
    const lower = (e: Expr) => lowering.value(expandSubstitutions(e, knl.substitutions), insn.id);
    const predicates = insn.predicates.map((p) => lowering.condition(lower(p)));
    // values a formula uses more than once, each computed by an instruction of its own just before
    const bound: Instruction[] = [];
    lowering.bind = (e) => {
      if (e.kind === 'var' || e.kind === 'int' || e.kind === 'float' || e.kind === 'subscript') return e;
      const name = fresh('cx');
      const uses = freeVariables(e);
      temporaries.set(name, { name, dtype: exprType(e, lowered).dtype, shape: [], addressSpace: 'private' });
      bound.push({
        ...insn,
        id: fresh(`${insn.id}_${name}`),
        // a value reads those bound before it that it uses (a reduction's result, in a product)
        dependsOn: [
          ...insn.dependsOn,
          ...bound.filter(({ assignees: [a] }) => a.kind === 'var' && uses.has(a.name)).map((b) => b.id),
        ],
        assignees: [variable(name)],
        expression: e,
        predicates,
        tags: [],
        groups: [],
        conflictsWithGroups: [],
        atomic: false,
      });
      return variable(name);
    };
    const withBound = (list: Instruction[]) => {
      instructions.push(...bound);
      instructions.push(...list.map((i) => ({ ...i, dependsOn: [...i.dependsOn, ...bound.map((b) => b.id)] })));
    };
    if (insn.assignees.length === 0 || !insn.expression) {
      withBound([{ ...insn, predicates }]);
      continue;
    }
    if (insn.assignees.length > 1) {
      // a multiple assignment (argmax): its results are real, or refused here
      const assignees = insn.assignees.map((a) => lowering.access(a, insn.id));
      if (assignees.some((a) => a.kind !== 'real'))
        throw new LoomError(at('a multiple assignment of complex values is not supported'), insn.span);
      withBound([
        {
          ...insn,
          assignees: assignees.map((a) => (a as { expr: Expr }).expr),
          expression: (lower(insn.expression) as { expr: Expr }).expr,
          predicates,
        },
      ]);
      continue;
    }
    const assignee = insn.assignees[0];
    const target = lowering.access(assignee, insn.id);
    const value = lower(insn.expression);
    if (target.kind === 'real') {
      if (value.kind === 'complex') {
        throw new LoomError(
          at(
            `assigns a complex value to the real '${printExpr(assignee)}'; take real(...), imag(...) or abs(...) of it`,
          ),
          insn.span,
        );
      }
      withBound([{ ...insn, assignees: [target.expr], expression: value.expr, predicates }]);
      continue;
    }
    if (insn.atomic) throw new LoomError(at('atomic updates of complex values are not supported'), insn.span);
    const parts = lowering.asComplex(value, target.dtype);
    const imId = fresh(`${insn.id}_im`);
    const name = assignee.kind === 'var' ? assignee.name : (assignee as Extract<Expr, { kind: 'subscript' }>).array;
    if (!readsName(insn.expression, name, knl)) {
      alsoIds.set(insn.id, [imId, ...bound.map((b) => b.id)]);
      withBound([
        { ...insn, assignees: [target.re], expression: parts.re, predicates },
        { ...insn, id: imId, assignees: [target.im], expression: parts.im, predicates },
      ]);
      continue;
    }
    // the value reads the old parts: the imaginary part waits in a temporary while the real one is written
    const held = fresh(`${name}_im_value`);
    temporaries.set(held, { name: held, dtype: complexPart(target.dtype), shape: [], addressSpace: 'private' });
    const heldId = fresh(`${insn.id}_im_value`);
    alsoIds.set(insn.id, [heldId, imId, ...bound.map((b) => b.id)]);
    withBound([
      {
        ...insn,
        id: heldId,
        assignees: [variable(held)],
        expression: parts.im,
        predicates,
        tags: [],
        groups: [],
        conflictsWithGroups: [],
      },
      { ...insn, assignees: [target.re], expression: parts.re, predicates, dependsOn: [...insn.dependsOn, heldId] },
      {
        ...insn,
        id: imId,
        assignees: [target.im],
        expression: variable(held),
        predicates,
        dependsOn: [...insn.dependsOn, insn.id],
      },
    ]);
  }
  // whatever waited for an instruction now waits for every instruction it became
  const withParts = (ids: readonly string[]) => ids.flatMap((d) => [d, ...(alsoIds.get(d) ?? [])]);
  const noSync = (entries: readonly string[]) =>
    entries.flatMap((entry) => {
      const [id, scope] = entry.split('@');
      return [entry, ...(alsoIds.get(id) ?? []).map((other) => (scope === undefined ? other : `${other}@${scope}`))];
    });
  const linked = instructions.map((i) => ({
    ...i,
    dependsOn: [...new Set(withParts(i.dependsOn))].filter((d) => d !== i.id),
    noSyncWith: noSync(i.noSyncWith),
  }));
  // every use of a rule was expanded above
  return knl.with({ args, temporaries, instructions: linked, substitutions: new Map() });
}

/** Whether `e` (rules expanded) reads the variable or array `name`. */
function readsName(e: Expr, name: string, knl: LoopKernel): boolean {
  let found = false;
  walk(expandSubstitutions(e, knl.substitutions), (x) => {
    if ((x.kind === 'var' && x.name === name) || (x.kind === 'subscript' && x.array === name)) found = true;
  });
  return found;
}

class Lowering {
  /** Names a value used several times (set per instruction); the identity inside reductions, whose body is per iteration. */
  bind: (e: Expr) => Expr = (e) => e;
  private insideReduction = 0;

  constructor(
    /** Types in the kernel as written (complex dtypes included). */
    private readonly original: NameTypes,
    /** Types of the lowered names (the parts' dtypes). */
    private readonly lowered: NameTypes,
    private readonly splitTemps: ReadonlyMap<string, { re: string; im: string }>,
  ) {}

  /** `e`'s value, real or complex (the parts of it). `insn` names the instruction for errors. */
  value(e: Expr, insn: string): Value {
    const rec = (x: Expr) => this.value(x, insn);
    const fail = (what: string): never => {
      throw new LoomError(`instruction '${insn}': ${what} in ${printExpr(e)}`);
    };
    switch (e.kind) {
      case 'int':
      case 'float':
      case 'bool':
        return real(e);
      case 'imag':
        return complex({ re: float(0), im: float(e.value) }, this.dtypeOf(e) as ComplexDType);
      case 'var':
      case 'subscript':
        return this.access(e, insn);
      case 'neg': {
        const v = rec(e.operand);
        return v.kind === 'complex' ? complex({ re: neg(v.re), im: neg(v.im) }, v.dtype) : real(neg(v.expr));
      }
      case 'bitnot':
        return real(bitnot(this.realOf(rec(e.operand), 'a bitwise operator', fail)));
      case 'binary': {
        const [a, b] = [rec(e.left), rec(e.right)];
        if (a.kind === 'real' && b.kind === 'real') return real(binary(e.op, a.expr, b.expr));
        const t = this.dtypeOf(e) as ComplexDType;
        const [x, y] = [this.asComplex(a, t), this.asComplex(b, t)];
        switch (e.op) {
          case '+':
          case '-':
            return complex(complexAdd(x, y, e.op), t);
          case '*':
            return complex(complexMultiply(x, y, this.binder), t);
          case '/':
            return complex(complexDivide(x, y, this.binder), t);
          case '**':
            return complex(complexPower(x, y, e.right, this.binder), t);
          default:
            return fail(`the operator ${e.op} is not defined for complex values`);
        }
      }
      case 'compare': {
        const [a, b] = [rec(e.left), rec(e.right)];
        if (a.kind === 'real' && b.kind === 'real') return real(compare(e.op, a.expr, b.expr));
        if (e.op !== '==' && e.op !== '!=') return fail(`complex values cannot be ordered (${e.op})`);
        const t = this.dtypeOf(binary('+', e.left, e.right)) as ComplexDType;
        const equal = complexEquals(this.asComplex(a, t), this.asComplex(b, t));
        return real(e.op === '==' ? equal : not(equal));
      }
      case 'logical':
        return real(logical(e.op, this.condition(rec(e.left)), this.condition(rec(e.right))));
      case 'not':
        return real(not(this.condition(rec(e.operand))));
      case 'if': {
        const condition = this.condition(rec(e.condition));
        const [a, b] = [rec(e.then), rec(e.otherwise)];
        if (a.kind === 'real' && b.kind === 'real') return real(ifThenElse(condition, a.expr, b.expr));
        const t = this.dtypeOf(e) as ComplexDType;
        const [x, y] = [this.asComplex(a, t), this.asComplex(b, t)];
        return complex({ re: ifThenElse(condition, x.re, y.re), im: ifThenElse(condition, x.im, y.im) }, t);
      }
      case 'cast': {
        const v = rec(e.operand);
        if (isComplex(e.dtype as DType))
          return complex(this.asComplex(v, e.dtype as ComplexDType), e.dtype as ComplexDType);
        if (v.kind === 'complex')
          return fail(
            `converting a complex value to ${e.dtype} would drop its imaginary part: take real(...) or abs(...)`,
          );
        return real(cast(e.dtype, v.expr));
      }
      case 'call':
        return this.call(e, e.args.map(rec), fail);
      case 'reduce': {
        this.insideReduction++;
        let operands: Value[];
        try {
          operands = e.operands.map(rec);
        } finally {
          this.insideReduction--;
        }
        if (operands.every((o) => o.kind === 'real'))
          return real(
            reduce(
              e.op,
              e.inames,
              operands.map((o) => (o as { expr: Expr }).expr),
              e.simultaneous,
            ),
          );
        if (operands.length !== 1) return fail(`a ${e.op} reduction of several values, some complex, is not supported`);
        const body = operands[0];
        if (body.kind === 'real') return real(reduce(e.op, e.inames, body.expr));
        if (e.op !== 'sum') return fail(`a ${e.op} reduction of complex values is not supported (sum is)`);
        return complex({ re: reduce('sum', e.inames, body.re), im: reduce('sum', e.inames, body.im) }, body.dtype);
      }
    }
  }

  /** A variable or array element: a complex one as its two parts, its indices lowered. */
  access(e: Expr, insn: string): Value & { readonly dtype?: DType } {
    if (e.kind !== 'var' && e.kind !== 'subscript') return this.value(e, insn);
    const name = e.kind === 'var' ? e.name : e.array;
    const indices =
      e.kind === 'var'
        ? []
        : e.indices.map((i) =>
            this.realOf(this.value(i, insn), 'an index', (what) => {
              throw new LoomError(`instruction '${insn}': ${what} in ${printExpr(e)}`);
            }),
          );
    const t = this.original(name);
    if (t === undefined || !isComplex(t))
      return real(e.kind === 'var' ? e : subscript(e.array, indices, e.linear, e.tag, e.field));
    const split = this.splitTemps.get(name);
    const at = (part: string) => (e.kind === 'var' ? variable(part) : subscript(part, indices));
    if (split) return complex({ re: at(split.re), im: at(split.im) }, t);
    return complex({ re: subscript(name, [...indices, int(0)]), im: subscript(name, [...indices, int(1)]) }, t);
  }

  /** A value as a condition: complex values are true when non-zero. */
  condition(v: Value): Expr {
    return v.kind === 'complex' ? complexTruthy(v) : v.expr;
  }

  asComplex(v: Value, dtype: ComplexDType): ComplexParts {
    const part = complexPart(dtype);
    if (v.kind === 'complex')
      return v.dtype === dtype ? v : { re: this.castTo(v.re, part), im: this.castTo(v.im, part) };
    return { re: this.castTo(v.expr, part), im: this.castTo(float(0), part) };
  }

  private call(e: Extract<Expr, { kind: 'call' }>, args: Value[], fail: (what: string) => never): Value {
    const [z] = args;
    if (e.fn === 'real' || e.fn === 'imag' || e.fn === 'conj') {
      if (args.length !== 1) return fail(`${e.fn}() takes one argument`);
      if (z.kind === 'real') {
        // a real value is its own real part and conjugate; its imaginary part is a zero of its type
        return e.fn === 'imag' ? real(cast(this.dtypeOf(e.args[0]), int(0))) : z;
      }
    }
    if (!args.some((a) => a.kind === 'complex'))
      return real(
        call(
          e.fn,
          args.map((a) => (a as { expr: Expr }).expr),
          e.tag,
          e.dtype,
        ),
      );
    if (e.fn === 'pow' && args.length === 2) {
      // pow(z, w) is z ** w, whatever the exponent's type (numpy's power, Reikna's pow of complex values)
      const t = this.dtypeOf(e) as ComplexDType;
      return complex(complexPower(this.asComplex(args[0], t), this.asComplex(args[1], t), e.args[1], this.binder), t);
    }
    if (args.length !== 1) return fail(`${e.fn}() of complex values is not supported`);
    const result = complexFunction(e.fn, z as ComplexParts, this.binder);
    return 'real' in result ? real(result.real) : complex(result.complex, (z as { dtype: ComplexDType }).dtype);
  }

  /** `bind`, where a temporary can hold the value: not inside a reduction's body. */
  private readonly binder = (e: Expr): Expr => (this.insideReduction > 0 ? e : this.bind(e));

  private realOf(v: Value, what: string, fail: (what: string) => never): Expr {
    return v.kind === 'real' ? v.expr : fail(`${what} cannot be complex`);
  }

  /** `e` converted to real `dtype`, unless it has it already (literals take any type). */
  /**
   * `e` as a part of `dtype`. A literal becomes a literal of that dtype: left weak, a formula
   * of literals only (Smith's division by 4 + 0j computes 0 / 4) would be computed, and kept
   * in a temporary, in float64.
   */
  private castTo(e: Expr, dtype: DType): Expr {
    if ((e.kind === 'int' || e.kind === 'float') && (dtype === 'float32' || dtype === 'float64'))
      return float(e.value, dtype);
    if (e.kind === 'int' || e.kind === 'float') return e;
    const t = exprType(e, this.lowered);
    return !t.weak && t.dtype === dtype ? e : cast(dtype, e);
  }

  private dtypeOf(e: Expr): DType {
    return exprType(e, this.original).dtype;
  }
}
