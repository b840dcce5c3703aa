/**
 * loopy's call syntax for callable kernels, read from one instruction's text:
 *
 *   [j, l]: z[i, j, k, l] = combo([j, l]: x[i, j, k, l], n)     sub-array references (`[j, l]: ...`)
 *   z[i, 3:-1:-1, :] = combo(x[i, :, :])                         slices, each an iname of its own
 *   []: lo[()], []: at[()] = argmin([i]: b[i])                   several results, scalar results
 *   print_foo()                                                  a call with no result
 *
 * Only the text is read here; `makeKernel` turns slices into inames once the arrays' shapes
 * are known (call-operands.ts).
 */
import { LoomError, type SourceSpan } from '../errors.ts';
import type { Expr } from '../expr/nodes.ts';
import { parseExpression } from '../expr/index.ts';

/** `start:stop:step` in one axis of a reference; `start`/`stop` absent: from the array's shape. */
export interface ParsedSlice {
  /** The name standing for the slice's position in `expr` until it becomes an iname. */
  readonly placeholder: string;
  readonly array: string;
  readonly axis: number;
  readonly start?: Expr;
  readonly stop?: Expr;
  readonly step: number;
  readonly span: SourceSpan;
}

/** One operand of a call: a value, or a sub-array reference (swept inames, slices, or a whole array). */
export interface ParsedOperand {
  readonly expr: Expr;
  /** `[j, l]:` as written; absent: none written. */
  readonly sweep?: readonly string[];
  readonly slices: readonly ParsedSlice[];
  readonly span: SourceSpan;
}

/** A call of a callable kernel as written. */
export interface ParsedKernelCall {
  readonly callee: string;
  readonly assignees: readonly ParsedOperand[];
  readonly args: readonly ParsedOperand[];
  /** The call on the right (where a mismatch of its arguments is shown). */
  readonly span: SourceSpan;
}

const CALL = /^\s*([A-Za-z_]\w*)\s*\(/;
const SWEEP = /^\s*\[([^\]]*)\]\s*:/;

/**
 * The call written by `lhs = rhs` (or by `rhs` alone, `lhs` undefined), or undefined where the
 * line is an ordinary assignment: a kernel call is told apart by a sub-array reference or a
 * slice on either side, or by having no left-hand side.
 */
export function parseKernelCall(
  lhs: { text: string; offset: number } | undefined,
  rhs: { text: string; offset: number },
  source: string,
  pieces: (s: string) => { text: string; offset: number }[],
): ParsedKernelCall | undefined {
  const head = CALL.exec(rhs.text);
  if (!head) return undefined;
  const open = head[0].length - 1;
  const close = matching(rhs.text, open);
  if (close < 0 || rhs.text.slice(close + 1).trim() !== '') return undefined;
  const argsText = rhs.text.slice(open + 1, close);
  const argPieces = argsText.trim() === '' ? [] : pieces(argsText);
  const lhsPieces = lhs ? pieces(lhs.text) : [];
  const marked = (p: { text: string }) => SWEEP.test(p.text) || sliceAxes(p.text).length > 0;
  if (lhs && !lhsPieces.some(marked) && !argPieces.some(marked)) return undefined;
  let counter = 0;
  const operand = (p: { text: string; offset: number }, base: number): ParsedOperand => {
    const at = base + p.offset;
    const span: SourceSpan = { text: source, start: at, end: at + Math.max(1, p.text.length) };
    let text = p.text;
    let skip = 0;
    let sweep: string[] | undefined;
    const m = SWEEP.exec(text);
    if (m) {
      sweep = m[1]
        .split(',')
        .map((s) => s.trim())
        .filter((s) => s !== '');
      skip = m[0].length;
      text = text.slice(skip);
    }
    const slices: ParsedSlice[] = [];
    let rewritten = text;
    const subscript = /^\s*([A-Za-z_]\w*)\s*\[/.exec(text);
    if (subscript) {
      const array = subscript[1];
      const openAt = subscript[0].length - 1;
      const closeAt = matching(text, openAt);
      if (closeAt > 0 && text.slice(closeAt + 1).trim() === '') {
        const inner = text.slice(openAt + 1, closeAt);
        if (inner.trim() === '()') rewritten = array;
        else {
          const indices = pieces(inner).map((ix, axis) => {
            const parts = splitColons(ix.text);
            if (parts.length === 1) return ix.text;
            const ixAt = at + skip + openAt + 1 + ix.offset;
            const ixSpan = { text: source, start: ixAt, end: ixAt + Math.max(1, ix.text.length) };
            if (parts.length > 3) throw new LoomError('a slice is start:stop:step', ixSpan);
            const bound = (s: string | undefined) =>
              s === undefined || s.trim() === '' ? undefined : parseExpression(s, { source: s });
            const stepExpr = bound(parts[2]);
            const step = stepExpr === undefined ? 1 : constantInt(stepExpr);
            if (step === undefined || step === 0)
              throw new LoomError('the step of a slice is a nonzero integer constant', ixSpan);
            const placeholder = `__slice${counter++}`;
            slices.push({
              placeholder,
              array,
              axis,
              ...(bound(parts[0]) ? { start: bound(parts[0]) } : {}),
              ...(bound(parts[1]) ? { stop: bound(parts[1]) } : {}),
              step,
              span: ixSpan,
            });
            return placeholder;
          });
          rewritten = `${array}[${indices.join(', ')}]`;
        }
      }
    }
    const expr =
      rewritten === text
        ? parseExpression(text, { source, offset: at + skip })
        : parseExpression(rewritten, { source: rewritten });
    return { expr, ...(sweep ? { sweep } : {}), slices, span };
  };
  return {
    callee: head[1],
    assignees: lhsPieces.map((p) => operand(p, lhs!.offset)),
    args: argPieces.map((p) => operand(p, rhs.offset + open + 1)),
    span: { text: source, start: rhs.offset + rhs.text.search(/\S/), end: rhs.offset + close + 1 },
  };
}

function constantInt(e: Expr): number | undefined {
  if (e.kind === 'int') return Number(e.value);
  if (e.kind === 'neg' && e.operand.kind === 'int') return -Number(e.operand.value);
  return undefined;
}

/** The index of the bracket closing the one at `open`, or -1. */
function matching(s: string, open: number): number {
  let depth = 0;
  for (let i = open; i < s.length; i++) {
    if (s[i] === '(' || s[i] === '[') depth++;
    else if (s[i] === ')' || s[i] === ']') {
      depth--;
      if (depth === 0) return i;
    }
  }
  return -1;
}

/** `a:b:c` → its parts, split at colons outside brackets; `a` → `[a]`. */
function splitColons(s: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let from = 0;
  for (let i = 0; i < s.length; i++) {
    if (s[i] === '(' || s[i] === '[') depth++;
    else if (s[i] === ')' || s[i] === ']') depth--;
    else if (s[i] === ':' && depth === 0) {
      parts.push(s.slice(from, i));
      from = i + 1;
    }
  }
  parts.push(s.slice(from));
  return parts;
}

/** The axes of `name[...]` (after any sweep) that are slices. */
function sliceAxes(text: string): number[] {
  const body = text.replace(SWEEP, '');
  const m = /^\s*[A-Za-z_]\w*\s*\[/.exec(body);
  if (!m) return [];
  const close = matching(body, m[0].length - 1);
  if (close < 0) return [];
  const inner = body.slice(m[0].length, close);
  const out: number[] = [];
  splitTopLevelCommas(inner).forEach((ix, k) => {
    if (splitColons(ix).length > 1) out.push(k);
  });
  return out;
}

function splitTopLevelCommas(s: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let from = 0;
  for (let i = 0; i < s.length; i++) {
    if (s[i] === '(' || s[i] === '[') depth++;
    else if (s[i] === ')' || s[i] === ']') depth--;
    else if (s[i] === ',' && depth === 0) {
      out.push(s.slice(from, i));
      from = i + 1;
    }
  }
  out.push(s.slice(from));
  return out;
}
