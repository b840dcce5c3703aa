/** Small transformations that only record a decision: loop priorities, dtypes, options, assumptions. */
import { nameList } from '../names.ts';
import { isDType, type DType } from '../dtypes.ts';
import { LoomError } from '../errors.ts';
import { checkOptionKeys, optionKeys } from '../option-keys.ts';
import { BasicSet } from '../sets/index.ts';
import type { KernelOptions, LoopKernel } from '../kernel/model.ts';

/**
 * `prioritizeLoops(knl, "i,j")`: when the nesting of these loops is not forced by
 * dependencies, nest `i` outside `j`. Advisory: a required nesting wins.
 */
export function prioritizeLoops(knl: LoopKernel, order: string | readonly string[]): LoopKernel {
  const names = nameList(order);
  const known = new Set(knl.inames);
  for (const n of names)
    if (!known.has(n)) throw new LoomError(`prioritizeLoops: unknown iname '${n}' (inames: ${[...known].join(', ')})`);
  if (new Set(names).size !== names.length)
    throw new LoomError(`prioritizeLoops: an iname is listed twice in '${names.join(',')}'`);
  return knl.with({ loopPriorities: [...knl.loopPriorities, names] });
}

/**
 * `addDtypes(knl, { a: 'float32' })`: fix argument (or temporary) dtypes ahead of running. A key may
 * name several, comma-separated, as loopy's do: `addDtypes(knl, { 'a, b': 'float32' })`.
 */
export function addDtypes(knl: LoopKernel, dtypes: Readonly<Record<string, DType>>): LoopKernel {
  if (typeof dtypes !== 'object' || dtypes === null || Array.isArray(dtypes)) {
    throw new LoomError(
      `addDtypes: the dtypes must be an object of names to dtypes ({ 'a, b': 'float32' }), got ${Array.isArray(dtypes) ? 'a list' : String(dtypes)}`,
    );
  }
  let args = knl.args;
  const temporaries = new Map(knl.temporaries);
  // a key may name several variables at once, comma-separated, as loopy's keys do ('a, b')
  const entries = Object.entries(dtypes).flatMap(([key, dtype]) => nameList(key).map((name) => [name, dtype] as const));
  for (const [name, dtype] of entries) {
    if (!isDType(dtype)) throw new LoomError(`addDtypes: unknown dtype '${dtype}' for '${name}'`);
    const arg = knl.arg(name);
    const temp = temporaries.get(name);
    if (arg) {
      if (arg.dtype !== undefined && arg.dtype !== dtype) {
        throw new LoomError(`addDtypes: '${name}' already has dtype ${arg.dtype}, cannot change it to ${dtype}`);
      }
      args = args.map((a) => (a.name === name ? { ...a, dtype } : a));
    } else if (temp) {
      if (temp.dtype !== undefined && temp.dtype !== dtype) {
        throw new LoomError(`addDtypes: temporary '${name}' already has dtype ${temp.dtype}`);
      }
      temporaries.set(name, { ...temp, dtype });
    } else {
      throw new LoomError(
        `addDtypes: the kernel has no argument or temporary '${name}' (arguments: ${knl.args.map((a) => a.name).join(', ')})`,
      );
    }
  }
  return knl.with({ args, temporaries });
}

/** The kernel options setOptions may set; any other key is an error. */
const KERNEL_OPTIONS = optionKeys<KernelOptions>()([
  'writeCode',
  'buildOptions',
  'allowTerminalColors',
  'fusedMultiplyAdd',
  'enforceVariableAccessOrdered',
  'traceAssignments',
  'traceAssignmentValues',
  'minGroupsPerComputeUnit',
  'bulkRelease',
  'warpSpecialized',
]);

/** The kernel with some options changed (loopy's `set_options`). */
export function setOptions(knl: LoopKernel, options: Partial<KernelOptions>): LoopKernel {
  checkOptionKeys('setOptions', options, KERNEL_OPTIONS);
  const groups = options.minGroupsPerComputeUnit;
  if (groups !== undefined && !(Number.isInteger(groups) && groups >= 0))
    throw new LoomError(`setOptions: minGroupsPerComputeUnit must be a whole number (0: no request), got ${groups}`);
  const release = options.bulkRelease;
  if (release !== undefined && !['auto', 'arrivals', 'barriers'].includes(release))
    throw new LoomError(
      `setOptions: bulkRelease must be 'auto', 'arrivals' or 'barriers', got ${JSON.stringify(release)}`,
    );
  if (options.warpSpecialized !== undefined && typeof options.warpSpecialized !== 'boolean')
    throw new LoomError(
      `setOptions: warpSpecialized must be true or false, got ${JSON.stringify(options.warpSpecialized)}`,
    );
  return knl.with({ options: { ...knl.options, ...options } });
}

/**
 * Adds to what the parameters are promised to satisfy: bare conditions, or a set of
 * parameters alone in ISL syntax or as a `BasicSet` (loopy's `assume` takes an isl set too).
 * ```ts
 * knl = assume(knl, 'n mod 16 = 0');
 * knl = assume(knl, '[elemsize, ncomp] -> { : elemsize >= 0 and ncomp >= 0 }');
 * ```
 */
export function assume(knl: LoopKernel, conditions: string | BasicSet): LoopKernel {
  const set =
    conditions instanceof BasicSet
      ? conditions
      : conditions.includes('{')
        ? BasicSet.parse(conditions)
        : BasicSet.parseConditions(conditions);
  if (set.dims.length > 0)
    throw new LoomError(
      `assume: an assumption is about parameters alone, but ${set.toString()} has the variables ${set.dims.join(', ')} (write '[${set.dims.join(', ')}] -> { : ... }')`,
    );
  return knl.with({ assumptions: knl.assumptions.intersect(set) });
}
