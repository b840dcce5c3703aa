/**
 * `duplicateInames`: give some instructions their own copy of an iname, with the
 * same bounds, so that they get a loop of their own (the tutorial's transpose fix).
 */
import { checkOptionKeys, optionKeys } from '../option-keys.ts';
import { LoomError } from '../errors.ts';
import { checkName, nameList } from '../names.ts';
import type { LoopKernel } from '../kernel/model.ts';
import type { BasicSet } from '../sets/index.ts';
import { homeDomainIndex, parentInames } from '../kernel/domains.ts';
import { assigneeName, namesRead, reductionInames } from '../kernel/accesses.ts';
import { freeVariables } from '../expr/index.ts';
import { instructionsWithin, type Within } from './match.ts';
import { renameInExpr, uniqueName } from '../kernel/rename.ts';
import { tagInames, type TagSpec } from './tag-inames.ts';
import { mapKernelExpressions } from '../kernel/rewrite-expressions.ts';

/** The options duplicateInames reads; any other key is an error. */
const DUPLICATE_INAMES_OPTIONS = optionKeys<DuplicateInamesOptions>()([
  'newInames',
  'newNames',
  'suffix',
  'tags',
  'within',
]);

/** Options of `duplicateInames`. */
export interface DuplicateInamesOptions {
  /** Which instructions get the copies: a match expression (see match.ts); default: every instruction. */
  readonly within?: Within;
  /** New names, one per iname (undefined entries are chosen automatically); a string is comma-separated. */
  readonly newInames?: string | readonly (string | undefined)[];
  /**
   * The same as `newInames` (Loom's earlier name for it).
   * @deprecated use `newInames`.
   */
  readonly newNames?: readonly (string | undefined)[];
  /** Automatic names are the iname with this suffix (made unique): `{ suffix: '_copy' }` gives `i_copy`. */
  readonly suffix?: string;
  /** Tags for the copies, by the name of the iname they copy: `{ i: 'l.0' }`. */
  readonly tags?: Readonly<Record<string, TagSpec>>;
}

/** Gives some instructions their own copy of inames (loopy's `duplicate_inames`). */
export function duplicateInames(
  knl: LoopKernel,
  inames: string | readonly string[],
  options: DuplicateInamesOptions = {},
): LoopKernel {
  return duplicate(knl, inames, options, true);
}

/**
 * makeKernel's `{dup=i}`: the instruction is written with a loop of its own, so parting a
 * temporary's writer from its readers is what the author asked for (loopy's
 * `test_unsigned_types_to_mod`: `<> c = b[i] {dup=i}` runs over its own `i` before
 * `a[i] = i % c` reads the last value), not a change of meaning as on an existing kernel.
 */
export function duplicateInamesAsWritten(
  knl: LoopKernel,
  inames: readonly string[],
  options: DuplicateInamesOptions,
): LoopKernel {
  return duplicate(knl, inames, options, false);
}

function duplicate(
  knl: LoopKernel,
  inames: string | readonly string[],
  options: DuplicateInamesOptions,
  keepWriters: boolean,
): LoopKernel {
  checkOptionKeys('duplicateInames', options, DUPLICATE_INAMES_OPTIONS);
  const list = nameList(inames);
  if (options.newInames !== undefined && options.newNames !== undefined)
    throw new LoomError('duplicateInames: give newInames or newNames (the same option), not both');
  const given =
    typeof options.newInames === 'string'
      ? options.newInames.split(',').map((s) => s.trim())
      : (options.newInames ?? options.newNames);
  if (given !== undefined && given.length !== list.length) {
    throw new LoomError(`duplicateInames: ${given.length} new name(s) for ${list.length} iname(s); give one per iname`);
  }
  for (const old of Object.keys(options.tags ?? {})) {
    if (!list.includes(old))
      throw new LoomError(
        `duplicateInames: option tags names '${old}', which is not among the inames duplicated (${list.join(', ')})`,
      );
  }
  const chosen = instructionsWithin(knl, options.within, 'duplicateInames: option within', true);
  const taken = new Set([...knl.inames, ...knl.args.map((a) => a.name), ...knl.temporaries.keys()]);
  const renames = new Map<string, string>();
  const domains = [...knl.domains];
  const copies: number[] = [];
  list.forEach((iname, k) => {
    if (!knl.inames.includes(iname)) throw new LoomError(`duplicateInames: unknown iname '${iname}'`);
    const wanted = given?.[k];
    const base =
      options.suffix === undefined ? iname : checkName(`${iname}${options.suffix}`, 'duplicateInames: option suffix');
    const copyName =
      wanted === undefined
        ? uniqueName(base, taken)
        : checkName(wanted, `duplicateInames: option ${options.newNames ? 'newNames' : 'newInames'}`);
    if (taken.has(copyName)) throw new LoomError(`duplicateInames: the name '${copyName}' is already used`);
    taken.add(copyName);
    renames.set(iname, copyName);
  });
  // inames of one domain are copied together, so their copies keep the constraints between them
  for (const home of new Set(list.map((n) => homeDomainIndex(knl, n)))) {
    const group = list.filter((n) => homeDomainIndex(knl, n) === home);
    domains.push(
      copyInameDomain(
        knl,
        group,
        group.map((n) => renames.get(n)!),
      ),
    );
    copies.push(domains.length - 1);
  }
  // a copy bounded by another duplicated iname (j <= i, both duplicated) is bounded by that one's copy
  for (const c of copies) {
    for (const [old, copy] of renames)
      if (domains[c].params.includes(old)) domains[c] = domains[c].renameVariable(old, copy);
  }
  for (const insn of knl.instructions) if (chosen.has(insn.id)) checkNoDependentLoop(knl, insn, renames);
  if (keepWriters) checkTemporariesKeepTheirWriters(knl, chosen, renames);
  // rules called by the chosen instructions use the copies too (see mapKernelExpressions)
  const rewritten = mapKernelExpressions(knl.with({ domains }), (e) => renameInExpr(e, renames), {
    what: 'duplicateInames',
    within: chosen,
  });
  const instructions = rewritten.instructions.map((insn) =>
    chosen.has(insn.id) ? { ...insn, withinInames: insn.withinInames.map((n) => renames.get(n) ?? n) } : insn,
  );
  const result = rewritten.with({ instructions });
  const tags = Object.entries(options.tags ?? {}).map(([old, tag]) => [renames.get(old)!, tag] as const);
  return tags.length ? tagInames(result, tags) : result;
}

/**
 * A domain for `copies` of `inames` (all of one domain): their values. Their siblings in
 * that domain become parameters of the copy's where they bound them, so a copy of `j` in
 * `0 <= j <= i` stays bounded by `i`; siblings that do not bound them are left out.
 */
export function copyInameDomain(knl: LoopKernel, inames: readonly string[], copies: readonly string[]): BasicSet {
  const home = knl.domains[homeDomainIndex(knl, inames[0])];
  // the siblings tied to the copied inames by a constraint, directly or through other siblings
  const tied = new Set(inames);
  for (let grew = true; grew; ) {
    grew = false;
    for (const c of home.constraints) {
      const vars = c.expr.variables.filter((v) => home.dims.includes(v));
      if (vars.some((v) => tied.has(v)) && vars.some((v) => !tied.has(v))) {
        vars.forEach((v) => tied.add(v));
        grew = true;
      }
    }
  }
  const untied = home.dims.filter((d) => !tied.has(d));
  const siblings = home.dims.filter((d) => tied.has(d) && !inames.includes(d));
  const own = (untied.length ? home.project(untied) : home).moveDimsToParams(siblings);
  return inames.reduce((d, n, k) => d.renameVariable(n, copies[k]), own);
}

/**
 * An instruction that gets the copy of `i` must not keep a loop whose bounds depend on
 * `i` (`{ [j]: 0 <= j <= i }`): that loop would still be bounded by the old `i`, which
 * the instruction no longer runs in, and would silently run over the wrong values.
 * Duplicating the dependent iname as well gives both copies.
 */
function checkNoDependentLoop(
  knl: LoopKernel,
  insn: LoopKernel['instructions'][number],
  renames: ReadonlyMap<string, string>,
): void {
  const kept = [...insn.withinInames, ...reductionInames(insn, knl.substitutions)].filter((x) => !renames.has(x));
  for (const x of kept) {
    // the inames x's bounds depend on, directly or through other inames
    const ancestors = new Set<string>();
    const pending = [x];
    while (pending.length)
      for (const p of parentInames(knl, pending.pop()!)) if (!ancestors.has(p)) ancestors.add(p), pending.push(p);
    const old = [...renames.keys()].find((r) => ancestors.has(r));
    if (old !== undefined) {
      throw new LoomError(
        `duplicateInames: the bounds of '${x}' (used by instruction '${insn.id}') depend on '${old}'; ` +
          `duplicating '${old}' alone would leave them on the old loop: duplicate '${x}' with it`,
      );
    }
  }
}

/**
 * The names the bounds of `insn`'s loops and reductions read: `start` for a loop over
 * `{[s]: start<=s<stop}` (a temporary bounding a loop is read by it, in each iteration of
 * the loops around it).
 */
function boundsRead(knl: LoopKernel, insn: LoopKernel['instructions'][number]): Set<string> {
  const out = new Set<string>();
  for (const n of [...insn.withinInames, ...reductionInames(insn, knl.substitutions)]) {
    const home = homeDomainIndex(knl, n);
    if (home !== undefined) for (const p of knl.domains[home].params) out.add(p);
  }
  return out;
}

/**
 * A temporary written and read in the same iteration of `i` (`<> t = a[i]`, then
 * `out[i] = t`) must stay so: giving only one side the copy of `i` runs the writer over the
 * whole loop before the reader, or after it, and every reader sees one value (the last).
 * A temporary indexed by `i` keeps every iteration's value apart, so it may be parted.
 */
function checkTemporariesKeepTheirWriters(
  knl: LoopKernel,
  chosen: ReadonlySet<string>,
  renames: ReadonlyMap<string, string>,
): void {
  for (const writer of knl.instructions)
    for (const target of writer.assignees) {
      const temporary = assigneeName(target);
      if (!knl.temporaries.has(temporary)) continue;
      for (const old of renames.keys()) {
        if (!writer.withinInames.includes(old)) continue;
        if (target.kind === 'subscript' && target.indices.some((ix) => freeVariables(ix).has(old))) continue;
        const parted = knl.instructions.find(
          (reader) =>
            reader.id !== writer.id &&
            reader.withinInames.includes(old) &&
            chosen.has(reader.id) !== chosen.has(writer.id) &&
            (namesRead(reader, knl.substitutions).has(temporary) || boundsRead(knl, reader).has(temporary)),
        );
        if (parted === undefined) continue;
        const [copied, kept] = chosen.has(writer.id) ? [writer, parted] : [parted, writer];
        throw new LoomError(
          `duplicateInames: instruction '${writer.id}' writes the temporary '${temporary}' and '${parted.id}' reads it in the same iteration of '${old}'; ` +
            `giving '${copied.id}' a copy of '${old}' without '${kept.id}' would leave every read with one value: duplicate '${old}' within both, or index '${temporary}' by '${old}'`,
        );
      }
    }
}
