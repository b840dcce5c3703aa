// A private npm registry for the installation test: verdaccio on 127.0.0.1, on a port the system
// picks (printed as the first line of stdout), its storage in the directory given as argument.
// Anyone may publish; there is no uplink, so it serves what was published to it and nothing else.
// Usage: node registry-server.mjs <storage directory>
import { runServer } from 'verdaccio';

const storage = process.argv[2];
if (!storage) {
  console.error('usage: node registry-server.mjs <storage directory>');
  process.exit(2);
}
const app = await runServer({
  self_path: storage,
  storage,
  uplinks: {},
  packages: { '**': { access: '$all', publish: '$anonymous', unpublish: '$anonymous' } },
  log: { type: 'stdout', format: 'pretty', level: 'fatal' },
  web: { enable: false },
});
const server = app.listen(0, '127.0.0.1', () => process.stdout.write(`${server.address().port}\n`));
