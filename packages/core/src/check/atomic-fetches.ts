/**
 * Where an atomic fetch (`old = atomicAdd(counter[0], 1)`, expr/atomic-functions.ts) may stand,
 * and what it may update. The parser refuses a fetch anywhere but as a whole right-hand side, with
 * a caret under it; these checks hold the same for kernels built from nodes and for what
 * transformations make of a kernel (a fetch moved into a rule, an `{atomic}` put on one), and
 * add what only the kernel knows: the element is of an array declared `forAtomic`, in global or
 * local memory, and the old value goes to a private temporary, the one work-item's own.
 *
 * `checkAtomicFetchSupport` asks the target, once temporaries are placed: whether it can spell
 * fetches at all (`Target.atomicFetches`), and of which dtypes.
 */
import { LoomError, type SourceSpan } from '../errors.ts';
import { isComplex, isInteger, type DType } from '../dtypes.ts';
import { walk } from '../expr/visit.ts';
import { printExpr } from '../expr/print.ts';
import type { Expr } from '../expr/nodes.ts';
import { atomicFunction, isAtomicFunction, type AtomicFunctionName } from '../expr/atomic-functions.ts';
import { assigneeName, atomicFetchOf } from '../kernel/accesses.ts';
import type { Instruction, LoopKernel } from '../kernel/model.ts';
import type { Target } from '../codegen/target.ts';
import { targetFacts } from '../codegen/target-facts.ts';
import { wordSpan } from '../frontend/classify-arguments.ts';

/**
 * Every atomic fetch of `knl` stands where it may and updates what it may (see the file's
 * comment); a `LoomError` at the first that does not, with a caret under its name where the
 * instruction has source text.
 */
export function checkAtomicFetches(knl: LoopKernel): void {
  for (const [name, rule] of knl.substitutions) {
    const fetch = firstFetch(rule.expression);
    if (fetch)
      throw new LoomError(
        `substitution rule '${name}' calls ${fetch}(), an atomic fetch, which must be the whole right-hand side of an assignment to a private temporary`,
      );
  }
  for (const insn of knl.instructions) checkInstruction(knl, insn);
}

function checkInstruction(knl: LoopKernel, insn: Instruction): void {
  const fetch = atomicFetchOf(insn);
  const where = (word: string) => wordAt(insn, word);
  // anywhere else: a predicate, an index of the target, inside the value (an operand of the fetch too)
  const elsewhere = [
    ...insn.predicates,
    ...insn.assignees,
    ...(fetch ? fetch.call.args : insn.expression ? [insn.expression] : []),
  ]
    .map(firstFetch)
    .find((f) => f !== undefined);
  if (elsewhere)
    throw new LoomError(
      `instruction '${insn.id}': ${elsewhere}() updates an element atomically and returns its old value: it must be the whole right-hand side of an assignment to a private temporary (as in '<int32> old = ${elsewhere}(counter[0], ...)'); it cannot be part of a larger expression, a condition or an index`,
      where(elsewhere),
    );
  if (!fetch) return;
  const fn = fetch.call.fn;
  if (insn.atomic)
    throw new LoomError(
      `instruction '${insn.id}' is an atomic fetch (${fn}), atomic in itself: it takes no {atomic} attribute, which is for updates written out ('x[i] = x[i] + e {atomic}')`,
      where('atomic'),
    );
  if (fetch.call.args.length !== atomicFunction(fn as AtomicFunctionName).arity)
    throw new LoomError(
      `instruction '${insn.id}': ${fn}() takes ${atomicFunction(fn as AtomicFunctionName).arity} arguments, got ${fetch.call.args.length}`,
      where(fn),
    );
  const { element } = fetch;
  const array = element.array;
  const arg = knl.arg(array);
  const temporary = knl.temporaries.get(array);
  const space = arg ? (arg.kind === 'global' ? 'global' : arg.kind) : temporary?.addressSpace;
  if (!(arg?.forAtomic || temporary?.forAtomic))
    throw new LoomError(
      `instruction '${insn.id}': ${fn}() updates '${array}' atomically, but '${array}' is not declared for atomic access: declare it with forAtomic (globalArg('${array}', { ..., forAtomic: true }), or temporaryVariable('${array}', { ..., forAtomic: true }))`,
      where(array),
    );
  if (space !== 'global' && space !== 'local' && space !== 'auto')
    throw new LoomError(
      `instruction '${insn.id}': ${fn}() updates '${array}', ${arg ? `a ${space} argument` : `a ${space} temporary`}; an atomic fetch updates an element of global or local memory`,
      where(array),
    );
  const elementType = arg?.dtype ?? temporary?.dtype;
  if (elementType !== undefined && (isComplex(elementType) || elementType === 'bool'))
    throw new LoomError(
      `instruction '${insn.id}': ${fn}() updates '${array}' (${elementType}); atomic fetches update integers and real floats`,
      where(array),
    );
  if (element.field)
    throw new LoomError(
      `instruction '${insn.id}': ${fn}() updates the struct field ${printExpr(element)}; an atomic fetch updates a whole element`,
      where(array),
    );
  if (insn.assignees.length !== 1)
    throw new LoomError(
      `instruction '${insn.id}': ${fn}() returns one value, the element's old one, but the instruction assigns ${insn.assignees.length}`,
      insn.span,
    );
  const result = assigneeName(insn.assignees[0]);
  const held = knl.temporaries.get(result);
  if (held === undefined || (held.addressSpace !== 'private' && held.addressSpace !== 'auto'))
    throw new LoomError(
      `instruction '${insn.id}': ${fn}() returns the element's old value to the work-item that updated it, so it goes to a private temporary ('<> ${result} = ${fn}(...)'), not to ${held === undefined ? `the argument '${result}'` : `the ${held.addressSpace} temporary '${result}'`}`,
      where(result),
    );
}

/**
 * What the target spells of the kernel's atomic fetches, once temporaries are placed: a target
 * without fetches refuses one with its reason, and each fetch's dtype is one the target has
 * (compare-exchange compares integers only: floats would compare as bits on some targets and
 * as values on others, which differ for NaN and -0).
 */
export function checkAtomicFetchSupport(knl: LoopKernel, target: Target): void {
  const support = targetFacts(target).atomicFetches;
  for (const insn of knl.instructions) {
    const fetch = atomicFetchOf(insn);
    if (!fetch) continue;
    const fn = fetch.call.fn;
    const at = wordAt(insn, fn);
    if ('refused' in support)
      throw new LoomError(
        `instruction '${insn.id}' makes an atomic fetch (${fn}), which the ${target.name} target cannot: ${support.refused}`,
        at,
      );
    const array = fetch.element.array;
    const dtype: DType | undefined = knl.arg(array)?.dtype ?? knl.temporaries.get(array)?.dtype;
    if (dtype === undefined) continue;
    if (!support.dtypes.includes(dtype))
      throw new LoomError(
        `instruction '${insn.id}': ${fn}() updates '${array}' (${dtype}), but the ${target.name} target's atomic fetches take only ${support.dtypes.join(', ')}`,
        at,
      );
    if (atomicFunction(fn as AtomicFunctionName).op === 'compare-exchange' && !isInteger(dtype))
      throw new LoomError(`instruction '${insn.id}': ${fn}() compares integers only, and '${array}' is ${dtype}`, at);
    const space = knl.temporaries.get(array)?.addressSpace;
    if (space !== undefined && space !== 'global' && space !== 'local')
      throw new LoomError(
        `instruction '${insn.id}': ${fn}() updates '${array}', which was placed in ${space} memory; an atomic fetch updates an element of global or local memory (give '${array}' an address space)`,
        at,
      );
    const result = assigneeName(insn.assignees[0]);
    const resultType = knl.temporaries.get(result)?.dtype;
    if (resultType !== undefined && resultType !== dtype)
      throw new LoomError(
        `instruction '${insn.id}': ${fn}() returns the old value of '${array}', a ${dtype}, but '${result}' is ${resultType}: the old value keeps its dtype (declare '<> ${result}' or '<${dtype}> ${result}')`,
        wordAt(insn, result),
      );
    const resultSpace = knl.temporaries.get(result)?.addressSpace;
    if (resultSpace !== 'private')
      throw new LoomError(
        `instruction '${insn.id}': ${fn}() returns its old value to a private temporary, but '${result}' was placed in ${resultSpace} memory (declare it private)`,
        wordAt(insn, result),
      );
  }
}

/** The name of the first atomic fetch in `e`, if any. */
function firstFetch(e: Expr): string | undefined {
  let found: string | undefined;
  walk(e, (x) => {
    if (found === undefined && x.kind === 'call' && isAtomicFunction(x.fn)) found = x.fn;
  });
  return found;
}

/** Where `word` stands in the instruction's text (none for an instruction built from nodes). */
function wordAt(insn: Instruction, word: string): SourceSpan | undefined {
  return insn.span && wordSpan(insn, word);
}
