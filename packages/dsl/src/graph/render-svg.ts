/**
 * `@loom/dsl/graph`: a kernel's dependency graph drawn as SVG, for a person to look at (loopy's
 * `show_dependency_graph`). Core's `getDotDependencyGraph` says what to draw, as Graphviz DOT
 * text; laying it out is Graphviz's job, here compiled to WebAssembly
 * (`@hpcc-js/wasm-graphviz`: no native code, in Node and in browsers alike). That package is
 * an optional peer of `@loom/dsl`, loaded only when a graph is drawn:
 *
 *   npm install @hpcc-js/wasm-graphviz
 *
 * ```ts
 * import { dependencyGraphSvg } from '@loom/dsl/graph';
 * const svg = await dependencyGraphSvg(addDtypes(knl, { a: 'float32' }));  // '<svg ...'
 * ```
 * `npx loom graph FILE` writes it to a file; the playground shows it beside the kernel.
 *
 * @module @loom/dsl/graph
 */
import {
  getDotDependencyGraph,
  isPackageNotFound,
  LoomError,
  type DotDependencyGraphOptions,
  type LoopKernel,
} from '@loom/core';

/** The package that lays graphs out, and what to type to install it. */
export const GRAPHVIZ_PACKAGE = '@hpcc-js/wasm-graphviz';

/** Graphviz's `dot -Tsvg`, loaded once. */
type DotToSvg = (dot: string) => string;
let loaded: Promise<DotToSvg> | undefined;

/**
 * `dot` (Graphviz's language) laid out and drawn as an SVG document by Graphviz's `dot`
 * layout. A LoomError says what to install when `@hpcc-js/wasm-graphviz` is not there, and
 * what Graphviz found wrong with text it cannot read.
 */
export async function renderDotAsSvg(dot: string): Promise<string> {
  loaded ??= loadGraphviz().catch((e: unknown) => {
    loaded = undefined; // installed later, a second call tries again
    throw e;
  });
  const toSvg = await loaded;
  try {
    return toSvg(dot);
  } catch (e) {
    throw new LoomError(`Graphviz cannot draw this graph: ${(e as Error).message ?? String(e)}`);
  }
}

/**
 * The kernel's dependency graph (`getDotDependencyGraph`: instructions, dependencies, loops
 * as clusters) drawn as SVG: one `<g class="node">` per instruction, titled by its id, and one
 * `<g class="edge">` per arrow.
 */
export async function dependencyGraphSvg(knl: LoopKernel, options?: DotDependencyGraphOptions): Promise<string> {
  return renderDotAsSvg(getDotDependencyGraph(knl, options));
}

async function loadGraphviz(): Promise<DotToSvg> {
  let module: typeof import('@hpcc-js/wasm-graphviz');
  try {
    module = await import('@hpcc-js/wasm-graphviz');
  } catch (e) {
    if (!isPackageNotFound(e, GRAPHVIZ_PACKAGE)) throw e;
    throw new LoomError(
      `drawing a dependency graph needs Graphviz, from the '${GRAPHVIZ_PACKAGE}' package, which is not installed: npm install ${GRAPHVIZ_PACKAGE} (or take the DOT text: getDotDependencyGraph, loom graph --dot)`,
    );
  }
  const graphviz = await module.Graphviz.load();
  return (dot) => graphviz.dot(dot, 'svg');
}
