/**
 * Reductions become loops: `out[i] = sum(k, e)` turns into
 *
 *   acc = 0                  {id=out_init}      within i
 *   acc = acc + e            {id=out_update}    within i, k
 *   out[i] = acc             (the original)     within i
 *
 * with a private accumulator per reduction. Done before linearization, after types
 * are known (the neutral element depends on the dtype).
 */
import { isFloat, type DType } from '../dtypes.ts';
import { binary, call, float, int, variable, type Expr, type Reduce } from '../expr/nodes.ts';
import { mapChildren } from '../expr/index.ts';
import { expandSubstitutions } from '../kernel/accesses.ts';
import { isParallelTag, tagToString, type Instruction, type LoopKernel, type TemporaryVariable } from '../kernel/model.ts';
import { LoomError } from '../errors.ts';
import { exprType, INDEX_DTYPE } from '../kernel/type-inference.ts';
import { uniqueName } from '../transform/rename.ts';

export function realizeReductions(knl: LoopKernel): LoopKernel {
  const temporaries = new Map(knl.temporaries);
  const taken = new Set([...knl.inames, ...knl.args.map((a) => a.name), ...temporaries.keys(), ...knl.instructions.map((i) => i.id)]);
  const inames = new Set(knl.inames);
  const typeOf = (name: string): DType | undefined =>
    inames.has(name) ? INDEX_DTYPE : knl.arg(name)?.dtype ?? temporaries.get(name)?.dtype;
  const out: Instruction[] = [];

  for (const insn of knl.instructions) {
    if (!insn.expression) {
      out.push(insn);
      continue;
    }
    const added: Instruction[] = [];
    // `guards`: the predicates the accumulation runs under (see below)
    const realize = (e: Expr, outerInames: readonly string[], guards: readonly Expr[]): Expr => {
      if (e.kind !== 'reduce') return mapChildren(e, (c) => realize(c, outerInames, guards));
      const parallel = e.inames.filter((n) => isParallelTag(knl.inameTags.get(n)));
      if (parallel.length) {
        const tags = parallel.map((n) => `'${n}' (${tagToString(knl.inameTags.get(n))})`).join(', ');
        throw new LoomError(
          `instruction '${insn.id}' reduces over ${tags}, which run in parallel: parallel reductions are not supported yet; keep reduction inames sequential ('for', 'unr') and parallelize the other loops`,
          insn.span,
        );
      }
      // inner reductions are realized inside the update, with the outer reduction's inames
      const within = [...outerInames, ...e.inames];
      const body = realize(e.body, within, guards);
      const dtype = exprType(e, typeOf).dtype;
      const acc = uniqueName(`acc_${e.inames.join('_')}`, taken);
      taken.add(acc);
      temporaries.set(acc, { name: acc, dtype, shape: [], addressSpace: 'private' } satisfies TemporaryVariable);
      const initId = uniqueName(`${insn.id}_${acc}_init`, taken);
      taken.add(initId);
      const updateId = uniqueName(`${insn.id}_${acc}_update`, taken);
      taken.add(updateId);
      const base = { ...insn, noSyncWith: [], tags: [], groups: [], conflictsWithGroups: [], atomic: false, predicates: guards };
      // the initialization only writes the accumulator: it waits for nothing (the
      // instruction's own dependencies are for the reads, in the update). So it takes no
      // predicate either: a condition reads (`if c_fetch[i] > 0`), and evaluated before
      // its data was written it left the accumulator uninitialized. An accumulator set
      // where the instruction is skipped is never read.
      added.push({ ...base, id: initId, assignee: variable(acc), expression: neutral(e, dtype), withinInames: outerInames, dependsOn: [], predicates: [] });
      added.push({
        ...base,
        id: updateId,
        assignee: variable(acc),
        expression: combine(e, variable(acc), body),
        withinInames: within,
        dependsOn: [...insn.dependsOn, initId, ...added.slice(0, -1).map((a) => a.id).filter((id) => id !== initId)],
      });
      return variable(acc);
    };
    // Substitution rules are expanded in the conditions too (`if f(i) > 0`). A reduction in a
    // condition (`if sum(k, b[i, k]) > 0`) is accumulated first and unconditionally: the
    // condition is what it computes. The expression's reductions then accumulate under the
    // realized conditions, as the instruction runs.
    const predicates = insn.predicates.map((p) => realize(expandSubstitutions(p, knl.substitutions), insn.withinInames, []));
    const expression = realize(expandSubstitutions(insn.expression, knl.substitutions), insn.withinInames, predicates);
    const unchanged = expression === insn.expression && predicates.every((p, k) => p === insn.predicates[k]);
    if (added.length === 0) {
      out.push(unchanged ? insn : { ...insn, expression, predicates });
      continue;
    }
    out.push(...added);
    out.push({ ...insn, expression, predicates, dependsOn: [...insn.dependsOn, ...added.map((a) => a.id)] });
  }
  return knl.with({ instructions: out, temporaries });
}

function neutral(r: Reduce, dtype: DType): Expr {
  const f = isFloat(dtype);
  switch (r.op) {
    case 'sum': return f ? float(0) : int(0);
    case 'product': return f ? float(1) : int(1);
    case 'max': return f ? float(-Infinity) : int(minOf(dtype));
    case 'min': return f ? float(Infinity) : int(maxOf(dtype));
  }
}

function combine(r: Reduce, acc: Expr, value: Expr): Expr {
  switch (r.op) {
    case 'sum': return binary('+', acc, value);
    case 'product': return binary('*', acc, value);
    case 'max': return call('max', [acc, value]);
    case 'min': return call('min', [acc, value]);
  }
}

function minOf(t: DType): number {
  switch (t) {
    case 'int8': return -128;
    case 'int16': return -32768;
    case 'int32': return -2147483648;
    case 'int64': return Number.MIN_SAFE_INTEGER;
    default: return 0;
  }
}

function maxOf(t: DType): number {
  switch (t) {
    case 'int8': return 127;
    case 'uint8': case 'bool': return 255;
    case 'int16': return 32767;
    case 'uint16': return 65535;
    case 'int32': return 2147483647;
    case 'uint32': return 4294967295;
    default: return Number.MAX_SAFE_INTEGER;
  }
}
