/**
 * The `{...}` attributes of one instruction line or of a `with {...}` block: ids, dependencies,
 * no-sync lists, priorities, predicates, tags, groups, atomics (loopy's instruction options), async copies,
 * each checked where it is written.
 */
import { LoomError, type SourceSpan } from '../errors.ts';
import { parseExpression } from '../expr/index.ts';
import { NO_SYNC_SCOPES, parseNoSync } from '../kernel/model.ts';
import { checkName } from '../names.ts';
import type { ParsedInstruction } from './parse-instructions.ts';

/** An identifier, as names in the instruction language are spelt. */
export const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/;

export type Attributes = Omit<
  ParsedInstruction,
  'kind' | 'assignees' | 'expression' | 'temporaries' | 'forInames' | 'span' | 'barrierScope'
>;

export function emptyAttributes(): Attributes {
  return {
    dup: [],
    deps: [],
    depsExhaustive: false,
    depQueries: [],
    nosync: [],
    nosyncQueries: [],
    priority: 0,
    predicates: [],
    tags: [],
    groups: [],
    conflictsWithGroups: [],
    atomic: false,
  };
}

const ATTRIBUTE_NAMES = [
  'id',
  'id_prefix',
  'inames',
  'dup',
  'dep',
  'dep_query',
  'nosync',
  'no_sync_with',
  'nosync_query',
  'priority',
  'if',
  'tags',
  'groups',
  'conflicts',
  'conflicts_grp',
  'atomic',
  'mem_kind',
  'async',
];

export function parseAttributes(inner: string, at: (from: number, length: number) => SourceSpan): Attributes {
  const attrs: { -readonly [K in keyof Attributes]: Attributes[K] } = emptyAttributes();
  let pos = 0;
  for (const part of inner.split(',')) {
    const partStart = pos + (part.length - part.trimStart().length);
    pos += part.length + 1;
    const item = part.trim();
    if (item === '') continue;
    const eq = item.indexOf('=');
    const key = (eq < 0 ? item : item.slice(0, eq)).trim();
    const value = eq < 0 ? '' : item.slice(eq + 1).trim();
    const valueAt = (len = value.length) =>
      at(partStart + eq + 1 + (item.slice(eq + 1).length - item.slice(eq + 1).trimStart().length), len);
    const list = () =>
      value
        .split(':')
        .map((s) => s.trim())
        .filter((s) => s !== '');
    const needsValue = () => {
      if (eq < 0 || value === '')
        throw new LoomError(`attribute '${key}' needs a value (${key}=...)`, at(partStart, item.length));
    };
    switch (key) {
      case 'id':
        needsValue();
        attrs.id = checkName(value, "instruction attribute 'id'", valueAt());
        break;
      case 'id_prefix':
        needsValue();
        // ids made from the prefix (`prefix_0`) are names: the prefix must be one too
        attrs.idPrefix = checkName(value, "instruction attribute 'id_prefix'", valueAt());
        break;
      case 'inames': {
        // `inames=` with nothing after it: in no loop at all (loopy's empty within_inames)
        if (eq < 0) throw new LoomError(`attribute 'inames' needs a value (inames=...)`, at(partStart, item.length));
        const additive = value.startsWith('+');
        const names = (additive ? value.slice(1) : value)
          .split(':')
          .map((s) => s.trim())
          .filter((s) => s !== '');
        for (const n of names) if (!IDENT.test(n)) throw new LoomError(`'${n}' is not an iname`, valueAt());
        attrs.inames = { names, additive };
        break;
      }
      case 'dup':
        needsValue();
        attrs.dup = list().map((entry) => {
          const [iname, newName] = entry.split('->').map((s) => s.trim());
          if (!IDENT.test(iname) || (newName !== undefined && !IDENT.test(newName))) {
            throw new LoomError(`malformed dup entry '${entry}' (expected 'i' or 'i->i_new')`, valueAt());
          }
          return newName === undefined ? { iname } : { iname, newName };
        });
        break;
      case 'dep': {
        needsValue();
        const exhaustive = value.startsWith('*');
        attrs.depsExhaustive = exhaustive;
        attrs.deps = (exhaustive ? value.slice(1) : value)
          .split(':')
          .map((s) => s.trim())
          .filter((s) => s !== '');
        break;
      }
      case 'dep_query':
        // one match expression (`writes:a`), as loopy's; several dep_query attributes add up
        needsValue();
        attrs.depQueries = [...(attrs.depQueries ?? []), { match: value, span: valueAt() }];
        break;
      case 'nosync':
      case 'no_sync_with': // the spelling loopy prints, read back
        needsValue();
        // `id` or `id@scope`: the scope says which barriers are waived (missing: any)
        attrs.nosync = list().map((entry) => {
          const { pattern, scope } = parseNoSync(entry);
          if (pattern === '' || !NO_SYNC_SCOPES.includes(scope)) {
            throw new LoomError(
              `malformed nosync entry '${entry}' (expected 'id' or 'id@SCOPE' with SCOPE one of ${NO_SYNC_SCOPES.join(', ')})`,
              valueAt(),
            );
          }
          return entry;
        });
        break;
      case 'nosync_query': {
        // one match expression (match.ts), and the scope of the barriers it waives
        needsValue();
        const { pattern, scope } = parseNoSync(value);
        if (pattern.trim() === '' || !NO_SYNC_SCOPES.includes(scope)) {
          throw new LoomError(
            `malformed nosync_query '${value}' (expected 'MATCH' or 'MATCH@SCOPE' with SCOPE one of ${NO_SYNC_SCOPES.join(', ')})`,
            valueAt(),
          );
        }
        attrs.nosyncQueries = [...(attrs.nosyncQueries ?? []), { match: pattern, scope, span: valueAt() }];
        break;
      }
      case 'priority':
        needsValue();
        if (!/^-?\d+$/.test(value)) throw new LoomError(`priority must be an integer, got '${value}'`, valueAt());
        attrs.priority = Number(value);
        break;
      case 'if':
        needsValue();
        // loopy parses each condition as an expression (`if=a > 0:flag`), not only a name
        attrs.predicates = list().map((condition) => {
          try {
            return parseExpression(condition);
          } catch (e) {
            throw new LoomError(
              `'if' attribute takes conditions (names or comparisons) separated by ':', and '${condition}' is not one: ${(e as Error).message.split('\n')[0]}`,
              valueAt(),
            );
          }
        });
        break;
      case 'tags':
        needsValue();
        attrs.tags = list();
        break;
      case 'groups':
        needsValue();
        attrs.groups = list();
        break;
      case 'conflicts': // loopy's spelling of the attribute; conflicts_grp is the reference's
      case 'conflicts_grp':
        needsValue();
        attrs.conflictsWithGroups = list();
        break;
      case 'atomic':
        // loopy's `atomic=init` stores a value atomically; a bare `atomic` updates
        if (eq >= 0 && value !== 'init')
          throw new LoomError(
            `attribute 'atomic' takes no value (or loopy's 'init'), got '${value}'`,
            at(partStart, item.length),
          );
        if (eq >= 0) attrs.atomicInit = true;
        attrs.atomic = true;
        break;
      case 'async':
        // a copy into local memory that completes by the next barrier (transform/async-copies.ts)
        if (eq >= 0)
          throw new LoomError(`attribute 'async' takes no value, got '${value}'`, at(partStart, item.length));
        attrs.asyncCopy = true;
        break;
      case 'bulk':
        // an asynchronous copy of one element of a tile moved whole (transform/bulk-copies.ts)
        if (eq >= 0) throw new LoomError(`attribute 'bulk' takes no value, got '${value}'`, at(partStart, item.length));
        attrs.asyncCopy = true;
        attrs.bulkCopy = true;
        break;
      case 'mem_kind':
        needsValue();
        if (value !== 'local' && value !== 'global')
          throw new LoomError(`mem_kind must be 'local' or 'global', got '${value}'`, valueAt());
        attrs.memKind = value;
        break;
      default:
        throw new LoomError(
          `unknown instruction attribute '${key}' (known: ${ATTRIBUTE_NAMES.join(', ')})`,
          at(partStart, key.length),
        );
    }
  }
  return attrs;
}
