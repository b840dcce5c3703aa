// `node --import ./test/support/hide-packages.mjs ...`: the packages named in $LOOM_HIDE_PACKAGES
// (comma-separated) cannot be found, as where they are not installed. Tests run the loom command
// this way to check what it does without its optional packages (ts-morph, @loom/computation).
import { register } from 'node:module';

register('./hide-packages-hook.mjs', import.meta.url, { data: (process.env.LOOM_HIDE_PACKAGES ?? '').split(',').filter(Boolean) });
