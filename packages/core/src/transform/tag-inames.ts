/**
 * `tagInames`: choose how each iname is implemented — a loop (`for`), a local or
 * group hardware axis (`l.N`, `g.N`), unrolled (`unr`), ILP (`ilp`, `ilp.unr`,
 * `ilp.seq`), a vector lane (`vec`), or like another iname (`like.i`), the next
 * unused hardware axis (`unused.l`, `unused.g`), or a local axis fitted to the work-group
 * (`l.auto`, as loopy's assign_automatic_axes fits it: automatic-axes.ts).
 */
import { checkOptionKeys, optionKeys } from '../option-keys.ts';
import { nameList } from '../names.ts';
import { InternalError, LoomError } from '../errors.ts';
import { tagToString, type InameTag, type LoopKernel } from '../kernel/model.ts';
import { matchIds } from '../kernel/dependencies.ts';
import { instructionsWithin, type Within } from './match.ts';
// a cycle through split-iname.ts (which tags the parts of a split), used only inside functions
import { assignAutomaticAxes } from './automatic-axes.ts';

/** The options tagInames reads; any other key is an error. */
const TAG_INAMES_OPTIONS = optionKeys<TagInamesOptions>()(['ignoreNonexistent']);

/** An iname tag as text (`'g.0'`, `'l.0'`, `'unr'`, `'ilp'`...); null or undefined: untagged. */
export type TagSpec = string | null | undefined;

export function parseTag(
  spec: TagSpec,
  iname: string,
  knl: LoopKernel,
  pending: ReadonlyMap<string, InameTag>,
): InameTag {
  if (spec === null || spec === undefined || spec === 'for' || spec === 'None') return { kind: 'for' };
  const text = spec.trim();
  let m: RegExpExecArray | null;
  if ((m = /^l\.(\d)$/.exec(text))) return { kind: 'local', axis: Number(m[1]) };
  if ((m = /^g\.(\d)$/.exec(text))) return { kind: 'group', axis: Number(m[1]) };
  if (text === 'unr') return { kind: 'unroll' };
  // loopy's unr_hint (and unr_hint.N) only asks the compiler to unroll (#pragma unroll), which
  // it may ignore: the loop stays a sequential loop, computing the same (test/peers/README.md)
  if (/^unr_hint(\.\d+)?$/.test(text)) return { kind: 'for' };
  if (text === 'ilp' || text === 'ilp.unr') return { kind: 'ilp', unrolled: true };
  if (text === 'ilp.seq') return { kind: 'ilp', unrolled: false };
  if (text === 'vec') return { kind: 'vec' };
  if (text === 'unused.l') return { kind: 'local', axis: nextUnusedAxis('local', knl, pending) };
  if (text === 'l.auto')
    throw new InternalError(`parseTag: 'l.auto' for '${iname}' is fitted by tagInames (automatic-axes.ts), not parsed`);
  if (text === 'unused.g') return { kind: 'group', axis: nextUnusedAxis('group', knl, pending) };
  if ((m = /^like\.([A-Za-z_]\w*)$/.exec(text))) {
    const other = m[1];
    if (!knl.inames.includes(other)) throw new LoomError(`tag '${text}' for '${iname}': there is no iname '${other}'`);
    return pending.get(other) ?? knl.inameTags.get(other) ?? { kind: 'for' };
  }
  throw new LoomError(
    `unknown iname tag '${text}' for '${iname}' (known: for, l.N, g.N, unr, unr_hint, ilp, ilp.unr, ilp.seq, vec, like.INAME, unused.l, unused.g, l.auto)`,
  );
}

/** The inames an entry names (a wildcard may name several); none is an error unless the caller said to skip such entries. */
function inamesNamed(knl: LoopKernel, written: string, options: TagInamesOptions): string[] {
  const named = matchIds(written, knl.inames);
  if (named.length > 0 || options.ignoreNonexistent) return named;
  const what = /[*?[]/.test(written) ? `no iname matches '${written}'` : `unknown iname '${written}'`;
  throw new LoomError(`tagInames: ${what} (inames: ${knl.inames.join(', ')})`);
}

function nextUnusedAxis(
  kind: 'local' | 'group',
  knl: LoopKernel | undefined,
  pending: ReadonlyMap<string, InameTag>,
): number {
  const used = new Set<number>();
  for (const tag of [...(knl?.inameTags.values() ?? []), ...pending.values()])
    if (tag.kind === kind) used.add(tag.axis);
  for (let axis = 0; axis < 3; axis++) if (!used.has(axis)) return axis;
  throw new LoomError(`no unused ${kind} axis is left (all three are taken)`);
}

/** Options of `tagInames`. */
export interface TagInamesOptions {
  /** Skip entries that name no iname (loopy's ignore_nonexistent); default: they are errors. */
  readonly ignoreNonexistent?: boolean;
}

/**
 * `tagInames(knl, { i_inner: 'l.0', i_outer: 'g.0' })` or `tagInames(knl, 'i_inner:l.0, i_outer:g.0')`.
 * An iname may be a wildcard (`'i*': 'unr'` tags every iname starting with `i`; at least one
 * must match). An iname that already has a different implementation tag cannot be retagged.
 * `'l.auto'` places an iname on a local axis of the work-group the kernel's `l.N` inames make,
 * fitted as loopy's assign_automatic_axes fits it (the one of smallest global stride on
 * `l.0`; one longer than its axis split into `<name>_outer`, a loop, and `<name>_inner`; in a
 * kernel without a work-group, a loop):
 * ```ts
 * knl = tagInames(knl, { i: 'l.0' }); // i of 16 values: a work-group of 16
 * knl = tagInames(knl, { f: 'l.auto' }); // f of 40 values, in another instruction: f_outer (a loop), f_inner on l.0
 * ```
 */
export function tagInames(
  knl: LoopKernel,
  tags: Readonly<Record<string, TagSpec>> | string | readonly (readonly [string, TagSpec])[],
  options: TagInamesOptions = {},
): LoopKernel {
  checkOptionKeys('tagInames', options, TAG_INAMES_OPTIONS);
  const entries: [string, TagSpec][] =
    typeof tags === 'string'
      ? tags
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean)
          .map((pair) => {
            const at = pair.indexOf(':');
            if (at < 0) throw new LoomError(`tagInames: expected 'iname:tag', got '${pair}'`);
            return [pair.slice(0, at).trim(), pair.slice(at + 1).trim()];
          })
      : Array.isArray(tags)
        ? tags.map(([a, b]) => [a, b] as [string, TagSpec])
        : Object.entries(tags as Record<string, TagSpec>);
  const pending = new Map<string, InameTag>();
  const expanded = entries.flatMap(([written, spec]) =>
    inamesNamed(knl, written, options).map((iname) => [iname, spec] as const),
  );
  // l.auto: fitted to the work-group once the other tags are in place (below)
  const auto = expanded.filter(([, spec]) => spec?.trim() === 'l.auto').map(([iname]) => iname);
  for (const [iname, spec] of expanded) {
    if (auto.includes(iname)) {
      const existing = pending.get(iname) ?? knl.inameTags.get(iname);
      if (spec?.trim() !== 'l.auto' || (existing && existing.kind !== 'for'))
        throw new LoomError(
          `tagInames: '${iname}' is ${existing && existing.kind !== 'for' ? `already tagged '${tagToString(existing)}'` : `also tagged '${spec}'`}; it cannot also be 'l.auto'`,
        );
      continue;
    }
    const tag = parseTag(spec, iname, knl, pending);
    const existing = pending.get(iname) ?? knl.inameTags.get(iname);
    if (existing && existing.kind !== 'for' && tag.kind !== 'for' && tagToString(existing) !== tagToString(tag)) {
      throw new LoomError(
        `tagInames: '${iname}' is already tagged '${tagToString(existing)}'; it cannot also be '${tagToString(tag)}'`,
      );
    }
    pending.set(iname, tag);
  }
  const inameTags = new Map(knl.inameTags);
  for (const [iname, tag] of pending) {
    if (tag.kind === 'for') inameTags.delete(iname);
    else inameTags.set(iname, tag);
  }
  const tagged = knl.with({ inameTags });
  // loopy keeps l.auto until a transformation calls assign_automatic_axes (and refuses to
  // preprocess a kernel that still has it); Loom has no pending tag, so it fits them now, by
  // the same rule, to the work-group the kernel's other local inames make
  return auto.length ? assignAutomaticAxes(tagged, auto) : tagged;
}

/** The kinds of iname tag. */
export type TagKind = InameTag['kind'];
const TAG_KINDS: readonly TagKind[] = ['for', 'local', 'group', 'unroll', 'ilp', 'vec', 'tensor'];

/**
 * `untagInames(knl, 'i')`: `i` is a plain loop again. With `kind` (`'local'`, `'group'`,
 * `'unroll'`, `'ilp'`, `'vec'`), only a tag of that kind is removed (loopy's `tag_type`);
 * an iname tagged otherwise keeps its tag. Wildcards as in `tagInames`.
 */
export function untagInames(knl: LoopKernel, inames: string | readonly string[], kind?: TagKind): LoopKernel {
  if (kind !== undefined && !TAG_KINDS.includes(kind))
    throw new LoomError(`untagInames: unknown tag kind '${String(kind)}' (known: ${TAG_KINDS.join(', ')})`);
  const list = nameList(inames);
  const inameTags = new Map(knl.inameTags);
  for (const written of list) {
    for (const iname of inamesNamed(knl, written, {})) {
      if (kind === undefined || inameTags.get(iname)?.kind === kind) inameTags.delete(iname);
    }
  }
  return knl.with({ inameTags });
}

/**
 * The first local (`'l'`) or group (`'g'`) axis that no iname of the instructions `within`
 * picks runs on, as a tag: `'l.1'`. (loopy's find_unused_axis_tag.)
 */
export function findUnusedAxisTag(knl: LoopKernel, kind: 'l' | 'g', within?: Within): `${'l' | 'g'}.${number}` {
  if (kind !== 'l' && kind !== 'g')
    throw new LoomError(`findUnusedAxisTag: the kind must be 'l' or 'g', got '${String(kind)}'`);
  const tagKind = kind === 'l' ? 'local' : 'group';
  const chosen = instructionsWithin(knl, within, 'findUnusedAxisTag: option within');
  const used = new Set<number>();
  for (const insn of knl.instructions) {
    if (!chosen.has(insn.id)) continue;
    for (const n of insn.withinInames) {
      const tag = knl.inameTags.get(n);
      if (tag?.kind === tagKind) used.add(tag.axis);
    }
  }
  const axis = [0, 1, 2].find((a) => !used.has(a));
  if (axis === undefined) throw new LoomError(`findUnusedAxisTag: every ${tagKind} axis (0, 1, 2) is used`);
  return `${kind}.${axis}`;
}
