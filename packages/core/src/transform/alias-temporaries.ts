/**
 * `aliasTemporaries(knl, ['t1', 't2', 't3'])`: the temporaries share one piece of storage
 * (loopy's alias_temporaries), which is only right while their live ranges do not overlap.
 * By default (`synchronizeForExclusiveUse`) that is made so: the instructions using each
 * one wait for those using the one before it, and the barrier pass then synchronizes the
 * work-items between them as for any shared array.
 *
 * Loom's targets have no untyped storage to view as several types, so the temporaries
 * must have one dtype and address space: they become one flat array (`temp_storage`) as
 * long as the largest, each access its element in it.
 */
import { checkOptionKeys, optionKeys } from '../option-keys.ts';
import { LoomError } from '../errors.ts';
import { add, int, mul, subscript, type Expr } from '../expr/nodes.ts';
import { exprEquals, mapExpr, printExpr, simplify } from '../expr/index.ts';
import { namesRead, namesWritten } from '../kernel/accesses.ts';
import type { LoopKernel, TemporaryVariable } from '../kernel/model.ts';
import { uniqueName } from '../kernel/rename.ts';
import { mapKernelExpressions } from '../kernel/rewrite-expressions.ts';

/** The options aliasTemporaries reads; any other key is an error. */
const ALIAS_TEMPORARIES_OPTIONS = optionKeys<AliasTemporariesOptions>()([
  'baseNamePrefix',
  'synchronizeForExclusiveUse',
]);

/** Options of `aliasTemporaries`. */
export interface AliasTemporariesOptions {
  /** The shared storage's name (made unique); default `temp_storage`. */
  readonly baseNamePrefix?: string;
  /** Order the users of each temporary after those of the one before (default true). */
  readonly synchronizeForExclusiveUse?: boolean;
}

/** Lets temporaries whose lifetimes do not overlap share storage (loopy's `alias_temporaries`). */
export function aliasTemporaries(
  knl: LoopKernel,
  names: readonly string[],
  options: AliasTemporariesOptions = {},
): LoopKernel {
  checkOptionKeys('aliasTemporaries', options, ALIAS_TEMPORARIES_OPTIONS);
  if (names.length < 2) throw new LoomError('aliasTemporaries: give at least two temporaries to share storage');
  const temps = names.map((n) => {
    const t = knl.temporaries.get(n);
    if (!t)
      throw new LoomError(
        `aliasTemporaries: '${n}' is not a temporary (temporaries: ${[...knl.temporaries.keys()].join(', ') || 'none'})`,
      );
    return t;
  });
  const first = temps[0];
  for (const t of temps) {
    if (t.dtype !== first.dtype)
      throw new LoomError(
        `aliasTemporaries: '${t.name}' is ${t.dtype ?? 'of unknown dtype'} and '${first.name}' ${first.dtype ?? 'of unknown dtype'}; Loom's targets cannot view one storage as two types`,
      );
    if (t.addressSpace !== first.addressSpace)
      throw new LoomError(
        `aliasTemporaries: '${t.name}' is ${t.addressSpace} and '${first.name}' ${first.addressSpace}; shared storage has one address space (setTemporaryAddressSpace)`,
      );
    if (t.dimTags?.some((d) => d.kind !== 'nested'))
      throw new LoomError(
        `aliasTemporaries: '${t.name}' has a vector or separate axis; only plainly laid-out temporaries can share storage`,
      );
  }
  const length = storageLength(temps);
  const layouts = temps.map(stridesOf);

  let instructions = knl.instructions;
  if (options.synchronizeForExclusiveUse ?? true) {
    const usersOf = names.map((n) =>
      knl.instructions
        .filter((i) => namesWritten(i).includes(n) || namesRead(i, knl.substitutions).has(n))
        .map((i) => i.id),
    );
    for (const insn of knl.instructions) {
      const used = names.filter((_, k) => usersOf[k].includes(insn.id));
      if (used.length > 1)
        throw new LoomError(
          `aliasTemporaries: instruction '${insn.id}' uses several of the temporaries (${used.join(', ')}); they cannot share storage`,
          insn.span,
        );
    }
    instructions = instructions.map((insn) => {
      const k = usersOf.findIndex((u) => u.includes(insn.id));
      if (k <= 0) return insn;
      const before = usersOf[k - 1].filter((id) => !insn.dependsOn.includes(id));
      return before.length ? { ...insn, dependsOn: [...insn.dependsOn, ...before] } : insn;
    });
  }

  const taken = new Set([
    ...knl.inames,
    ...knl.args.map((a) => a.name),
    ...knl.temporaries.keys(),
    ...knl.substitutions.keys(),
  ]);
  const storage = uniqueName(options.baseNamePrefix ?? 'temp_storage', taken);
  const flat = (name: string, indices: readonly Expr[]): Expr => {
    const strides = layouts[names.indexOf(name)];
    const offset = indices.reduce<Expr>((acc, ix, d) => add(acc, mul(strides[d], ix)), int(0));
    return subscript(storage, [simplify(offset, { integer: true })]);
  };
  const rewrite = (e: Expr) =>
    mapExpr(e, (x) => {
      if (x.kind === 'subscript' && names.includes(x.array)) return flat(x.array, x.indices);
      if (x.kind === 'var' && names.includes(x.name)) return flat(x.name, []);
      return x;
    });
  const rewritten = mapKernelExpressions(knl.with({ instructions }), rewrite, {
    what: 'aliasTemporaries',
    assignee: 'whole',
  });
  const temporaries = new Map([...rewritten.temporaries].filter(([n]) => !names.includes(n)));
  temporaries.set(storage, {
    name: storage,
    dtype: first.dtype,
    shape: [length],
    addressSpace: first.addressSpace,
  });
  return rewritten.with({ temporaries });
}

/** Row-major strides, or the nesting levels the temporary's dim tags give; expressions where the shape is parametric. */
function stridesOf(t: TemporaryVariable): Expr[] {
  const shape = t.shape;
  const levels =
    t.dimTags?.map((d) => (d.kind === 'nested' ? d.level : 0)) ?? shape.map((_, k) => shape.length - 1 - k);
  return shape.map((_, d) =>
    simplify(
      shape.reduce<Expr>((acc, len, e) => (levels[e] < levels[d] ? mul(acc, len) : acc), int(1)),
      { integer: true },
    ),
  );
}

/**
 * The storage's length: the largest of the sizes where all are constant, else the one size
 * they all have (loopy's base storage of temporaries of one parametric shape, e.g. `(n,)`).
 * Parametric sizes that differ have no maximum the device code can declare: an error.
 */
function storageLength(temps: readonly TemporaryVariable[]): Expr {
  const sizes = temps.map((t) =>
    simplify(
      t.shape.reduce<Expr>((acc, len) => mul(acc, len), int(1)),
      { integer: true },
    ),
  );
  if (sizes.every((s) => s.kind === 'int')) return int(Math.max(...sizes.map((s) => (s.kind === 'int' ? s.value : 0))));
  const differing = sizes.findIndex((s) => !exprEquals(s, sizes[0]));
  if (differing >= 0)
    throw new LoomError(
      `aliasTemporaries: '${temps[0].name}' holds ${printExpr(sizes[0])} elements and '${temps[differing].name}' ${printExpr(sizes[differing])}; temporaries of sizes known only at run time can share storage only when their sizes are the same`,
    );
  return sizes[0];
}

/**
 * loopy's `allocate_temporaries_for_base_storage`: give the temporaries that name one
 * `baseStorage` their shared storage. Loom does this as `makeKernel` declares them
 * (`temporaryVariable(name, { baseStorage })` becomes one storage array at once, as
 * `aliasTemporaries` makes it), so every kernel already has its base storage allocated and
 * this returns the kernel as it is; it is here so that code written for loopy runs unchanged.
 * ```ts
 * const knl = makeKernel('{ [i]: 0<=i<n }', 'a[i] = 0\nc[i] = b[i] {dep_query=writes:a}', [
 *   temporaryVariable('a', { dtype: 'float64', shape: 'n', baseStorage: 'base', addressSpace: 'global' }),
 *   temporaryVariable('b', { dtype: 'float64', shape: 'n', baseStorage: 'base', addressSpace: 'global' }),
 *   '...',
 * ]);
 * allocateTemporariesForBaseStorage(knl) === knl; // true: 'base' is already a temporary
 * ```
 */
export function allocateTemporariesForBaseStorage(knl: LoopKernel): LoopKernel {
  return knl;
}
