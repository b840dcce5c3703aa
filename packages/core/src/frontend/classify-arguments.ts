/**
 * What each name a kernel uses is: arrays (subscripted names) become global arguments, other
 * free names value arguments (domain parameters among them), declared arguments keep what
 * they say. The half of `makeKernel` that reads the argument list against the instructions.
 */
import { didYouMean } from '../option-keys.ts';
import type { DType } from '../dtypes.ts';
import { LoomError } from '../errors.ts';
import type { Expr } from '../expr/nodes.ts';
import { freeVariables, parseExpression, walk } from '../expr/index.ts';
import type { BasicSet } from '../sets/index.ts';
import { assigneeName, atomicFetchOf, forEachSubscript, readExpressions } from '../kernel/accesses.ts';
import type { ArgKind, Instruction, KernelArg, SubstitutionRule, TemporaryVariable } from '../kernel/model.ts';
import type { DeclaredArg } from './arg-spellings.ts';

/** A span under the first whole-word occurrence of `word` in the instruction's text. */
export function wordSpan(insn: Instruction, word: string) {
  const span = insn.span!;
  const line = span.text.slice(span.start, span.end);
  const m = new RegExp(`\\b${word.replace(/[^\w]/g, '')}\\b`).exec(line);
  return m ? { text: span.text, start: span.start + m.index, end: span.start + m.index + word.length } : span;
}

/**
 * Decide, for every name the kernel uses, what it is. Arrays (subscripted names)
 * are global arguments; other free names are value arguments (domain parameters
 * among them). Declared arguments keep what they say.
 */
export function classifyArguments(
  insns: readonly Instruction[],
  domains: readonly BasicSet[],
  inames: ReadonlySet<string>,
  temps: ReadonlyMap<string, TemporaryVariable>,
  rules: ReadonlyMap<string, SubstitutionRule>,
  declared: readonly DeclaredArg[],
  inferRest: boolean,
): KernelArg[] {
  const arrays = new Map<string, Instruction>();
  const scalars = new Map<string, Instruction | undefined>();
  const written = new Set<string>();
  const read = new Set<string>();
  /** Names read as values somewhere, not only inside the indices of a subscript. */
  const usedAsValue = new Set<string>();
  for (const insn of insns) {
    // an atomic fetch's array is written too (and returned by run)
    const fetched = atomicFetchOf(insn)?.element;
    for (const a of fetched ? [...insn.assignees, fetched] : insn.assignees) {
      const w = assigneeName(a);
      written.add(w);
      // a written scalar that is not a temporary is a zero-dimensional global array
      if (a.kind === 'subscript' || !temps.has(w)) arrays.set(w, arrays.get(w) ?? insn);
    }
    for (const e of readExpressions(insn, rules)) {
      // `indexof(out[i])` asks where the element lies, not what it holds: no read of `out`
      const located = new Set<Expr>();
      walk(
        e,
        (x) => void (x.kind === 'call' && (x.fn === 'indexof' || x.fn === 'indexof_vec') && located.add(x.args[0])),
      );
      forEachSubscript(e, (s) => {
        if (!located.has(s)) read.add(s.array);
        if (!arrays.has(s.array)) arrays.set(s.array, insn);
      });
      for (const n of freeVariables(e)) {
        read.add(n);
        if (!scalars.has(n)) scalars.set(n, insn);
      }
      walk(e, (x) => {
        if (x.kind === 'var') usedAsValue.add(x.name);
        return x.kind !== 'subscript';
      });
    }
  }
  const parameters = new Set<string>();
  for (const d of domains) for (const p of d.params) parameters.add(p);
  const domainParameters = new Set(parameters);
  for (const spec of declared)
    if (Array.isArray(spec.shape))
      for (const entry of spec.shape.map(parseShapeEntry(spec.name)))
        for (const n of freeVariables(entry)) parameters.add(n);
  for (const d of domains) for (const p of d.params) if (!inames.has(p) && !scalars.has(p)) scalars.set(p, undefined);
  // names in declared shapes (shape: ['m']) are parameters too
  for (const spec of declared) {
    if (!Array.isArray(spec.shape)) continue;
    for (const entry of spec.shape.map(parseShapeEntry(spec.name))) {
      for (const n of freeVariables(entry)) if (!inames.has(n) && !scalars.has(n)) scalars.set(n, undefined);
    }
  }

  const byName = new Map(declared.map((a) => [a.name, a]));
  const result: KernelArg[] = [];
  const seen = new Set<string>();
  const add = (arg: KernelArg) => {
    if (seen.has(arg.name)) return;
    seen.add(arg.name);
    result.push(arg);
  };
  const isArrayName = (n: string) => arrays.has(n) && !temps.has(n);
  // a name read as a variable is one, even where a function has the same name (`sqrt` as a size)
  const isScalarName = (n: string) => !inames.has(n) && !temps.has(n) && !arrays.has(n) && !rules.has(n);

  const unknown = (name: string, insn: Instruction | undefined): never => {
    throw new LoomError(
      `unknown variable '${name}'${insn ? ` in instruction '${insn.id}'` : ''}: it is not an iname, a temporary or a declared argument (add it to the arguments, or add "..." to infer the rest)`,
      insn?.span && wordSpan(insn, name),
    );
  };

  // A name met only in indices (`a[ii]`, a typo for `i`) would become a parameter that only an
  // inferred shape mentions, solved from the array's length when the kernel runs: every
  // index the same, silently. loopy too would take it for an argument; Loom asks.
  const indexOnly = (name: string, insn: Instruction | undefined): never => {
    const guess = didYouMean(name, [...inames]);
    throw new LoomError(
      `'${name}'${insn ? ` in instruction '${insn.id}'` : ''} is used only as an index, and is neither an iname, an argument, a temporary nor a domain parameter${guess ? `; did you mean the iname '${guess}'?` : ` (declare it with valueArg('${name}') if it is a value passed in)`}`,
      insn?.span && wordSpan(insn, name),
    );
  };

  // order: declared arguments first in their order, then the inferred ones by name (as loopy does)
  const inferred = [...new Set([...arrays.keys(), ...scalars.keys()])].filter((n) => !byName.has(n)).sort();
  const order = [...declared.map((a) => a.name), ...inferred];
  for (const name of order) {
    const spec = byName.get(name);
    if (!spec && temps.has(name)) continue;
    if (!spec && !isArrayName(name) && !isScalarName(name)) continue;
    // a domain parameter or a name of a declared shape is an argument even without '...' (as loopy adds them)
    if (!spec && !inferRest && !parameters.has(name)) unknown(name, arrays.get(name) ?? scalars.get(name));
    const kind: ArgKind = spec?.kind ?? (isArrayName(name) ? 'global' : 'value');
    if (!spec && kind === 'value' && !usedAsValue.has(name) && !parameters.has(name))
      indexOnly(name, scalars.get(name));
    if (kind === 'value' && arrays.has(name)) {
      throw new LoomError(`'${name}' is declared as a value argument but is used as an array`, arrays.get(name)!.span);
    }
    if (kind === 'value' && written.has(name)) {
      throw new LoomError(`value argument '${name}' cannot be written by the kernel`);
    }
    // a loop bound is read as a value by every loop: an array there (`n = 15` making `n` an
    // output) would be compared as a pointer. A bound the kernel computes is a temporary (`<> n = ...`)
    if (kind !== 'value' && domainParameters.has(name) && !inames.has(name)) {
      const writer = arrays.get(name);
      throw new LoomError(
        written.has(name)
          ? `'${name}' is a domain parameter (a loop bound), which the kernel cannot write${writer ? ` (instruction '${writer.id}')` : ''}; a bound the kernel computes is a temporary: '<> ${name} = ...'`
          : `'${name}' is a domain parameter (a loop bound), so a value argument, but it is declared or used as an array`,
        writer?.span,
      );
    }
    const shape =
      kind === 'value'
        ? undefined
        : spec?.shape === undefined || spec.shape === null || spec.shape === 'auto'
          ? undefined
          : spec.shape.map(parseShapeEntry(name));
    add({
      name,
      kind,
      dtype: spec?.dtype as DType | undefined, // vector dtypes are element dtypes by now
      shape,
      isInput: spec?.isInput ?? (kind === 'value' || read.has(name)),
      isOutput: spec?.isOutput ?? written.has(name),
      forAtomic: spec?.forAtomic ?? false,
      ...(spec?.struct ? { struct: spec.struct } : {}),
    });
  }
  return result;
}

export function parseShapeEntry(argName: string) {
  return (entry: number | string): Expr => {
    if (typeof entry === 'number') {
      if (!Number.isInteger(entry) || entry < 0)
        throw new LoomError(`argument '${argName}': shape entries must be non-negative integers, got ${entry}`);
      return parseExpression(String(entry));
    }
    return parseExpression(entry);
  };
}
