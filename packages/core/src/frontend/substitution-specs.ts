/**
 * `substitutionRule(name, params, expression)`: a substitution rule built outside the
 * instruction text (loopy's `lp.SubstitutionRule`), for makeKernel's `substitutions` option,
 * where code that generates kernels keeps its rules apart from the instructions.
 */
import { LoomError } from '../errors.ts';
import { parseExpression } from '../expr/index.ts';
import type { Expr } from '../expr/nodes.ts';
import type { SubstitutionRule } from '../kernel/model.ts';
import { checkName, checkNames } from '../names.ts';

/**
 * A substitution rule, as `name(params) := expression` in the instruction text would make
 * it; the expression is text or an expression already built.
 *
 * @example
 * makeKernel('{ [i]: 0<=i<10 }', 'a[i] = foo() * i', {
 *   substitutions: { foo: substitutionRule('foo', [], '3.14') },
 * });
 */
export function substitutionRule(name: string, params: readonly string[], expression: string | Expr): SubstitutionRule {
  const where = `substitutionRule '${String(name)}'`;
  checkName(name, 'substitutionRule: the name');
  const names = checkNames(params, `${where}: the parameters`);
  const twice = names.find((p, k) => names.indexOf(p) !== k);
  if (twice !== undefined) throw new LoomError(`${where}: the parameter '${twice}' is named twice`);
  const body = typeof expression === 'string' ? parseExpression(expression) : expression;
  return Object.freeze({ name, params: Object.freeze(names), expression: body });
}

/**
 * The rules of makeKernel's `substitutions` option added to those of the text: each under
 * its own name, and none defined in both places (which of two bodies is meant is not for
 * Loom to guess).
 */
export function addOptionRules(
  rules: Map<string, SubstitutionRule>,
  given: Readonly<Record<string, SubstitutionRule>> | undefined,
): void {
  for (const [key, rule] of Object.entries(given ?? {})) {
    if (rule?.name !== key)
      throw new LoomError(
        `makeKernel: the substitution rule under '${key}' is named '${String(rule?.name)}' (option substitutions: each rule under its own name, substitutionRule('${key}', [...], ...))`,
      );
    if (rules.has(key))
      throw new LoomError(
        `makeKernel: the substitution rule '${key}' is defined both in the instructions and in the option substitutions`,
      );
    rules.set(key, rule);
  }
}
