/**
 * `temporaryVariable(name, {...})`: a temporary declared among makeKernel's arguments, as
 * loopy's `lp.TemporaryVariable` is, with what the instruction text cannot say: its shape,
 * address space, a table of initial values (`initializer`, read-only), and `baseStorage`,
 * a name several temporaries share storage under (aliasTemporaries' machinery).
 *
 *   makeKernel('{ [i]: 0<=i<4 }', 'out[i] = table[i]', [
 *     temporaryVariable('table', { initializer: Float32Array.of(1, 2, 4, 8), readOnly: true }),
 *     '...',
 *   ])
 */
import { dtypeOfHostArray, isComplex, isDType, type DType } from '../dtypes.ts';
import { LoomError } from '../errors.ts';
import { parseExpression } from '../expr/index.ts';
import { checkName } from '../names.ts';
import { checkOptionKeys, optionKeys } from '../option-keys.ts';
import type { AddressSpace, LoopKernel, TemporaryVariable } from '../kernel/model.ts';
import { aliasTemporaries } from '../transform/alias-temporaries.ts';
import { checkTableValues } from './table-values.ts';
import { normalizeShape, type ShapeInput } from './arg-spellings.ts';

/** A temporary variable for `makeKernel` (`temporaryVariable`): its dtype, shape and address space. */
export interface TemporarySpec {
  /** Marks a temporary in `makeKernel`'s argument list. */
  readonly kind: 'temporary';
  /** The temporary's name. */
  readonly name: string;
  /** Default: the initializer's (a typed array's) dtype, else inferred from what is assigned. */
  readonly dtype?: DType;
  /**
   * Default (or `'auto'`): the initializer's length (one axis), else inferred from the accesses. Strings are
   * expressions in the parameters (global memory only); one string is a comma-separated shape (`'n, 4'`).
   */
  readonly shape?: ShapeInput;
  /** Default `'auto'`: placed where it is written and read (private unless written across local ids). */
  readonly addressSpace?: AddressSpace | 'auto';
  /** Row-major values it holds before the kernel runs; needs `readOnly` (loopy's rule). */
  readonly initializer?: ArrayLike<number>;
  /** No instruction writes it (loopy's `read_only`); required with an initializer. */
  readonly readOnly?: boolean;
  /** Temporaries with the same base storage share one piece of memory (they must not be live at once). */
  readonly baseStorage?: string;
  /** Row-major (`'C'`, the default) or column-major (`'F'`) layout; an initializer is given row-major either way. */
  readonly order?: 'C' | 'F';
  /** Accessed atomically (loopy's `for_atomic`): declared as the target's atomic type, read with atomic loads. */
  readonly forAtomic?: boolean;
}

const KEYS = optionKeys<Omit<TemporarySpec, 'kind' | 'name'>>()([
  'dtype',
  'shape',
  'addressSpace',
  'initializer',
  'readOnly',
  'baseStorage',
  'order',
  'forAtomic',
]);

/** A temporary variable for `makeKernel`'s argument list (loopy's `TemporaryVariable`). */
export function temporaryVariable(name: string, spec: Omit<TemporarySpec, 'kind' | 'name'> = {}): TemporarySpec {
  checkOptionKeys(`temporaryVariable '${name}'`, spec, KEYS);
  return { ...spec, kind: 'temporary', name };
}

export function isTemporarySpec(x: unknown): x is TemporarySpec {
  return typeof x === 'object' && x !== null && (x as { kind?: unknown }).kind === 'temporary';
}

/** The declared temporary, checked; `shape` undefined: to be inferred from the accesses. */
export function declaredTemporary(spec: TemporarySpec): TemporaryVariable & { readonly shapeGiven: boolean } {
  const what = `temporaryVariable '${spec.name}'`;
  checkName(spec.name, `${what}: its name`);
  if (spec.dtype !== undefined && !isDType(spec.dtype)) throw new LoomError(`${what}: unknown dtype '${spec.dtype}'`);
  const space = spec.addressSpace ?? 'auto';
  if (!['auto', 'private', 'local', 'global'].includes(space))
    throw new LoomError(`${what}: address space must be 'auto', 'private', 'local' or 'global', not '${space}'`);
  const given = normalizeShape(spec.shape, spec.name);
  const shape = (given === 'auto' ? undefined : given)?.map((s) => {
    if (typeof s === 'number' && (!Number.isInteger(s) || s < 0))
      throw new LoomError(`${what}: shape entries must be non-negative integers or expressions, got ${s}`);
    return parseExpression(String(s));
  });
  const base = {
    name: spec.name,
    addressSpace: space,
    ...(spec.readOnly ? { readOnly: true } : {}),
    ...(spec.forAtomic ? { forAtomic: true } : {}),
  };
  if (spec.forAtomic !== undefined && typeof spec.forAtomic !== 'boolean')
    throw new LoomError(`${what}: forAtomic must be true or false, not ${String(spec.forAtomic)}`);
  if (spec.forAtomic && spec.initializer !== undefined)
    throw new LoomError(`${what}: a read-only table with an initializer is never accessed atomically (forAtomic)`);
  if (spec.order !== undefined && spec.order !== 'C' && spec.order !== 'F')
    throw new LoomError(`${what}: order must be 'C' or 'F', not '${String(spec.order)}'`);
  if (spec.initializer === undefined) {
    if (spec.order === 'F' && shape === undefined)
      throw new LoomError(`${what}: a column-major ('F') temporary needs its shape given`);
    return {
      ...base,
      dtype: spec.dtype,
      shape: shape ?? [],
      ...layout(spec, shape?.length ?? 0),
      shapeGiven: shape !== undefined,
    };
  }

  if (!spec.readOnly)
    throw new LoomError(`${what}: a temporary with an initializer must be read-only (readOnly: true), as in loopy`);
  if (spec.baseStorage !== undefined)
    throw new LoomError(`${what}: an initializer and a base storage exclude each other`);
  if (space === 'local')
    throw new LoomError(`${what}: local memory cannot be initialized before a kernel runs; make it private or global`);
  const fromArray = dtypeOfHostArray(spec.initializer);
  if (spec.dtype !== undefined && fromArray !== undefined && fromArray !== spec.dtype) {
    throw new LoomError(
      `${what}: the initializer is a ${spec.initializer.constructor.name} (${fromArray}), but the dtype is ${spec.dtype}`,
    );
  }
  const dtype = spec.dtype ?? fromArray;
  if (dtype === undefined)
    throw new LoomError(`${what}: give the dtype of its initializer (a plain array of numbers has none)`);
  if (isComplex(dtype)) throw new LoomError(`${what}: complex initializers are not supported`);
  const values = Array.from(spec.initializer, Number);
  // a table of nothing has nothing to read (and C and WGSL have no arrays of no elements)
  if (values.length === 0)
    throw new LoomError(`${what}: the initializer is empty; a constant table needs at least one value`);
  checkTableValues(what, dtype, values);
  const dims = shape ?? [parseExpression(String(values.length))];
  const sizes = dims.map((d) => {
    if (d.kind !== 'int') throw new LoomError(`${what}: an initialized temporary needs a constant shape`);
    return d.value;
  });
  const count = sizes.reduce((x, y) => x * y, 1);
  if (count !== values.length)
    throw new LoomError(
      `${what}: the shape (${sizes.join(', ')}) holds ${count} values, the initializer ${values.length}`,
    );
  return { ...base, dtype, shape: dims, ...layout(spec, dims.length), initializer: values, shapeGiven: true };
}

/** Column-major: the first axis moves fastest (nesting level 0), as loopy's order="F". */
function layout(spec: TemporarySpec, rank: number): Pick<TemporaryVariable, 'dimTags'> {
  return spec.order === 'F'
    ? { dimTags: Array.from({ length: rank }, (_, level) => ({ kind: 'nested' as const, level })) }
    : {};
}

/** Temporaries that name the same base storage share it (aliasTemporaries, unsynchronized as in loopy). */
export function applyBaseStorage(knl: LoopKernel, specs: readonly TemporarySpec[]): LoopKernel {
  const groups = new Map<string, string[]>();
  for (const s of specs)
    if (s.baseStorage !== undefined) groups.set(s.baseStorage, [...(groups.get(s.baseStorage) ?? []), s.name]);
  for (const [base, names] of groups) {
    checkName(base, `temporaryVariable '${names[0]}': its base storage`);
    if (knl.temporaries.has(base) || knl.args.some((a) => a.name === base) || knl.inames.includes(base)) {
      throw new LoomError(
        `temporaryVariable '${names[0]}': the base storage '${base}' has the name of another variable`,
      );
    }
    // one temporary alone keeps its own storage: nothing shares it
    if (names.length > 1)
      knl = aliasTemporaries(knl, names, { baseNamePrefix: base, synchronizeForExclusiveUse: false });
  }
  return knl;
}
