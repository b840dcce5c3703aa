/**
 * JavaScript identifiers for Loom names.
 *
 * Loom names are Python-style identifiers, but a kernel may well call an array `new`,
 * `Math` or `loom`, and the generated code must neither fail to parse nor shadow the
 * globals and helpers it relies on. Such names get a `$` appended (`new` → `new$`);
 * characters JavaScript does not allow in identifiers are spelled `$<hex>$`. Loom
 * names never contain `$`, so the mapping is one-to-one and readable for every
 * ordinary name, which is printed as is.
 */

/** The parameters every kernel function receives before its own: group and local ids per axis. */
export const WORK_ITEM_PARAMS = ['gid0', 'gid1', 'gid2', 'lid0', 'lid1', 'lid2'] as const;

/** The parameter through which generated code reaches the runtime helpers (`loom.floorMod`). */
export const HELPERS_PARAM = 'loom';

const KEYWORDS = [
  'await', 'break', 'case', 'catch', 'class', 'const', 'continue', 'debugger', 'default', 'delete', 'do',
  'else', 'enum', 'export', 'extends', 'false', 'finally', 'for', 'function', 'if', 'import', 'in',
  'instanceof', 'new', 'null', 'return', 'super', 'switch', 'this', 'throw', 'true', 'try', 'typeof', 'var',
  'void', 'while', 'with', 'yield',
  // reserved in strict mode, which the generated code uses
  'let', 'static', 'implements', 'interface', 'package', 'private', 'protected', 'public', 'arguments', 'eval',
];

/** Globals the generated code refers to, which a kernel's names must not shadow. */
const GLOBALS = [
  'Math', 'Number', 'BigInt', 'Object', 'NaN', 'Infinity', 'undefined',
  'Int8Array', 'Uint8Array', 'Int16Array', 'Uint16Array', 'Int32Array', 'Uint32Array',
  'BigInt64Array', 'BigUint64Array', 'Float32Array', 'Float64Array',
];

const RESERVED = new Set<string>([...KEYWORDS, ...GLOBALS, ...WORK_ITEM_PARAMS, HELPERS_PARAM]);

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

export function jsName(name: string): string {
  if (IDENTIFIER.test(name)) return RESERVED.has(name) ? `${name}$` : name;
  const escaped = name.replace(/[^A-Za-z0-9_]/g, (c) => `$${c.codePointAt(0)!.toString(16)}$`);
  return /^[0-9]/.test(escaped) ? `$${escaped}` : escaped;
}
