/**
 * `loom graph <file> [--kernel NAME] [--out graph.svg] [--dot]`: the dependency graph of a
 * kernel the file exports, as SVG (Graphviz, from the optional @hpcc-js/wasm-graphviz, laid
 * out in render-svg.ts) or as the DOT text core's `getDotDependencyGraph` writes.
 */
import { statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { getDotDependencyGraph, LoomError } from '@loom/core';
import type { ParsedArguments } from '../cli/args.ts';
import { kernelsOf, type NamedKernel } from '../stats/kernels-of.ts';
import { renderDotAsSvg } from './render-svg.ts';
import { GRAPH_COMMAND, type GRAPH_OPTIONS } from './usage.ts';

interface GraphArguments {
  readonly file: string;
  readonly kernel: string | undefined;
  /** Where to write; undefined: stdout (for --dot only). */
  readonly out: string | undefined;
  readonly dot: boolean;
}

/** The command's exit code: 0 written, 1 the file could not be written, 2 a usage mistake or a file without that kernel. */
export async function graphCommand(args: ParsedArguments<typeof GRAPH_OPTIONS>): Promise<number> {
  const parsed = graphArguments(args);
  if (typeof parsed === 'string') {
    console.error(`loom graph: ${parsed}\n\n${GRAPH_COMMAND.usage}`);
    return 2;
  }
  let text: string;
  try {
    const chosen = chooseKernel(await kernelsOf(parsed.file), parsed);
    const dot = getDotDependencyGraph(chosen.kernel);
    text = parsed.dot ? dot : await renderDotAsSvg(dot);
  } catch (e) {
    if (!(e instanceof LoomError)) throw e;
    console.error(`loom graph: ${e.message}`);
    return 2;
  }
  if (parsed.out === undefined) {
    console.log(text.replace(/\n$/, ''));
    return 0;
  }
  try {
    writeFileSync(parsed.out, text);
  } catch (e) {
    console.error(`loom graph: cannot write ${parsed.out}: ${(e as Error).message}`);
    return 1;
  }
  console.log(`wrote ${parsed.out}`);
  return 0;
}

function graphArguments({ values, positionals }: ParsedArguments<typeof GRAPH_OPTIONS>): GraphArguments | string {
  if (positionals.length > 1) return `one file at a time ('${positionals[0]}', then '${positionals[1]}')`;
  const file = positionals[0];
  if (file === undefined) return 'which file? (loom graph <file.ts>)';
  const dot = values.dot === true;
  // an SVG is never poured onto a terminal: it goes to graph.svg unless told otherwise
  const out = values.out ?? (dot ? undefined : 'graph.svg');
  // said before the file is loaded and the graph drawn, rather than after
  if (out !== undefined && !statSync(path.dirname(path.resolve(out)), { throwIfNoEntry: false })?.isDirectory())
    return `--out ${out}: the folder ${path.dirname(out)} does not exist`;
  return { file, kernel: values.kernel, out, dot };
}

/** The kernel --kernel names (by its export's name or its own), or the file's only one. */
function chooseKernel(kernels: readonly NamedKernel[], { file, kernel }: GraphArguments): NamedKernel {
  const names = kernels.map((k) => k.name).join(', ');
  if (kernels.length === 0)
    throw new LoomError(
      `${file} exports no kernel (LoopKernels, builders, or functions named ...Kernel taking no argument)`,
    );
  if (kernel === undefined) {
    if (kernels.length === 1) return kernels[0]!;
    throw new LoomError(`${file} exports ${kernels.length} kernels (${names}): say which with --kernel <name>`);
  }
  const matching = kernels.filter((k) => k.name === kernel || k.name === `${kernel}()` || k.kernel.name === kernel);
  if (matching.length === 1) return matching[0]!;
  if (matching.length === 0) throw new LoomError(`${file} exports no kernel named '${kernel}' (it exports ${names})`);
  throw new LoomError(
    `${file}: ${matching.length} kernels are named '${kernel}' (${matching.map((k) => k.name).join(', ')}): give the export's name`,
  );
}
