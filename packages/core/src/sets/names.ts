/**
 * Names the set library invents itself: existential variables (from `mod`, `floor`,
 * `exists`, projection) and helper variables of the algorithms.
 *
 * They contain a character that the domain parser never accepts in an identifier, so
 * they can never collide with a user's iname or parameter, and a module-wide counter
 * makes each one unique, so two sets can be intersected without renaming apart.
 */

let counter = 0;

export function freshName(hint = 'e'): string {
  counter += 1;
  return `${hint}~${counter}`;
}

export function isGeneratedName(name: string): boolean {
  return name.includes('~');
}
