/** `loom graph`'s options and help, apart from the command (command.ts), loaded only to run it. */
import { GLOBAL_OPTIONS, type CommandSpec } from '../cli/args.ts';

export const GRAPH_OPTIONS = {
  ...GLOBAL_OPTIONS,
  kernel: { type: 'string', short: 'k', value: "a kernel's name (its export's or its own)" },
  out: { type: 'string', short: 'o', value: 'the file to write' },
  dot: { type: 'boolean' },
} as const;

export const GRAPH_COMMAND: CommandSpec<typeof GRAPH_OPTIONS> = {
  name: 'graph',
  summary: `graph <file.ts> [--kernel <name>] [--out <graph.svg>] [--dot]
      draws the dependency graph of a kernel the file exports (instructions, dependencies, loops)`,
  usage: `usage: loom graph <file.ts|.js> [--kernel <name>] [--out <graph.svg>] [--dot]

  Draws the dependency graph of a kernel the file exports (LoopKernels, builders, and
  functions named ...Kernel that take no argument), as loopy's show_dependency_graph does:
  each instruction a box with its code, each dependency an arrow from prerequisite to
  dependent, no_sync_with a dashed line, and, where the kernel linearizes (dtypes not needed),
  each loop a box around the instructions in it. --kernel picks the kernel by its export's
  name or its own when the file exports several. Writes an SVG to --out (default graph.svg),
  laid out by Graphviz from the optional package @hpcc-js/wasm-graphviz
  (npm install @hpcc-js/wasm-graphviz); --dot writes Graphviz's DOT text instead, to --out
  or, without it, to stdout, and needs no package.`,
  options: GRAPH_OPTIONS,
};
