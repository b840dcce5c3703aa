/**
 * `assignmentToSubst(knl, 'tmp1')`: the value an instruction assigns to `tmp1` becomes a
 * substitution rule `tmp1_subst(i) := ...` (the assignee's indices its parameters), and the
 * reads of `tmp1` call the rule instead (loopy's assignment_to_subst). Each read uses the
 * assignment it depends on; when every read was replaced, the assignment and the temporary
 * go (an argument stays with `forceRetainArgument`).
 *
 * The value is then computed where it is read: the same value only when the reader runs in
 * the same iteration of the loops the value names, which is checked.
 */
import { checkOptionKeys, optionKeys } from '../option-keys.ts';
import { nameList } from '../names.ts';
import { LoomError } from '../errors.ts';
import { call, variable, type Expr } from '../expr/nodes.ts';
import { freeVariables, mapExpr } from '../expr/index.ts';
import { namesWritten, namesRead } from '../kernel/accesses.ts';
import type { Instruction, LoopKernel, SubstitutionRule } from '../kernel/model.ts';
import { instructionsWithin, type Within } from './match.ts';
import { removeInstructions } from './instructions.ts';
import { removeUnusedInames } from './remove-unused-inames.ts';
import { uniqueName } from '../kernel/rename.ts';
import { mapKernelExpressions } from '../kernel/rewrite-expressions.ts';

/** The options assignmentToSubst reads; any other key is an error. */
const ASSIGNMENT_TO_SUBST_OPTIONS = optionKeys<AssignmentToSubstOptions>()([
  'extraArguments',
  'forceRetainArgument',
  'within',
]);

/** Options of `assignmentToSubst`. */
export interface AssignmentToSubstOptions {
  /** Inames the rule takes as extra parameters (after the indices), a list or comma-separated. */
  readonly extraArguments?: string | readonly string[];
  /** Only the reads in these instructions (a match expression) call the rule. */
  readonly within?: Within;
  /** Keep an argument even when nothing reads it any more. */
  readonly forceRetainArgument?: boolean;
}

/** Turns the assignments to a temporary into a substitution rule inlined at its uses (loopy's `assignment_to_subst`). */
export function assignmentToSubst(
  knl: LoopKernel,
  lhsName: string,
  options: AssignmentToSubstOptions = {},
): LoopKernel {
  checkOptionKeys('assignmentToSubst', options, ASSIGNMENT_TO_SUBST_OPTIONS);
  const extra = nameList(options.extraArguments ?? []);
  const writers = new Set(knl.instructions.filter((i) => namesWritten(i).includes(lhsName)).map((i) => i.id));
  if (writers.size === 0) throw new LoomError(`assignmentToSubst: no assignment to '${lhsName}' found`);
  const byId = new Map(knl.instructions.map((i) => [i.id, i]));
  const chosen = instructionsWithin(
    knl,
    options.within,
    'assignmentToSubst: option within',
    options.within !== undefined,
  );
  const readers = knl.instructions.filter((i) => !writers.has(i.id) && namesRead(i, knl.substitutions).has(lhsName));

  // the assignment each reader reads, and the rule standing for it
  const definitionOf = new Map<string, string>();
  for (const r of readers) definitionOf.set(r.id, definition(byId, writers, lhsName, r.id));
  const taken = new Set([
    ...knl.substitutions.keys(),
    ...knl.args.map((a) => a.name),
    ...knl.temporaries.keys(),
    ...knl.inames,
  ]);
  const ruleOf = new Map<string, SubstitutionRule>();
  const replaced = readers.filter((r) => chosen.has(r.id));
  for (const r of replaced) {
    const def = definitionOf.get(r.id)!;
    if (!ruleOf.has(def)) {
      const name = uniqueName(`${lhsName}_subst`, taken);
      taken.add(name);
      ruleOf.set(def, ruleFor(byId.get(def)!, name, extra));
    }
    checkSameIteration(byId.get(def)!, ruleOf.get(def)!, r);
  }

  const calls = (e: Expr, insn?: Instruction) => {
    const def = insn && chosen.has(insn.id) ? definitionOf.get(insn.id) : undefined;
    if (def === undefined) return e;
    const rule = ruleOf.get(def)!;
    return mapExpr(e, (x) => {
      if (x.kind === 'var' && x.name === lhsName)
        return call(
          rule.name,
          extra.map((n) => variable(n)),
        );
      if (x.kind === 'subscript' && x.array === lhsName)
        return call(rule.name, [...x.indices, ...extra.map((n) => variable(n))]);
      return x;
    });
  };
  const within = new Set(replaced.map((r) => r.id));
  let result = mapKernelExpressions(knl, calls, { what: 'assignmentToSubst', within, rules: 'keep' });
  const substitutions = new Map(result.substitutions);
  for (const rule of ruleOf.values()) substitutions.set(rule.name, rule);
  result = result.with({ substitutions });

  // assignments no remaining reader reads go, and with all of them the variable
  const stillRead = new Set(readers.filter((r) => !chosen.has(r.id)).map((r) => definitionOf.get(r.id)!));
  const unread = [...writers].filter((w) => !stillRead.has(w) && (ruleOf.has(w) || readers.length === 0));
  if (unread.length === 0) return result;
  const inames = unread.flatMap((w) => byId.get(w)!.withinInames);
  result = removeInstructions(
    result,
    unread.map((w) => `id:${w}`),
  );
  if (stillRead.size === 0) {
    const temporaries = new Map(result.temporaries);
    temporaries.delete(lhsName);
    const args = options.forceRetainArgument ? result.args : result.args.filter((a) => a.name !== lhsName);
    result = result.with({ temporaries, args });
  }
  return removeUnusedInames(result, [...new Set(inames)]);
}

/**
 * The assignment to `lhs` that instruction `id` reads: the one among its dependencies, or
 * found through the dependencies that do not write `lhs`. None or several is an error.
 */
function definition(
  byId: ReadonlyMap<string, Instruction>,
  writers: ReadonlySet<string>,
  lhs: string,
  id: string,
): string {
  const found = new Set<string>();
  const seen = new Set<string>();
  const visit = (at: string) => {
    for (const d of byId.get(at)?.dependsOn ?? []) {
      if (seen.has(d)) continue;
      seen.add(d);
      if (writers.has(d)) {
        const writer = byId.get(d)!;
        if (namesRead(writer, new Map()).has(lhs)) {
          throw new LoomError(
            `assignmentToSubst: instruction '${d}' both reads and writes '${lhs}'; it cannot become a substitution rule`,
            writer.span,
          );
        }
        found.add(d);
      } else visit(d);
    }
  };
  visit(id);
  if (found.size > 1) {
    throw new LoomError(
      `assignmentToSubst: more than one write to '${lhs}' is found in the dependencies of '${id}' (${[...found].join(', ')}); which one it reads cannot be resolved`,
    );
  }
  if (found.size === 0)
    throw new LoomError(
      `assignmentToSubst: no write to '${lhs}' is found in the dependencies of '${id}'; which one it reads cannot be resolved`,
    );
  return [...found][0];
}

/** The rule an assignment becomes: its indices (plain inames) and the extra arguments are the parameters. */
function ruleFor(def: Instruction, name: string, extra: readonly string[]): SubstitutionRule {
  if (def.kind !== 'assign' || !def.expression)
    throw new LoomError(`assignmentToSubst: '${def.id}' is not an assignment`);
  if (def.predicates.length)
    throw new LoomError(
      `assignmentToSubst: '${def.id}' assigns under a condition; a substitution rule has none`,
      def.span,
    );
  if (def.assignees.length !== 1)
    throw new LoomError(
      `assignmentToSubst: '${def.id}' assigns ${def.assignees.length} results; a substitution rule has one`,
      def.span,
    );
  const target = def.assignees[0];
  const indices = target.kind === 'subscript' ? target.indices : [];
  const params = indices.map((ix) => {
    if (ix.kind !== 'var')
      throw new LoomError(
        `assignmentToSubst: in '${def.id}', the assignee index is not a plain iname; map the domain first (mapDomain)`,
        def.span,
      );
    return ix.name;
  });
  const all = [...params, ...extra];
  if (new Set(all).size !== all.length)
    throw new LoomError(
      `assignmentToSubst: in '${def.id}', an iname is both an index and an extra argument, or twice an index`,
    );
  return { name, params: all, expression: def.expression };
}

/**
 * The rule's value names the loops of its assignment that are not its parameters; a reader
 * computes it in its own iteration of them, so it must run in those same loops.
 */
function checkSameIteration(def: Instruction, rule: SubstitutionRule, reader: Instruction): void {
  const named = [...freeVariables(rule.expression)].filter(
    (n) => def.withinInames.includes(n) && !rule.params.includes(n),
  );
  const outside = named.filter((n) => !reader.withinInames.includes(n));
  if (outside.length) {
    throw new LoomError(
      `assignmentToSubst: '${def.id}' computes its value in the loop(s) '${outside.join("', '")}', which '${reader.id}' is not inside; the rule would name them there`,
      reader.span,
    );
  }
}
