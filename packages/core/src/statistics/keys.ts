/**
 * What the statistics count, as loopy describes it: `Op` (an arithmetic operation),
 * `MemAccess` (a load or store), `Sync` (a barrier or a kernel launch). A key names the
 * kind of thing counted; any field may be left out (`undefined`, loopy's None), which is
 * what `groupBy` makes: `new Op({ dtype: 'float32' })` stands for all float32 operations.
 *
 * Keys are immutable values: two keys with the same fields are the same key (`id`).
 */
import type { DType } from '../dtypes.ts';
import { LoomError } from '../errors.ts';
import { parseExpression } from '../expr/index.ts';
import type { Expr } from '../expr/nodes.ts';
import { polynomialOf } from '../expr/polynomial.ts';

/**
 * How often something is counted: once per work-item, once per sub-group (a warp: the
 * work-items that execute an instruction together), or once per work-group.
 */
export type CountGranularity = 'workitem' | 'subgroup' | 'workgroup';
/** The granularities by name, as loopy spells them: `CountGranularity.WORKITEM`... */
export const CountGranularity = Object.freeze({
  WORKITEM: 'workitem',
  SUBGROUP: 'subgroup',
  WORKGROUP: 'workgroup',
} as const);
const GRANULARITIES: readonly string[] = Object.values(CountGranularity);

/**
 * The stride of an access along one local or global id: how far apart in memory (in
 * elements) the elements are that neighbouring work-items along that axis access. A
 * number, a polynomial in the parameters (printed, e.g. `ell * m`), or null where the
 * index is not affine.
 */
export type Stride = number | string | null;
/** Strides of an access, by axis of the local or global grid. */
export type Strides = Readonly<Record<number, Stride>>;
/** Strides as given to a key: numbers, expressions (`'m*65'`), or parsed expressions. */
export type StridesInput = Readonly<Record<number, number | string | Expr | null>>;

/** What every key of a count map is. */
export interface CountKey {
  /** Equal for equal keys. */
  readonly id: string;
  /** loopy's repr of the key, as `ToCountMap.toString` and error messages print it. */
  toString(): string;
}

/** What an `Op` key says: the operation's dtype, name and count granularity. */
export interface OpFields {
  /** The dtype the operation is done in. */
  readonly dtype?: DType | undefined;
  /** `add` (also for subtraction), `mul`, `div` (also `//` and `%`), `pow`, `shift`, `bw`, `func:NAME`. */
  readonly name?: string | undefined;
  /** Whether the count is per work-item, per sub-group or per work-group (loopy's `CountGranularity`). */
  readonly countGranularity?: CountGranularity | undefined;
  /** The kernel's name (loopy's `kernel_name`). */
  readonly kernelName?: string | undefined;
}

/** An arithmetic operation. */
export class Op implements CountKey, OpFields {
  /** The fields of an `Op` key, in the order loopy prints them. */
  static readonly fields = ['dtype', 'name', 'countGranularity', 'kernelName'] as const;
  /** The dtype the operation is done in. */
  readonly dtype: DType | undefined;
  readonly name: string | undefined;
  /** Whether the count is per work-item, per sub-group or per work-group (loopy's `CountGranularity`). */
  readonly countGranularity: CountGranularity | undefined;
  /** The kernel's name (loopy's `kernel_name`). */
  readonly kernelName: string | undefined;
  readonly id: string;

  constructor(fields: OpFields = {}) {
    this.dtype = fields.dtype;
    this.name = fields.name;
    this.countGranularity = checkGranularity('Op', fields.countGranularity);
    this.kernelName = fields.kernelName;
    this.id = keyId(this, Op.fields);
    Object.freeze(this);
  }

  /** loopy's repr: `Op(float32, add, subgroup, "stats_knl")`. */
  toString(): string {
    const head = `Op(${show(this.dtype)}, ${show(this.name)}, ${show(this.countGranularity)}`;
    return this.kernelName === undefined ? `${head})` : `${head}, "${this.kernelName}")`;
  }
}

/** What a `MemAccess` key says: the memory space, dtype, strides, direction and variable. */
export interface MemAccessFields {
  /** `global` or `local` memory. */
  readonly mtype?: 'global' | 'local' | undefined;
  /** The dtype of the element accessed. */
  readonly dtype?: DType | undefined;
  /** Per local id axis, the stride of the access; axes whose iname the index does not use are absent. */
  readonly lidStrides?: StridesInput | undefined;
  /** Per group id axis, likewise. */
  readonly gidStrides?: StridesInput | undefined;
  /** Whether the access reads (`load`) or writes (`store`). */
  readonly direction?: 'load' | 'store' | undefined;
  /** The array accessed. */
  readonly variable?: string | undefined;
  /** Loom's variables carry no tags; kept for loopy's shape of the key. */
  readonly variableTags?: readonly string[] | undefined;
  /** Whether the count is per work-item, per sub-group or per work-group (loopy's `CountGranularity`). */
  readonly countGranularity?: CountGranularity | undefined;
  /** The kernel's name (loopy's `kernel_name`). */
  readonly kernelName?: string | undefined;
}

/** A kind of memory access. */
export class MemAccess implements CountKey {
  /** The fields of a `MemAccess` key, in the order loopy prints them. */
  static readonly fields = [
    'mtype',
    'dtype',
    'lidStrides',
    'gidStrides',
    'direction',
    'variable',
    'variableTags',
    'countGranularity',
    'kernelName',
  ] as const;
  /** `global` or `local` memory. */
  readonly mtype: 'global' | 'local' | undefined;
  /** The dtype of the element accessed. */
  readonly dtype: DType | undefined;
  /** Per local id axis, the stride of the access (normalized: polynomials in the parameters as text). */
  readonly lidStrides: Strides | undefined;
  /** Per group id axis, likewise. */
  readonly gidStrides: Strides | undefined;
  /** Whether the access reads (`load`) or writes (`store`). */
  readonly direction: 'load' | 'store' | undefined;
  /** The array accessed. */
  readonly variable: string | undefined;
  /** Always empty (Loom's variables carry no tags); kept for loopy's shape of the key. */
  readonly variableTags: readonly string[];
  /** Whether the count is per work-item, per sub-group or per work-group (loopy's `CountGranularity`). */
  readonly countGranularity: CountGranularity | undefined;
  /** The kernel's name (loopy's `kernel_name`). */
  readonly kernelName: string | undefined;
  readonly id: string;

  constructor(fields: MemAccessFields = {}) {
    this.mtype = fields.mtype;
    this.dtype = fields.dtype;
    this.lidStrides = fields.lidStrides && normalizeStrides(fields.lidStrides);
    this.gidStrides = fields.gidStrides && normalizeStrides(fields.gidStrides);
    this.direction = fields.direction;
    this.variable = fields.variable;
    this.variableTags = Object.freeze([...(fields.variableTags ?? [])].sort());
    this.countGranularity = checkGranularity('MemAccess', fields.countGranularity);
    this.kernelName = fields.kernelName;
    this.id = keyId(this, MemAccess.fields);
    Object.freeze(this);
  }

  /** loopy's repr: `MemAccess(global, float32, {0: 1, 1: 128}, {}, load, a, None, workitem, 'stats_knl')`. */
  toString(): string {
    const tags = this.variableTags.length === 0 ? 'None' : `{${this.variableTags.join(', ')}}`;
    const kernel = this.kernelName === undefined ? 'None' : `'${this.kernelName}'`;
    return `MemAccess(${[show(this.mtype), show(this.dtype), showStrides(this.lidStrides), showStrides(this.gidStrides), show(this.direction), show(this.variable), tags, show(this.countGranularity), kernel].join(', ')})`;
  }
}

/** What a `Sync` key says: the kind of synchronization. */
export interface SyncFields {
  /** `barrier_local`, `barrier_global` or `kernel_launch`. */
  readonly kind?: string | undefined;
  /** The kernel's name (loopy's `kernel_name`). */
  readonly kernelName?: string | undefined;
}

/** A synchronization event. */
export class Sync implements CountKey {
  /** The fields of a `Sync` key, in the order loopy prints them. */
  static readonly fields = ['kind', 'kernelName'] as const;
  /** `barrier_local`, `barrier_global` or `kernel_launch`. */
  readonly kind: string | undefined;
  /** The kernel's name (loopy's `kernel_name`). */
  readonly kernelName: string | undefined;
  readonly id: string;

  constructor(fields: SyncFields = {}) {
    this.kind = fields.kind;
    this.kernelName = fields.kernelName;
    this.id = keyId(this, Sync.fields);
    Object.freeze(this);
  }

  /** loopy's repr: `Sync(kernel_launch, stats_knl)`. */
  toString(): string {
    return `Sync(${show(this.kind)}, ${show(this.kernelName)})`;
  }
}

/** The comparable form of a field's value: what `id`, `filterBy` and `groupBy` compare. */
export function canonicalField(field: string, value: unknown): string {
  if (value === undefined) return 'None';
  if ((field === 'lidStrides' || field === 'gidStrides') && typeof value === 'object' && value !== null) {
    return showStrides(normalizeStrides(value as StridesInput));
  }
  if (field === 'variableTags' && Array.isArray(value)) return JSON.stringify([...value].sort());
  return JSON.stringify(value);
}

function keyId(key: object, fields: readonly string[]): string {
  return fields.map((f) => canonicalField(f, (key as Record<string, unknown>)[f])).join('|');
}

function checkGranularity(what: string, g: CountGranularity | undefined): CountGranularity | undefined {
  if (g !== undefined && !GRANULARITIES.includes(g)) {
    throw new LoomError(`${what}: count granularity '${String(g)}' is not one of ${GRANULARITIES.join(', ')}`);
  }
  return g;
}

function normalizeStrides(input: StridesInput): Strides {
  const out: Record<number, Stride> = {};
  for (const axis of Object.keys(input)
    .map(Number)
    .sort((a, b) => a - b))
    out[axis] = normalizeStride(input[axis]!);
  return Object.freeze(out);
}

/** A stride as a number when constant, else its polynomial's text (so `m*65` and `65*m` are one stride). */
export function normalizeStride(s: number | string | Expr | null): Stride {
  if (s === null || typeof s === 'number') return s;
  // the text this returns is isl's, powers written `n^2`: read back (a key rebuilt from its
  // fields, by filterBy or groupBy) it must give the same stride, so `^` is read as a power here
  const expr = typeof s === 'string' ? parseExpression(s.replace(/\^/g, '**')) : s;
  const p = polynomialOf(expr);
  if (!p)
    throw new LoomError(
      `a stride must be a polynomial in the parameters, not '${typeof s === 'string' ? s : 'this expression'}'`,
    );
  const c = p.constantValue;
  return c !== undefined && c.isInteger ? Number(c.num) : p.toString();
}

function show(v: unknown): string {
  return v === undefined ? 'None' : String(v);
}

function showStrides(s: Strides | undefined): string {
  if (s === undefined) return 'None';
  return `{${Object.keys(s)
    .map((axis) => `${axis}: ${s[Number(axis)] === null ? 'None' : s[Number(axis)]}`)
    .join(', ')}}`;
}
