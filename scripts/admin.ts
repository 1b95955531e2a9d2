/**
 * `npm run admin -- <command>`: the platform team's commands (./admin-command.ts lists them, and
 * docs/operations.md explains them). Exit 0, or 1 with the reason on stderr.
 */
import { runAdmin } from './admin-command.ts';

const code = await runAdmin(process.argv.slice(2), {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
});
if (code !== 0) process.exit(code);
