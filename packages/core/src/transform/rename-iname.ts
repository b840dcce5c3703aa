/**
 * `renameIname(knl, 'i', 'row')`: the iname `i` is called `row` from now on, in the
 * domains (as a loop variable, and as a parameter of the domains nested in it), in
 * every instruction (its loops, indices, conditions, reductions), in substitution
 * rules, tags, loop priorities and slabs.
 *
 * With `existingOk`, renaming onto an iname that already exists merges the two loops
 * (loopy's `existing_ok`): the instructions of `i` then run in the loop of `row`. That
 * is only the same computation when both loops run over the same values, so the two
 * domains must be identical, and no instruction may use both (it would see them equal).
 */
import { checkOptionKeys, optionKeys } from '../option-keys.ts';
import { LoomError } from '../errors.ts';
import { checkName } from '../names.ts';
import { walkScoped } from '../expr/index.ts';
import { Linear } from '../linear.ts';
import { BasicSet } from '../sets/index.ts';
import { domainOf, homeDomainIndex } from '../kernel/domains.ts';
import { tagToString, type Instruction, type LoopKernel } from '../kernel/model.ts';
import { renameInExpr, uniqueName } from '../kernel/rename.ts';
import { instructionsWithin, type Within } from './match.ts';
import { isolateInames } from './within-inames.ts';
import { mapKernelExpressions } from '../kernel/rewrite-expressions.ts';

/** The options renameIname reads; any other key is an error. */
const RENAME_INAME_OPTIONS = optionKeys<RenameInameOptions>()(['existingOk', 'within']);

/** Options of `renameIname`. */
export interface RenameInameOptions {
  /** When the new name is already an iname over the same domain, merge the two loops. */
  readonly existingOk?: boolean;
  /** Only the instructions this match expression picks move to the new name; the others keep the old one. */
  readonly within?: Within;
}

/** Renames an iname (loopy's `rename_iname`). */
export function renameIname(
  knl: LoopKernel,
  oldName: string,
  newName: string,
  options: RenameInameOptions = {},
): LoopKernel {
  checkOptionKeys('renameIname', options, RENAME_INAME_OPTIONS);
  if (!knl.inames.includes(oldName))
    throw new LoomError(`renameIname: unknown iname '${oldName}' (inames: ${knl.inames.join(', ')})`);
  checkName(newName, 'renameIname: the new name');
  if (options.within !== undefined) {
    const chosen = instructionsWithin(knl, options.within, 'renameIname: option within', true);
    const { kernel, names } = isolateInames(knl, [oldName], chosen);
    return renameIname(kernel, names.get(oldName)!, newName, { existingOk: options.existingOk });
  }
  if (newName === oldName) return knl;
  const clash = nonInameUse(knl, newName);
  if (clash)
    throw new LoomError(`renameIname: cannot rename '${oldName}' to '${newName}': '${newName}' is already ${clash}`);
  if (!knl.inames.includes(newName)) return renameFresh(knl, oldName, newName);
  if (!options.existingOk) {
    throw new LoomError(
      `renameIname: '${newName}' is already an iname; pass { existingOk: true } to merge '${oldName}' into it (their domains must be identical)`,
    );
  }
  return mergeInto(knl, oldName, newName);
}

/** What else `name` is in the kernel (an argument, a temporary, ...), if anything but an iname. */
function nonInameUse(knl: LoopKernel, name: string): string | undefined {
  const inames = new Set(knl.inames);
  const params = [...knl.domains.flatMap((d) => d.params), ...knl.assumptions.params].filter((p) => !inames.has(p));
  if (params.includes(name)) return 'a parameter of the domains';
  if (knl.arg(name)) return 'an argument';
  if (knl.temporaries.has(name)) return 'a temporary';
  if (knl.substitutions.has(name)) return 'a substitution rule';
  return undefined;
}

/** The plain case: a new name nobody uses yet. */
function renameFresh(knl: LoopKernel, oldName: string, newName: string): LoopKernel {
  const renames = new Map([[oldName, newName]]);
  const domains = knl.domains.map((d) =>
    d.dims.includes(oldName) || d.params.includes(oldName) ? d.renameVariable(oldName, newName) : d,
  );
  return renameEverywhereElse(knl.with({ domains }), oldName, newName, renames);
}

/**
 * Merging `oldName` into the existing `newName`. The check compares the two inames'
 * values over the domain they share with everything around them (parents and
 * siblings kept), so a loop whose bounds depend on a sibling (`j <= i`) is not mistaken
 * for one with the same projection.
 */
function mergeInto(knl: LoopKernel, oldName: string, newName: string): LoopKernel {
  for (const insn of knl.instructions) {
    if (seenTogether(insn, oldName, newName)) {
      throw new LoomError(
        `renameIname: instruction '${insn.id}' uses both '${oldName}' and '${newName}'; merging them would make the two equal and change what it computes`,
      );
    }
  }
  const joint = domainOf(knl, [oldName, newName], true);
  // project `newName` out under a spare name, so it cannot linger as an existential
  // variable that would clash with `oldName` renamed
  const spare = uniqueName(`${newName}_merged`, new Set([...joint.params, ...joint.dims, ...joint.existentials]));
  const oldSide = joint.renameVariable(newName, spare).project([spare]).renameVariable(oldName, newName);
  const newSide = joint.project([oldName]);
  if (!sameSet(oldSide, newSide)) {
    throw new LoomError(
      `renameIname: '${oldName}' and '${newName}' do not run over the same values (${oldSide.toString()} vs ${newSide.toString()}); they cannot be merged`,
    );
  }
  const oldTag = knl.inameTags.get(oldName);
  const newTag = knl.inameTags.get(newName);
  if (
    oldTag &&
    newTag &&
    oldTag.kind !== 'for' &&
    newTag.kind !== 'for' &&
    tagToString(oldTag) !== tagToString(newTag)
  ) {
    throw new LoomError(
      `renameIname: '${oldName}' is tagged '${tagToString(oldTag)}' and '${newName}' '${tagToString(newTag)}'; they cannot be merged`,
    );
  }
  const oldSlabs = knl.loopSlabs.get(oldName);
  const newSlabs = knl.loopSlabs.get(newName);
  if (oldSlabs && newSlabs && (oldSlabs[0] !== newSlabs[0] || oldSlabs[1] !== newSlabs[1])) {
    throw new LoomError(`renameIname: '${oldName}' and '${newName}' have different slabs; they cannot be merged`);
  }

  // `oldName` leaves its home domain (its values are those of `newName`, as just checked);
  // domains nested in it now hang off `newName`.
  const home = homeDomainIndex(knl, oldName);
  const domains: BasicSet[] = [];
  knl.domains.forEach((d, k) => {
    if (k === home) {
      // (gist against nothing drops what the projection leaves redundant, like n >= 1 beside 0 <= i < n)
      const rest = d.project([oldName]).gist(BasicSet.universe([], []));
      if (rest.dims.length > 0) domains.push(rest);
      // a domain left without inames constrains nothing any loop uses: the equal
      // domain of `newName` already holds for exactly the same parameter values
      return;
    }
    if (!d.params.includes(oldName)) domains.push(d);
    else if (!d.params.includes(newName) && !d.dims.includes(newName)) domains.push(d.renameVariable(oldName, newName));
    else
      domains.push(
        d
          .addConstraints([{ kind: 'eq', expr: Linear.variable(oldName).sub(Linear.variable(newName)) }])
          .project([oldName])
          .gist(BasicSet.universe([], [])),
      );
  });
  const renames = new Map([[oldName, newName]]);
  return renameEverywhereElse(knl.with({ domains }), oldName, newName, renames);
}

/** Instructions, substitution rules, tags, priorities and slabs: the same for both cases. */
function renameEverywhereElse(
  knl: LoopKernel,
  oldName: string,
  newName: string,
  renames: ReadonlyMap<string, string>,
): LoopKernel {
  const rewritten = mapKernelExpressions(knl, (e) => renameInExpr(e, renames), { what: 'renameIname' });
  const instructions = rewritten.instructions.map((insn) => ({
    ...insn,
    withinInames: [...new Set(insn.withinInames.map((n) => (n === oldName ? newName : n)))],
  }));
  const inameTags = new Map(knl.inameTags);
  const tag = inameTags.get(oldName);
  inameTags.delete(oldName);
  if (tag && (!inameTags.has(newName) || inameTags.get(newName)!.kind === 'for')) inameTags.set(newName, tag);
  const loopPriorities = knl.loopPriorities.map((p) => [...new Set(p.map((n) => (n === oldName ? newName : n)))]);
  const loopSlabs = new Map(knl.loopSlabs);
  const slabs = loopSlabs.get(oldName);
  loopSlabs.delete(oldName);
  if (slabs && !loopSlabs.has(newName)) loopSlabs.set(newName, slabs);
  return rewritten.with({ instructions, inameTags, loopPriorities, loopSlabs });
}

/**
 * Whether the instruction ever has both inames in scope at once, where merging them would
 * make two values one: both its loops, or one used (or reduced over) inside the other's loop
 * or reduction. Two reductions side by side (`sum(a, f(a)) + sum(b, g(b))`) never are, and
 * merge into two reductions over one loop.
 */
function seenTogether(insn: Instruction, a: string, b: string): boolean {
  const within = new Set(insn.withinInames);
  if (within.has(a) && within.has(b)) return true;
  const exprs = [...insn.assignees, insn.expression, ...insn.predicates].filter((e) => e !== undefined);
  let together = false;
  for (const e of exprs) {
    walkScoped(e, (x, bound) => {
      const names = x.kind === 'var' ? [x.name] : x.kind === 'reduce' ? x.inames : [];
      const visible = new Set([...within, ...bound, ...(x.kind === 'reduce' ? x.inames : [])]);
      if ((names.includes(a) && visible.has(b)) || (names.includes(b) && visible.has(a))) together = true;
    });
  }
  return together;
}

/**
 * Set equality: each set's constraints hold on the other. Existential variables (strides,
 * `mod` conditions) are not constraints one can test alone; sets with them are compared
 * by their printed form, which may say "different" for equal sets but never the reverse.
 */
function sameSet(a: BasicSet, b: BasicSet): boolean {
  if (a.existentials.length || b.existentials.length) return a.toString() === b.toString();
  return b.constraints.every((c) => a.implies(c)) && a.constraints.every((c) => b.implies(c));
}
