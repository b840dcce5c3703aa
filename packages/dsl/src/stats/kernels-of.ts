/**
 * The kernels a module exports, for `loom stats`: `LoopKernel` values, builders (their
 * `.kernel`), and functions named `...Kernel` that take no argument (called to build one).
 */
import { existsSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import path from 'node:path';
import { isPackageNotFound, LoomError, LoopKernel } from '@loom/core';

export interface NamedKernel {
  /** The export's name (`statsKernel()` for a function). */
  readonly name: string;
  readonly kernel: LoopKernel;
}

/** Loads `file` (TypeScript through tsx, which must then be installed) and finds its kernels. */
export async function kernelsOf(file: string): Promise<NamedKernel[]> {
  const module = await importModule(file);
  const out: NamedKernel[] = [];
  for (const [name, value] of Object.entries(module)) {
    const direct = kernelIn(value);
    if (direct) out.push({ name, kernel: direct });
    else if (typeof value === 'function' && value.length === 0 && /kernel$/i.test(name)) {
      const built = kernelIn((value as () => unknown)());
      if (built) out.push({ name: `${name}()`, kernel: built });
    }
  }
  return out;
}

/** The module's exports; a TypeScript file is read through tsx. */
export async function importModule(file: string): Promise<Record<string, unknown>> {
  if (!/\.([mc]?tsx?|[mc]?js)$/.test(file))
    throw new LoomError(`${file}: give a TypeScript or JavaScript module (.ts, .js, .mts, .mjs...)`);
  if (!existsSync(file)) throw new LoomError(`${file}: no such file`);
  if (/\.[mc]?tsx?$/.test(file)) await typescriptLoader();
  return (await import(pathToFileURL(path.resolve(file)).href)) as Record<string, unknown>;
}

function kernelIn(value: unknown): LoopKernel | undefined {
  if (value instanceof LoopKernel) return value;
  const inner = (value as { kernel?: unknown } | null)?.kernel;
  return typeof value === 'object' && inner instanceof LoopKernel ? inner : undefined;
}

let registered = false;

/** tsx's loader, so that `import()` reads TypeScript (registered once). */
async function typescriptLoader(): Promise<void> {
  if (registered) return;
  try {
    const { register } = await import('tsx/esm/api');
    register();
    registered = true;
  } catch (e) {
    if (isPackageNotFound(e, 'tsx'))
      throw new LoomError(
        "reading a TypeScript file needs the 'tsx' package, which is not installed: npm install --save-dev tsx (or give a .js file)",
      );
    throw e;
  }
}
