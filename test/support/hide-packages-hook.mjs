// The resolve hook of hide-packages.mjs. A package is hidden by its name and by where it lives,
// since a tsconfig path mapping (tsx honours this repository's) may resolve @loom/x to its
// packages/x/src before the name reaches this hook. (A hidden package is never loaded, so none
// of its own modules asks for another.)
let hidden = [];

export function initialize(names) {
  hidden = names;
}

export async function resolve(specifier, context, nextResolve) {
  const named = hidden.find((name) => specifier === name || specifier.startsWith(`${name}/`));
  if (named) throw notFound(named, context.parentURL);
  const resolved = await nextResolve(specifier, context);
  const lives = hidden.find((name) => resolved.url.includes(name.startsWith('@loom/') ? `/packages/${name.slice('@loom/'.length)}/` : `/node_modules/${name}/`));
  if (lives) throw notFound(lives, context.parentURL);
  return resolved;
}

/** The error Node gives for a package that is not installed (isPackageNotFound knows it). */
function notFound(name, parentURL) {
  const error = new Error(`Cannot find package '${name}' imported from ${parentURL}`);
  error.code = 'ERR_MODULE_NOT_FOUND';
  return error;
}
