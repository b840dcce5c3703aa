/**
 * The tags: ``domain`{ [i]: 0<=i<n }` `` and ``insn`out[i] = 2*a[i]` ``.
 *
 * A tag only assembles text; the kernel is read when `kernel()` builds it, and errors
 * found then point back here (see fragments.ts). JavaScript hands a tag the same strings
 * object every time one template runs, so the call site is captured once per template,
 * not once per call.
 */
import { perObject } from '@loom/core';
import { callSiteOf, pathOf, type CallSite } from './source-location.ts';
import {
  type Fragment,
  Template,
  interpolate,
  type DomainFragment,
  type FragmentKind,
  type InsnFragment,
  type Interpolation,
} from './fragments.ts';

const thisFile = pathOf(import.meta.url);
/** Per template's strings (kept while the code holding the template lives), its Template by tag. */
const templates = perObject((_: TemplateStringsArray): { [K in FragmentKind]?: Template<K> } => ({}));

function templateOf<K extends FragmentKind>(kind: K, strings: TemplateStringsArray): Template<K> {
  const byKind = templates(strings) as { [_ in FragmentKind]?: Template<K> };
  let template = byKind[kind];
  if (!template) {
    // a stack is cheap to capture and only formatted (source maps and all) when read
    const trace = new Error();
    template = byKind[kind] = new Template(kind, strings.raw, () => callSiteOf(trace, [thisFile]));
  }
  return template;
}

/** One loop domain in ISL syntax: ``domain`{ [i,j]: 0<=i,j<${n} }` ``. */
export function domain(strings: TemplateStringsArray, ...values: Interpolation[]): DomainFragment {
  return interpolate(templateOf('domain', strings), values);
}

/** Instructions, one per line, in loopy's textual syntax: ``insn`out[i] = ${k}*a[i]` ``. */
export function insn(strings: TemplateStringsArray, ...values: Interpolation[]): InsnFragment {
  return interpolate(templateOf('insn', strings), values);
}

/**
 * A fragment from template pieces whose position is already known: `loom typegen`
 * evaluates templates it read from a file, so it names the site itself.
 */
export function fragmentAt<K extends FragmentKind>(
  kind: K,
  raw: readonly string[],
  values: readonly unknown[],
  site: CallSite,
): Fragment<K> {
  return interpolate(new Template(kind, raw, () => site), values);
}
