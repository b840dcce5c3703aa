// A module-resolution hook for running Loom from its repository (bin/loom.mjs registers it): it
// adds the "loom-source" condition, under which each @loom package's exports name its src/ files,
// as `node --conditions=loom-source` would.
export async function resolve(specifier, context, nextResolve) {
  return nextResolve(specifier, { ...context, conditions: [...context.conditions, 'loom-source'] });
}
