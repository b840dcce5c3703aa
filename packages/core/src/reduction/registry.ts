/**
 * The registry of reduction operations with the built-ins loaded (operations.ts holds it, builtins.ts fills
 * it): what the expression parser, type inference and the function table ask about reductions. It sits
 * below `registerReduction` (register.ts), which parses the user's expressions and so needs the parser:
 * importing the registry from here, not from the package's index, keeps expr/parser.ts and
 * reduction/register.ts out of an import cycle.
 */
import './builtins.ts';

export {
  findReductionOperation,
  isReductionName,
  reductionNames,
  reductionOperation,
  reductionRegistryVersion,
  type ReductionOperation,
} from './operations.ts';
