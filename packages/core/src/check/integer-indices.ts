/**
 * Array indices must be integers (loopy's check_for_integer_subscript_indices).
 * `a[i*0.5]` has no meaning of its own: C truncates the float, JavaScript reads
 * `a[1.5]` as undefined, so each device would answer something different.
 */
import { isInteger, type DType } from '../dtypes.ts';
import type { Expr, Subscript } from '../expr/nodes.ts';
import { printExpr } from '../expr/index.ts';
import { LoomError, type SourceSpan } from '../errors.ts';
import { forEachSubscript, readExpressions } from '../kernel/accesses.ts';
import type { Instruction, LoopKernel } from '../kernel/model.ts';
import { exprType, INDEX_DTYPE } from '../kernel/type-inference.ts';
import { freeVariables } from '../expr/index.ts';
import { fail, quoted } from './check-error.ts';

export function checkIntegerIndices(knl: LoopKernel): void {
  const inames = new Set(knl.inames);
  const typeOf = (name: string): DType | undefined =>
    inames.has(name) ? INDEX_DTYPE : (knl.arg(name)?.dtype ?? knl.temporaries.get(name)?.dtype);
  for (const insn of knl.instructions) {
    const subscripts: Subscript[] = [];
    for (const a of insn.assignees) if (a.kind === 'subscript') subscripts.push(a);
    for (const e of readExpressions(insn, knl.substitutions)) forEachSubscript(e, (s) => subscripts.push(s));
    for (const s of subscripts) {
      for (const [axis, index] of s.indices.entries()) {
        const dtype = knownType(index, typeOf);
        if (dtype === undefined || isInteger(dtype)) continue;
        const used = [...freeVariables(index)].filter((n) => inames.has(n));
        fail(knl, insn, {
          check: 'integer_subscript_indices',
          inames: used,
          problem: `indexes '${s.array}' with '${printExpr(index)}' (axis ${axis}${used.length ? `, over ${quoted(used)}` : ''}), which is ${dtype}, not an integer: the devices would disagree on which element that is`,
          fix: `Write an integer index: use '//' for integer division, or convert explicitly, e.g. ${s.array}[int32(${printExpr(index)})] rounds toward zero.`,
          span: spanOfSubscript(insn, s.array),
        });
      }
    }
  }
}

/** Like loopy, an index whose type is not known yet (untyped data) is left for later. */
function knownType(index: Expr, typeOf: (name: string) => DType | undefined): DType | undefined {
  try {
    return exprType(index, typeOf).dtype;
  } catch (e) {
    if (e instanceof LoomError) return undefined;
    throw e;
  }
}

/**
 * Expressions carry no positions of their own; the instruction's source line does.
 * Point at `name[...]` in it when it is there, else at the whole instruction.
 */
function spanOfSubscript(insn: Instruction, array: string): SourceSpan | undefined {
  const span = insn.span;
  if (!span) return undefined;
  const line = span.text.slice(span.start, span.end);
  const found = new RegExp(`(?<![\\w.])${array.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s*\\[`).exec(line);
  if (!found) return span;
  let depth = 0;
  for (let k = found.index + found[0].length - 1; k < line.length; k++) {
    if (line[k] === '[') depth++;
    if (line[k] === ']' && --depth === 0)
      return { text: span.text, start: span.start + found.index, end: span.start + k + 1 };
  }
  return span;
}
