/**
 * The one Node this project supports is 24 (what Lambda runs; package.json `engines`). npm scripts
 * run on the Node 24 that `npm ci` installs as a devDependency whatever the shell has, but what a
 * reader types outside them (`node server.ts` in examples/webhook-receiver) runs on the shell's
 * Node, and Node 20 cannot run TypeScript. `npm start` says so once, in one sentence.
 */

export const SUPPORTED_NODE_MAJOR = 24;

const major = (version: string | undefined): number | undefined => {
  const match = /^v?(\d+)\./.exec(version ?? '');
  return match ? Number(match[1]) : undefined;
};

/**
 * The sentence for a Node other than 24: this process's, or the shell's (npm names the Node that
 * runs it in `npm_config_user_agent`, "npm/11.6.2 node/v20.19.0 linux x64 …"). Undefined on Node 24.
 */
export function nodeVersionNotice(
  own: string = process.version,
  userAgent: string | undefined = process.env['npm_config_user_agent'],
): string | undefined {
  const shell = /\bnode\/(v[\d.]+)/.exec(userAgent ?? '')?.[1];
  const other = [own, shell].find((v) => v !== undefined && major(v) !== SUPPORTED_NODE_MAJOR);
  if (!other) return undefined;
  return `This project supports Node ${SUPPORTED_NODE_MAJOR} (what Lambda runs) and this shell has Node ${other}: npm scripts still run on the Node ${SUPPORTED_NODE_MAJOR} that npm ci installed, but what you run yourself (node server.ts in examples/webhook-receiver) needs Node ${SUPPORTED_NODE_MAJOR} on your PATH (e.g. nvm install ${SUPPORTED_NODE_MAJOR}).`;
}
