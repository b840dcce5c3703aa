/**
 * The textual instruction language of loopy's reference ("Textual Assignment Syntax"):
 *
 *   LHS = EXPRESSION {attr1, attr2=value1:value2}      (continued over lines inside brackets)
 *   <> tmp = EXPRESSION            <float32> tmp[i] = EXPRESSION
 *   v, <> k = argmax(i, a[i], i)   (a multiple assignment: one target per result)
 *   for i, j ... end               if COND ... elif COND ... else ... end
 *   with {id_prefix=p, dep=q*} ... end   (attributes every instruction inside gets)
 *   ... gbarrier   ... lbarrier   ... nop   ... gfence
 *   rule(x, y) := EXPRESSION
 *
 * This module only reads text into records; what the names mean (arrays, inames,
 * temporaries) is decided by `makeKernel`.
 */
import { vectorDType } from '../vector-dtypes.ts';
import { isDType, type DType } from '../dtypes.ts';
import { LoomError, type SourceSpan } from '../errors.ts';
import { not, type Expr } from '../expr/nodes.ts';
import { parseExpression, someExpr } from '../expr/index.ts';
import type { CCode, NoSyncScope } from '../kernel/model.ts';
import { frozenField } from '../kernel/freeze.ts';
import { parsedTextCache } from '../lru.ts';
import { parseKernelCall, type ParsedKernelCall } from './parse-call.ts';
import { reductionRegistryVersion } from '../reduction/registry.ts';
import { type Attributes, emptyAttributes, IDENT, parseAttributes } from './instruction-attributes.ts';

export interface ParsedInstruction {
  readonly kind: 'assign' | 'c' | 'barrier' | 'nop' | 'call' | 'fence';
  /** A call of a callable kernel as written (parse-call.ts); `makeKernel` makes its sub-array references. */
  readonly kernelCall?: ParsedKernelCall;
  /** A `cInstruction`'s code (c-instruction.ts). */
  readonly cCode?: CCode;
  readonly id?: string;
  readonly idPrefix?: string;
  /** What the line assigns to: one target, or one per result of a reduction (`v, k = argmax(...)`). */
  readonly assignees?: readonly Expr[];
  readonly expression?: Expr;
  /** Per assignee: present where it declares a temporary (`<>` or `<dtype>`). */
  readonly temporaries?: readonly (TemporaryDeclaration | undefined)[];
  readonly inames?: { readonly names: readonly string[]; readonly additive: boolean };
  readonly dup: readonly { readonly iname: string; readonly newName?: string }[];
  readonly deps: readonly string[];
  /** `dep=*...`: the listed dependencies are all there are (no single-writer heuristic). */
  readonly depsExhaustive: boolean;
  /** `dep_query=MATCH`: it depends on the instructions a match expression selects (match.ts), resolved by `makeKernel`. */
  readonly depQueries?: readonly { readonly match: string; readonly span: SourceSpan }[];
  readonly nosync: readonly string[];
  /** `nosync_query=MATCH@SCOPE`: the instructions a match expression selects (match.ts), resolved by `makeKernel`. */
  readonly nosyncQueries?: readonly {
    readonly match: string;
    readonly scope: NoSyncScope;
    readonly span: SourceSpan;
  }[];
  readonly priority: number;
  /** `if=a:b` condition variables and the conditions of enclosing `if` blocks. */
  readonly predicates: readonly Expr[];
  /** Inames of enclosing `for` blocks. */
  readonly forInames: readonly string[];
  readonly tags: readonly string[];
  readonly groups: readonly string[];
  readonly conflictsWithGroups: readonly string[];
  readonly atomic: boolean;
  /** `atomic=init`: an atomic store (loopy's AtomicInit). */
  readonly atomicInit?: boolean;
  /** `async`: a copy into local memory that completes by the next barrier. */
  readonly asyncCopy?: boolean;
  /** `bulk`: with `asyncCopy`, an element of a tile moved whole (transform/bulk-copies.ts). */
  readonly bulkCopy?: boolean;
  readonly barrierScope?: 'global' | 'local';
  readonly memKind?: 'global' | 'local';
  /** Where the text said it; absent for an instruction built from nodes (instruction-specs.ts). */
  readonly span?: SourceSpan;
}

export interface TemporaryDeclaration {
  readonly dtype: DType | undefined;
}

export interface ParsedSubstitution {
  readonly name: string;
  readonly params: readonly string[];
  readonly expression: Expr;
  readonly span: SourceSpan;
}

export interface ParsedInstructions {
  readonly instructions: readonly ParsedInstruction[];
  readonly substitutions: readonly ParsedSubstitution[];
}

interface Block {
  readonly kind: 'for' | 'if' | 'with';
  readonly inames: readonly string[];
  /** For `with` blocks: the attributes they give the instructions inside (their `if` is in `predicates`). */
  readonly attributes?: Attributes;
  /** For `if` blocks: the condition of the current branch (negations of earlier branches included). */
  predicates: Expr[];
  /** For `if` blocks: the conditions of the branches seen so far, negated for `else`. */
  previous: Expr[];
  readonly span: SourceSpan;
}

/**
 * `inames`: the kernel's inames, when known: `max(k, e)` and `min(k, e)` are then reductions
 * exactly when `k` is one of them (loopy's reading), whether or not `e` uses `k`. `structs`:
 * the arrays of struct elements, after whose elements `.x` is a field, not a vector component.
 */
export function parseInstructions(
  source: string | readonly string[],
  inames?: ReadonlySet<string>,
  structs?: ReadonlySet<string>,
): ParsedInstructions {
  const text = typeof source === 'string' ? source : source.join('\n');
  // the same text parses the same way while the inames and the registered reductions stay
  // (they decide whether `max(k, e)` is a reduction); the answer is frozen, so sharing it is safe
  const key = `${reductionRegistryVersion()}\u0000${inames ? [...inames].join(',') : ''}\u0000${structs ? [...structs].join(',') : ''}\u0000${text}`;
  return PARSED.memo(key, () => frozenField(parseText(text, inames, structs)));
}

/** Parsed instruction texts: a kernel built again from the same source skips the parser. */
const PARSED = parsedTextCache<ParsedInstructions>(256);

function parseText(
  text: string,
  inames: ReadonlySet<string> | undefined,
  structs: ReadonlySet<string> | undefined,
): ParsedInstructions {
  const instructions: ParsedInstruction[] = [];
  const substitutions: ParsedSubstitution[] = [];
  const blocks: Block[] = [];

  let offset = 0;
  const physical = text.split('\n');
  for (let k = 0; k < physical.length; k++) {
    const lineStart = offset;
    offset += physical[k].length + 1;
    let line = withoutComment(physical[k]);
    // an expression continues on the next lines while a bracket is open (as in Python); the
    // line breaks become spaces, so that offsets in `line` stay offsets in `text`
    while (openBrackets(line) > 0 && k + 1 < physical.length) {
      k++;
      line = `${line.padEnd(offset - lineStart - 1)} ${withoutComment(physical[k])}`;
      offset += physical[k].length + 1;
    }
    const trimmed = line.trim();
    if (trimmed === '') continue;
    const start = lineStart + line.indexOf(trimmed);
    const span: SourceSpan = { text, start, end: start + trimmed.length };
    const at = (from: number, length: number): SourceSpan => ({
      text,
      start: start + from,
      end: start + from + Math.max(1, length),
    });

    const keyword = /^(for|end|if|elif|else)\b/.exec(trimmed)?.[1] ?? (/^with\s*\{/.test(trimmed) ? 'with' : undefined);
    if (keyword) {
      handleBlockLine(keyword, trimmed, start, text, blocks);
      continue;
    }

    const context = {
      forInames: blocks.flatMap((b) => b.inames),
      blockPredicates: blocks.flatMap((b) => b.predicates),
      withAttributes: blocks.flatMap((b) => (b.attributes ? [b.attributes] : [])),
    };
    if (trimmed.startsWith('...')) {
      instructions.push(parseSpecial(trimmed, at, span, context));
      continue;
    }
    const rule = /^([A-Za-z_]\w*)\s*(\(([^)]*)\))?\s*:=/.exec(trimmed);
    if (rule) {
      if (blocks.length) throw new LoomError('substitution rules cannot be defined inside for/if blocks', span);
      const params =
        rule[3] === undefined
          ? []
          : rule[3]
              .split(',')
              .map((p) => p.trim())
              .filter((p) => p !== '');
      for (const p of params) {
        if (!IDENT.test(p))
          throw new LoomError(`substitution rule parameter '${p}' is not a name`, at(trimmed.indexOf(p), p.length));
      }
      const exprText = trimmed.slice(rule[0].length);
      substitutions.push({
        name: rule[1],
        params,
        expression: parseExpression(exprText, { source: text, offset: start + rule[0].length, inames, structs }),
        span,
      });
      continue;
    }
    instructions.push(parseAssignment(trimmed, text, start, span, context, inames, structs));
  }
  if (blocks.length) {
    const open = blocks[blocks.length - 1];
    throw new LoomError(`'${open.kind}' block is never closed with 'end'`, open.span);
  }
  return { instructions, substitutions };
}

function withoutComment(line: string): string {
  const hash = line.indexOf('#');
  return hash >= 0 ? line.slice(0, hash) : line;
}

/** How many of `(` and `[` are still open at the end of `line`. */
function openBrackets(line: string): number {
  let depth = 0;
  for (const c of line) {
    if (c === '(' || c === '[') depth++;
    else if (c === ')' || c === ']') depth--;
  }
  return depth;
}

function handleBlockLine(keyword: string, line: string, start: number, text: string, blocks: Block[]): void {
  const span: SourceSpan = { text, start, end: start + line.length };
  const rest = line.slice(keyword.length).trim();
  const restOffset = start + line.indexOf(rest, keyword.length);
  switch (keyword) {
    case 'for': {
      const names = rest.split(',').map((s) => s.trim());
      if (rest === '' || names.some((n) => !IDENT.test(n))) {
        throw new LoomError("'for' expects a comma-separated list of inames, e.g. 'for i, j'", span);
      }
      blocks.push({ kind: 'for', inames: names, predicates: [], previous: [], span });
      return;
    }
    case 'if': {
      if (rest === '') throw new LoomError("'if' expects a condition", span);
      const cond = parseExpression(rest, { source: text, offset: restOffset });
      blocks.push({ kind: 'if', inames: [], predicates: [cond], previous: [cond], span });
      return;
    }
    case 'elif':
    case 'else': {
      const top = blocks[blocks.length - 1];
      if (!top || top.kind !== 'if') throw new LoomError(`'${keyword}' without a matching 'if'`, span);
      const negated = top.previous.map((c) => not(c));
      if (keyword === 'else') {
        if (rest !== '') throw new LoomError("'else' takes no condition (use 'elif')", span);
        top.predicates = negated;
      } else {
        const cond = parseExpression(rest, { source: text, offset: restOffset });
        top.predicates = [...negated, cond];
        top.previous = [...top.previous, cond];
      }
      return;
    }
    case 'end': {
      if (rest !== '' && !/^[A-Za-z_]\w*(\s*,\s*[A-Za-z_]\w*)*$/.test(rest))
        throw new LoomError("unexpected text after 'end'", span);
      if (!blocks.pop()) throw new LoomError("'end' without an open 'for', 'if' or 'with' block", span);
      return;
    }
    case 'with': {
      const close = rest.lastIndexOf('}');
      if (!rest.startsWith('{') || close !== rest.length - 1)
        throw new LoomError("'with' expects attributes in braces, e.g. 'with {id_prefix=init, dep=a*}'", span);
      const attributes = parseAttributes(rest.slice(1, -1), (from, length) => ({
        text,
        start: restOffset + 1 + from,
        end: restOffset + 1 + from + Math.max(1, length),
      }));
      checkWithAttributes(attributes, span);
      const inames = attributes.inames?.names ?? [];
      blocks.push({ kind: 'with', inames, predicates: [...attributes.predicates], previous: [], attributes, span });
      return;
    }
  }
}

/** What only one instruction can have (its id, priority, dup, nosync, atomic) has no meaning for a block of them (loopy's rule). */
function checkWithAttributes(attributes: Attributes, span: SourceSpan): void {
  const refused = [
    attributes.id !== undefined && 'id',
    attributes.priority !== 0 && 'priority',
    attributes.dup.length > 0 && 'dup',
    (attributes.nosync.length > 0 || (attributes.nosyncQueries?.length ?? 0) > 0) && 'nosync',
    attributes.atomic && 'atomic',
    attributes.asyncCopy && (attributes.bulkCopy ? 'bulk' : 'async'),
    attributes.memKind !== undefined && 'mem_kind',
    attributes.inames?.additive && 'inames=+',
  ].filter((x): x is string => typeof x === 'string');
  if (refused.length)
    throw new LoomError(
      `the attribute '${refused[0]}' belongs on one instruction, not on a 'with' block (allowed there: id_prefix, dep, dep_query, if, tags, groups, conflicts, inames)`,
      span,
    );
}

/**
 * An instruction's own attributes with those of the `with` blocks around it: dependencies,
 * tags and groups add up; the innermost `id_prefix` names it unless it has its own id or prefix.
 */
function withBlockAttributes(own: Attributes, blocks: readonly Attributes[]): Attributes {
  if (blocks.length === 0) return own;
  const all = [...blocks, own];
  const union = (pick: (a: Attributes) => readonly string[]) => [...new Set(all.flatMap(pick))];
  const prefix = [...all].reverse().find((a) => a.idPrefix !== undefined)?.idPrefix;
  return {
    ...own,
    ...(own.id === undefined && prefix !== undefined ? { idPrefix: prefix } : {}),
    deps: union((a) => a.deps),
    depsExhaustive: all.some((a) => a.depsExhaustive),
    depQueries: all.flatMap((a) => a.depQueries ?? []),
    tags: union((a) => a.tags),
    groups: union((a) => a.groups),
    conflictsWithGroups: union((a) => a.conflictsWithGroups),
  };
}

interface BlockContext {
  readonly forInames: readonly string[];
  readonly blockPredicates: readonly Expr[];
  /** The attributes of the `with` blocks around the line, outermost first. */
  readonly withAttributes: readonly Attributes[];
}

function parseSpecial(
  line: string,
  at: (from: number, length: number) => SourceSpan,
  span: SourceSpan,
  context: BlockContext,
): ParsedInstruction {
  // A line starting with `...` and no word after it (`...`, `... {id=b}`) names no special instruction.
  const m = /^\.\.\.\s*(\w+)\s*/.exec(line);
  if (m === null)
    throw new LoomError("expected a special instruction after '...' (gbarrier, lbarrier, gfence or nop)", span);
  const what = m[1];
  if (what !== 'gbarrier' && what !== 'lbarrier' && what !== 'nop' && what !== 'gfence') {
    throw new LoomError(
      `unknown special instruction '... ${what}' (expected gbarrier, lbarrier, gfence or nop)`,
      at(line.indexOf(what), what.length),
    );
  }
  const restStart = m[0].length;
  const rest = line.slice(restStart).trim();
  let attrs = emptyAttributes();
  if (rest !== '') {
    if (!rest.startsWith('{') || !rest.endsWith('}'))
      throw new LoomError('expected attributes in braces', at(restStart, rest.length));
    attrs = parseAttributes(rest.slice(1, -1), (from, len) => at(restStart + 1 + from, len));
  }
  attrs = withBlockAttributes(attrs, context.withAttributes);
  if ((what === 'nop' || what === 'gfence') && attrs.memKind !== undefined)
    throw new LoomError(`the attribute 'mem_kind' belongs on barriers, not '... ${what}'`, span);
  return {
    kind: what === 'nop' ? 'nop' : what === 'gfence' ? 'fence' : 'barrier',
    barrierScope: what === 'gbarrier' ? 'global' : what === 'lbarrier' ? 'local' : undefined,
    ...attrs,
    predicates: [...context.blockPredicates, ...attrs.predicates],
    forInames: context.forInames,
    span,
  };
}

function parseAssignment(
  line: string,
  text: string,
  start: number,
  span: SourceSpan,
  context: BlockContext,
  inames?: ReadonlySet<string>,
  structs?: ReadonlySet<string>,
): ParsedInstruction {
  const at = (from: number, length: number): SourceSpan => ({
    text,
    start: start + from,
    end: start + from + Math.max(1, length),
  });
  let body = line;

  let attrs = emptyAttributes();
  const braceAt = findTrailingBraces(body);
  if (braceAt >= 0) {
    const inner = body.slice(braceAt + 1, body.lastIndexOf('}'));
    const innerStart = braceAt + 1;
    attrs = parseAttributes(inner, (from, len) => at(innerStart + from, len));
    body = body.slice(0, braceAt);
  }
  attrs = withBlockAttributes(attrs, context.withAttributes);

  const eq = findAssignmentEquals(body);
  const kernelCall =
    eq < 0
      ? parseKernelCall(undefined, { text: body, offset: start }, text, splitTopLevel)
      : parseKernelCall(
          { text: body.slice(0, eq), offset: start },
          { text: body.slice(eq + 1), offset: start + eq + 1 },
          text,
          splitTopLevel,
        );
  if (kernelCall) {
    if (attrs.atomic || attrs.asyncCopy || attrs.memKind !== undefined)
      throw new LoomError('a call of a kernel takes no atomic, async or mem_kind attribute', span);
    return {
      kind: 'call',
      kernelCall,
      ...attrs,
      predicates: [...context.blockPredicates, ...attrs.predicates],
      forInames: context.forInames,
      span,
    };
  }
  if (eq < 0) {
    throw new LoomError(
      "expected an assignment 'LHS = EXPRESSION' (or 'for', 'if', 'end', '... gbarrier', 'rule(x) := ...')",
      span,
    );
  }
  const lhsText = body.slice(0, eq);
  const rhsText = body.slice(eq + 1);
  if (rhsText.trim() === '') throw new LoomError('missing expression after =', at(eq, 1));
  if (lhsText.trim() === '') throw new LoomError('missing left-hand side before =', at(eq, 1));
  const targets = splitTopLevel(lhsText).map(({ text: piece, offset }) =>
    parseTarget(piece, text, start + offset, structs),
  );
  const expression = parseExpression(rhsText, {
    source: text,
    offset: start + eq + 1,
    inames,
    structs,
    atomicFetch: true,
  });
  if (attrs.memKind !== undefined)
    throw new LoomError("the attribute 'mem_kind' belongs on barriers ('... lbarrier {mem_kind=global}')", span);
  if (attrs.atomic)
    checkAtomicTargets(
      targets.map((t) => t.assignee),
      expression,
      attrs.atomicInit === true,
      span,
    );
  return {
    kind: 'assign',
    assignees: targets.map((t) => t.assignee),
    expression,
    ...(targets.some((t) => t.temporary) ? { temporaries: targets.map((t) => t.temporary) } : {}),
    ...attrs,
    predicates: [...context.blockPredicates, ...attrs.predicates],
    forInames: context.forInames,
    span,
  };
}

/**
 * An atomic instruction has one target (loopy's rule); `atomic=init` stores a value, so its
 * value may not read the variable it initializes (that would be an update: write `atomic`).
 */
function checkAtomicTargets(targets: readonly Expr[], value: Expr, init: boolean, span: SourceSpan): void {
  if (targets.length !== 1) throw new LoomError('an atomic instruction has exactly one left-hand side', span);
  const target = targets[0];
  const name = target.kind === 'subscript' ? target.array : target.kind === 'var' ? target.name : undefined;
  const readsTarget = someExpr(
    value,
    (x) => (x.kind === 'var' && x.name === name) || (x.kind === 'subscript' && x.array === name),
  );
  if (init && readsTarget)
    throw new LoomError(
      `atomic=init stores a value, but this one reads '${name}', which it initializes; an update is written '{atomic}'`,
      span,
    );
}

/**
 * One target of the left-hand side: `out[i]`, `<> t`, `<float32> t[k]`. `offset` is where
 * `piece` starts in `text`.
 */
function parseTarget(
  piece: string,
  text: string,
  offset: number,
  structs?: ReadonlySet<string>,
): { assignee: Expr; temporary?: TemporaryDeclaration } {
  const lead = piece.length - piece.trimStart().length;
  const trimmed = piece.trim();
  const here = (from: number, length: number): SourceSpan => ({
    text,
    start: offset + lead + from,
    end: offset + lead + from + Math.max(1, length),
  });
  if (trimmed === '') throw new LoomError('missing left-hand side before =', here(0, 1));
  let temporary: TemporaryDeclaration | undefined;
  let rest = trimmed;
  let restAt = 0;
  const decl = /^<\s*([A-Za-z0-9_]*)\s*>\s*/.exec(trimmed);
  if (decl) {
    const typeName = decl[1];
    // `<float4> t = ...`: a vector temporary, made lanes by vector-values.ts
    if (typeName !== '' && !isDType(typeName) && !vectorDType(typeName)) {
      throw new LoomError(
        `unknown type '${typeName}' in temporary declaration (use a dtype such as float32, int32, float4, or '<>' to infer it)`,
        here(trimmed.indexOf(typeName), typeName.length),
      );
    }
    // a vector dtype's name stands until makeKernel makes the temporary its lanes (lowerVectorValues)
    temporary = { dtype: typeName === '' ? undefined : (typeName as DType) };
    restAt = decl[0].length;
    rest = trimmed.slice(restAt);
  }
  const assignee = parseExpression(rest, { source: text, offset: offset + lead + restAt, structs });
  if (assignee.kind !== 'var' && assignee.kind !== 'subscript') {
    throw new LoomError('the left-hand side must be a variable or an array element', here(restAt, rest.length));
  }
  return temporary ? { assignee, temporary } : { assignee };
}

/** `a, b[i, j]` → `a` and ` b[i, j]`, with their offsets: commas outside brackets separate. */
function splitTopLevel(s: string): { text: string; offset: number }[] {
  const pieces: { text: string; offset: number }[] = [];
  let depth = 0;
  let from = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === '(' || c === '[') depth++;
    else if (c === ')' || c === ']') depth--;
    else if (c === ',' && depth === 0) {
      pieces.push({ text: s.slice(from, i), offset: from });
      from = i + 1;
    }
  }
  pieces.push({ text: s.slice(from), offset: from });
  return pieces;
}

/** Index of the `{` that opens a trailing attribute block, or -1. */
function findTrailingBraces(body: string): number {
  const trimmed = body.trimEnd();
  if (!trimmed.endsWith('}')) return -1;
  let depth = 0;
  for (let i = trimmed.length - 1; i >= 0; i--) {
    if (trimmed[i] === '}') depth++;
    else if (trimmed[i] === '{') {
      depth--;
      if (depth === 0) return i;
    }
  }
  return -1;
}

/** The `=` that separates LHS and RHS: top level, not part of `==`, `<=`, `>=`, `!=`, `:=`. */
function findAssignmentEquals(body: string): number {
  let depth = 0;
  for (let i = 0; i < body.length; i++) {
    const c = body[i];
    if (c === '(' || c === '[') depth++;
    else if (c === ')' || c === ']') depth--;
    else if (c === '=' && depth === 0) {
      const prev = body[i - 1];
      const next = body[i + 1];
      if (next === '=' || prev === '=' || prev === '<' || prev === '>' || prev === '!' || prev === ':') continue;
      return i;
    }
  }
  return -1;
}
