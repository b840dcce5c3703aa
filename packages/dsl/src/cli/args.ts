/**
 * The `loom` command line's one argument parser: node:util's `parseArgs` (strict: every option
 * declared, with its type and short alias), and the messages a user reads when a command line
 * is wrong — an unknown option with a did-you-mean (core's `didYouMean`, as for unknown option
 * keys in the API), a value missing or given where none is taken. Each command declares its
 * options in a light module of its own (`<command>/usage.ts`), so that help and usage mistakes
 * are answered without loading the command, nor the optional packages it needs (ts-morph).
 */
import { parseArgs } from 'node:util';
import { didYouMean } from '@loom/core';

/** One option of a command: `--name`, `-short`. */
export interface OptionSpec {
  readonly type: 'boolean' | 'string';
  readonly short?: string;
  /** What a string option's value is, for the message when it is missing: `--project needs a tsconfig.json`. */
  readonly value?: string;
}

export type OptionSpecs = Readonly<Record<string, OptionSpec>>;

/** A command as the help and the parser know it; its work is in a module loaded only to run it. */
export interface CommandSpec<O extends OptionSpecs = OptionSpecs> {
  readonly name: string;
  /** Its line (or two) in `loom help`'s list. */
  readonly summary: string;
  /** What `loom help <name>` and `loom <name> --help` print. */
  readonly usage: string;
  readonly options: O;
}

/** The options every command takes, and the `loom` command itself before a command. */
export const GLOBAL_OPTIONS = {
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean', short: 'v' },
  verbose: { type: 'boolean' },
} as const satisfies OptionSpecs;

/** The values parsed: a string option's value, or whether a boolean one was given. */
export type OptionValues<O extends OptionSpecs> = {
  readonly [K in keyof O]?: O[K]['type'] extends 'string' ? string : boolean;
};

export interface ParsedArguments<O extends OptionSpecs> {
  readonly values: OptionValues<O>;
  readonly positionals: readonly string[];
}

/** Whether `--help`/`-h` is among the options (before a `--`): help is given even when the rest is wrong. */
export function asksForHelp(args: readonly string[]): boolean {
  const end = args.indexOf('--');
  return (end < 0 ? args : args.slice(0, end)).some((a) => a === '--help' || a === '-h');
}

/** The options and positionals of `args`, or what is wrong with them, in words for the user. */
export function parseArguments<O extends OptionSpecs>(
  args: readonly string[],
  options: O,
): ParsedArguments<O> | string {
  const mistake = findMistake(args, options);
  if (mistake) return mistake;
  try {
    const { values, positionals } = parseArgs({
      args: [...args],
      options: nodeOptions(options),
      strict: true,
      allowPositionals: true,
    });
    return { values: values as OptionValues<O>, positionals };
  } catch (e) {
    // findMistake says the mistakes parseArgs finds in words of its own; any other is said as parseArgs says it
    return (e as Error).message;
  }
}

function nodeOptions(options: OptionSpecs): Record<string, { type: 'boolean' | 'string'; short?: string }> {
  return Object.fromEntries(
    Object.entries(options).map(([name, o]) => [name, o.short ? { type: o.type, short: o.short } : { type: o.type }]),
  );
}

/**
 * The first mistake of the command line: parsed leniently, as tokens, each option checked
 * against its declaration. (Strict parseArgs finds the same mistakes, but says them for a
 * programmer: "Option '-p, --project <value>' argument missing".)
 */
function findMistake(args: readonly string[], options: OptionSpecs): string | undefined {
  const { tokens } = parseArgs({
    args: [...args],
    options: nodeOptions(options),
    strict: false,
    allowPositionals: true,
    tokens: true,
  });
  for (const token of tokens) {
    if (token.kind !== 'option') continue;
    const option = options[token.name];
    if (!option) {
      const known = Object.keys(options);
      const guess = token.rawName.startsWith('--') ? didYouMean(token.name, known) : undefined;
      return `unknown option '${token.rawName}'${guess ? ` (did you mean '--${guess}'?)` : ''}`;
    }
    const shown = token.rawName.startsWith('--') ? token.rawName : `${token.rawName} (--${token.name})`;
    if (option.type === 'boolean' && token.value !== undefined) return `${shown} takes no value ('${token.value}')`;
    // a value that looks like an option is one forgotten: `--project --check` (write --project=-x to mean it)
    if (
      option.type === 'string' &&
      (token.value === undefined || (!token.inlineValue && token.value.startsWith('-')))
    ) {
      return `${shown} needs ${option.value ?? 'a value'}`;
    }
  }
  return undefined;
}
