/**
 * The host program as text, as loopy's `host_code()` shows it: the host loops and, inside,
 * each launch with its arguments and grid. Every target's language takes `//` comments, so
 * `GeneratedCode.toString()` appends it, commented, to the device code.
 */
import { printExpr } from '../expr/index.ts';
import type { HostStep } from './ast.ts';
import type { DeviceKernel } from './generated.ts';
import { printLocalSize } from './local-size.ts';

export function printHostProgram(kernels: readonly DeviceKernel[], steps: readonly HostStep[]): string {
  const lines: string[] = [];
  const walk = (items: readonly HostStep[], indent: string) => {
    for (const h of items) {
      if (h.kind === 'loop') {
        lines.push(
          `${indent}for (${h.iname} = ${printExpr(h.lower)}; ${h.iname} <= ${printExpr(h.upper)}; ${h.iname}++) {`,
        );
        walk(h.body, `${indent}  `);
        lines.push(`${indent}}`);
        continue;
      }
      const k = kernels[h.kernel];
      const groups = k.grid.groupCount.map(printExpr).join(', ');
      lines.push(
        `${indent}${k.entryPoint}(${k.parameters.map((p) => p.name).join(', ')});  // ${groups} groups of ${printLocalSize(k.grid.localSize)}`,
      );
    }
  };
  walk(steps, '');
  return lines.join('\n');
}

export function commented(text: string): string {
  return ['// host program:', ...text.split('\n').map((l) => `//   ${l}`)].join('\n');
}
